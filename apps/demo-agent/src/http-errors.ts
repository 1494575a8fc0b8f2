/**
 * JSON error bodies shared by the demo agent's memory API and the gate service: they live in
 * `@mem/gate-service/http` (ours; see there).
 */
export { STATUS_BY_CATEGORY, errorSchema, errorJson, createJsonApp, answerClientErrorsAsJson } from '@mem/gate-service/http';
