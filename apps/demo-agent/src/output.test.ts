import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { exitQuietlyOnBrokenPipe } from './output.js';

describe('exitQuietlyOnBrokenPipe', () => {
  it('exits 0 on EPIPE and rethrows other stream errors', () => {
    const stream = new EventEmitter();
    const codes: number[] = [];
    exitQuietlyOnBrokenPipe(stream, (code) => codes.push(code));
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(codes).toEqual([0]);
    expect(() => stream.emit('error', Object.assign(new Error('boom'), { code: 'EIO' }))).toThrow('boom');
    expect(codes).toEqual([0]);
  });
});
