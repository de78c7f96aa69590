"""A desk's reads in pandas, against a served platform: every number checked against pandas.

Usage: python desk.py BASE_URL TOKEN

Loads German hourly prices (January to April 2025 in Berlin, 10:00 of 12 February missing) and
a forward curve on three ondates over HTTP, then reads as Arrow (application/vnd.apache.arrow
.stream) into pandas through pyarrow, as an analyst does:

- monthly peak averages and daily averages in local time (`_timezone=Europe/Berlin`): the
  times are local dates (date32), never UTC midnights that move by an hour; each value equals
  pandas' own resample of the prices sent, in Berlin time; a period short of observations says
  `CALCULATED:<n> of <m>` in its source, `m` counted by pandas from the wall clock;
- the front-month continuation: ondates as dates, each price beside its contract (`absolute`);
- a curve: ondate, delivery start and end and expiry as dates.

Prints what it checked; exits 1 at the first difference.
"""
import datetime as dt
import json
import sys
import urllib.request

import pandas as pd
import pyarrow as pa

ZONE = "Europe/Berlin"


class Client:
    def __init__(self, base, token):
        self.base, self.token = base, token

    def _send(self, method, path, body=None, accept="application/json"):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", accept)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.read()

    def post(self, path, body):
        return json.loads(self._send("POST", path, body))

    def frame(self, path):
        """A GET answered as Arrow, read into pandas, and its Arrow schema."""
        raw = self._send("GET", path, accept="application/vnd.apache.arrow.stream")
        table = pa.ipc.open_stream(raw).read_all()
        return table.to_pandas(), table.schema


def check(ok, what):
    if not ok:
        print(f"desk-pandas: FAILED: {what}", file=sys.stderr)
        sys.exit(1)


def prices():
    """The hourly prices sent: a Berlin hour's price from its local hour and day of the year."""
    hours = pd.date_range("2025-01-01", "2025-05-01", freq="h", tz=ZONE, inclusive="left")
    values = 40.0 + hours.hour * 1.5 + hours.day_of_year * 0.1
    series = pd.Series(values, index=hours)
    return series.drop(pd.Timestamp("2025-02-12 10:00", tz=ZONE))


def expected_hours(freq, mask=None):
    """The hours each local period holds (all of them, the missing one too)."""
    hours = pd.date_range("2025-01-01", "2025-05-01", freq="h", tz=ZONE, inclusive="left")
    ones = pd.Series(1, index=hours)
    if mask is not None:
        ones = ones[mask(ones.index)]
    return ones.groupby(ones.index.tz_localize(None).to_period(freq)).sum()


def peak(index):
    return (index.day_of_week < 5) & (index.hour >= 8) & (index.hour < 20)


def compare(frame, schema, want, counts, what):
    """An aggregate read against pandas' means and counts, by local period."""
    check(schema.field("time").type == pa.date32(), f"{what}: time is {schema.field('time').type}")
    check(len(frame) == len(want), f"{what}: {len(frame)} periods, pandas has {len(want)}")
    for (_, row), (period, mean) in zip(frame.iterrows(), want.items()):
        day = period.start_time.date()
        check(row["time"] == day, f"{what}: {row['time']!r} where pandas has {day}")
        check(abs(row["value"] - mean) < 1e-9, f"{what} {day}: {row['value']} vs {mean}")
        n, m = counts[0][period], counts[1][period]
        source = "CALCULATED" if n == m else f"CALCULATED:{n} of {m}"
        check(row["source"] == source, f"{what} {day}: {row['source']} vs {source}")
    print(f"desk-pandas: {what}: {len(frame)} periods as local dates, equal to pandas")


def main():
    client = Client(sys.argv[1], sys.argv[2])
    series = prices()
    data = [{"time": t.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ"), "value": float(v)}
            for t, v in series.items()]
    client.post("/object/v1", {"_id": "DE", "SPOT": {
        "_type": "VarTimeSeries", "calendar": "HOURLY", "timezone": ZONE,
        "currency": "EUR", "units": "MWh", "data": data}})
    local = series.index.tz_localize(None)

    # Monthly peak averages in local time.
    kept = series[peak(series.index)]
    want = kept.groupby(kept.index.tz_localize(None).to_period("M")).mean()
    counts = (kept.groupby(kept.index.tz_localize(None).to_period("M")).count(),
              expected_hours("M", peak))
    frame, schema = client.frame(
        "/data/v1/private/DE:SPOT?_calendar=MONTHLY&_observed=averaged&_block=PEAK"
        "&_timezone=Europe/Berlin")
    compare(frame, schema, want, counts, "monthly peak averages")
    check(frame["source"].iloc[1] == "CALCULATED:239 of 240", "February lacks one peak hour")

    # Daily averages in local time: 23 hours on 30 March, 12 February short of one.
    want = series.groupby(local.to_period("D")).mean()
    counts = (series.groupby(local.to_period("D")).count(), expected_hours("D"))
    frame, schema = client.frame(
        "/data/v1/private/DE:SPOT?_calendar=DAILY&_observed=averaged&_timezone=Europe/Berlin")
    compare(frame, schema, want, counts, "daily averages")

    # A forward curve on three ondates: the front month over them, and one curve's dates.
    curves = {"2026-09-25": (95.1, 96.2, 97.3), "2026-09-30": (95.4, 96.5, 97.6),
              "2026-10-01": (96.7, 97.7, 98.8)}
    for ondate, (m1, m2, m3) in curves.items():
        client.post("/object/v1", {"_id": "DE", "FWD": {
            "_type": "VarCurve", "timezone": ZONE, "currency": "EUR", "units": "MWh",
            "expiryCalendar": "#REOMB", "ondate": ondate,
            "contracts": [{"tenor": "M01", "value": m1}, {"tenor": "M02", "value": m2},
                          {"tenor": "M03", "value": m3}]}})
    frame, schema = client.frame("/data/v1/private/DE:FWD?_continuation=M01")
    check(schema.field("time").type == pa.date32(), "continuation times are dates")
    days = [dt.date.fromisoformat(d) for d in curves]
    check(list(frame["time"]) == days, f"continuation ondates {list(frame['time'])}")
    # #REOMB: October expires on Wednesday 30 September, so 1 October holds November.
    check(list(frame["absolute"]) == ["2026M10", "2026M10", "2026M11"],
          f"continuation contracts {list(frame['absolute'])}")
    check(list(frame["value"]) == [95.1, 95.4, 96.7], f"continuation prices {list(frame['value'])}")
    print("desk-pandas: the front month: ondates as dates, each price with its contract")
    frame, schema = client.frame("/data/v1/private/DE:FWD:2026-09-30")
    for column in ("ondate", "start", "end", "expiry"):
        check(schema.field(column).type == pa.date32(), f"curve {column} is {schema.field(column).type}")
    check(list(frame["start"]) == [dt.date(2026, 10, 1), dt.date(2026, 11, 1), dt.date(2026, 12, 1)],
          f"deliveries {list(frame['start'])}")
    check(list(frame["expiry"]) == [dt.date(2026, 9, 30), dt.date(2026, 10, 30), dt.date(2026, 11, 30)],
          f"expiries {list(frame['expiry'])}")
    print("desk-pandas: a curve: ondate, deliveries and expiries as dates")


if __name__ == "__main__":
    main()
