import { STORE_CAPABILITIES, type MemoryStore, type StoreCapability } from './types.js';

/**
 * The capabilities whose methods `store` has (ours, issue 35): the ones it may list in
 * `capabilities` (see `STORE_CAPABILITIES`). A capability counts when all of its methods are functions.
 */
export function implementedCapabilities(store: MemoryStore): StoreCapability[] {
  const methods = store as unknown as Record<string, unknown>;
  return (Object.keys(STORE_CAPABILITIES) as StoreCapability[]).filter((c) => STORE_CAPABILITIES[c].every((m) => typeof methods[m] === 'function'));
}
