#!/usr/bin/env bash
# Gated test tier: the wrappers in front of real A-Mem and real Mem0 (python/tests: test_peers.py and the rest).
# Needs the venv of setup-env.sh (and, for A-Mem, the local LLM of `pnpm models:fetch`); without
# the venv it prints why and exits 0 (the tests inside skip with their own reasons).
#
#   bash python/scripts/test-peers.sh            # run the tier
#   MEM_DROPIN_SETUP=1 bash python/scripts/test-peers.sh   # make the venv first
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${MEM_PY_DROPIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mem/python-dropin}
if [ "${MEM_DROPIN_SETUP:-0}" = "1" ]; then
  PY=$(bash "$HERE/scripts/setup-env.sh")
else
  PY="$DIR/venv/bin/python"
fi
if [ ! -x "$PY" ] || ! "$PY" -c "import pytest" >/dev/null 2>&1; then
  echo "python real-peer tier: SKIPPED — no venv at $DIR/venv (run: bash python/scripts/setup-env.sh)"
  exit 0
fi
cd "$HERE"
set +e
"$PY" -m pytest tests -q -rs -p no:cacheprovider "$@"
rc=$?
set -e
# pytest exits 5 when it collected no test; that is a failure of this tier, not a skip.
exit $rc
