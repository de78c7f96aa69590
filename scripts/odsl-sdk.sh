#!/usr/bin/env bash
# Runs the prior art's Python SDK (`odsl` from PyPI, pinned) against a served `platform` binary:
# the SDK's README examples (an object, a forward curve built with types.Curve, a time series
# built with types.TimeSeries) and the prior art's series with a "NaN" point, written with the
# SDK's `update` and read back with its `get`, every value checked (scripts/odsl-sdk/roundtrip.py).
# Exits non-zero on any failure.
#
# Needs python3 (with venv) and cargo. The pinned odsl (and what it needs: requests, msal) is
# installed once into a virtual environment kept in a cache directory.
#
# Environment:
#   PLATFORM_BIN        the `platform` binary to serve (default: built here with cargo)
#   PLATFORM_ODSL_VENV  the virtual environment (default: ~/.cache/platform-odsl/VERSION)
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.2.1
venv=${PLATFORM_ODSL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/platform-odsl/$VERSION}
mkdir -p "$(dirname "$venv")"
venv=$(cd "$(dirname "$venv")" && pwd)/$(basename "$venv")

# 1. The SDK, pinned, in its own virtual environment (a finished install leaves a marker).
if [[ ! -f "$venv/.installed-$VERSION" ]]; then
  echo "odsl-sdk: installing odsl $VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "odsl==$VERSION"
  touch "$venv/.installed-$VERSION"
fi

# 2. The binary.
bin=${PLATFORM_BIN:-}
if [[ -z "$bin" ]]; then
  cargo build --quiet --locked -p platform-cli
  bin=target/debug/platform
fi

# 3. A fresh database with its admin token, served under /api (the SDK's paths are
#    {url}{service}/v1/..., its url ending in /api/).
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
PLATFORM_LOG=warn "$bin" serve --db "$work/p.db" --addr 127.0.0.1:0 --base-path /api \
  2>"$work/server.log" &
server=$!
url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's/^listening on //p' "$work/server.log" | head -n 1)
  [[ -n "$url" ]] && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "odsl-sdk: the server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "odsl-sdk: the server did not say where it listens" >&2
  exit 1
fi
echo "odsl-sdk: serving $url/api"

# 4. The run, in the temporary directory (the SDK writes its token cache, token.odsl, into its
#    working directory when it exits).
script=$(pwd)/scripts/odsl-sdk/roundtrip.py
status=0
(cd "$work" && timeout 120 "$venv/bin/python" "$script" "${url%/}/api/" "$token") || status=$?

# 5. A panic the client could not see (a worker thread) fails the run too.
if grep -n -E 'panicked|internal error' "$work/server.log" >&2; then
  echo "odsl-sdk: the server logged a panic or an internal error (above)" >&2
  status=1
fi
exit "$status"
