import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletion, startOpenAICompatibleServer, type MockOpenAIServer } from '@mem/system-one/testing';
import { MemError } from '@mem/core';
import { bleu1, createLlmJudge, createRubricJudge, parseJudgeVerdict, parseRubricVerdict, tokenF1 } from './answers.js';

type ChatHandler = NonNullable<NonNullable<Parameters<typeof startOpenAICompatibleServer>[0]>['chat']>;

/** A loopback OpenAI-compatible server for the describe block it is called in; `reply` answers each chat from its last message's text. */
function chatServer(reply: (user: string) => ReturnType<ChatHandler>): Pick<MockOpenAIServer, 'url' | 'requests'> {
  let server: MockOpenAIServer | undefined;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer({ chat: (body) => reply(String(body.messages.at(-1).content)) });
  });
  afterAll(() => server?.close());
  return {
    get url() {
      return server!.url;
    },
    get requests() {
      return server!.requests;
    },
  };
}

describe('tokenF1 / bleu1', () => {
  it('hand-computed cases', () => {
    // pred tokens: [she, went, to, paris] ; gold: [paris] -> P = 1/4, R = 1, F1 = 0.4
    expect(tokenF1('She went to Paris.', 'Paris')).toBeCloseTo(0.4, 12);
    expect(tokenF1('Paris', 'Paris')).toBe(1);
    expect(tokenF1('London', 'Paris')).toBe(0);
    expect(tokenF1('', 'Paris')).toBe(0);
    expect(tokenF1('anything', 'the')).toBeNull();
    // BLEU-1: pred [7, may, 2023] vs gold [7, may, 2023] -> 1; shorter pred [may] vs 3 gold -> P=1, BP=e^(1-3)
    expect(bleu1('7 May 2023', '7 May 2023')).toBe(1);
    expect(bleu1('May', '7 May 2023')).toBeCloseTo(Math.exp(-2), 12);
    // clipped counts: pred [paris, paris] vs gold [paris, france] -> P = 1/2, BP = 1 (equal length → exp(0))
    expect(bleu1('Paris Paris', 'Paris France')).toBeCloseTo(0.5, 12);
  });
  it('parses judge verdicts', () => {
    expect(parseJudgeVerdict('CORRECT')).toBe(1);
    expect(parseJudgeVerdict('wrong.')).toBe(0);
    expect(parseJudgeVerdict('I think it is correct')).toBe(1);
    expect(parseJudgeVerdict('maybe')).toBeNull();
  });
});

describe('createLlmJudge (loopback OpenAI-compatible server)', () => {
  const server = chatServer((user) => {
    if (user.includes('Generated answer: garbage')) return { json: chatCompletion('no idea') };
    if (user.includes('Generated answer: boom')) return { status: 500, json: { error: { message: 'down' } } };
    const ok = /Gold answer: (.*)\nGenerated answer: .*\1/i.test(user);
    return { json: chatCompletion(ok ? 'CORRECT' : 'WRONG') };
  });

  it('returns 1/0 from the endpoint and a typed error otherwise', async () => {
    const judge = createLlmJudge({ baseURL: server.url, apiKey: 'k', model: 'judge', maxRetries: 0 });
    expect(await judge.judge('Where?', 'Paris', 'She lives in Paris')).toBe(1);
    expect(await judge.judge('Where?', 'Paris', 'London')).toBe(0);
    const e1 = await judge.judge('Where?', 'Paris', 'garbage').catch((e) => e);
    expect(MemError.isInstance(e1) && e1.code).toBe('LLM_UNAVAILABLE');
    const e2 = await judge.judge('Where?', 'Paris', 'boom').catch((e) => e);
    expect(MemError.isInstance(e2) && e2.category).toBe('unavailable');
    const sent = server.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(sent[0].body.temperature).toBe(0);
  });
});

describe('createRubricJudge (loopback OpenAI-compatible server)', () => {
  const server = chatServer((user) => {
    if (user.includes('Answer: garbage')) return { json: chatCompletion('hmm') };
    const item = /Rubric item: (.*)\n/.exec(user)![1];
    const answer = /Answer: (.*)$/s.exec(user)![1];
    return { json: chatCompletion(answer.includes(item) ? '1' : item.startsWith('half') ? '0.5' : '0') };
  });

  it('scores each rubric item 0 / 0.5 / 1 and averages; the ideal answer stands in for a missing rubric', async () => {
    expect(parseRubricVerdict('0.5')).toBe(0.5);
    expect(parseRubricVerdict('Score: 1')).toBe(1);
    expect(parseRubricVerdict('.5')).toBe(0.5);
    expect(parseRubricVerdict('0')).toBe(0);
    expect(parseRubricVerdict('none')).toBeNull();
    const judge = createRubricJudge({ baseURL: server.url, apiKey: 'k', model: 'judge', maxRetries: 0 });
    expect(await judge.score({ question: 'q', answer: '', rubric: ['terrace', 'half sun', 'rain'] }, 'on the terrace')).toBeCloseTo(0.5, 12);
    expect(await judge.score({ question: 'q', answer: 'terrace' }, 'The answer conveys: terrace')).toBe(1);
    const e = await judge.score({ question: 'q', answer: '', rubric: ['x'] }, 'garbage').catch((x) => x);
    expect(MemError.isInstance(e) && e.category).toBe('unavailable');
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions')).every((r) => r.body.temperature === 0)).toBe(true);
  });
});
