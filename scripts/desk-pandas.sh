#!/usr/bin/env bash
# A desk's reads in pandas: a served `platform` binary loaded over HTTP with German hourly
# prices and a forward curve, then read as Arrow into pandas (pyarrow) in local time, and every
# number checked against pandas' own computation from the data it sent
# (scripts/desk-pandas/desk.py). Exits non-zero on any failure.
#
# Needs python3 (with venv) and cargo. The pinned pandas and pyarrow are installed once into a
# virtual environment kept in a cache directory.
#
# Environment:
#   PLATFORM_BIN          the `platform` binary to serve (default: built here with cargo)
#   PLATFORM_PANDAS_VENV  the virtual environment (default: ~/.cache/platform-pandas/VERSIONS)
set -euo pipefail
cd "$(dirname "$0")/.."

PANDAS=3.1.1
PYARROW=26.0.1
venv=${PLATFORM_PANDAS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/platform-pandas/$PANDAS-$PYARROW}
mkdir -p "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")

# 1. pandas and pyarrow, pinned, in their own virtual environment (a finished install leaves a
#    marker).
if [[ ! -f "$venv/.installed" ]]; then
  echo "desk-pandas: installing pandas $PANDAS and pyarrow $PYARROW into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "pandas==$PANDAS" "pyarrow==$PYARROW"
  touch "$venv/.installed"
fi

# 2. The binary.
bin=${PLATFORM_BIN:-}
if [[ -z "$bin" ]]; then
  cargo build --quiet --locked -p platform-cli
  bin=target/debug/platform
fi

# 3. A fresh database with its admin token, served on a free port.
work=$(mktemp -d)
server=""
cleanup() {
  if [[ -n "$server" ]]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
token=$("$bin" init --db "$work/p.db" | tr -d '[:space:]')
PLATFORM_LOG=warn "$bin" serve --db "$work/p.db" --addr 127.0.0.1:0 2>"$work/server.log" &
server=$!
url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's/^listening on //p' "$work/server.log" | head -n 1)
  [[ -n "$url" ]] && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "desk-pandas: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "desk-pandas: the server did not say where it listens" >&2
  exit 1
fi

# 4. The desk's reads.
status=0
timeout 300 "$venv/bin/python" scripts/desk-pandas/desk.py "${url%/}" "$token" || status=$?

# 5. A panic the client could not see (a worker thread) fails the run too.
if grep -n -E 'panicked|internal error' "$work/server.log" >&2; then
  echo "desk-pandas: the server logged a panic or an internal error (above)" >&2
  status=1
fi
exit "$status"
