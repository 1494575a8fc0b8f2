#!/usr/bin/env node
/**
 * The local LLM server of the integration tier (ours): llama.cpp's OpenAI-compatible server
 * (llama-cpp-python[server], built by `pnpm models:fetch`) with SmolLM2-135M-Instruct (Q4_1 GGUF), on
 * 127.0.0.1 and a free port. Used by the vitest global setup (scripts/llm-global-setup.mjs) and by
 * hand:
 *
 *   node scripts/llm-server.mjs start   # prints `export MEM_LLM_BASE_URL=… MEM_LLM_API_KEY=… MEM_LLM_MODEL=…` and the PID
 *   node scripts/llm-server.mjs stop    # stops the server started above (PID file in the models folder)
 *
 * Paths: MEM_MODELS_DIR (default `${XDG_CACHE_HOME:-~/.cache}/mem/models`), `llama-venv/bin/python`
 * and `smollm2/SmolLM2-135M-Instruct.Q4_1.gguf` inside it. MEM_LLM_CTX sets the context (default 4096),
 * MEM_LLM_THREADS the threads (default 1).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Same rule as core's `defaultModelsDir` and scripts/models-fetch.mjs. */
export function modelsDir(env = process.env) {
  if (env.MEM_MODELS_DIR) return path.resolve(env.MEM_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mem', 'models');
}

export const MODEL_ALIAS = 'smollm2';

/** What the server needs, and what is missing (empty when ready). */
export function serverFiles(env = process.env) {
  const dir = modelsDir(env);
  const python = path.join(dir, 'llama-venv', 'bin', 'python');
  const gguf = path.join(dir, 'smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');
  const lib = path.join(dir, 'llama-venv', 'lib');
  const site = existsSync(lib) ? readdirSync(lib).map((v) => path.join(lib, v, 'site-packages', 'llama_cpp', 'server')).find((p) => existsSync(p)) : undefined;
  const server = site ?? path.join(lib, 'python3.*', 'site-packages', 'llama_cpp', 'server');
  const missing = [python, server, gguf].filter((f) => !existsSync(f));
  return { dir, python, gguf, missing };
}

/** A free TCP port on 127.0.0.1 (bind port 0, read it, release it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(url, child, logFile, timeoutMs) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`llama.cpp server exited with code ${child.exitCode} before it was ready; log ${logFile}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    try {
      const res = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`llama.cpp server not ready after ${timeoutMs} ms; log ${logFile}`);
}

/**
 * Start the server. Returns `{ url, baseURL, model, pid, logFile, stop() }`; `stop()` sends SIGTERM
 * to the PID (SIGKILL after 5 s) and resolves when it has exited. Throws naming the missing files
 * (run `pnpm models:fetch`) when the venv or the GGUF is absent.
 */
export async function startLlmServer({ env = process.env, logFile, readyTimeoutMs = 120_000, detached = false } = {}) {
  const { dir, python, gguf, missing } = serverFiles(env);
  if (missing.length) throw new Error(`the LLM server needs ${missing.join(' and ')}: run \`pnpm models:fetch\``);
  const logOf = (port) => logFile ?? path.join(dir, `llm-server-${port}.log`);
  mkdirSync(dir, { recursive: true });
  let lastError;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const log = logOf(port);
    const out = openSync(log, 'w');
    const child = spawn(
      python,
      ['-m', 'llama_cpp.server', '--model', gguf, '--model_alias', MODEL_ALIAS, '--host', '127.0.0.1', '--port', String(port), '--n_ctx', env.MEM_LLM_CTX ?? '4096', '--n_threads', env.MEM_LLM_THREADS ?? '1'],
      // one thread and passive OpenMP waits: on a shared 2-core machine spinning threads made prompt
      // evaluation ~100× slower (measured 515 ms per token with 2 threads under load)
      { stdio: ['ignore', out, out], env: { ...env, PYTHONUNBUFFERED: '1', OMP_WAIT_POLICY: env.OMP_WAIT_POLICY ?? 'PASSIVE' }, detached },
    );
    const url = `http://127.0.0.1:${port}`;
    const stop = () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        process.kill(child.pid, 'SIGTERM');
      });
    try {
      await waitReady(url, child, log, readyTimeoutMs);
      if (detached) child.unref();
      return { url, baseURL: `${url}/v1`, model: MODEL_ALIAS, pid: child.pid, logFile: log, stop };
    } catch (e) {
      lastError = e;
      await stop();
      // a port taken between freePort() and bind: try another one
      const text = readFileSync(log, 'utf8');
      if (!/address already in use|error while attempting to bind/i.test(text)) break;
    }
  }
  throw lastError;
}

async function cli() {
  const cmd = process.argv[2];
  const pidFile = path.join(modelsDir(), 'llm-server.pid');
  if (cmd === 'start') {
    const s = await startLlmServer({ detached: true });
    writeFileSync(pidFile, String(s.pid));
    process.stdout.write(`export MEM_LLM_BASE_URL=${s.baseURL} MEM_LLM_API_KEY=none MEM_LLM_MODEL=${s.model}\n# pid ${s.pid} (stop: node scripts/llm-server.mjs stop), log ${s.logFile}\n`);
    process.exit(0); // leave the server running
  } else if (cmd === 'stop') {
    if (!existsSync(pidFile)) throw new Error(`no PID file ${pidFile}`);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      process.kill(pid, 'SIGTERM');
      process.stdout.write(`stopped ${pid}\n`);
    } catch (e) {
      process.stdout.write(`${pid} was not running (${e.code})\n`);
    }
    rmSync(pidFile, { force: true });
  } else {
    process.stderr.write('usage: node scripts/llm-server.mjs start|stop\n');
    process.exit(2);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().catch((e) => {
    process.stderr.write(`llm-server: ${e.message}\n`);
    process.exit(1);
  });
}
