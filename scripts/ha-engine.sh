#!/usr/bin/env bash
# Installs the high-availability engine the fail-over test drives (PLATFORM_HA=1): Debian's
# pg_auto_failover for PostgreSQL 15 (`postgresql-15-auto-failover`, the `pg_autoctl` program,
# and `pg-auto-failover-cli`), with apt-get as root, when `pg_autoctl` is missing. Prints the
# path of `pg_autoctl`; exits non-zero when it cannot be installed.
set -euo pipefail

find_autoctl() {
  for p in /usr/lib/postgresql/15/bin/pg_autoctl "$(command -v pg_autoctl 2>/dev/null || true)"; do
    if [[ -n "$p" && -x "$p" ]]; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

if ! find_autoctl >/dev/null; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "pg_autoctl is missing; run this script as root to install postgresql-15-auto-failover" >&2
    exit 1
  fi
  echo "ha-engine: installing postgresql-15-auto-failover and pg-auto-failover-cli" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    postgresql-15-auto-failover pg-auto-failover-cli >/dev/null
fi
find_autoctl
