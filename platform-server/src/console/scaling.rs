//! The series page's scaling choice: the calendar to scale to ("Scale to": EFA blocks, EFA days,
//! gas days, hours, days...), how a period's observations become its value ("Observed") and the
//! hours kept before aggregating ("Block").
//!
//! The choice lives in the page's URL (`scale`, `observed`, `block`), so a link shows the same
//! view, and is sent to the data read as a REST client sends it: `_calendar`, `_observed`
//! (averaged when not chosen) or `_distribution=constant` (`observed=spread`), and `_block`.
//! Nothing is checked here: the read refuses what the API refuses, with the API's message, and
//! the page shows that message.

use super::param;
use maud::{html, Markup};
use platform_core::api::time::efa;
use platform_core::api::time::local_text;
use platform_core::api::Params;
use serde_json::Value;

/// The calendars offered, finest first: code and what a period of it is called.
const TARGETS: [(&str, &str); 12] = [
    ("QUARTERHOURLY", "quarter-hours"),
    ("HALFHOURLY", "half-hours"),
    ("HOURLY", "hours"),
    ("EFA", "EFA blocks"),
    ("DAILY", "days"),
    ("BUSINESS", "business days"),
    ("EFADAY", "EFA days"),
    ("GASDAY", "gas days"),
    ("WEEKLY", "weeks"),
    ("MONTHLY", "months"),
    ("QUARTERLY", "quarters"),
    ("YEARLY", "years"),
];

/// The `observed` choices: the value in the page's URL and its label. `spread` is the read's
/// `_distribution=constant` (each observation's value over the finer periods inside it).
const OBSERVED: [(&str, &str); 7] = [
    ("averaged", "averaged"),
    ("summed", "summed"),
    ("high", "high"),
    ("low", "low"),
    ("beginning", "beginning"),
    ("end", "end"),
    ("spread", "spread (to a finer calendar)"),
];

/// The `observed` value that spreads rather than aggregates.
const SPREAD: &str = "spread";

/// The blocks offered (a block calendar's id works too, from the URL).
const BLOCKS: [&str; 8] = [
    "PEAK", "OFFPEAK", "EFA1", "EFA2", "EFA3", "EFA4", "EFA5", "EFA6",
];

/// The scaling a series page asks for.
#[derive(Debug, Clone, Copy)]
pub struct Choice<'q> {
    scale: Option<&'q str>,
    observed: Option<&'q str>,
    block: Option<&'q str>,
}

fn label_of(code: &str) -> Option<&'static str> {
    TARGETS
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(code))
        .map(|(_, label)| *label)
}

fn is_spread(observed: Option<&str>) -> bool {
    observed.is_some_and(|o| o.eq_ignore_ascii_case(SPREAD))
}

impl<'q> Choice<'q> {
    /// The choice in a page's query parameters (empty ones are not chosen).
    pub fn of(q: &'q Params) -> Choice<'q> {
        Choice {
            scale: param(q, "scale"),
            observed: param(q, "observed"),
            block: param(q, "block"),
        }
    }

    /// Whether anything of scaling was asked (the read then may refuse it).
    pub fn asked(&self) -> bool {
        self.scale.is_some() || self.observed.is_some() || self.block.is_some()
    }

    /// The parameters of the data read: `_calendar` with `_observed` (averaged by default) or
    /// `_distribution`, and `_block`. An `observed` or `block` without `scale` is passed on as
    /// it is, for the read to refuse.
    pub fn read_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if let Some(scale) = self.scale {
            pairs.push(("_calendar", scale.to_string()));
        }
        if is_spread(self.observed) {
            pairs.push(("_distribution", "constant".to_string()));
        } else if let Some(observed) = self.observed {
            pairs.push(("_observed", observed.to_string()));
        } else if self.scale.is_some() {
            pairs.push(("_observed", "averaged".to_string()));
        }
        if let Some(block) = self.block {
            pairs.push(("_block", block.to_string()));
        }
        pairs
    }

    /// The choice as the page's own query parameters (for links that keep it).
    pub fn page_pairs(&self) -> Vec<(&'static str, String)> {
        [
            ("scale", self.scale),
            ("observed", self.observed),
            ("block", self.block),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v.to_string())))
        .collect()
    }

    /// What a scaled answer shows, from the answer itself (its `calendar` and `observed`) and
    /// the block asked: `EFA blocks (EFA), averaged, hours of EFA1 only`. `None` as stored.
    pub fn describe(&self, item: &Value) -> Option<String> {
        self.scale?;
        let code = item["calendar"].as_str().unwrap_or_default();
        let mut text = match label_of(code) {
            Some(label) => format!("{label} ({code})"),
            None => code.to_string(),
        };
        match item["observed"].as_str() {
            Some(observed) => text.push_str(&format!(", {observed}")),
            None if is_spread(self.observed) => text.push_str(", spread"),
            None => {}
        }
        if let Some(block) = self.block {
            text.push_str(&format!(", hours of {block} only"));
        }
        Some(text)
    }

    /// The form's fields: "Scale to", "Observed" and "Block". The last two name the first in
    /// `data-needs-scale` (the script turns them off while the series is shown as stored).
    pub fn fields(&self) -> Markup {
        let targets: Vec<(String, String)> = TARGETS
            .iter()
            .map(|(code, label)| (code.to_string(), format!("{label} ({code})")))
            .collect();
        let observed: Vec<(String, String)> = OBSERVED
            .iter()
            .skip(1)
            .map(|(v, label)| (v.to_string(), label.to_string()))
            .collect();
        let blocks: Vec<(String, String)> = BLOCKS
            .iter()
            .map(|b| (b.to_string(), b.to_string()))
            .collect();
        html! {
            div.field {
                label for="scale" { "Scale to" }
                select #scale name="scale" data-scale {
                    (options("as stored", None, &targets, self.scale))
                }
            }
            div.field {
                label for="observed" { "Observed" }
                select #observed name="observed" data-needs-scale {
                    (options(OBSERVED[0].1, Some(OBSERVED[0].0), &observed, self.observed))
                }
            }
            div.field {
                label for="block" { "Block" }
                select #block name="block" data-needs-scale {
                    (options("none", None, &blocks, self.block))
                }
            }
        }
    }
}

/// A select's options: the first (value `""`, also chosen by `alias`) and the others, the
/// chosen one selected; a chosen value that is not among them (a block calendar's id, from a
/// link) is added, so the form sends again what the page shows.
fn options(
    first: &str,
    alias: Option<&str>,
    others: &[(String, String)],
    chosen: Option<&str>,
) -> Markup {
    let is = |v: &str| chosen.is_some_and(|c| c.eq_ignore_ascii_case(v));
    let first_chosen = chosen.is_none() || alias.is_some_and(is);
    let unlisted = chosen.filter(|_| !first_chosen && !others.iter().any(|(v, _)| is(v)));
    html! {
        option value="" selected[first_chosen] { (first) }
        @for (value, label) in others {
            option value=(value) selected[is(value)] { (label) }
        }
        @if let Some(c) = unlisted {
            option value=(c) selected { (c) }
        }
    }
}

/// A scaled point's time as the table shows it: an instant in the series' zone with its offset
/// (the read prints the starts of intraday, EFA and gas-day periods in UTC), a date as it is;
/// and, for periods whose day is not their start's (EFA blocks, EFA days, gas days), the period.
pub fn period(code: &str, time: &str, zone: chrono_tz::Tz) -> (String, Option<String>) {
    let Ok(at) = chrono::DateTime::parse_from_rfc3339(time) else {
        return (time.to_string(), None);
    };
    let ms = at.timestamp_millis();
    let local = local_text(ms, zone);
    let name = match code {
        "EFA" => {
            let (day, block) = efa::day_and_block(ms);
            Some(format!("EFA{block} of {day}"))
        }
        "EFADAY" => Some(format!("EFA day {}", efa::day_and_block(ms).0)),
        "GASDAY" => Some(format!("gas day {}", local.get(..10).unwrap_or_default())),
        _ => None,
    };
    (local, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &[(&str, &str)]) -> Vec<(&'static str, String)> {
        let q = super::super::params(q);
        Choice::of(&q).read_pairs()
    }

    #[test]
    fn the_choice_becomes_the_reads_parameters() {
        assert!(pairs(&[]).is_empty());
        assert_eq!(
            pairs(&[("scale", "EFA")]),
            [
                ("_calendar", "EFA".into()),
                ("_observed", "averaged".into())
            ]
        );
        assert_eq!(
            pairs(&[
                ("scale", "EFADAY"),
                ("observed", "summed"),
                ("block", "EFA1")
            ]),
            [
                ("_calendar", "EFADAY".into()),
                ("_observed", "summed".into()),
                ("_block", "EFA1".into())
            ]
        );
        assert_eq!(
            pairs(&[("scale", "HOURLY"), ("observed", "spread")]),
            [
                ("_calendar", "HOURLY".into()),
                ("_distribution", "constant".into())
            ]
        );
        // Without a calendar the rest is passed on, for the read to refuse.
        assert_eq!(
            pairs(&[("block", "PEAK"), ("scale", " ")]),
            [("_block", "PEAK".into())]
        );
    }

    #[test]
    fn efa_periods_are_named_by_their_efa_day() {
        let london = chrono_tz::Europe::London;
        // EFA1 of the spring change day starts at 23:00 GMT the day before.
        assert_eq!(
            period("EFA", "2025-03-29T23:00:00Z", london),
            (
                "2025-03-29T23:00:00+00:00".into(),
                Some("EFA1 of 2025-03-30".into())
            )
        );
        assert_eq!(
            period("EFA", "2025-03-30T02:00:00Z", london),
            (
                "2025-03-30T03:00:00+01:00".into(),
                Some("EFA2 of 2025-03-30".into())
            )
        );
        assert_eq!(
            period("EFADAY", "2025-03-30T22:00:00Z", london).1,
            Some("EFA day 2025-03-31".into())
        );
        assert_eq!(
            period("DAILY", "2025-03-30", london),
            ("2025-03-30".into(), None)
        );
    }
}
