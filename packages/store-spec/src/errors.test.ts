import { describe, expect, it } from 'vitest';
import {
  DimensionMismatchError,
  EmbedderError,
  ImportMismatchError,
  MemError,
  MemNotFoundError,
  MemValidationError,
  ScopeNotFoundError,
  ModelNotFoundError,
  StoreConflictError,
  StoreError,
  StoreMetaMismatchError,
  StoreUnavailableError,
} from './index.js';

// Issue 35: each error class answers isInstance for its own instances only (vercel/ai's marker
// pattern). Before, every subclass inherited MemError.isInstance, so StoreConflictError.isInstance
// was true for any @mem error.
const make = {
  MemValidationError: () => new MemValidationError('INVALID_INPUT', 'bad'),
  MemNotFoundError: () => new MemNotFoundError('missing'),
  StoreUnavailableError: () => new StoreUnavailableError('down'),
  StoreMetaMismatchError: () => new StoreMetaMismatchError('other embedder'),
  StoreConflictError: () => new StoreConflictError('race'),
  StoreError: () => new StoreError('broken'),
  EmbedderError: () => new EmbedderError('bad output'),
  ModelNotFoundError: () => new ModelNotFoundError('no model'),
  DimensionMismatchError: () => new DimensionMismatchError('384 vs 100'),
  ImportMismatchError: () => new ImportMismatchError('other embedder in the file'),
  ScopeNotFoundError: () => new ScopeNotFoundError('no such scope'),
};
const classes = {
  MemValidationError,
  MemNotFoundError,
  StoreUnavailableError,
  StoreMetaMismatchError,
  StoreConflictError,
  StoreError,
  EmbedderError,
  ModelNotFoundError,
  DimensionMismatchError,
  ImportMismatchError,
  ScopeNotFoundError,
};

describe('error classes: isInstance per class', () => {
  for (const [name, cls] of Object.entries(classes)) {
    it(`${name}.isInstance is true for its own errors only`, () => {
      for (const [other, build] of Object.entries(make)) {
        const e = build();
        expect(MemError.isInstance(e)).toBe(true);
        expect(cls.isInstance(e), `${name}.isInstance(new ${other})`).toBe(other === name);
      }
      expect(cls.isInstance(new MemError('INTERNAL', 'internal', 'base'))).toBe(false);
      expect(cls.isInstance(new Error('plain'))).toBe(false);
      expect(cls.isInstance(null)).toBe(false);
    });
  }

  it('recognises an error from another copy of the module (a plain object with the markers)', () => {
    const copy = { ...make.StoreConflictError() } as Record<symbol, unknown>;
    for (const s of Object.getOwnPropertySymbols(make.StoreConflictError())) copy[s] = true;
    expect(StoreConflictError.isInstance(copy)).toBe(true);
    expect(StoreError.isInstance(copy)).toBe(false);
  });
});
