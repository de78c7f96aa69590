#!/usr/bin/env bash
# Installs pgbouncer (Debian's package) when missing: the PostgreSQL tests put one, started by
# the test itself, in front of the test server in transaction pooling
# (platform-core/src/store/postgres/tests/pooler.rs). Needs root for apt-get; the package's own
# service is not used (the tests start their pgbouncer on a free port, as the postgres user).
set -euo pipefail

found() {
  command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]
}

if ! found; then
  if [ "$(id -u)" != 0 ]; then
    echo "pgbouncer is missing: run this script as root (it runs apt-get install -y pgbouncer)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer >/dev/null
  # The package may start its own service on port 6432; the tests do not need it.
  if command -v service >/dev/null 2>&1; then
    service pgbouncer stop >/dev/null 2>&1 || true
  fi
fi
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
"$bin" --version 2>&1 | sed -n 1p
