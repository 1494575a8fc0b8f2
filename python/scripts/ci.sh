#!/usr/bin/env bash
# CI for the Python package and the gate service without the monorepo (issue 34), run by .ci/run:
#  1. packs @mem/gate-vmf and @mem/gate-service (pnpm pack builds them), installs the tarballs with npm
#     into an empty folder outside the checkout and starts `npx mem-gate serve --port 0 --state gate.json`
#     there (the README's first command);
#  2. builds the wheel and the sdist of python/ (python -m build), installs the wheel into a fresh venv
#     (the README's second command) and runs python/tests against that service (MEM_GATE_URL); the
#     real-peer tests skip there (no A-Mem / Mem0 in this venv), every other test runs;
#  3. stops the service (SIGTERM to its process group; none of its processes may be left) and checks
#     that its state file was written.
# Needs the npm registry and PyPI. About 2-4 minutes on 2 shared cores.
#
#   bash python/scripts/ci.sh            # keeps nothing: everything happens in a temp folder
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=${PYTHON:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mem-python-ci-XXXXXX")
SVC_PID=""
cleanup() {
  # the service runs in its own process group (setsid): npx does not pass a signal on to the node
  # process it starts, so killing npx alone left mem-gate running
  if [ -n "$SVC_PID" ]; then kill -- -"$SVC_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
t0=$(date +%s)

echo "python ci: packing @mem/gate-vmf and @mem/gate-service"
mkdir -p "$WORK/tarballs" "$WORK/app"
for pkg in gate-vmf gate-service; do
  (cd "$ROOT/packages/$pkg" && pnpm pack --pack-destination "$WORK/tarballs" >/dev/null)
done
ls "$WORK/tarballs"

echo "python ci: npm install of the tarballs into an empty folder"
cd "$WORK/app"
printf '{ "name": "gate-app", "version": "1.0.0", "private": true }\n' > package.json
npm install --no-audit --no-fund --loglevel=error "$WORK"/tarballs/*.tgz >/dev/null

echo "python ci: npx mem-gate serve --port 0 --state gate.json"
setsid npx mem-gate serve --port 0 --state "$WORK/app/gate.json" > "$WORK/service.out" 2> "$WORK/service.err" &
SVC_PID=$!
URL=""
for _ in $(seq 1 120); do
  URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$WORK/service.out" | head -n1 || true)
  [ -n "$URL" ] && break
  if ! kill -0 "$SVC_PID" 2>/dev/null; then cat "$WORK/service.err" >&2; echo "python ci: mem-gate exited" >&2; exit 1; fi
  sleep 0.5
done
[ -n "$URL" ] || { cat "$WORK/service.err" >&2; echo "python ci: mem-gate printed no URL" >&2; exit 1; }
head -n1 "$WORK/service.out"

echo "python ci: wheel and sdist"
"$PY" -m venv "$WORK/build-venv"
"$WORK/build-venv/bin/pip" install -q --disable-pip-version-check build
"$WORK/build-venv/bin/python" -m build --outdir "$WORK/dist" "$ROOT/python" >/dev/null
ls "$WORK/dist"
WHEEL=$(ls "$WORK"/dist/mem_gate-*.whl)
SDIST=$(ls "$WORK"/dist/mem_gate-*.tar.gz)
# listings first: `tar … | grep -q` under pipefail fails when grep exits early and tar gets SIGPIPE
tar tzf "$SDIST" > "$WORK/sdist.txt"
unzip -l "$WHEEL" > "$WORK/wheel.txt"
grep -q 'src/mem_gate/py.typed' "$WORK/sdist.txt" || { echo "python ci: sdist lacks py.typed" >&2; exit 1; }
grep -q 'mem_gate/py.typed' "$WORK/wheel.txt" || { echo "python ci: wheel lacks py.typed" >&2; exit 1; }

echo "python ci: pip install the wheel into a fresh venv; pytest against the service"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WHEEL" pytest
cd "$ROOT/python"
MEM_GATE_URL="$URL" MEM_GATE_REQUIRED=1 "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider -rs tests
"$WORK/venv/bin/python" -c "import mem_gate, pathlib; p = pathlib.Path(mem_gate.__file__).parent; assert (p / 'py.typed').exists() and 'site-packages' in str(p), p; print('python ci: tested the installed wheel at', p)"

# SIGTERM to the whole group; mem-gate saves its state and exits; every process of the group must be gone
kill -TERM -- -"$SVC_PID"
for _ in $(seq 1 40); do kill -0 -- -"$SVC_PID" 2>/dev/null || break; sleep 0.25; done
if kill -0 -- -"$SVC_PID" 2>/dev/null; then ps -o pid,cmd -g "$SVC_PID" >&2 || true; echo "python ci: mem-gate did not stop on SIGTERM" >&2; exit 1; fi
wait "$SVC_PID" 2>/dev/null || true
SVC_PID=""
[ -s "$WORK/app/gate.json" ] || { echo "python ci: the service wrote no state file" >&2; exit 1; }
echo "python ci: ok in $(( $(date +%s) - t0 )) s"
