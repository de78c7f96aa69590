"""The prior art's Python SDK (odsl, from PyPI) against a served platform.

Usage: roundtrip.py URL TOKEN, where URL is the SDK's base (ending in /api/) and TOKEN a
platform token (sent as the SDK's loginWithToken sends it, a Bearer header).

The SDK's README examples are run as written there: an object, a forward curve built with
types.Curve and a time series built with types.TimeSeries, each written with the SDK's update
after reading the object with its get; then the prior art's series with a "NaN" point. Every
answer is read back with the SDK's get and checked against values computed here. Exits 1 on the
first difference, naming it.
"""

import contextlib
import datetime
import io
import sys

import msal


class NoSignIn:
    """The SDK makes a Microsoft sign-in client when it is imported, which looks up
    login.microsoft.com at once; this run signs in with a platform token (loginWithToken) and
    needs none, so the client is one that does nothing."""

    def __init__(self, *args, **kwargs):
        pass


msal.PublicClientApplication = NoSignIn

from odsl import sdk, types  # noqa: E402  (after the sign-in client is replaced)

URL, TOKEN = sys.argv[1], sys.argv[2]
OBJECT = "AAA.PYTHON-EXAMPLE"
failures = []


def check(what, got, expected):
    if got != expected:
        failures.append(f"{what}: got {got!r}, expected {expected!r}")


def quietly(call, *args):
    """Runs an SDK call, returning what it printed (update prints the status, and the
    x-odsl-error header of a failure) and what it returned."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        answer = call(*args)
    return out.getvalue(), answer


def update(var):
    printed, _ = quietly(odsl.update, "object", "private", var)
    check(f"update of {sorted(var)}", printed.strip(), "200")


odsl = sdk.ODSL()
odsl.url = URL
odsl.loginWithToken(TOKEN)

# The README's examples, as written there.
obj = types.Object(OBJECT).set("name", "Python Example")
update(obj.data)

curve = (
    types.Curve("2026-08-20", "#REOMHENG", id="CURVE")
    .set_name("Example curve")
    .set_currency("EUR")
    .add("M01", 1.4)
    .add("M02", 2.2)
    .add("M03", 3.3)
)
obj = odsl.get("object", "private", OBJECT)
obj["CURVE"] = curve.data
update(obj)

timeseries = (
    types.TimeSeries(id="TIMESERIES", calendar="DAILY", start="2026-08-01")
    .set_units("MWh")
    .add("2026-08-01", 10.5)
    .add("2026-08-02", 11.2)
)
obj["TIMESERIES"] = timeseries.data
update(obj)

# The prior art's series: an expected business day without a value is "NaN".
ts1 = (
    types.TimeSeries(id="ts1", calendar="BUSINESS", start="2021-01-01")
    .set_data_type("any")
    .add("2021-01-01", 21.5)
    .add("2021-01-04", "NaN")
    .add("2021-01-05", 21.7)
)
obj = odsl.get("object", "private", OBJECT)
obj["ts1"] = ts1.data
update(obj)

# Read back with the SDK's get.
series = odsl.get("data", "private", OBJECT + ":TIMESERIES")
check("TIMESERIES valueType", series.get("valueType"), "BASIC")
check("TIMESERIES units", series.get("units"), "MWh")
check(
    "TIMESERIES data",
    [(p["time"], p["value"]) for p in series["data"]],
    [("2026-08-01", 10.5), ("2026-08-02", 11.2)],
)
nan = odsl.get("data", "private", OBJECT + ":ts1")
check("ts1 dataType", nan.get("dataType"), "any")
check(
    "ts1 data",
    [(p["time"], p["value"]) for p in nan["data"]],
    [("2021-01-01", 21.5), ("2021-01-04", None), ("2021-01-05", 21.7)],
)


def last_business_day_before(start):
    """#REOMHENG: the last England-and-Wales business day before delivery starts (the bank
    holiday near these deliveries: Monday 31 August 2026)."""
    holidays = {datetime.date(2026, 8, 31)}
    day = start - datetime.timedelta(days=1)
    while day.weekday() >= 5 or day in holidays:
        day -= datetime.timedelta(days=1)
    return day


got = odsl.get("data", "private", OBJECT + ":CURVE:2026-08-20")
check("CURVE ondate", got.get("ondate"), {"curveDate": "2026-08-20", "expiryCalendar": "#REOMHENG"})
check("CURVE name", got.get("name"), "Example curve")
expected = []
for i, (month, value) in enumerate([(9, 1.4), (10, 2.2), (11, 3.3)]):
    start = datetime.date(2026, month, 1)
    end = datetime.date(2026, month + 1, 1) - datetime.timedelta(days=1)
    expected.append(
        (f"M0{i + 1}", value, f"2026M{month:02}", str(start), str(end), str(last_business_day_before(start)))
    )
check(
    "CURVE contracts",
    [
        (c["tenor"], c["value"], c["properties"]["absolute"], c["properties"]["start"],
         c["properties"]["end"], c["properties"]["expiry"])
        for c in got["contracts"]
    ],
    expected,
)

# A refusal reaches the SDK's user in the header it prints: the earlier reading's valueType.
bad = types.TimeSeries(id="OLD").set_value_type("number").add("2021-01-01", 1)
obj = odsl.get("object", "private", OBJECT)
obj["OLD"] = bad.data
printed, _ = quietly(odsl.update, "object", "private", obj)
if "ODSL error 400: [INVALID_BODY]" not in printed or "dataType" not in printed:
    failures.append(f"a valueType of number: the SDK printed {printed!r}")

if failures:
    print("odsl-sdk: " + str(len(failures)) + " differences:", file=sys.stderr)
    for f in failures:
        print("  " + f, file=sys.stderr)
    sys.exit(1)
print("odsl-sdk: the README's object, curve and time series and a NaN series round-trip")
