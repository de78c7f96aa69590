//! When a check cannot be answered at a point: a history function without the history it needs
//! (the check is skipped there, with a message naming the function), or a text value where a
//! number is needed (the check fails: `not a number`). Never a NaN that fails a comparison.
//!
//! Both paths stop the same way: rhai at the first history function that lacks its history
//! (the function raises an error, and [`Stop`] says why), the native tree at the first such
//! term in rhai's order of evaluation (left to right, `&&` and `||` short-circuiting).

use super::native::fmt_num;

/// Why a history function has no number at a point or contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lack {
    /// Fewer earlier observations (or curves) than it reads: `need`, of which there are `have`.
    Earlier { need: usize, have: usize },
    /// No number `back` observations back (at series index `at`).
    NoNumber { back: usize, at: usize },
    /// Fewer than `need` values among the `window` earlier observations (`have` of them).
    Values {
        need: usize,
        have: usize,
        window: usize,
    },
    /// `gap()` on a series without a calendar step.
    NoStep,
    /// The contract has no value on the curve `back` curves back.
    NoContract { back: usize },
    /// No contract has a value on both this curve and the previous one.
    NoMatch,
}

/// Why an evaluation stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A history function lacks history: the check is skipped, with this message.
    Lacking(String),
    /// A text value where a number is needed: the check fails, with this message.
    NotANumber(String),
}

/// `1 point`, `30 points`.
pub(crate) fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `none`, `only 3`.
fn only(have: usize) -> String {
    if have == 0 {
        "none".into()
    } else {
        format!("only {have}")
    }
}

/// The message of a text value where a number is needed.
pub(crate) fn not_a_number(text: &str) -> String {
    format!("value {} is not a number", quoted(text))
}

/// Text in double quotes, shortened past 40 characters.
fn quoted(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push_str("...");
    }
    format!("{out:?}")
}

impl Lack {
    /// The message of a point function `call` (`mean(30)`) at the observation whose time is
    /// `now`; `time(i)` is the time of series index `i`.
    pub fn point_message(self, call: &str, now: &str, time: impl Fn(usize) -> String) -> String {
        match self {
            Lack::Earlier { need, have } => format!(
                "{call} needs {}; {} before {now}",
                plural(need, "earlier point"),
                only(have)
            ),
            Lack::NoNumber { back, at } => format!(
                "{call} needs a number {} back; there is none at {}",
                plural(back, "point"),
                time(at)
            ),
            Lack::Values { need, have, window } => format!(
                "{call} needs {} among the {}; {}",
                plural(need, "value"),
                plural(window, "earlier point"),
                match have {
                    0 => "there are none".to_string(),
                    1 => "there is only 1".to_string(),
                    n => format!("there are only {n}"),
                }
            ),
            Lack::NoStep => {
                format!("{call} needs a daily or intraday calendar; this series has none")
            }
            Lack::NoContract { .. } | Lack::NoMatch => format!("{call} has no number at {now}"),
        }
    }

    /// The message of a tenor or curve function `call` on the curve of `ondate`; `contract`
    /// names the contract (`M01 (2024M04)`), `date(h)` is the ondate of previous curve `h`
    /// (0 = the newest).
    pub fn curve_message(
        self,
        call: &str,
        ondate: &str,
        contract: &str,
        date: impl Fn(usize) -> String,
    ) -> String {
        match self {
            Lack::Earlier { need, have } => format!(
                "{call} needs {}; {} before {ondate}",
                plural(need, "earlier curve"),
                only(have)
            ),
            Lack::NoContract { back } => format!(
                "{call} needs this contract {} back; {contract} has no value on {}",
                plural(back, "curve"),
                date(back - 1)
            ),
            Lack::NoMatch => format!(
                "{call} needs contracts with a value on both {ondate} and {}; there are none",
                date(0)
            ),
            Lack::NoNumber { .. } | Lack::Values { .. } | Lack::NoStep => {
                format!("{call} has no number on {ondate}")
            }
        }
    }
}

/// The text of a call with number arguments, as the native tree shows it (`quantile(20, 0.9)`).
pub(crate) fn call_text(name: &str, args: &[f64]) -> String {
    let args: Vec<String> = args.iter().map(|a| fmt_num(*a)).collect();
    format!("{name}({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_function_and_what_it_lacks() {
        let time = |i: usize| format!("t{i}");
        assert_eq!(
            Lack::Earlier { need: 1, have: 0 }.point_message("gap()", "2024-01-01T00:00:00Z", time),
            "gap() needs 1 earlier point; none before 2024-01-01T00:00:00Z"
        );
        assert_eq!(
            Lack::Earlier { need: 30, have: 5 }.point_message("mean(30)", "T", time),
            "mean(30) needs 30 earlier points; only 5 before T"
        );
        assert_eq!(
            Lack::NoNumber { back: 2, at: 7 }.point_message("lag(2)", "T", time),
            "lag(2) needs a number 2 points back; there is none at t7"
        );
        assert_eq!(
            Lack::Values {
                need: 2,
                have: 1,
                window: 20
            }
            .point_message("stdev(20)", "T", time),
            "stdev(20) needs 2 values among the 20 earlier points; there is only 1"
        );
        assert_eq!(
            Lack::NoContract { back: 1 }.curve_message(
                "tenor_change()",
                "2024-03-01",
                "M01 (2024M04)",
                |h| format!("d{h}")
            ),
            "tenor_change() needs this contract 1 curve back; M01 (2024M04) has no value on d0"
        );
        assert_eq!(not_a_number("n/a"), "value \"n/a\" is not a number");
        assert_eq!(call_text("quantile", &[20.0, 0.9]), "quantile(20, 0.9)");
    }
}
