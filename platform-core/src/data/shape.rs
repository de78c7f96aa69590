//! Shaping a forward curve into an arbitrage-free monthly curve (`_shape=MONTHLY`).
//!
//! A curve arrives as overlapping products (a year, its quarters, the front months, a balance of
//! the month, day-aheads). Shaping answers one price per month that agrees with every quoted
//! product, as the spec's `vectors/shaping.json` says:
//!
//! - contracts are taken from the shortest delivery period to the longest (by days; ties by the
//!   first delivery day, then as sent);
//! - a contract prices the days of its delivery that no shorter contract priced: they share one
//!   flat price, chosen so that the contract's weighted average over all its days equals its
//!   price (a quoted month whose days no shorter product priced keeps its price);
//! - a contract whose days are all priced already is checked, not used: when its weighted
//!   average differs from its price by more than 1e-6 it is named in `arbitrage`;
//! - a month's value is the weighted average of its priced days, `from` the contract that priced
//!   most of its weight; a month with no priced day is not in the answer, one priced in part
//!   (a balance of the month) says which days in its `start` and `end`.
//!
//! Weights are the hours of each day in the curve's time zone (power, base load: a March in
//! Berlin has 743 hours, an October 745) or its days. Contracts without a numeric value take no
//! part. Days are handled as runs between the boundaries of contracts and months, so a curve
//! costs about its number of contracts and months, not its days.

use super::curve::StoredCurve;
use crate::error::{Error, Result};
use crate::observations::model::PointValue;
use crate::query::Params;
use chrono::{Datelike, NaiveDate, TimeZone};
use chrono_tz::Tz;
use serde_json::{json, Map, Value};

/// The largest difference between a fully priced contract's weighted average and its price that
/// is not named as arbitrage.
pub const ARBITRAGE_TOLERANCE: f64 = 1e-6;

/// How the days of a contract are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// The hours of each day in the curve's time zone (power).
    Hours,
    /// Each day counts once (gas).
    Days,
}

impl Weights {
    /// The parameter value (`hours`, `days`).
    pub fn code(self) -> &'static str {
        match self {
            Weights::Hours => "hours",
            Weights::Days => "days",
        }
    }

    /// Reads `hours` or `days` (case-insensitive).
    pub fn parse(text: &str) -> Result<Weights> {
        match text.trim().to_ascii_lowercase().as_str() {
            "hours" => Ok(Weights::Hours),
            "days" => Ok(Weights::Days),
            _ => Err(Error::invalid_parameter(format!(
                "_weights \"{text}\" is not a weighting: use hours or days"
            ))),
        }
    }

    /// The default of a curve header: days for gas (a `commodity` naming gas, or `units` of gas
    /// such as therm, MMBtu or m3), hours otherwise.
    pub fn of_header(header: &Map<String, Value>) -> Weights {
        let field = |k: &str| {
            header
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        let commodity = field("commodity");
        let gas_word = commodity
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "gas" | "lng" | "ng"));
        let units = field("units");
        // The quantity of a per-unit text such as "EUR/therm".
        let unit = units.rsplit('/').next().unwrap_or_default().trim();
        let gas_unit = matches!(
            unit,
            "therm"
                | "thm"
                | "mmbtu"
                | "btu"
                | "m3"
                | "nm3"
                | "sm3"
                | "scm"
                | "mcf"
                | "mmcf"
                | "bcf"
        );
        if gas_word || gas_unit {
            Weights::Days
        } else {
            Weights::Hours
        }
    }
}

/// `_shape` and `_weights` of a data read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeQuery {
    /// `_weights`; the curve's default ([`Weights::of_header`]) when `None`.
    pub weights: Option<Weights>,
}

impl ShapeQuery {
    /// Reads `_shape` (only `MONTHLY`, case-insensitive) and `_weights` (which needs `_shape`).
    pub fn from_params(params: &Params) -> Result<Option<ShapeQuery>> {
        let weights = params.get("_weights").map(Weights::parse).transpose()?;
        match params.get("_shape") {
            None if weights.is_some() => Err(Error::invalid_parameter(
                "_weights weighs the months of a shaped curve: it needs _shape=MONTHLY",
            )),
            None => Ok(None),
            Some(s) if s.trim().eq_ignore_ascii_case("MONTHLY") => Ok(Some(ShapeQuery { weights })),
            Some(s) => Err(Error::invalid_parameter(format!(
                "_shape \"{s}\" is not a shape: use MONTHLY"
            ))),
        }
    }
}

impl ShapeQuery {
    /// Refuses `_shape` where it means nothing: with `tenor=` (one tenor over ondates) or
    /// `listTenors` (the codes of a curve).
    pub fn check_with(&self, tenor: bool, list_tenors: bool, continuation: bool) -> Result<()> {
        let other = match (tenor, list_tenors, continuation) {
            (true, _, _) => "tenor= reads one tenor over the ondates",
            (_, true, _) => "listTenors lists the tenors",
            (_, _, true) => "_continuation reads the front contract over the ondates",
            _ => return Ok(()),
        };
        Err(Error::invalid_parameter(format!(
            "_shape=MONTHLY shapes the curve of one ondate and {other}: send one of them"
        )))
    }

    /// Shapes a curve read of the item `name` with this header: the months and the weights
    /// used.
    pub fn apply(
        &self,
        name: &str,
        header: &Map<String, Value>,
        curve: &StoredCurve,
    ) -> Result<(Shaped, Weights)> {
        let weights = self.weights.unwrap_or_else(|| Weights::of_header(header));
        let tz = zone_of(name, header)?;
        Ok((shape(&quoted(curve), tz, weights), weights))
    }
}

/// A quoted contract that takes part in shaping.
#[derive(Debug, Clone, PartialEq)]
pub struct Quoted {
    /// Its name in the answer: the absolute code, or the tenor when it has none (`BOM`).
    pub code: String,
    /// The first delivery day.
    pub start: NaiveDate,
    /// The last delivery day (inclusive).
    pub end: NaiveDate,
    /// The price.
    pub value: f64,
}

/// One month of a shaped curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedMonth {
    /// The month's absolute code (`2025M03`).
    pub code: String,
    /// The weighted average of its priced days.
    pub value: f64,
    /// The contract that priced most of its weight.
    pub from: String,
    /// Its first priced day.
    pub start: NaiveDate,
    /// Its last priced day.
    pub end: NaiveDate,
    /// The weight of its priced days (hours or days).
    pub weight: f64,
}

/// A curve shaped into months.
#[derive(Debug, Clone, PartialEq)]
pub struct Shaped {
    /// The months with a priced day, in order.
    pub months: Vec<ShapedMonth>,
    /// The contracts whose days were all priced by shorter ones and whose weighted average
    /// differs from their price, in the order they were checked.
    pub arbitrage: Vec<String>,
}

/// The contracts of a stored curve that take part: those with a numeric value.
pub fn quoted(curve: &StoredCurve) -> Vec<Quoted> {
    curve
        .contracts
        .iter()
        .filter_map(|c| {
            let PointValue::Num(value) = c.value else {
                return None;
            };
            let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
            Some(Quoted {
                code: if c.absolute.is_empty() {
                    c.tenor.clone()
                } else {
                    c.absolute.clone()
                },
                start: day(&c.start)?,
                end: day(&c.end)?,
                value,
            })
            .filter(|q| value.is_finite() && q.start <= q.end)
        })
        .collect()
}

/// The first instant of a local day, in seconds (a day whose midnight a clock change skips
/// starts at the first local time it has).
fn day_start(day: NaiveDate, tz: Tz) -> i64 {
    let mut at = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    for _ in 0..48 {
        if let Some(t) = tz.from_local_datetime(&at).earliest() {
            return t.timestamp();
        }
        at += chrono::Duration::minutes(30);
    }
    at.and_utc().timestamp()
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

fn next_month(d: NaiveDate) -> Option<NaiveDate> {
    first_of_month(d).checked_add_months(chrono::Months::new(1))
}

/// Shapes contracts into months (see the module documentation).
pub fn shape(contracts: &[Quoted], tz: Tz, weights: Weights) -> Shaped {
    let mut shaped = Shaped {
        months: Vec::new(),
        arbitrage: Vec::new(),
    };
    let (Some(first), Some(last)) = (
        contracts.iter().map(|c| c.start).min(),
        contracts.iter().filter_map(|c| c.end.succ_opt()).max(),
    ) else {
        return shaped;
    };
    let bounds = run_bounds(contracts, first, last);
    let weight = run_weights(&bounds, tz, weights);
    let runs = Runs {
        bounds: &bounds,
        weight: &weight,
    };
    let (price, owner) = price_runs(contracts, &runs, &mut shaped.arbitrage);
    shaped.months = months_of(contracts, &runs, &price, &owner);
    shaped
}

/// The boundaries of runs of days: every contract's first day and the day after its last,
/// and every first of a month in between (so that no run crosses one), sorted.
fn run_bounds(contracts: &[Quoted], first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
    let mut bounds: Vec<NaiveDate> = Vec::with_capacity(contracts.len() * 2 + 64);
    for c in contracts {
        bounds.push(c.start);
        if let Some(after) = c.end.succ_opt() {
            bounds.push(after);
        }
    }
    let mut month = next_month(first);
    while let Some(m) = month.filter(|m| *m < last) {
        bounds.push(m);
        month = next_month(m);
    }
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

/// The weight of each run between `bounds`: its days, or its hours in `tz`.
fn run_weights(bounds: &[NaiveDate], tz: Tz, weights: Weights) -> Vec<f64> {
    match weights {
        Weights::Days => bounds
            .windows(2)
            .map(|w| (w[1] - w[0]).num_days() as f64)
            .collect(),
        Weights::Hours => {
            let starts: Vec<i64> = bounds.iter().map(|d| day_start(*d, tz)).collect();
            starts
                .windows(2)
                .map(|w| (w[1] - w[0]) as f64 / 3600.0)
                .collect()
        }
    }
}

/// Runs of days: the boundaries and the weight of each run between them.
struct Runs<'a> {
    bounds: &'a [NaiveDate],
    weight: &'a [f64],
}

impl Runs<'_> {
    fn len(&self) -> usize {
        self.weight.len()
    }

    /// The run that starts on `d` (a boundary).
    fn of(&self, d: NaiveDate) -> usize {
        self.bounds.binary_search(&d).unwrap_or_else(|at| at)
    }
}

/// The flat price of each run and the contract that priced it (`usize::MAX` where none did):
/// contracts taken shortest first, each pricing its open runs so that its weighted average is
/// its price; a fully priced contract whose average misses is added to `arbitrage`.
fn price_runs(
    contracts: &[Quoted],
    runs: &Runs<'_>,
    arbitrage: &mut Vec<String>,
) -> (Vec<f64>, Vec<usize>) {
    let mut price: Vec<f64> = vec![f64::NAN; runs.len()];
    let mut owner: Vec<usize> = vec![usize::MAX; runs.len()];
    let mut order: Vec<usize> = (0..contracts.len()).collect();
    order.sort_by_key(|&i| {
        let c = &contracts[i];
        ((c.end - c.start).num_days(), c.start, i)
    });
    let weight = runs.weight;
    for i in order {
        let c = &contracts[i];
        let (lo, hi) = (
            runs.of(c.start),
            c.end.succ_opt().map_or(runs.len(), |d| runs.of(d)),
        );
        // Sums of the priced days' differences from the contract's price (so that a contract
        // over open days alone prices them at exactly its price).
        let (mut total, mut gap, mut open) = (0.0, 0.0, 0.0);
        for r in lo..hi {
            total += weight[r];
            if price[r].is_nan() {
                open += weight[r];
            } else {
                gap += weight[r] * (c.value - price[r]);
            }
        }
        if total <= 0.0 {
            continue;
        }
        if open <= 0.0 {
            if (gap / total).abs() > ARBITRAGE_TOLERANCE {
                arbitrage.push(c.code.clone());
            }
            continue;
        }
        let flat = c.value + gap / open;
        for r in lo..hi {
            if price[r].is_nan() {
                price[r] = flat;
                owner[r] = i;
            }
        }
    }
    (price, owner)
}

/// The months of the priced runs (runs never cross the first of a month): each the weighted
/// average of its runs, from the contract with most weight in it.
fn months_of(
    contracts: &[Quoted],
    runs: &Runs<'_>,
    price: &[f64],
    owner: &[usize],
) -> Vec<ShapedMonth> {
    let (bounds, weight) = (runs.bounds, runs.weight);
    let mut months = Vec::new();
    let mut r = 0;
    while r < runs.len() {
        let month = first_of_month(bounds[r]);
        // The average as the first priced run's price and the others' weighted differences
        // from it (a month of one price is exactly that price).
        let (mut sum, mut w, mut start, mut end, mut base) = (0.0, 0.0, None, None, None);
        // (contract, weight) pairs of the month, few.
        let mut by: Vec<(usize, f64)> = Vec::new();
        while r < runs.len() && first_of_month(bounds[r]) == month {
            if !price[r].is_nan() {
                let p0 = *base.get_or_insert(price[r]);
                sum += weight[r] * (price[r] - p0);
                w += weight[r];
                start.get_or_insert(bounds[r]);
                end = bounds[r + 1].pred_opt();
                match by.iter_mut().find(|(o, _)| *o == owner[r]) {
                    Some((_, ow)) => *ow += weight[r],
                    None => by.push((owner[r], weight[r])),
                }
            }
            r += 1;
        }
        let (Some(start), Some(end), Some(base)) = (start, end, base) else {
            continue;
        };
        months.push(ShapedMonth {
            code: format!("{:04}M{:02}", month.year(), month.month()),
            value: base + sum / w,
            from: heaviest(contracts, &by),
            start,
            end,
            weight: w,
        });
    }
    months
}

/// The code of the contract with most weight in a month; on a tie the shorter contract, then
/// the one delivering first, then the one sent first.
fn heaviest(contracts: &[Quoted], by: &[(usize, f64)]) -> String {
    by.iter()
        .max_by(|a, b| {
            let (ca, cb) = (&contracts[a.0], &contracts[b.0]);
            a.1.total_cmp(&b.1)
                .then(delivery_days(cb).cmp(&delivery_days(ca)))
                .then(cb.start.cmp(&ca.start))
                .then(b.0.cmp(&a.0))
        })
        .map(|(o, _)| contracts[*o].code.clone())
        .unwrap_or_default()
}

fn delivery_days(c: &Quoted) -> i64 {
    (c.end - c.start).num_days()
}

/// The time zone a curve is shaped in: its header's `timezone`, UTC when none.
pub fn zone_of(name: &str, header: &Map<String, Value>) -> Result<Tz> {
    match header.get("timezone") {
        None | Some(Value::Null) => Ok(Tz::UTC),
        Some(Value::String(z)) => z.parse::<Tz>().map_err(|_| {
            Error::invalid_parameter(format!(
                "{name}.timezone \"{z}\" is not an IANA time zone: a curve is shaped in its zone"
            ))
        }),
        Some(other) => Err(Error::invalid_parameter(format!(
            "{name}.timezone must be a string, not {}",
            crate::json::json_kind(other)
        ))),
    }
}

/// The JSON fields a shaped read puts in place of the curve's `contracts`: `shape`, `weights`,
/// `contracts` (the months, each with `properties.from`, `start`, `end` and its weight as
/// `hours` or `days`), `arbitrage` (the codes of the contracts that disagree) and `quoted` (the
/// contracts as read).
pub fn shaped_fields(
    shaped: &Shaped,
    weights: Weights,
    quoted_contracts: Value,
) -> Vec<(&'static str, Value)> {
    let months = shaped
        .months
        .iter()
        .map(|m| {
            let mut props = Map::new();
            props.insert("from".into(), Value::String(m.from.clone()));
            props.insert("absolute".into(), Value::String(m.code.clone()));
            props.insert("start".into(), Value::String(m.start.to_string()));
            props.insert("end".into(), Value::String(m.end.to_string()));
            // Whole hours and days print as integers (a zone with half-hour changes has halves).
            let weight = if m.weight.fract() == 0.0 && m.weight.abs() < 1e15 {
                json!(m.weight as i64)
            } else {
                json!(m.weight)
            };
            props.insert(weights.code().into(), weight);
            json!({"tenor": m.code, "value": m.value, "properties": props})
        })
        .collect();
    vec![
        ("shape", Value::String("MONTHLY".into())),
        ("weights", Value::String(weights.code().into())),
        ("contracts", Value::Array(months)),
        ("arbitrage", json!(shaped.arbitrage)),
        ("quoted", quoted_contracts),
    ]
}

/// `n` days after `d`.
#[cfg(test)]
fn plus(d: NaiveDate, n: u64) -> NaiveDate {
    d.checked_add_days(chrono::Days::new(n)).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::period;

    fn vectors() -> Value {
        let shared = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/spec/vectors/shaping.json"
        );
        let copy = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vectors/shaping.json");
        let path = if std::path::Path::new(shared).exists() {
            shared
        } else {
            copy
        };
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn quote(code: &str, ondate: NaiveDate, value: f64) -> Quoted {
        let p = period::parse(code).unwrap();
        let r = p.resolve(ondate).unwrap();
        Quoted {
            code: r
                .absolute
                .map(|a| a.to_string())
                .unwrap_or_else(|| p.to_string()),
            start: r.delivery.start,
            end: r.delivery.end,
            value,
        }
    }

    #[test]
    fn every_shaping_vector_holds() {
        let file = vectors();
        let cases = file["cases"].as_array().unwrap();
        assert!(cases.len() >= 6);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let curve = &case["curve"];
            let ondate: NaiveDate = curve["ondate"].as_str().unwrap().parse().unwrap();
            let tz: Tz = curve["timezone"].as_str().unwrap().parse().unwrap();
            let contracts: Vec<Quoted> = curve["contracts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    quote(
                        c["tenor"].as_str().unwrap(),
                        ondate,
                        c["value"].as_f64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(case["query"]["shape"], "MONTHLY", "{name}");
            let weights = Weights::parse(case["query"]["weights"].as_str().unwrap()).unwrap();
            let got = shape(&contracts, tz, weights);
            let want = case["result"].as_array().unwrap();
            assert_eq!(got.months.len(), want.len(), "{name}: {got:?}");
            for (g, w) in got.months.iter().zip(want) {
                assert_eq!(g.code, w["tenor"].as_str().unwrap(), "{name}");
                assert_eq!(g.from, w["from"].as_str().unwrap(), "{name}: {}", g.code);
                let v = w["value"].as_f64().unwrap();
                assert!(
                    (g.value - v).abs() < 1e-6,
                    "{name}: {} {} vs {v}",
                    g.code,
                    g.value
                );
            }
            let arbitrage: Vec<&str> = case["arbitrage"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            assert_eq!(got.arbitrage, arbitrage, "{name}");
        }
    }

    #[test]
    fn berlin_months_have_their_hours_and_gas_weighs_days() {
        let ondate = NaiveDate::from_ymd_opt(2024, 11, 15).unwrap();
        let q = [quote("2025Y", ondate, 80.0)];
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        let got = shape(&q, tz, Weights::Hours);
        let hours: Vec<f64> = got.months.iter().map(|m| m.weight).collect();
        assert_eq!(hours[2], 743.0);
        assert_eq!(hours[9], 745.0);
        assert_eq!(hours.iter().sum::<f64>(), 8760.0);
        assert!(got
            .months
            .iter()
            .all(|m| m.value == 80.0 && m.from == "2025Y"));
        let got = shape(&q, tz, Weights::Days);
        assert_eq!(got.months[1].weight, 28.0);
        let gas = json!({"commodity": "Natural Gas", "units": "MWh"});
        assert_eq!(Weights::of_header(gas.as_object().unwrap()), Weights::Days);
        let therm = json!({"units": "p/therm"});
        assert_eq!(
            Weights::of_header(therm.as_object().unwrap()),
            Weights::Days
        );
        let gasoil = json!({"commodity": "gasoil", "units": "t"});
        assert_eq!(
            Weights::of_header(gasoil.as_object().unwrap()),
            Weights::Hours
        );
        assert_eq!(Weights::of_header(&Map::new()), Weights::Hours);
    }

    #[test]
    fn balance_of_month_and_days_take_part_by_their_days() {
        let ondate = NaiveDate::from_ymd_opt(2024, 11, 15).unwrap();
        // BOM: Nov 16-30; a day-ahead on the 16th; the first quarter of 2025. December is in
        // no contract.
        let q = [
            quote("BOM", ondate, 60.0),
            quote("DA01", ondate, 90.0),
            quote("2025Q01", ondate, 70.0),
        ];
        let got = shape(&q, Tz::UTC, Weights::Days);
        let codes: Vec<&str> = got.months.iter().map(|m| m.code.as_str()).collect();
        assert_eq!(codes, ["2024M11", "2025M01", "2025M02", "2025M03"]);
        let nov = &got.months[0];
        // November's priced days are the balance's: their average is its price.
        assert_eq!((nov.start, nov.end), (plus(ondate, 1), plus(ondate, 15)));
        assert!((nov.value - 60.0).abs() < 1e-9, "{nov:?}");
        assert_eq!((nov.from.as_str(), nov.weight), ("BOM", 15.0));
        assert!(got.months[1..]
            .iter()
            .all(|m| m.value == 70.0 && m.from == "2025Q01"));
        // A quarter over the balance: October and the first half of November share one price
        // with December, the balance keeps its average; November's halves weigh the same, and
        // the shorter contract names it.
        let q = [quote("BOM", ondate, 60.0), quote("2024Q04", ondate, 70.0)];
        let got = shape(&q, Tz::UTC, Weights::Days);
        let (oct, nov, dec) = (&got.months[0], &got.months[1], &got.months[2]);
        assert_eq!(
            (oct.value, nov.weight, nov.from.as_str()),
            (dec.value, 30.0, "BOM")
        );
        let total = oct.value * 31.0 + nov.value * 30.0 + dec.value * 31.0;
        assert!((total / 92.0 - 70.0).abs() < 1e-9);
        assert!(((nov.value * 30.0 - 60.0 * 15.0) / 15.0 - oct.value).abs() < 1e-9);
        assert!(got.arbitrage.is_empty());
        // The same day quoted twice at two prices: the second is checked and named.
        let twice = [
            quote("DA01", ondate, 90.0),
            quote("2024D1116", ondate, 91.0),
        ];
        assert_eq!(
            shape(&twice, Tz::UTC, Weights::Days).arbitrage,
            ["2024D1116"]
        );
        assert!(shape(&[], Tz::UTC, Weights::Hours).months.is_empty());
    }

    #[test]
    fn bad_shape_parameters_name_the_values_allowed() {
        let p = |pairs: &[(&str, &str)]| ShapeQuery::from_params(&Params::from_slice(pairs));
        assert_eq!(p(&[]).unwrap(), None);
        assert_eq!(
            p(&[("_shape", "monthly"), ("_weights", "DAYS")]).unwrap(),
            Some(ShapeQuery {
                weights: Some(Weights::Days)
            })
        );
        let e = p(&[("_shape", "WEEKLY")]).unwrap_err().to_string();
        assert!(e.contains("_shape") && e.contains("MONTHLY"), "{e}");
        let e = p(&[("_shape", "MONTHLY"), ("_weights", "kg")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("_weights") && e.contains("hours or days"), "{e}");
        let e = p(&[("_weights", "days")]).unwrap_err().to_string();
        assert!(e.contains("needs _shape=MONTHLY"), "{e}");
    }
}
