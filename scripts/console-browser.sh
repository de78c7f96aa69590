#!/usr/bin/env bash
# The console in a real browser: Debian's Chromium, headless, driven over the DevTools protocol
# by playwright-core (scripts/console-browser/drive.mjs) against `platform serve` on a fresh
# database with sample data. Signs in (with a token, and from an address with Basic
# credentials), opens every page, overrides a failed record from its page
# and saves a screenshot of each page into target/console-shots/.
#
# Installs what it needs when missing: Debian's chromium (apt-get, as root) and the pinned
# playwright-core (npm ci, from scripts/console-browser/package-lock.json). Builds the binary
# unless PLATFORM_BIN names one. Prints "test result: ok. N passed; M failed" like cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing Debian's chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v node >/dev/null 2>&1; then
  echo "== installing Debian's nodejs and npm"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -d scripts/console-browser/node_modules/playwright-core ]; then
  echo "== npm ci (playwright-core, pinned)"
  (cd scripts/console-browser && npm ci --no-audit --no-fund --loglevel=error)
fi

bin=${PLATFORM_BIN:-}
if [ -z "$bin" ]; then
  cargo build --locked -q -p platform-cli --bin platform
  bin="${CARGO_TARGET_DIR:-$root/target}/debug/platform"
fi

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

db="$work/console.db"
token=$("$bin" init --db "$db" 2>"$work/init.log" | grep -o 'pt_[0-9a-f]*' | head -1) \
  || { echo "platform init failed ($bin)"; cat "$work/init.log"; exit 2; }
umask 077
printf '%s' "$token" > "$work/token"
"$bin" serve --db "$db" --addr 127.0.0.1:0 --log-format json 2> "$work/serve.log" &
server=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'listening on http://[0-9.:]*' "$work/serve.log" | head -1 | sed 's/listening on //') || true
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start"; cat "$work/serve.log"; exit 2; }

# Sample data: a year of business-day NBP prices with a spike last Friday that a check fails, a
# forward curve on two ondates, an hourly Berlin series across a clock change, half-hourly GB
# power over the spring change, an automation that keeps mail in the outbox.
H="Authorization: Bearer $token"
# A refused set-up request fails the step saying which one, with the answer and the server's log.
post() {
  local out
  if ! out=$(curl -sS --fail-with-body -H "$H" -H 'Content-Type: application/json' -X POST "$url$1" -d "$2" 2>&1); then
    echo "FAILED: setting up the sample data: POST $1: $out"
    tail -n 20 "$work/serve.log"
    echo "test result: FAILED. 0 passed; 1 failed; 0 ignored"
    exit 1
  fi
}
spike=$(date -u -d 'last friday' +%F)
# The business day on or before a day (`date -d` words): the series' calendar is BUSINESS, so a
# point on a weekend is refused.
business_day() {
  local d
  d=$(date -u -d "$1" +%F)
  while [ "$(date -u -d "$d" +%u)" -gt 5 ]; do d=$(date -u -d "$d - 1 day" +%F); done
  echo "$d"
}
data=""
for i in $(seq 365 -1 1); do
  d=$(date -u -d "$i days ago" +%F)
  if [ "$(date -u -d "$d" +%u)" -le 5 ]; then
    if [ "$d" = "$spike" ]; then v=250; else v="$((70 + i % 11)).$((i % 4 * 25))"; fi
    data="$data{\"time\": \"$d\", \"value\": $v},"
  fi
done
post /object/v1 '{"_id": "NBP", "name": "National Balancing Point", "country": "GB", "classification": "gas"}'
post /object/v1 "{\"_id\": \"NBP\", \"SPOT\": {\"_type\": \"VarTimeSeries\", \"calendar\": \"BUSINESS\",
  \"timezone\": \"Europe/London\", \"currency\": \"GBP\", \"units\": \"therm\", \"data\": [${data%,}]}}"
post /object/v1 "{\"_id\": \"NBP\", \"SPOT\": {\"_type\": \"VarTimeSeries\", \"calendar\": \"BUSINESS\",
  \"timezone\": \"Europe/London\", \"currency\": \"GBP\", \"units\": \"therm\",
  \"data\": [{\"time\": \"$(business_day '30 days ago')\", \"value\": 90}]}}"
post /automation/v1 '{"target": "platform.email", "properties": {"to": "desk@example.com",
  "subject": "Data failed validation", "attachment": false},
  "conditions": [{"service": "data", "id": "NBP:SPOT", "action": "invalid"}]}'
post /validationconfig/v1 '{"_id": "NBP:SPOT", "kind": "timeseries",
  "checks": [{"name": "Range", "expression": "between(value, 0, 200)", "severity": "severe"},
             {"name": "Stale", "expression": "run_length() < 5", "severity": "warning"}],
  "options": {"writeStatus": true}}'
post '/validation/v1?_function=run' "{\"target\": \"NBP:SPOT\", \"from\": \"$(date -u -d '60 days ago' +%F)\"}"
d1=$(date -u -d '3 days ago' +%F)
d2=$(date -u -d '1 day ago' +%F)
post /object/v1 "{\"_id\": \"TTF\", \"name\": \"Title Transfer Facility\", \"FWD\": {\"_type\": \"VarCurve\",
  \"currency\": \"EUR\", \"units\": \"MWh\", \"ondate\": \"$d1\", \"contracts\": [
  {\"tenor\": \"M01\", \"value\": 31.2}, {\"tenor\": \"M02\", \"value\": 32.0}, {\"tenor\": \"M03\", \"value\": 33.1},
  {\"tenor\": \"Q02\", \"value\": 30.4}, {\"tenor\": \"Q03\", \"value\": 29.8}, {\"tenor\": \"Y01\", \"value\": 28.9}]}}"
post /object/v1 "{\"_id\": \"TTF\", \"FWD\": {\"_type\": \"VarCurve\", \"currency\": \"EUR\", \"units\": \"MWh\",
  \"ondate\": \"$d2\", \"contracts\": [
  {\"tenor\": \"M01\", \"value\": 32.5}, {\"tenor\": \"M02\", \"value\": 32.9}, {\"tenor\": \"M03\", \"value\": 33.4},
  {\"tenor\": \"Q02\", \"value\": 31.0}, {\"tenor\": \"Q03\", \"value\": 30.1}, {\"tenor\": \"Y01\", \"value\": 29.2}]}}"
# Hourly Berlin power across the autumn clock change: 02:00 local twice (summer time, then
# winter time), which the series page shows as two rows and two chart ticks with their offsets.
post /object/v1 '{"_id": "DE", "POWER": {"_type": "VarTimeSeries", "calendar": "HOURLY",
  "timezone": "Europe/Berlin", "units": "MWh", "data": [
  {"time": "2024-10-27T00:00", "value": 61.2}, {"time": "2024-10-27T01:00", "value": 59.8},
  {"time": "2024-10-27T02:00", "value": 58.0}, {"time": "2024-10-27T02:00", "value": 55.4},
  {"time": "2024-10-27T03:00", "value": 57.9}, {"time": "2024-10-27T04:00", "value": 60.3}]}}'
# Half-hourly GB power in London over the spring change day 2025-03-30, valued 0 to 45 from
# 23:00 GMT on the 29th (the start of its EFA day) to 23:00 BST on the 30th, and 100 at 22:30
# GMT on the 29th: the series page scaled to EFA blocks shows EFA1 of 3 hours (0..5, 2.5).
start=$(date -u -d '2025-03-29T23:00:00Z' +%s)
gb='{"time": "2025-03-29T22:30:00Z", "value": 100}'
for i in $(seq 0 45); do
  gb="$gb, {\"time\": \"$(date -u -d "@$((start + i * 1800))" +%FT%TZ)\", \"value\": $i}"
done
post /object/v1 "{\"_id\": \"GB\", \"POWER\": {\"_type\": \"VarTimeSeries\", \"calendar\": \"HALFHOURLY\",
  \"timezone\": \"Europe/London\", \"units\": \"MWh\", \"data\": [$gb]}}"
# Let the worker deliver the automation's mail.
for _ in $(seq 1 50); do
  if curl -sf -H "$H" "$url/automation/v1/mail" | grep -q '"subject"'; then break; fi
  sleep 0.2
done

shots="$root/target/console-shots"
rm -rf "$shots"
mkdir -p "$shots"
status=0
node scripts/console-browser/drive.mjs "$url" "$work/token" "$shots" "$spike" || status=$?
if grep -q "$token" "$work/serve.log"; then
  echo "FAILED: the token appears in the server's log"
  echo "test result: FAILED. 0 passed; 1 failed; 0 ignored"
  status=1
fi
ls -l "$shots"
exit "$status"
