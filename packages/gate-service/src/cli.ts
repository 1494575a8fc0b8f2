#!/usr/bin/env node
/**
 * `mem-gate` — the gate service's command line (ours):
 *
 *   mem-gate serve [--port 8788] [--host 127.0.0.1] [--state gate.json] [--body-limit 2000000]
 *
 * Prints one line with the URL (`mem-gate serve: http://127.0.0.1:8788 · …`) and serves until
 * SIGINT / SIGTERM. `text` requests are embedded with @mem/core's offline GloVe embedder when
 * @mem/core is installed next to it; otherwise send `vector`s (what the Python wrappers do).
 * Exit codes: 0 stopped by a signal, 1 could not start (the message says why), 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import { startGateServer, type TextEmbedder } from './index.js';

const USAGE = 'usage: mem-gate serve [--port <n>] [--host <addr>] [--state <file>] [--body-limit <bytes>]';

function int(name: string, v: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`mem-gate: ${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(v)}\n${USAGE}\n`);
    process.exit(2);
  }
  return n;
}

/** @mem/core's offline embedder when @mem/core (and its GloVe vectors) is installed, else null. */
async function optionalTextEmbedder(): Promise<TextEmbedder | null> {
  try {
    const specifier = '@mem/core';
    const core = (await import(specifier)) as { createWinkEmbedder?: () => TextEmbedder };
    return core.createWinkEmbedder ? core.createWinkEmbedder() : null;
  } catch {
    return null;
  }
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { port: { type: 'string' }, host: { type: 'string' }, state: { type: 'string' }, 'body-limit': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    process.stderr.write(`mem-gate: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length !== 1 || positionals[0] !== 'serve') {
    process.stderr.write(`mem-gate: expected the command "serve"\n${USAGE}\n`);
    process.exit(2);
  }
  const embedder = await optionalTextEmbedder();
  let server;
  try {
    server = await startGateServer({
      port: int('--port', values.port, 8788, 0, 65_535),
      host: values.host ?? '127.0.0.1',
      statePath: values.state,
      bodyLimit: int('--body-limit', values['body-limit'], 2_000_000, 1),
      embedder,
    });
  } catch (e) {
    process.stderr.write(`mem-gate: ${(e as Error).message}\n`);
    process.exit(1);
  }
  const state = values.state ? `state ${values.state}${server.restored ? ' (restored)' : ' (new)'}` : 'state in memory only (pass --state <file> to persist)';
  process.stdout.write(`mem-gate serve: ${server.url}  ·  OpenAPI ${server.url}/openapi.json  ·  ${state}  ·  text ${embedder ? 'embedded by @mem/core (GloVe)' : 'off: send vectors'}\n`);
  const stop = (why: string) => {
    process.stderr.write(`mem-gate serve: stopping (${why})\n`);
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

void main(process.argv.slice(2));
