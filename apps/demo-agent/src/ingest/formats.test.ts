import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MemError, MemValidationError } from '@mem/core';
import { parseIngestFile, TURN_SPACING_SECONDS } from './formats.js';
import { parseLocomoDate, parseSessionDate } from './dates.js';
import { SAMPLE_CONVERSATION } from '../demo.js';
import { conversationObservations } from '../eval/locomo.js';
import { expectMemError } from '@mem/test-utils';

describe('session dates', () => {
  it('reads the LoCoMo stamp as UTC', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')?.toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(parseLocomoDate('12:05 am on 1 Sept, 2023')?.toISOString()).toBe('2023-09-01T00:05:00.000Z');
    expect(parseLocomoDate('noon on Friday')).toBeNull();
    // years 0000–0099 stay themselves (Date.UTC alone maps them to 1900–1999), like the ISO forms
    expect(parseLocomoDate('1:56 pm on 8 May, 0050')?.toISOString()).toBe('0050-05-08T13:56:00.000Z');
    expect(parseSessionDate('1:56 pm on 8 May, 0050')).toBe(parseSessionDate('0050-05-08T13:56:00Z'));
  });
  it('reads ISO with and without zone; rejects garbage with BAD_DATE', async () => {
    expect(parseSessionDate('2025-03-18T18:30:00+02:00')).toBe('2025-03-18T16:30:00.000Z');
    expect(parseSessionDate('2025-03-18 18:30')).toBe('2025-03-18T18:30:00.000Z');
    expect(parseSessionDate('2025-03-18')).toBe('2025-03-18T00:00:00.000Z');
    await expectMemError(() => parseSessionDate('next tuesday'), MemValidationError, 'BAD_DATE');
  });
  it('refuses dates that do not exist instead of rolling them over (BAD_DATE)', async () => {
    for (const bad of ['2024-02-30T00:00:00Z', '2023-02-29', '2024-04-31 10:00', '2024-01-01T24:00:00Z', '2024-01-01T10:60Z', '2024-13-01', '2:00 pm on 31 February, 2023', '13:05 pm on 1 May, 2023', '1:75 pm on 1 May, 2023']) {
      await expectMemError(() => parseSessionDate(bad), MemValidationError, 'BAD_DATE');
    }
    expect(parseSessionDate('2024-02-29T12:00:00Z')).toBe('2024-02-29T12:00:00.000Z');
    expect(parseLocomoDate('2:00 pm on 31 February, 2023')).toBeNull();
  });
});

describe('parseIngestFile', () => {
  it('detects LoCoMo: one group per conversation, dialogue ids as sourceId, captions appended', () => {
    const locomo = [
      {
        sample_id: 'conv-x',
        conversation: {
          speaker_a: 'A',
          speaker_b: 'B',
          session_1_date_time: '3:00 pm on 2 June, 2024',
          session_1: [
            { speaker: 'A', dia_id: 'D1:1', text: 'I painted a lake.', blip_caption: 'a photo of a painting' },
            { speaker: 'B', dia_id: 'D1:2', text: 'Lovely!' },
          ],
          session_2_date_time: '9:00 am on 5 June, 2024',
          session_2: [{ speaker: 'B', dia_id: 'D2:1', text: 'Back again.' }],
        },
      },
    ];
    const r = parseIngestFile(JSON.stringify(locomo));
    expect(r.format).toBe('locomo');
    expect(r.groups).toHaveLength(1);
    expect(r.groups[0].id).toBe('conv-x');
    const obs = r.groups[0].observations;
    expect(obs.map((o) => o.sourceId)).toEqual(['D1:1', 'D1:2', 'D2:1']);
    expect(obs[0].text).toBe('I painted a lake. [image: a photo of a painting]');
    expect(obs[0].observedAt).toBe('2024-06-02T15:00:00.000Z');
    expect(obs[2].observedAt).toBe('2024-06-05T09:00:00.000Z');
  });

  it('parses the bundled sample conversation (≥ 3 sessions, ≥ 60 turns, ordered stamps)', () => {
    const r = parseIngestFile(readFileSync(SAMPLE_CONVERSATION, 'utf8'));
    expect(r.format).toBe('sessions');
    const obs = r.groups[0].observations;
    expect(obs.length).toBeGreaterThanOrEqual(60);
    expect(new Set(obs.map((o) => o.metadata?.session)).size).toBeGreaterThanOrEqual(3);
    expect(obs[1].observedAt).toBe(new Date(Date.parse(obs[0].observedAt!) + TURN_SPACING_SECONDS * 1000).toISOString());
    const times = obs.map((o) => Date.parse(o.observedAt!));
    expect(times.every((t, i) => i === 0 || t > times[i - 1])).toBe(true);
  });

  it('parses JSONL and names the bad line; nothing is returned on error', () => {
    const ok = parseIngestFile('{"text":"a","speaker":"X","observedAt":"2025-01-01T10:00:00Z"}\n\n{"text":"b","sourceId":"s2"}\n');
    expect(ok.format).toBe('jsonl');
    expect(ok.groups[0].observations).toEqual([
      { text: 'a', speaker: 'X', observedAt: '2025-01-01T10:00:00.000Z', sourceId: undefined, metadata: undefined },
      { text: 'b', speaker: undefined, observedAt: undefined, sourceId: 's2', metadata: undefined },
    ]);
    let err: unknown;
    try {
      parseIngestFile('{"text":"a"}\n{"text":""}\n');
    } catch (e) {
      err = e;
    }
    expect(MemError.isInstance(err)).toBe(true);
    expect((err as MemError).code).toBe('INVALID_INPUT');
    expect((err as MemError).message).toMatch(/line 2/);
    expect(() => parseIngestFile('{"text":"a"}\n{not json}\n')).toThrow(/line 2: invalid JSON/);
  });

  it('JSONL epoch numbers: ms accepted; seconds and out-of-range numbers refused with BAD_DATE naming the line', () => {
    const ok = parseIngestFile('{"text":"a","observedAt":1735812000000}\n');
    expect(ok.groups[0].observations[0].observedAt).toBe('2025-01-02T10:00:00.000Z');
    for (const [value, pattern] of [
      ['1735812000', /line 2: .*epoch seconds/],
      ['0', /line 2: .*epoch seconds/],
      ['1e20', /line 2: .*out of range/],
    ] as const) {
      let err: unknown;
      try {
        parseIngestFile(`{"text":"a","observedAt":1735812000000}\n{"text":"b","observedAt":${value}}\n`);
      } catch (e) {
        err = e;
      }
      expect(MemError.isInstance(err), value).toBe(true);
      expect((err as MemError).code, value).toBe('BAD_DATE');
      expect((err as MemError).message, value).toMatch(pattern);
    }
  });

  it('parses a transcript with session headers', () => {
    const r = parseIngestFile(
      ['## Session 1 — 2025-03-07T19:00:00Z', 'Maya: I love espresso.', 'Sam: Of course you do.', '', '[2025-03-27 19:15]', 'Maya: I switched to green tea.'].join('\n'),
    );
    expect(r.format).toBe('transcript');
    const obs = r.groups[0].observations;
    expect(obs.map((o) => [o.speaker, o.text, o.observedAt, o.sourceId])).toEqual([
      ['Maya', 'I love espresso.', '2025-03-07T19:00:00.000Z', 'T1:1'],
      ['Sam', 'Of course you do.', '2025-03-07T19:00:30.000Z', 'T1:2'],
      ['Maya', 'I switched to green tea.', '2025-03-27T19:15:00.000Z', 'T2:1'],
    ]);
    expect(() => parseIngestFile('# Session 3 — sometime soon\nMaya: hi')).toThrow(/header without a readable date/);
    expect(() => parseIngestFile('   \n')).toThrow(/empty/);
  });
});

describe('LoCoMo ingest', () => {
  it('builds the same observations as the evaluation (caption and query appended, session stamp, D<s>:<t> ids)', () => {
    const sample = {
      sample_id: 'mine-1',
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_2_date_time: '9:15 am on 3 March, 2024',
        session_2: [{ speaker: 'Ben', dia_id: 'D2:1', text: 'Back from the coast!' }],
        session_1_date_time: '7:05 pm on 1 March, 2024',
        session_1: [
          { speaker: 'Ana', dia_id: 'D1:1', text: 'Look at my new kayak.', blip_caption: 'a red kayak on a beach', query: 'kayak' },
          { speaker: 'Ben', dia_id: 'D1:2', text: 'Nice! Where will you paddle?' },
        ],
      },
      qa: [],
    };
    const parsed = parseIngestFile(JSON.stringify([sample]));
    expect(parsed.format).toBe('locomo');
    const obs = parsed.groups[0]!.observations;
    expect(parsed.groups[0]!.id).toBe('mine-1');
    expect(obs.map((o) => o.sourceId)).toEqual(['D1:1', 'D1:2', 'D2:1']);
    expect(obs[0]!.text).toBe('Look at my new kayak. [image: a red kayak on a beach; kayak]');
    expect(obs[0]!.observedAt).toBe('2024-03-01T19:05:00.000Z');
    expect(obs[2]!.metadata).toEqual({ session: 2, turn: 1 });
    const evalTexts = conversationObservations(sample as any, 0).map((o) => o.text);
    expect(obs.map((o) => o.text)).toEqual(evalTexts);
  });

  it('rejects a sample without a session date with a typed error', () => {
    const sample = { conversation: { session_1: [{ speaker: 'Ana', dia_id: 'D1:1', text: 'hi' }] }, qa: [] };
    expect(() => parseIngestFile(JSON.stringify([sample]))).toThrow(/LoCoMo sample 0/);
  });
});
