import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '@mem/core';
import { runMem } from '../test/mem-cli.js';

let dir: string;
let db: string;

const mem = runMem;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mem-cli-'));
  db = path.join(dir, 'memory.sqlite');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = 0;
});

describe('mem CLI', () => {
  it('ask says when memory holds nothing reliable on a question, with p(evidence), and quotes no unrelated memory (issue 37)', async () => {
    const file = path.join(dir, 'abstain.jsonl');
    const lines = ['I live in Galway, close to the harbour.', 'I teach chemistry at a secondary school.', 'I am allergic to shellfish.', 'My brother Cian moved to Toronto in May.', 'I swim in the sea every Saturday morning.', 'I gave up sugar in my coffee last year.'];
    writeFileSync(file, lines.map((text, i) => JSON.stringify({ text, speaker: 'Orla', observedAt: `2025-0${i + 1}-10T10:00:00Z` })).join('\n'));
    const adb = path.join(dir, 'abstain.sqlite');
    expect((await mem('--db', adb, '--user', 'orla', 'ingest', file)).code).toBe(0);
    const no = await mem('--db', adb, '--user', 'orla', 'ask', "What is the name of Orla's dog?", '-k', '3');
    expect(no.code).toBe(0);
    const answerLine = no.out.split('\n').find((l) => l.startsWith('Answer'))!;
    expect(answerLine).toMatch(/memory holds nothing on this \(p\(evidence\) 0\.\d\d\)$/);
    for (const t of lines) expect(answerLine).not.toContain(t);
    expect(no.out).toMatch(/^How sure: memory holds nothing reliable on this: it holds an answer with probability 0\.\d\d, below the abstention threshold/m);
    expect(no.out).toMatch(/^Closest memories, none an answer, best first/m);
    const yes = await mem('--db', adb, '--user', 'orla', 'ask', 'Where does Orla live?', '-k', '3');
    expect(yes.out.split('\n').find((l) => l.startsWith('Answer'))).toContain('Galway');
    expect(yes.out).toMatch(/^How sure: .*Memory holds an answer with probability \d\.\d\d/m);
    expect(yes.out).toMatch(/^Evidence, best first/m);
  });

  it('forget --all --user x erases the scope: no byte of its text in any file of the database folder; other scopes stay (issue 32)', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'mem-cli-forget-'));
    try {
      const file = path.join(folder, 'db', 'm.sqlite');
      const canary = 'Wendeline hid the Pellucidtower ledger behind the boiler.';
      const chat = path.join(folder, 'chat.jsonl');
      writeFileSync(chat, [canary, 'Wendeline likes rainy Sundays.'].map((text, i) => JSON.stringify({ text, speaker: 'Wen', observedAt: `2025-03-0${i + 1}T10:00:00Z` })).join('\n'));
      expect((await mem('--db', file, '--user', 'wen', '--json', 'ingest', chat)).code).toBe(0);
      expect((await mem('--db', file, '--user', 'other', '--json', 'ingest', chat)).code).toBe(0);
      const noScope = await mem('--db', file, '--json', 'forget', '--all');
      expect(noScope.code).not.toBe(0);
      expect(JSON.parse(noScope.out).error.code).toBe('SCOPE_MISSING');
      const r = await mem('--db', file, '--user', 'wen', '--json', 'forget', '--all');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ scope: { userId: 'wen' }, forgotten: 2 });
      // the other scope still holds the same sentence: move it away too, then scan
      expect(JSON.parse((await mem('--db', file, '--user', 'other', '--json', 'stats')).out).nodes).toBe(2);
      expect(JSON.parse((await mem('--db', file, '--user', 'other', '--json', 'forget', '--all')).out).forgotten).toBe(2);
      const dbDir = path.dirname(file);
      for (const f of readdirSync(dbDir)) {
        const bytes = readFileSync(path.join(dbDir, f));
        for (const needle of [canary, 'Pellucidtower', 'pellucidtower', 'Wendeline', 'wendeline']) expect(bytes.includes(Buffer.from(needle)), `${f}: ${needle}`).toBe(false);
      }
      const h = JSON.parse((await mem('--db', file, '--user', 'wen', '--json', 'history')).out);
      expect(h.filter((x: any) => x.op === 'FORGET')).toHaveLength(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('ingest refuses a file that is not UTF-8 (INVALID_INPUT, exit 2, the line named) instead of storing U+FFFD; nothing written', async () => {
    const file = path.join(dir, 'latin1.txt');
    writeFileSync(file, Buffer.concat([Buffer.from('Bob: I like tea.\nBob: the caf'), Buffer.from([0xe9]), Buffer.from(' on the corner is my favourite.\n')]));
    const udb = path.join(dir, 'utf8.sqlite');
    const r = await mem('--db', udb, '--user', 'bob', '--json', 'ingest', file);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/latin1\.txt is not UTF-8: line 2 /) });
    expect(existsSync(udb)).toBe(false);
  });

  it('a refused remember or ingest creates no database file (an empty one would pin the embedder of the failed call)', async () => {
    const fresh = path.join(dir, 'never-created.sqlite');
    const empty = await mem('--db', fresh, '--user', 'bob', '--json', 'remember', '   ');
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.out).error.code).toBe('TEXT_EMPTY');
    // break-it point 1: an empty question is TEXT_EMPTY too, as over HTTP and MCP
    const emptyAsk = await mem('--db', fresh, '--user', 'bob', '--json', 'ask', '');
    expect(emptyAsk.code).toBe(2);
    expect(JSON.parse(emptyAsk.out).error.code).toBe('TEXT_EMPTY');
    const longFile = path.join(dir, 'long.jsonl');
    writeFileSync(longFile, [JSON.stringify({ text: 'A short first line.' }), JSON.stringify({ text: 'word '.repeat(20_000) })].join('\n'));
    const long = await mem('--db', fresh, '--user', 'bob', '--json', 'ingest', longFile);
    expect(long.code).toBe(2);
    expect(JSON.parse(long.out).error).toMatchObject({ code: 'TEXT_TOO_LONG', message: expect.stringMatching(/^observation 1: /) });
    expect(readdirSync(dir).filter((f) => f.startsWith('never-created'))).toEqual([]);
  });

  it('ingests a transcript, answers, inspects, forgets and shows history (JSON), scoped', async () => {
    const file = path.join(dir, 'chat.txt');
    writeFileSync(file, ['## Session 1 — 2025-03-07T19:00:00Z', 'Maya: I love a double espresso every morning.', 'Sam: Of course you do.', '## Session 2 — 2025-03-27T19:00:00Z', 'Maya: I switched to green tea last week.'].join('\n'));
    const ingest = await mem('--db', db, '--user', 'maya', '--json', 'ingest', file);
    expect(ingest.code).toBe(0);
    const summary = JSON.parse(ingest.out);
    expect(summary.format).toBe('transcript');
    expect(summary.groups[0].observations).toBe(3);
    expect(summary.groups[0].add + summary.groups[0].update + summary.groups[0].noop).toBe(3);

    const again = JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'ingest', file)).out);
    expect(again.groups[0].duplicate).toBe(3); // same observations: nothing new written

    const ask = JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'ask', 'What does Maya drink now?', '-k', '2')).out);
    expect(ask.mode).toBe('evidence');
    expect(ask.evidence).toHaveLength(2);
    expect(ask.trace.routing).not.toBeNull();

    const other = JSON.parse((await mem('--db', db, '--user', 'someone-else', '--json', 'ask', 'What does Maya drink now?')).out);
    expect(other.evidence).toHaveLength(0); // scopes never leak

    const id = ask.evidence[0].id;
    const inspect = JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'inspect', id)).out);
    expect(inspect.node.id).toBe(id);
    expect(inspect.node.embedding).toBeUndefined();
    expect(inspect.history.map((h: any) => h.op)).toContain('ADD');

    expect(JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'forget', id)).out)).toEqual({ id, forgotten: true });
    const gone = await mem('--db', db, '--user', 'maya', '--json', 'inspect', id);
    expect(gone.code).toBe(3);
    expect(JSON.parse(gone.out).error.code).toBe('NODE_NOT_FOUND');
    // forgotten here, not stored elsewhere: the message says so and the scope hint is not shown
    const goneText = await mem('--db', db, '--user', 'maya', 'forget', id);
    expect(goneText.code).toBe(3);
    expect(goneText.err).toMatch(new RegExp(`Memory ${id} in user "maya" was forgotten at \\d{4}-\\d{2}-\\d{2}T`));
    expect(goneText.err).not.toMatch(/hint: memories are scoped/);
    const elsewhere = await mem('--db', db, '--user', 'someone-else', 'inspect', id);
    expect(elsewhere.err).toContain(`No memory ${id} in user "someone-else"`);
    // a scope holding no memory: the message names the store's scopes instead (break-it point 3)
    expect(elsewhere.err).toMatch(/nothing is stored under user "someone-else"; the store's scopes?\b.*\(--user maya\)/);

    const history = JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'history')).out);
    expect(history.map((h: any) => h.op)).toEqual(expect.arrayContaining(['ADD', 'FORGET']));

    const stats = JSON.parse((await mem('--db', db, '--user', 'maya', '--json', 'stats')).out);
    expect(stats.nodes).toBe(2);
  });

  it('ask prints plain words, short ids and labelled scores; --trace the full trace; --help a legend (issue 36)', async () => {
    const file = path.join(dir, 'readable.jsonl');
    writeFileSync(file, [
      JSON.stringify({ text: 'Yesterday I got a flat tire on the gravel path.', speaker: 'Maya', observedAt: '2025-03-18T18:30:00Z' }),
      JSON.stringify({ text: 'Because of the flat tire I missed the planning meeting.', speaker: 'Maya', observedAt: '2025-03-18T18:31:00Z' }),
      JSON.stringify({ text: 'The bridge on the river is closed for repairs.', observedAt: '2025-03-07T19:00:00Z' }),
    ].join('\n'));
    const rdb = path.join(dir, 'readable.sqlite');
    expect((await mem('--db', rdb, '--user', 'r', 'ingest', file)).code).toBe(0);
    const plain = await mem('--db', rdb, '--user', 'r', 'ask', 'Why did Maya miss the planning meeting?', '-k', '3');
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/^Why these memories: the search started from the memories closest to the question/m);
    expect(plain.out).toMatch(/^Why it stopped: [a-z]/m);
    expect(plain.out).toMatch(/^How sure: (fairly sure|unsure|not sure)\. The top memory is evidence for this question with probability \d\.\d\d/m);
    // issue 37: p(evidence) of the whole search is on the How sure line
    expect(plain.out).toMatch(/^How sure: .*Memory holds an answer with probability \d\.\d\d/m);
    expect(plain.out).not.toMatch(/multiHopNeed|recencyImportance|controller calls|budgets:/);
    const json = JSON.parse((await mem('--db', rdb, '--user', 'r', '--json', 'ask', 'Why did Maya miss the planning meeting?', '-k', '3')).out);
    for (const e of json.evidence) {
      // short id (last 8 characters), never the full id; a labelled score
      expect(plain.out).toContain(`${e.id.slice(-8)}  ${e.observedAt.slice(0, 10)}  `);
      expect(plain.out).not.toContain(e.id);
    }
    expect(plain.out).toMatch(/\(relevance \d\.\d\d/);
    // a memory without a speaker prints without a colon
    expect(plain.out).toMatch(/ {2}The bridge on the river is closed/);
    expect(plain.out).not.toMatch(/: The bridge|\s:\s/);

    const trace = await mem('--db', rdb, '--user', 'r', 'ask', 'Why did Maya miss the planning meeting?', '-k', '3', '--trace');
    expect(trace.out).toMatch(/^p\(evidence\) \d\.\d{3} · answerable$/m);
    expect(trace.out).toMatch(/^routing: semantic \.\d\d .*multiHopNeed/m);
    expect(trace.out).toMatch(/^budgets: .* stop \w+ · controller calls \d+/m);
    expect(trace.out).toContain(json.evidence[0].id);
    expect(trace.out).not.toContain('Why these memories');

    const help = await mem('ask', '--help');
    expect(help.code).toBe(0);
    for (const term of ['Why these', 'Why it stopped', 'How sure', 'short id', '--trace', 'similar meaning']) expect(help.out + help.err).toContain(term);

    // inspect / forget take the short id; an ambiguous start is a typed error (exit 2)
    const target = json.evidence[0].id as string;
    const inspect = JSON.parse((await mem('--db', rdb, '--user', 'r', '--json', 'inspect', target.slice(-8))).out);
    expect(inspect.node.id).toBe(target);
    const shared = json.evidence.map((e: any) => e.id as string).reduce((a: string, b: string) => {
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      return a.slice(0, i);
    });
    // ids are time-ordered: memories written together share their first characters (why short ids are the last 8)
    expect(shared.length).toBeGreaterThanOrEqual(8);
    const amb = await mem('--db', rdb, '--user', 'r', '--json', 'inspect', shared);
    expect(amb.code).toBe(2);
    expect(JSON.parse(amb.out).error.code).toBe('AMBIGUOUS_ID');
    // history shows the text of each memory, with its short id
    const history = await mem('--db', rdb, '--user', 'r', 'history');
    expect(history.out).toContain(`${target.slice(-8)} "`);
    expect(history.out).toContain('"Maya: Yesterday I got a flat tire on the gravel path."');
    expect(history.out).toContain('"The bridge on the river is closed for repairs."');
    expect(history.out).toMatch(/gate add: novelty/);
    const forget = await mem('--db', rdb, '--user', 'r', '--json', 'forget', target.slice(-8));
    expect(JSON.parse(forget.out)).toEqual({ id: target, forgotten: true });
    expect((await mem('--db', rdb, '--user', 'r', 'history')).out).toContain(`${target.slice(-8)} (forgotten: text removed)`);
  });

  it('reads zone-less JSONL and transcript times in --time-zone (UTC without it) (issue 36)', async () => {
    const jsonl = path.join(dir, 'tz.jsonl');
    writeFileSync(jsonl, `${JSON.stringify({ text: 'I planted tomatoes.', observedAt: '2025-07-25 02:00' })}\n${JSON.stringify({ text: 'Zoned stays zoned.', observedAt: '2025-07-25T02:00:00Z' })}\n`);
    const transcript = path.join(dir, 'tz.txt');
    writeFileSync(transcript, '## Session 1 — 2025-07-25 02:00\nMaya: I watered the tomatoes.\n');
    const times = async (args: string[], file: string) => {
      const tdb = path.join(dir, `tz-${Math.random().toString(36).slice(2)}.sqlite`);
      expect((await mem('--db', tdb, '--user', 'tz', ...args, 'ingest', file)).code).toBe(0);
      const ask = JSON.parse((await mem('--db', tdb, '--user', 'tz', '--json', 'ask', 'tomatoes', '-k', '5')).out);
      return ask.evidence.map((e: any) => e.observedAt).sort();
    };
    expect(await times(['--time-zone', 'Asia/Tokyo'], jsonl)).toEqual(['2025-07-24T17:00:00.000Z', '2025-07-25T02:00:00.000Z']);
    expect(await times([], jsonl)).toEqual(['2025-07-25T02:00:00.000Z', '2025-07-25T02:00:00.000Z']);
    expect(await times(['--time-zone', 'Asia/Tokyo'], transcript)).toEqual(['2025-07-24T17:00:00.000Z']);
    expect(await times([], transcript)).toEqual(['2025-07-25T02:00:00.000Z']);
    const bad = await mem('--db', ':memory:', '--user', 'tz', '--time-zone', 'Mars/Olympus', '--json', 'ingest', jsonl);
    expect(bad.code).toBe(2);
  });

  it('remember stores one statement like MCP remember: speaker, --observed-at in --time-zone, typed errors, nothing written on bad input (issue 36)', async () => {
    const rdb = path.join(dir, 'remember.sqlite');
    const first = await mem('--db', rdb, '--user', 'zoe', 'remember', 'I moved to Lisbon in May.', '--speaker', 'Zoe', '--observed-at', '2025-06-02T10:00', '--time-zone', 'Europe/Lisbon');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^Remembered [0-9a-f]{8} in user "zoe": Zoe: I moved to Lisbon in May\.\n/);
    expect(first.out).toContain('2025-06-02T09:00:00.000Z · gate add');
    const again = JSON.parse((await mem('--db', rdb, '--user', 'zoe', '--json', 'remember', 'I moved to Lisbon in May.', '--speaker', 'Zoe', '--observed-at', '2025-06-02T09:00:00Z')).out);
    expect(again.added).toHaveLength(1);
    expect(again.added[0]).toMatchObject({ text: 'I moved to Lisbon in May.', speaker: 'Zoe', observedAt: '2025-06-02T09:00:00.000Z', action: 'duplicate' });
    const other = JSON.parse((await mem('--db', rdb, '--user', 'zoe', '--json', 'remember', 'My sister visits in July.')).out);
    expect(other.added[0]).toMatchObject({ speaker: null, action: expect.stringMatching(/^(add|update|noop)$/) });
    expect(Date.now() - Date.parse(other.added[0].observedAt)).toBeLessThan(60_000); // default: now
    const ask = JSON.parse((await mem('--db', rdb, '--user', 'zoe', '--json', 'ask', 'Where did Zoe move?', '-k', '2')).out);
    expect(ask.evidence.map((e: any) => e.text)).toContain('I moved to Lisbon in May.');
    // zone-less without a zone, an empty text, an unknown zone: exit 2, nothing written
    for (const bad of [
      ['remember', 'Zone-less time.', '--observed-at', '2025-06-02T10:00'],
      ['remember', '   '],
      ['--time-zone', 'Mars/Olympus', 'remember', 'Unknown zone.'],
      // break-it point 2: before 1583 (a year 0000 sentinel) is BAD_DATE
      ['remember', 'Year zero.', '--observed-at', '0000-01-01T00:00:00Z'],
    ]) {
      const r = await mem('--db', rdb, '--user', 'zoe', '--json', ...bad);
      expect(r.code, bad.join(' ')).toBe(2);
    }
    const stats = JSON.parse((await mem('--db', rdb, '--user', 'zoe', '--json', 'stats')).out);
    expect(stats.nodes).toBe(2);
  });

  it('names the embedder and suggests --embedder when a database was built with another embedder', async () => {
    const other = path.join(dir, 'other-embedder.sqlite');
    const store = createSqliteStore({ path: other });
    await store.open({ schemaVersion: 1, embeddingModel: 'some-other-model', dimension: 384 });
    await store.close();
    const r = await mem('--db', other, '--user', 'maya', 'stats');
    expect(r.code).toBe(1);
    expect(r.err).toContain('[STORE_META_MISMATCH]');
    expect(r.err).toContain('"some-other-model"');
    expect(r.err).toMatch(/hint: this database was built with another embedder; pass the --embedder it was built with/);
  });

  it('exits 2 on usage errors (unknown flag or command, missing argument) and 0 on --help / --version', async () => {
    const flag = await mem('--db', db, 'stats', '--no-such-flag');
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/unknown option '--no-such-flag'/);
    expect((await mem('--db', db, 'no-such-command')).code).toBe(2);
    expect((await mem('--db', db, 'ask')).code).toBe(2);
    const json = await mem('--db', db, '--json', 'stats', '--bogus');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out).error).toEqual({ code: 'INVALID_INPUT', message: expect.stringMatching(/unknown option '--bogus'/) });
    expect((await mem('--version')).code).toBe(0);
    expect((await mem('--help')).code).toBe(0);
  });

  it('reports bad input as a typed error with exit code 2 and writes nothing', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"text":"fine"}\n{"text":""}\n');
    const r = await mem('--db', db, '--user', 'bad', '--json', 'ingest', bad);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error).toEqual({ code: 'INVALID_INPUT', message: expect.stringMatching(/line 2/) });
    const stats = JSON.parse((await mem('--db', db, '--user', 'bad', '--json', 'stats')).out);
    expect(stats.nodes).toBe(0);
    const text = await mem('--db', db, '--user', 'bad', 'ask', 'x', '-k', 'zero');
    expect(text.code).toBe(2);
    expect(text.err).toMatch(/error \[INVALID_INPUT\]: --k must be an integer/);
    // a folder as --db was SQLite's "unable to open database file" (STORE_UNAVAILABLE, exit 1)
    for (const cmd of [['stats'], ['remember', 'hello there']]) {
      const folder = await mem('--db', dir, '--user', 'bad', ...cmd);
      expect(folder.code).toBe(2);
      expect(folder.err).toContain(`error [INVALID_INPUT]: --db ${dir} is a folder, not a file`);
    }
    // a port above 65535 was Node's raw ERR_SOCKET_BAD_PORT (exit 1), for mem serve and mem gate serve alike
    for (const cmd of [['serve'], ['gate', 'serve']]) {
      const port = await mem('--db', db, ...cmd, '--port', '70000');
      expect(port.code).toBe(2);
      expect(port.err).toContain('error [INVALID_INPUT]: --port must be an integer from 0 to 65535, got "70000"');
    }
    const missing = path.join(dir, 'nothere.json');
    const gone = await mem('--db', db, '--user', 'bad', 'ingest', missing);
    expect(gone.code).toBe(2);
    expect(gone.err).toContain(`error [INVALID_INPUT]: cannot read input file ${missing}: no such file or directory`);
    expect(gone.err).not.toMatch(/ENOENT/);
    // a repeated conversation index would be evaluated and counted twice: refused before any work
    const twice = await mem('--db', db, 'eval', 'beam', '--data', dir, '--conversations', '1,2,1');
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(/error \[INVALID_INPUT\]: --conversations lists 1 twice in "1,2,1"/);
    const scope = await mem('--db', db, '--user', 'a|b', '--json', 'stats');
    expect(JSON.parse(scope.out).error.code).toBe('SCOPE_INVALID');
    // a scope flag given empty or only invisible characters is refused, never the default user
    for (const args of [['--user', '\u200b'], ['--user', ''], ['--agent', ' \ufeff'], ['--user', 'maya', '--namespace', '\u200b'], ['--user', 'maya', '--namespace', '']]) {
      const bad = await mem('--db', db, ...args, '--json', 'stats');
      expect(bad.code, JSON.stringify(args)).toBe(2);
      expect(JSON.parse(bad.out).error.code, JSON.stringify(args)).toBe('SCOPE_INVALID');
    }
  });

  it('ask --now is strict: zone-less needs --time-zone (MISSING_TIMEZONE, exit 2), loose dates are BAD_DATE', async () => {
    const zoneless = await mem('--db', ':memory:', '--user', 'now', '--json', 'ask', 'tea?', '--now', '2025-04-12 18:00');
    expect(zoneless.code).toBe(2);
    expect(JSON.parse(zoneless.out).error.code).toBe('MISSING_TIMEZONE');
    const loose = await mem('--db', ':memory:', '--user', 'now', '--json', 'ask', 'tea?', '--now', '12:00 pm on 12 April, 2025');
    expect(JSON.parse(loose.out).error.code).toBe('BAD_DATE');
    expect((await mem('--db', ':memory:', '--user', 'now', '--json', 'ask', 'tea?', '--now', '2025-04-12T18:00:00Z')).code).toBe(0);
    expect((await mem('--db', ':memory:', '--user', 'now', '--time-zone', 'Europe/Paris', '--json', 'ask', 'tea?', '--now', '2025-04-12 18:00')).code).toBe(0);
  });

  it('speaks human in text mode: scopes by name, not-found hint, rounded history, singular grammar', async () => {
    const file = path.join(dir, 'one.txt');
    writeFileSync(file, 'Maya: I adopted a cat named Miso.\n');
    const ingest = await mem('--db', db, '--user', 'human', '--run', 'r1', 'ingest', file);
    expect(ingest.code).toBe(0);
    expect(ingest.out).toContain('Ingested 1 observation from');
    expect(ingest.out).toContain('user "human", run "r1": 1 observation');
    expect(ingest.out).not.toMatch(/default\|/);

    const rows = JSON.parse((await mem('--db', db, '--user', 'human', '--run', 'r1', '--json', 'history')).out);
    const id = rows.find((h: any) => h.op === 'ADD').nodeId;
    const wrong = await mem('--db', db, '--user', 'human', 'inspect', id);
    expect(wrong.code).toBe(3);
    expect(wrong.err).toContain(`No memory ${id} in user "human"`);
    // the scope holds no memory: the error names the store's scopes, closest first (break-it point 3)
    expect(wrong.err).toContain('nothing is stored under user "human"; the store\'s scope');
    expect(wrong.err).toContain('user "human", run "r1" (--user human --run r1)');

    const second = path.join(dir, 'two.txt');
    writeFileSync(second, 'Maya: Miso the cat sleeps on my keyboard all day.\n');
    await mem('--db', db, '--user', 'human', '--run', 'r1', 'ingest', second);
    const full = (await mem('--db', db, '--user', 'human', '--run', 'r1', '--json', 'history')).out;
    expect(full).toMatch(/"novelty": \d\.\d{5,}/); // --json keeps full precision
    const history = await mem('--db', db, '--user', 'human', '--run', 'r1', 'history');
    expect(history.out).toContain('ADD');
    expect(history.out).not.toMatch(/\d\.\d{4,}/); // gate numbers rounded to 3 decimals in text
    const stats = await mem('--db', db, '--user', 'human', '--run', 'r1', 'stats');
    expect(stats.out).toMatch(/^user "human", run "r1" · sqlite/);
  });

  it('refuses a command-line text holding U+FFFD (what Node makes of bytes that are not UTF-8); --file and stdin carry it (break-it point 6)', async () => {
    const file = path.join(dir, 'fffd.sqlite');
    const r = await mem('--db', file, '--user', 'eve', '--json', 'remember', 'the caf\ufffd on the corner');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/argument 7 .* holds U\+FFFD.*--file/) });
    expect((await mem('--db', file, '--user', 'eve', 'ask', 'caf\ufffd?')).code).toBe(2);
    expect(existsSync(file)).toBe(false);
    const note = path.join(dir, 'fffd-note.txt');
    writeFileSync(note, 'The sign really shows \ufffd.\n', 'utf8');
    const ok = await mem('--db', file, '--user', 'eve', '--json', 'remember', '--file', note);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).added[0].text).toBe('The sign really shows \ufffd.');
    expect((await mem('--db', file, '--user', 'eve', '--json', 'remember', 'x', '--file', note)).code).toBe(2);
    // a NUL cannot come through argv; through a file it is refused like everywhere else (break-it point 2)
    writeFileSync(note, 'the code is 12\u000034\n', 'utf8');
    const nul = await mem('--db', file, '--user', 'eve', '--json', 'remember', '--file', note);
    expect(nul.code).toBe(2);
    expect(JSON.parse(nul.out).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('U+0000') });
  });

  it('a real process given Latin-1 bytes on its command line refuses them as not UTF-8 (break-it point 6)', () => {
    const file = path.join(dir, 'latin1-argv.sqlite');
    const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
    const r = spawnSync('/bin/sh', ['-c', `exec "$0" --import tsx --conditions=@mem/source src/cli.ts --db "$1" --user eve --json remember "$(printf 'the caf\\351 on the corner')"`, process.execPath, file], { cwd: app, encoding: 'utf8', env: { ...process.env, MEM_LLM_BASE_URL: '' } });
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/^Command-line argument 7 \("the caf\ufffd on the corner"\) is not UTF-8/) });
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it('a mistyped --user names the scopes the store holds, closest first, on every read (break-it point 3)', async () => {
    const file = path.join(dir, 'typo.sqlite');
    expect((await mem('--db', file, '--user', 'alice', 'remember', 'I keep the kayak at the harbour.')).code).toBe(0);
    expect((await mem('--db', file, '--user', 'bob', 'remember', 'Bob collects stamps.')).code).toBe(0);
    const closest = /nothing is stored under user "alcie"; the store's scopes, closest first, are: user "alice" \(--user alice\), user "bob" \(--user bob\)/;
    for (const args of [['ask', 'Where is the kayak?'], ['history'], ['stats'], ['forget', '--all']]) {
      const r = await mem('--db', file, '--user', 'alcie', ...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.err, args.join(' ')).toMatch(closest);
    }
    const inspect = await mem('--db', file, '--user', 'alcie', 'inspect', 'abcdefgh');
    expect(inspect.code).toBe(3);
    expect(inspect.err).toMatch(closest);
    const exported = await mem('--db', file, '--user', 'alcie', '--json', 'export');
    expect(exported.code).not.toBe(0);
    expect(JSON.parse(exported.out).error).toMatchObject({ code: 'SCOPE_NOT_FOUND', message: expect.stringMatching(/user "alice" \(--user alice\), user "bob" \(--user bob\)$/) });
    // the right scope: no such hint
    expect((await mem('--db', file, '--user', 'alice', 'ask', 'Where is the kayak?')).err).not.toMatch(/nothing is stored under/);
  });

  it('reads on a fresh machine create no database: ask says nothing is stored yet and how to add (break-it)', async () => {
    const fresh = path.join(dir, 'fresh', 'sub', 'memory.sqlite');
    const ask = await mem('--db', fresh, '--user', 'new', 'ask', 'What do I like?');
    expect(ask.code).toBe(0);
    expect(ask.out).toContain('(no memory matches this question)');
    expect(ask.err).toContain(`nothing has been stored yet: there is no memory database at ${fresh}`);
    expect(ask.err).toMatch(/mem ingest <file>/);
    expect(ask.err).toMatch(/pnpm demo/);
    expect(ask.err).not.toMatch(/memories are scoped/);
    const json = await mem('--db', fresh, '--user', 'new', '--json', 'ask', 'What do I like?');
    expect(JSON.parse(json.out).evidence).toEqual([]);
    expect(json.err).toContain('nothing has been stored yet');
    for (const read of [['history'], ['stats'], ['inspect', 'n_0000'], ['forget', 'n_0000']]) await mem('--db', fresh, '--user', 'new', ...read);
    expect(existsSync(fresh), 'no database file').toBe(false);
    expect(existsSync(path.join(dir, 'fresh')), 'no folder either').toBe(false);
    // an existing database with nothing in the scope: the hint names the scopes it holds (break-it point 3)
    const existing = path.join(dir, 'existing.sqlite');
    const note = path.join(dir, 'note.txt');
    writeFileSync(note, 'Maya: I like green tea.\n');
    expect((await mem('--db', existing, '--user', 'someone', 'ingest', note)).code).toBe(0);
    const other = await mem('--db', existing, '--user', 'nobody-here', 'ask', 'What do I like?');
    expect(other.err).toContain('hint: nothing is stored under user "nobody-here"; the store\'s scope is: user "someone" (--user someone)');
  });

  it('names an unreachable Neo4j plainly and does not claim MEM_NEO4J_USER is required', async () => {
    const free = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const saved = process.env.MEM_NEO4J_URI;
    try {
      delete process.env.MEM_NEO4J_URI;
      const missing = await mem('--store', 'neo4j', '--user', 'maya', 'stats');
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/needs MEM_NEO4J_URI/);
      expect(missing.err).toMatch(/MEM_NEO4J_USER defaults to "neo4j"/);
      process.env.MEM_NEO4J_URI = `bolt://127.0.0.1:${free}`;
      const down = await mem('--store', 'neo4j', '--user', 'maya', 'stats');
      expect(down.code).toBe(1);
      expect(down.err).toContain(`error [STORE_UNAVAILABLE]: cannot reach Neo4j at bolt://127.0.0.1:${free}: connection refused\n`);
    } finally {
      if (saved === undefined) delete process.env.MEM_NEO4J_URI;
      else process.env.MEM_NEO4J_URI = saved;
    }
  }, 30_000);
});
