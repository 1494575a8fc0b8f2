import { describe, expect, it } from 'vitest';
import { SERVER_HEAP_GROWING_PERCENT, serverHeapFlag } from './heap.js';

describe('mem serve heap sizing (issue 33 point 5)', () => {
  it('caps the old generation growing factor unless node was given its own', () => {
    expect(serverHeapFlag([])).toBe(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
    expect(serverHeapFlag(['--import', 'tsx', '--conditions=@mem/source'])).toBe(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
    expect(serverHeapFlag(['--heap-growing-percent=80'])).toBeNull();
    expect(serverHeapFlag(['--heap_growing_percent=80'])).toBeNull();
  });

});
