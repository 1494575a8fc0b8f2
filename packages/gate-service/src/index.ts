/**
 * @mem/gate-service — the SAGE novelty gate (seed 001 §3, `@mem/gate-vmf`) as an HTTP service for
 * memory systems in any language (ours): route before you write, commit what you stored. The
 * `mem-gate serve` bin starts it; `startGateServer` / `createGateApp` embed it in a Node program.
 */
export { createGateApp, gateKeyProblem, scaledForNorm, type GateApp, type GateAppOptions, type TextEmbedder } from './app.js';
export { startGateServer, type GateServerOptions, type RunningGateServer } from './server.js';
export { writeStateAtomic, readState, removeStaleTempFiles, isProcessRunning } from './state.js';
export { ListenError } from './http.js';
