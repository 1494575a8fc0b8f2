// The HTTP gate service (`mem gate serve`): SAGE novelty gate over HTTP for memory systems in any language.
export { createGateApp, type GateApp, type GateAppOptions } from './app.js';
export { startGateServer, type GateServerOptions, type RunningGateServer } from './server.js';
export { writeStateAtomic, readState } from './state.js';
