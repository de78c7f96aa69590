//! Back-adjusting a continuation series (`_adjust=difference|ratio`): at each roll (a point
//! holding another contract than the point before it) every earlier point moves by the
//! difference (ratio) of the new and the old front contract on the roll day, so the newest
//! segment keeps its prices and the series has no jump where the contract changes.
//!
//! - The roll day is the ondate of the first point on the new contract. Its curve prices the
//!   new contract (the point itself) and, where it still quotes it, the old one.
//! - A roll day whose curve lacks the old contract's price (an expired contract a curve no
//!   longer quotes), or holds null for it, is priced on the ondate before it instead: the last
//!   point on the old contract, whose curve prices the old contract (the point) and the new
//!   one. The answer says which: each roll in `rolls` names the ondate that `priced` it.
//! - A roll neither curve prices is a 400 naming the roll and the prices missing; so is a
//!   ratio of prices that are not both positive (a ratio of a negative or zero price has no
//!   meaning). Nothing is guessed.
//! - Each point's `properties.adjustment` is what moved it: the sum of the later rolls'
//!   differences, or the product of their ratios (0 and 1 on the newest segment). A null value
//!   stays null. The item's `properties.adjust` names the method; with `_range` the rolls are
//!   those between the points the range picks, and the newest point picked keeps its price.
//! - Prices are compared after conversion (`units`, `currency`), at each ondate's rate.

use super::answer::DatedPoint;
use super::continuation::{text, Adjust};
use super::conversion::Converter;
use super::curve;
use crate::error::{Error, Result};
use crate::observations::model::PointValue;
use chrono::NaiveDate;
use serde_json::{json, Map, Value};

/// A point of a continuation as the adjustment needs it: the index of its curve among those
/// read, its contract and its price.
pub(super) struct Picked {
    pub curve: usize,
    pub absolute: String,
    pub value: Option<f64>,
}

/// One roll of a continuation, priced: between points `at - 1` and `at`.
struct Roll {
    at: usize,
    priced: String,
    old: f64,
    new: f64,
    by: f64,
}

/// Back-adjusts the points of a continuation (`picked` says what each holds, `curves`
/// are the curves read, `conv` the conversion of the read): each point's value moved and its
/// `properties.adjustment` set. Returns the rolls, for the answer.
pub(super) fn back_adjust(
    adjust: Adjust,
    curves: &[(String, Vec<u8>)],
    picked: &[Picked],
    conv: Option<&Converter<'_>>,
    points: &mut [DatedPoint],
) -> Result<Vec<Value>> {
    let mut rolls = Vec::new();
    for at in 1..picked.len() {
        let (before, after) = (&picked[at - 1], &picked[at]);
        if before.absolute != after.absolute {
            rolls.push(priced(adjust, curves, before, after, at, conv)?);
        }
    }
    // Each point moves by every roll after it: walked from the newest back.
    let identity = match adjust {
        Adjust::Difference => 0.0,
        Adjust::Ratio => 1.0,
    };
    let mut by = identity;
    let mut next_roll = rolls.iter().rev().peekable();
    for (i, point) in points.iter_mut().enumerate().rev() {
        if let Some(r) = next_roll.peek() {
            if r.at == i + 1 {
                by = match adjust {
                    Adjust::Difference => by + r.by,
                    Adjust::Ratio => by * r.by,
                };
                next_roll.next();
            }
        }
        // A null value (a value that is no finite number prints as null) stays null.
        if let PointValue::Num(v) = &mut point.value {
            if v.is_finite() {
                *v = match adjust {
                    Adjust::Difference => *v + by,
                    Adjust::Ratio => *v * by,
                };
            }
        }
        if let Some(props) = &mut point.properties {
            props.insert("adjustment".into(), json!(by));
        }
    }
    Ok(rolls
        .iter()
        .map(|r| {
            let mut m = Map::new();
            m.insert("ondate".into(), json!(curves[picked[r.at].curve].0));
            m.insert("from".into(), json!(picked[r.at - 1].absolute));
            m.insert("to".into(), json!(picked[r.at].absolute));
            m.insert("priced".into(), json!(r.priced));
            m.insert("old".into(), json!(r.old));
            m.insert("new".into(), json!(r.new));
            m.insert(adjust.as_str().into(), json!(r.by));
            Value::Object(m)
        })
        .collect())
}

/// The roll between `before` and `after` (the points `at - 1` and `at`), priced on the roll
/// day, else on the ondate before it; a 400 when neither prices both contracts.
fn priced(
    adjust: Adjust,
    curves: &[(String, Vec<u8>)],
    before: &Picked,
    after: &Picked,
    at: usize,
    conv: Option<&Converter<'_>>,
) -> Result<Roll> {
    let (roll_day, last_day) = (&curves[after.curve].0, &curves[before.curve].0);
    let on_roll_day = price_of(&curves[after.curve], &before.absolute, conv)?;
    let (priced, old, new) = match (on_roll_day, after.value) {
        (Some(old), Some(new)) => (roll_day, old, new),
        _ => {
            let on_last_day = price_of(&curves[before.curve], &after.absolute, conv)?;
            match (before.value, on_last_day) {
                (Some(old), Some(new)) => (last_day, old, new),
                _ => {
                    return Err(Error::invalid_parameter(format!(
                        "_adjust={} cannot move the prices before the roll of {roll_day} from \
                         {} to {}: the curve of {roll_day} has no price of both, nor the curve \
                         of {last_day}; read without _adjust, or with a _range that starts on or \
                         after {roll_day}",
                        adjust.as_str(),
                        before.absolute,
                        after.absolute
                    )))
                }
            }
        }
    };
    let by = match adjust {
        Adjust::Difference => new - old,
        Adjust::Ratio if old > 0.0 && new > 0.0 => new / old,
        Adjust::Ratio => {
            return Err(Error::invalid_parameter(format!(
                "_adjust=ratio cannot move the prices before the roll of {roll_day} from {} to \
                 {}: they are priced {old} and {new} on {priced}, and a ratio needs two \
                 positive prices; use _adjust=difference",
                before.absolute, after.absolute
            )))
        }
    };
    Ok(Roll {
        at,
        priced: priced.clone(),
        old,
        new,
        by,
    })
}

/// The price of the contract `absolute` in a curve read (`(ondate, payload)`), converted as
/// the read converts at that ondate; `None` when the curve has no number for it.
fn price_of(
    (ondate, payload): &(String, Vec<u8>),
    absolute: &str,
    conv: Option<&Converter<'_>>,
) -> Result<Option<f64>> {
    for c in curve::contract_views(payload)? {
        let c = c?;
        if text(c.absolute)? != absolute {
            continue;
        }
        let value = match (conv, &c.value) {
            (Some(conv), PointValue::Num(_)) => {
                let day = NaiveDate::parse_from_str(ondate, "%Y-%m-%d")
                    .map_err(|e| Error::caused("a stored ondate", e))?;
                let at = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
                conv.value(&c.value, at)?
            }
            _ => c.value,
        };
        return Ok(value.as_f64().filter(|v| v.is_finite()));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::curve::{encode, Contract, StoredCurve};

    /// A stored curve of `ondate` holding these contracts and prices.
    fn stored(ondate: &str, contracts: &[(&str, Option<f64>)]) -> (String, Vec<u8>) {
        let mut m = Map::new();
        m.insert("curveDate".into(), json!(ondate));
        let curve = StoredCurve {
            ondate: m,
            contracts: contracts
                .iter()
                .map(|(absolute, v)| Contract {
                    tenor: absolute.to_string(),
                    relative: String::new(),
                    absolute: absolute.to_string(),
                    value: v.map_or(PointValue::Null, PointValue::Num),
                    status: None,
                    start: String::new(),
                    end: String::new(),
                    expiry: String::new(),
                    extra: String::new(),
                })
                .collect(),
        };
        (ondate.to_string(), encode(&curve))
    }

    fn picked(curve: usize, absolute: &str, value: f64) -> Picked {
        Picked {
            curve,
            absolute: absolute.into(),
            value: Some(value),
        }
    }

    fn points(values: &[f64]) -> Vec<DatedPoint> {
        values
            .iter()
            .map(|v| DatedPoint {
                ondate: String::new(),
                value: PointValue::Num(*v),
                status: None,
                properties: Some(Map::new()),
            })
            .collect()
    }

    #[test]
    fn earlier_points_move_by_each_later_roll_priced_on_its_roll_day_or_the_day_before() {
        // Days 1 and 2 on April; day 3 rolls to May, its curve still quoting April (the roll
        // priced there); day 4 rolls to June, its curve without May (the roll priced on day
        // 3, whose curve quotes both).
        let curves = [
            stored(
                "2024-03-27",
                &[("2024M04", Some(40.0)), ("2024M05", Some(50.0))],
            ),
            stored(
                "2024-03-28",
                &[("2024M04", Some(41.0)), ("2024M05", Some(51.0))],
            ),
            stored(
                "2024-03-29",
                &[
                    ("2024M04", Some(41.5)),
                    ("2024M05", Some(52.0)),
                    ("2024M06", Some(62.0)),
                ],
            ),
            stored("2024-05-01", &[("2024M06", Some(63.0))]),
        ];
        let picks = [
            picked(0, "2024M04", 40.0),
            picked(1, "2024M04", 41.0),
            picked(2, "2024M05", 52.0),
            picked(3, "2024M06", 63.0),
        ];
        let mut data = points(&[40.0, 41.0, 52.0, 63.0]);
        let rolls = back_adjust(Adjust::Difference, &curves, &picks, None, &mut data).unwrap();
        let values: Vec<f64> = data.iter().map(|p| p.value.as_f64().unwrap()).collect();
        // Roll 1 on 2024-03-29: 52 - 41.5 = 10.5; roll 2 priced on 2024-03-29: 62 - 52 = 10.
        assert_eq!(values, [40.0 + 20.5, 41.0 + 20.5, 52.0 + 10.0, 63.0]);
        let by: Vec<f64> = data
            .iter()
            .map(|p| {
                p.properties.as_ref().unwrap()["adjustment"]
                    .as_f64()
                    .unwrap()
            })
            .collect();
        assert_eq!(by, [20.5, 20.5, 10.0, 0.0]);
        assert_eq!(rolls.len(), 2);
        assert_eq!(
            (&rolls[0]["priced"], &rolls[0]["difference"]),
            (&json!("2024-03-29"), &json!(10.5))
        );
        assert_eq!(
            (
                &rolls[1]["ondate"],
                &rolls[1]["priced"],
                &rolls[1]["from"],
                &rolls[1]["to"]
            ),
            (
                &json!("2024-05-01"),
                &json!("2024-03-29"),
                &json!("2024M05"),
                &json!("2024M06")
            )
        );
        // Ratios multiply.
        let mut data = points(&[40.0, 41.0, 52.0, 63.0]);
        back_adjust(Adjust::Ratio, &curves, &picks, None, &mut data).unwrap();
        let values: Vec<f64> = data.iter().map(|p| p.value.as_f64().unwrap()).collect();
        let (r1, r2) = (52.0 / 41.5, 62.0 / 52.0);
        let want = [40.0 * r1 * r2, 41.0 * r1 * r2, 52.0 * r2, 63.0];
        for (got, want) in values.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{values:?}");
        }
    }

    #[test]
    fn a_roll_neither_day_prices_or_a_ratio_of_a_negative_price_is_refused() {
        let curves = [
            stored("2024-04-30", &[("2024M05", Some(-5.0))]),
            stored("2024-05-01", &[("2024M06", Some(60.0))]),
        ];
        let picks = [picked(0, "2024M05", -5.0), picked(1, "2024M06", 60.0)];
        let m = back_adjust(
            Adjust::Difference,
            &curves,
            &picks,
            None,
            &mut points(&[-5.0, 60.0]),
        )
        .unwrap_err()
        .public_message();
        assert!(
            m.contains("roll of 2024-05-01 from 2024M05 to 2024M06") && m.contains("2024-04-30"),
            "{m}"
        );
        let curves = [
            stored(
                "2024-04-30",
                &[("2024M05", Some(-5.0)), ("2024M06", Some(58.0))],
            ),
            stored("2024-05-01", &[("2024M06", Some(60.0))]),
        ];
        let m = back_adjust(
            Adjust::Ratio,
            &curves,
            &picks,
            None,
            &mut points(&[-5.0, 60.0]),
        )
        .unwrap_err()
        .public_message();
        assert!(m.contains("two positive prices") && m.contains("-5"), "{m}");
        let mut data = points(&[-5.0, 60.0]);
        back_adjust(Adjust::Difference, &curves, &picks, None, &mut data).unwrap();
        assert_eq!(data[0].value, PointValue::Num(-5.0 + 63.0));
    }
}
