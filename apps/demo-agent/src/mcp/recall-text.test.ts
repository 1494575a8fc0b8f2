// The text of MCP `recall` that a host model reads (issue 37): p(evidence) on every result, and an
// abstention said in words so the model does not answer from an unrelated memory.
import { describe, expect, it } from 'vitest';
import type { EvidenceItem } from '../evidence.js';
import { recallText } from './server.js';

const item = (id: string, text: string): EvidenceItem => ({ id, text, speaker: 'Tomas', observedAt: '2026-02-14T10:00:00.000Z', eventTime: null, sourceId: null, score: 0.3, via: [], status: 'current', supersededBy: null });
const ev = [item('n1', 'I have a peanut allergy, so I always check labels.'), item('n2', 'I live in Dublin.')];

describe('recallText', () => {
  it('says memory holds nothing reliable, with the p, when the search abstained', () => {
    const t = recallText(ev, { answerable: false, pEvidence: 0.123 }, 'user "tomas"');
    expect(t.split('\n')[0]).toBe('memory holds nothing reliable on this (p(evidence) 0.12, below the abstention threshold): none of these memories answers it; do not answer from them. Closest memories:');
    expect(t.split('\n')[1]).toBe('1. [n1] 2026-02-14 Tomas: I have a peanut allergy, so I always check labels.');
  });

  it('gives p(evidence) on an answerable result too', () => {
    const t = recallText(ev, { answerable: true, pEvidence: 0.934 }, 'user "tomas"');
    expect(t.split('\n')[0]).toBe('p(evidence) 0.93 that these memories hold the answer; best first:');
    expect(t).toContain('2. [n2] 2026-02-14 Tomas: I live in Dublin.');
  });

  it('lists the evidence alone when the retriever gives no p, and names the scope when nothing matched', () => {
    expect(recallText(ev, {}, 'user "tomas"').split('\n')[0]).toMatch(/^1\. \[n1\]/);
    expect(recallText([], { answerable: false, pEvidence: 0.1 }, 'user "tomas"')).toBe('(no memory in user "tomas" matches this query)');
  });
});
