import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../types.js';
import { createSqliteStore } from '../store/index.js';
import { createMemory } from './memory.js';
import { compareHistory, orderHistory } from './history-order.js';
import { createWinkEmbedder } from '../embed/index.js';

const scope = { namespace: 'default', userId: 'ola', agentId: '', runId: '' };
const row = (seq: number, op: HistoryEntry['op'], nodeId: string | null, at: string, data: Record<string, unknown> = {}): HistoryEntry => ({ seq, scope, op, nodeId, at, data });

describe('orderHistory (break-it point 5): by time, then a write row before later events of the same instant, then seq', () => {
  it('puts ADD before the OBSOLETE row an older version appended first in the same batch', () => {
    const t = '2025-01-01T10:00:00.000Z';
    const rows = [row(1, 'ADD', 'a', '2025-01-01T09:00:00.000Z'), row(2, 'OBSOLETE', 'a', t, { obsoleteBy: 'b' }), row(3, 'ADD', 'b', t), row(4, 'RELATE', null, t), row(5, 'FORGET', 'a', '2025-01-02T00:00:00.000Z')];
    expect(orderHistory(rows).map((h) => h.seq)).toEqual([1, 3, 2, 4, 5]);
    expect(rows.map((h) => h.seq)).toEqual([1, 2, 3, 4, 5]); // input unchanged
  });

  it('orders by time first, whatever the seq, and by seq among rows of one rank and instant', () => {
    const rows = [row(7, 'ADD', 'late', '2025-03-01T00:00:00.000Z'), row(8, 'ADD', 'early', '2025-02-01T00:00:00.000Z'), row(2, 'UPDATE', 'y', '2025-02-01T00:00:00.000Z')];
    expect(orderHistory(rows).map((h) => h.seq)).toEqual([2, 8, 7]);
    expect(compareHistory(rows[0]!, rows[0]!)).toBe(0);
  });

  it('Memory.history shows a store written in the old order (OBSOLETE first) with the ADD first', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    const embedder = createWinkEmbedder();
    const m = createMemory({ store, embedder });
    const a = await m.add({ text: 'I live in Porto.', scope: { userId: 'ola' }, observedAt: '2025-01-01T10:00:00Z' });
    const t = '2030-01-01T00:00:00.000Z';
    // an older writer's batch: OBSOLETE appended before the ADD of the memory that superseded it
    await store.write({ scope, history: [{ scope, op: 'OBSOLETE', nodeId: a.node.id, at: t, data: { obsoleteBy: 'b' } }, { scope, op: 'ADD', nodeId: 'b', at: t, data: {} }] });
    const stored = await store.history(scope);
    expect(stored.slice(-2).map((h) => h.op)).toEqual(['OBSOLETE', 'ADD']);
    expect((await m.history({ scope: { userId: 'ola' } })).slice(-2).map((h) => h.op)).toEqual(['ADD', 'OBSOLETE']);
    await m.close();
  });
});
