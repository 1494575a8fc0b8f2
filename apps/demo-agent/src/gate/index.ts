// The HTTP gate service (`mem gate serve`) lives in @mem/gate-service (its bin: `mem-gate serve`).
export { createGateApp, startGateServer, writeStateAtomic, readState, type GateApp, type GateAppOptions, type GateServerOptions, type RunningGateServer } from '@mem/gate-service';
