//! Continuation series of a curve: `_continuation=M01` (with `_roll=expiry|calendar`) reads a
//! curve's history as a time series, one point per ondate, holding the price of the contract
//! that was the front month (quarter, year, day-ahead...) on that ondate.
//!
//! - `_roll=expiry` (the default): the front contract of a unit on an ondate is the one of that
//!   unit, among the ondate's contracts, with the earliest delivery whose `expiry` is on or
//!   after the ondate: a contract is held through its expiry day and rolls to the next the day
//!   after. `M02` is the month after the front one, and so on.
//! - `_roll=calendar`: the contract the relative code names on the ondate (`M01` on any day of
//!   March is April), rolling on the first day of each period, as `tenor=M01` does.
//!
//! Each point's `properties.absolute` names the contract it holds; an ondate without that
//! contract has no point. The answer is a SPARSE `VarTimeSeries` whose `properties` carry
//! `continuation` and `roll`; `_range` picks ondates (dates read in UTC) and `units`/`currency`
//! convert as on any read.
//!
//! `_adjust=difference|ratio` back-adjusts the series (see `continuation_adjust`): at each roll
//! every earlier point moves by the difference (ratio) of the new and the old front contract
//! on the roll day, so the newest segment keeps its prices.

use super::curve::ContractView;
use crate::error::{Error, Result};
use crate::query::period::{self, Period, PeriodUnit, RelativePeriod};
use crate::query::Params;
use chrono::NaiveDate;

/// When a continuation moves to the next contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Roll {
    /// The day after the front contract's expiry.
    Expiry,
    /// On the first day of each period (the relative code at each ondate).
    Calendar,
}

impl Roll {
    /// The parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            Roll::Expiry => "expiry",
            Roll::Calendar => "calendar",
        }
    }
}

/// How a continuation is back-adjusted at its rolls (`_adjust`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjust {
    /// Every earlier point moves by the new price less the old one.
    Difference,
    /// Every earlier point is multiplied by the new price over the old one.
    Ratio,
}

impl Adjust {
    /// The parameter's value.
    pub fn as_str(self) -> &'static str {
        match self {
            Adjust::Difference => "difference",
            Adjust::Ratio => "ratio",
        }
    }
}

/// A continuation series asked for: the position (`M01`: the front month), the roll and the
/// back-adjustment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Continuation {
    /// The unit of the contracts followed and the position, from 1 (the front one).
    pub(crate) code: RelativePeriod,
    /// When it moves to the next contract.
    pub(crate) roll: Roll,
    /// How earlier prices move at each roll (`None`: the prices as quoted).
    pub(crate) adjust: Option<Adjust>,
}

/// What `_continuation` takes, for error messages.
const ALLOWED: &str = "a relative tenor code from 01: M01 (the front month), M02, Q01, Y01, \
                       DA01, ... (units D, DA, W, M, Q, S, HY, Y)";

impl Continuation {
    /// Reads `_continuation`, `_roll` and `_adjust` (`None` without `_continuation`); a bad
    /// value, or `_roll` or `_adjust` alone, is a 400 naming the parameter and the values
    /// allowed.
    pub fn from_params(params: &Params) -> Result<Option<Continuation>> {
        let adjust = match params.get("_adjust").map(str::trim) {
            None => None,
            Some("difference") => Some(Adjust::Difference),
            Some("ratio") => Some(Adjust::Ratio),
            Some(other) => {
                return Err(Error::invalid_parameter(format!(
                    "_adjust \"{other}\" is not a back-adjustment: use difference (earlier \
                     prices move by the new front price less the old one at each roll) or ratio \
                     (they are multiplied by the new over the old)"
                )))
            }
        };
        if adjust.is_some() && params.get("_continuation").is_none() {
            return Err(Error::invalid_parameter(
                "_adjust back-adjusts a continuation at its rolls: it needs _continuation (M01, \
                 Q01, ...)",
            ));
        }
        let roll = match params.get("_roll").map(str::trim) {
            None | Some("expiry") => Roll::Expiry,
            Some("calendar") => Roll::Calendar,
            Some(other) => {
                return Err(Error::invalid_parameter(format!(
                    "_roll \"{other}\" is not a roll: use expiry (the default: the day after the \
                     front contract's expiry) or calendar (the first day of each period)"
                )))
            }
        };
        let Some(text) = params.get("_continuation") else {
            if params.get("_roll").is_some() {
                return Err(Error::invalid_parameter(
                    "_roll says when a continuation rolls: it needs _continuation (M01, Q01, ...)",
                ));
            }
            return Ok(None);
        };
        let continuation = Continuation::named("_continuation", text, roll, adjust)?;
        for other in ["tenor", "listTenors"] {
            if params.get(other).is_some() {
                return Err(Error::invalid_parameter(format!(
                    "_continuation and {other} are two reads of a curve: send one"
                )));
            }
        }
        Ok(Some(continuation))
    }

    /// The continuation series of the contract at position `code` (`M01`: the front month,
    /// `Q02`, `Y01`, ...), moving to the next one as `roll` says, back-adjusted at each roll
    /// as `adjust` says (`None`: the prices as quoted); a code that is not a relative one
    /// from 01 is refused, naming the codes allowed.
    ///
    /// ```
    /// use platform_core::api::{data::Adjust, data::Continuation, data::DataQuery, data::Roll};
    /// let front = Continuation::new("M01", Roll::Expiry, Some(Adjust::Ratio))?;
    /// assert_eq!((front.code().as_str(), front.roll(), front.adjust()), ("M01", Roll::Expiry, Some(Adjust::Ratio)));
    /// let q = DataQuery { continuation: Some(front), ..Default::default() };
    /// # let _ = q;
    /// let refused = Continuation::new("2025M01", Roll::Expiry, None).unwrap_err();
    /// assert!(refused.to_string().starts_with("Continuation::new \"2025M01\" is not a relative code"), "{refused}");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn new(code: &str, roll: Roll, adjust: Option<Adjust>) -> Result<Continuation> {
        Continuation::named("Continuation::new", code, roll, adjust)
    }

    /// [`Continuation::new`], an error naming `what`.
    fn named(what: &str, text: &str, roll: Roll, adjust: Option<Adjust>) -> Result<Continuation> {
        let bad = |why: String| {
            Error::invalid_parameter(format!("{what} \"{text}\" {why}: use {ALLOWED}"))
        };
        let code = match period::parse(text.trim()) {
            Ok(Period::Relative(r)) if r.index >= 1 => r,
            Ok(Period::Relative(_)) => return Err(bad("is the ondate's own period".into())),
            Ok(_) => return Err(bad("is not a relative code".into())),
            Err(e) => return Err(bad(format!("is not a tenor code ({e})"))),
        };
        Ok(Continuation { code, roll, adjust })
    }

    /// The position followed (`M01`...).
    pub fn code(&self) -> String {
        self.code.to_string()
    }

    /// When it rolls.
    pub fn roll(&self) -> Roll {
        self.roll
    }

    /// How it is back-adjusted.
    pub fn adjust(&self) -> Option<Adjust> {
        self.adjust
    }

    internal! {
        /// The contract this continuation holds on `ondate` (YYYY-MM-DD) among a curve's
        /// `contracts` (read once, or twice for a position after the front one).
        fn pick<'a, I>(&self, ondate: &str, contracts: I) -> Result<Option<ContractView<'a>>>
        where
            I: Iterator<Item = Result<ContractView<'a>>> + Clone,
        {
            let find = |code: String, contracts: I| -> Result<Option<ContractView<'a>>> {
                for c in contracts {
                    let c = c?;
                    if c.absolute == code.as_bytes() {
                        return Ok(Some(c));
                    }
                }
                Ok(None)
            };
            let day = || NaiveDate::parse_from_str(ondate, "%Y-%m-%d").ok();
            match self.roll {
                Roll::Calendar => match day().and_then(|d| self.code.at(d).ok()) {
                    Some(code) => find(code.to_string(), contracts),
                    None => Ok(None),
                },
                Roll::Expiry => {
                    // Dates as YYYY-MM-DD text compare as the dates do.
                    let mut front: Option<ContractView<'a>> = None;
                    for c in contracts.clone() {
                        let c = c?;
                        if c.expiry >= ondate.as_bytes()
                            && front.as_ref().is_none_or(|f| c.start < f.start)
                            && is_of(c.absolute, self.code.unit)
                        {
                            front = Some(c);
                        }
                    }
                    let Some(front) = front else {
                        return Ok(None);
                    };
                    if self.code.index == 1 {
                        return Ok(Some(front));
                    }
                    let Ok(Period::Absolute(first)) = period::parse(text(front.absolute)?) else {
                        return Ok(None);
                    };
                    let after = RelativePeriod {
                        unit: self.code.unit,
                        index: self.code.index - 1,
                    };
                    match after.at(first.start()) {
                        Ok(code) => find(code.to_string(), contracts),
                        Err(_) => Ok(None),
                    }
                }
            }
        }
    }
}

/// Whether a canonical absolute code (`2024M04`, `2024DA0302`, `2024Y`) names a period of
/// `unit`: four digits of year, the unit's letters, then digits only (none for a year).
fn is_of(absolute: &[u8], unit: PeriodUnit) -> bool {
    let Some(rest) = absolute
        .get(4..)
        .and_then(|r| r.strip_prefix(unit.code().as_bytes()))
    else {
        return false;
    };
    absolute[..4].iter().all(u8::is_ascii_digit)
        && rest.iter().all(u8::is_ascii_digit)
        && (rest.is_empty() == (unit == PeriodUnit::Year))
}

/// A stored contract's text.
pub(super) fn text(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| Error::caused("a stored contract", e))
}

/// A continuation runs over every ondate: a data id naming one (`OBJ:PROP:ONDATE`) is a 400.
pub(crate) fn no_ondate(text: &str, ondate: Option<NaiveDate>) -> Result<()> {
    match ondate {
        None => Ok(()),
        Some(d) => Err(Error::invalid_parameter(format!(
            "\"{text}\" names the ondate {d}: _continuation reads every ondate of a curve, name \
             it without one (OBJ:PROP) and pick ondates with _range"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observations::model::PointValue;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params::from_slice(pairs)
    }

    fn view<'a>(absolute: &'a str, start: &'a str, expiry: &'a str, v: f64) -> ContractView<'a> {
        ContractView {
            absolute: absolute.as_bytes(),
            value: PointValue::Num(v),
            status: b"",
            start: start.as_bytes(),
            expiry: expiry.as_bytes(),
        }
    }

    #[test]
    fn the_parameters_are_read_and_bad_ones_name_what_is_allowed() {
        let c = Continuation::from_params(&params(&[("_continuation", "m01")]))
            .unwrap()
            .unwrap();
        assert_eq!((c.code.to_string(), c.roll), ("M01".into(), Roll::Expiry));
        let c =
            Continuation::from_params(&params(&[("_continuation", "DA01"), ("_roll", "calendar")]))
                .unwrap()
                .unwrap();
        assert_eq!(
            (c.code.to_string(), c.roll),
            ("DA01".into(), Roll::Calendar)
        );
        assert_eq!(Continuation::from_params(&params(&[])).unwrap(), None);
        for (text, adjust) in [("difference", Adjust::Difference), ("ratio", Adjust::Ratio)] {
            let c =
                Continuation::from_params(&params(&[("_continuation", "M01"), ("_adjust", text)]))
                    .unwrap()
                    .unwrap();
            assert_eq!((c.adjust, c.roll), (Some(adjust), Roll::Expiry));
        }
        for (pairs, says) in [
            (vec![("_continuation", "X7")], "_continuation \"X7\""),
            (vec![("_continuation", "M00")], "own period"),
            (vec![("_continuation", "2024M04")], "not a relative code"),
            (vec![("_continuation", "BOM")], "not a relative code"),
            (
                vec![("_continuation", "M01"), ("_roll", "sometimes")],
                "_roll \"sometimes\"",
            ),
            (vec![("_roll", "calendar")], "needs _continuation"),
            (vec![("_continuation", "M01"), ("tenor", "M01")], "send one"),
            (
                vec![("_continuation", "M01"), ("_adjust", "panama")],
                "_adjust \"panama\"",
            ),
            (vec![("_adjust", "ratio")], "needs _continuation"),
        ] {
            let e = Continuation::from_params(&params(&pairs)).unwrap_err();
            let m = e.public_message();
            assert!(m.contains(says), "{pairs:?}: {m}");
            assert_eq!(e.code(), crate::ErrorCode::InvalidParameter);
        }
        let m = Continuation::from_params(&params(&[("_continuation", "X7")]))
            .unwrap_err()
            .public_message();
        assert!(m.contains("M01") && m.contains("DA01"), "{m}");
        let m = Continuation::from_params(&params(&[("_continuation", "M01"), ("_roll", "x")]))
            .unwrap_err()
            .public_message();
        assert!(m.contains("expiry") && m.contains("calendar"), "{m}");
    }

    #[test]
    fn the_front_contract_rolls_the_day_after_its_expiry_or_on_the_first_of_the_month() {
        let curve = [
            view("2024M04", "2024-04-01", "2024-03-28", 40.0),
            view("2024M05", "2024-05-01", "2024-04-30", 50.0),
            view("2024M06", "2024-06-01", "2024-05-31", 60.0),
            view("2024Q03", "2024-07-01", "2024-06-28", 70.0),
            view("2024DA0329", "2024-03-29", "2024-03-28", 1.0),
        ];
        let expiry = |code: &str, d: &str| {
            let c = Continuation {
                code: match period::parse(code).unwrap() {
                    Period::Relative(r) => r,
                    _ => unreachable!(),
                },
                roll: Roll::Expiry,
                adjust: None,
            };
            c.pick(d, curve.iter().cloned().map(Ok))
                .unwrap()
                .map(|c| std::str::from_utf8(c.absolute).unwrap().to_string())
        };
        // Held through its expiry day, the next one the day after.
        assert_eq!(expiry("M01", "2024-03-28").as_deref(), Some("2024M04"));
        assert_eq!(expiry("M01", "2024-03-29").as_deref(), Some("2024M05"));
        assert_eq!(expiry("M02", "2024-03-28").as_deref(), Some("2024M05"));
        assert_eq!(expiry("M02", "2024-03-29").as_deref(), Some("2024M06"));
        // The contract after the last one is not in the curve: no point.
        assert_eq!(expiry("M03", "2024-03-29").as_deref(), None);
        assert_eq!(expiry("Q01", "2024-03-29").as_deref(), Some("2024Q03"));
        assert_eq!(expiry("DA01", "2024-03-28").as_deref(), Some("2024DA0329"));
        assert_eq!(expiry("DA01", "2024-03-29").as_deref(), None);
        assert_eq!(expiry("Y01", "2024-03-29").as_deref(), None);
        let calendar = Continuation {
            code: RelativePeriod {
                unit: PeriodUnit::Month,
                index: 1,
            },
            roll: Roll::Calendar,
            adjust: None,
        };
        assert_eq!(
            calendar
                .pick("2024-03-29", curve.iter().cloned().map(Ok))
                .unwrap()
                .map(|c| c.absolute),
            Some(&b"2024M04"[..])
        );
        assert_eq!(
            calendar
                .pick("2024-04-01", curve.iter().cloned().map(Ok))
                .unwrap()
                .map(|c| c.absolute),
            Some(&b"2024M05"[..])
        );
    }

    #[test]
    fn codes_are_of_a_unit_by_their_letters_and_digits() {
        assert!(is_of(b"2024M04", PeriodUnit::Month));
        assert!(is_of(b"2024Y", PeriodUnit::Year));
        assert!(is_of(b"2024DA0302", PeriodUnit::DayAhead));
        assert!(!is_of(b"2024DA0302", PeriodUnit::Day));
        assert!(is_of(b"2024D0302", PeriodUnit::Day));
        assert!(!is_of(b"2024HY01", PeriodUnit::Year));
        assert!(!is_of(b"2024M", PeriodUnit::Month));
        assert!(!is_of(b"", PeriodUnit::Month));
    }
}
