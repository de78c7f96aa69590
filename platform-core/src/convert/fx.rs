//! Currency conversion with FX rates read from the public FX series `#FX.<BASE><QUOTE>`
//! (property `SPOT`; 1 BASE = rate QUOTE).
//!
//! The lookup of one rate at one instant is the caller's ([`RateSource`]); this module decides
//! which pairs to look for and how to combine them (see [`rate`]).

use std::fmt;

use chrono::{DateTime, Timelike, Utc};

use crate::error::{Error, Result};

/// Where FX rates come from.
///
/// The platform's implementation reads the public object `#FX.<pair>`, property `SPOT`, and
/// answers the value of the observation at `at` or, failing that, of the last observation before
/// it; `Ok(None)` when the object, the property, or any observation up to `at` is missing.
///
/// Any `Fn(&str, DateTime<Utc>) -> Result<Option<f64>>` closure is a rate source.
pub trait RateSource {
    /// The rate of `pair` (six upper-case letters, `EURGBP`: 1 EUR = rate GBP) at `at` or the
    /// last one before it, or `None` when there is none.
    fn spot(&self, pair: &str, at: DateTime<Utc>) -> Result<Option<f64>>;
}

impl<F> RateSource for F
where
    F: Fn(&str, DateTime<Utc>) -> Result<Option<f64>>,
{
    fn spot(&self, pair: &str, at: DateTime<Utc>) -> Result<Option<f64>> {
        self(pair, at)
    }
}

/// The minor-unit codes of market convention: code, ISO code of the major currency, whether the
/// code matches only with this exact case (`GBp` is pence, `GBP` pounds). One minor unit is a
/// hundredth of the major one.
const MINOR_UNITS: &[(&str, &str, bool)] = &[
    ("GBp", "GBP", true),
    ("GBX", "GBP", false),
    ("USc", "USD", true),
    ("USX", "USD", false),
    ("EUc", "EUR", true),
];

/// A currency code: an ISO 4217 currency or a minor unit of one (see [`parse_currency`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Currency {
    code: String,
    iso: String,
    scale: f64,
}

impl Currency {
    /// The code in its normal form: upper-case ISO (`GBP`), or the minor unit's conventional
    /// spelling (`GBp`, `GBX`, `USc`, `USX`, `EUc`).
    #[cfg(any(test, feature = "internals"))]
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The ISO code of the currency whose FX series give the rates (`GBP` for `GBp`).
    #[cfg(any(test, feature = "internals"))]
    pub fn iso(&self) -> &str {
        &self.iso
    }

    /// How many of the ISO currency one unit of this code is worth (1, or 0.01 for a minor
    /// unit).
    #[cfg(any(test, feature = "internals"))]
    pub fn scale(&self) -> f64 {
        self.scale
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.code)
    }
}

/// Parses a currency code: three ASCII letters (ISO 4217 shape; lower case is upper-cased, so
/// `eur` is `EUR`), or one of the minor units of market convention, worth 1/100 of their
/// currency: `GBp` or `GBX` (pence), `USc` or `USX` (US cents), `EUc` (euro cents). `GBp`,
/// `USc` and `EUc` match only in that exact case; `GBX` and `USX` in any case.
///
/// Any other text is an [`InvalidParameter`](crate::error::ErrorCode::InvalidParameter) error
/// starting with `unknown currency`. Whether an FX series exists for a well-formed code is only
/// known when a rate is looked for.
pub fn parse_currency(code: &str) -> Result<Currency> {
    let trimmed = code.trim();
    for &(minor, iso, exact_case) in MINOR_UNITS {
        let matches = if exact_case {
            trimmed == minor
        } else {
            trimmed.eq_ignore_ascii_case(minor)
        };
        if matches {
            return Ok(Currency {
                code: minor.to_string(),
                iso: iso.to_string(),
                scale: 0.01,
            });
        }
    }
    if trimmed.len() == 3 && trimmed.bytes().all(|b| b.is_ascii_alphabetic()) {
        let iso = trimmed.to_ascii_uppercase();
        return Ok(Currency {
            code: iso.clone(),
            iso,
            scale: 1.0,
        });
    }
    Err(Error::invalid_parameter(format!(
        "unknown currency '{trimmed}': a currency is three letters (ISO 4217, e.g. EUR) or a \
         minor unit (GBp, GBX, USc, USX, EUc)"
    )))
}

/// The instant as a message shows it: the date alone at midnight, else the RFC 3339 instant.
fn show_instant(at: DateTime<Utc>) -> String {
    if at.num_seconds_from_midnight() == 0 && at.nanosecond() == 0 {
        at.format("%Y-%m-%d").to_string()
    } else {
        at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
    }
}

/// A rate between two ISO codes from one pair, direct or inverted; `None` when neither series
/// has a rate.
fn leg(
    source: &dyn RateSource,
    from: &str,
    to: &str,
    at: DateTime<Utc>,
    shown: &dyn Fn() -> String,
) -> Result<Option<f64>> {
    let checked = |pair: String| -> Result<Option<f64>> {
        match source.spot(&pair, at)? {
            Some(r) if r.is_finite() && r > 0.0 => Ok(Some(r)),
            Some(r) => Err(Error::invalid_parameter(format!(
                "cannot convert {}: #FX.{pair} SPOT is {r}, not a positive rate",
                shown()
            ))),
            None => Ok(None),
        }
    };
    if let Some(r) = checked(format!("{from}{to}"))? {
        return Ok(Some(r));
    }
    Ok(checked(format!("{to}{from}"))?.map(|r| 1.0 / r))
}

/// The factor that turns an amount in currency `from` into currency `to` at instant `at`
/// (`amount_in_to = amount_in_from * rate`), from the rates `source` gives.
///
/// The search, on the ISO codes (minor units are scaled by 1/100 around it):
/// 1. the same currency is 1, with no lookup (`GBp` to `GBP` is 0.01);
/// 2. the direct pair `FROMTO` (`#FX.EURGBP` for EUR to GBP);
/// 3. the inverse pair `TOFROM`, as 1/rate;
/// 4. a cross rate through EUR, `FROM -> EUR -> TO`, each leg direct or inverse;
/// 5. a cross rate through USD, the same way.
///
/// The first that has rates wins. When none does, the error (an
/// [`InvalidParameter`](crate::error::ErrorCode::InvalidParameter) starting with
/// `cannot convert`) names what was looked for: `cannot convert GBP to JPY on 2024-03-01: no FX
/// rate (looked for #FX.GBPJPY, #FX.JPYGBP, and crosses through EUR and USD)`. A rate that is
/// not a positive finite number is an error naming its series; errors of the source pass
/// through.
pub fn rate(source: &dyn RateSource, from: &str, to: &str, at: DateTime<Utc>) -> Result<f64> {
    let from = parse_currency(from)?;
    let to = parse_currency(to)?;
    let scale = from.scale / to.scale;
    let (f, t) = (from.iso.as_str(), to.iso.as_str());
    if f == t {
        return Ok(scale);
    }
    let shown = || format!("{from} to {to} on {}", show_instant(at));
    if let Some(r) = leg(source, f, t, at, &shown)? {
        return Ok(scale * r);
    }
    let hubs: Vec<&str> = ["EUR", "USD"]
        .into_iter()
        .filter(|hub| *hub != f && *hub != t)
        .collect();
    for hub in &hubs {
        let Some(first) = leg(source, f, hub, at, &shown)? else {
            continue;
        };
        if let Some(second) = leg(source, hub, t, at, &shown)? {
            return Ok(scale * first * second);
        }
    }
    let looked_for = match hubs.as_slice() {
        [] => format!("#FX.{f}{t} and #FX.{t}{f}"),
        [hub] => format!("#FX.{f}{t}, #FX.{t}{f}, and a cross through {hub}"),
        hubs => format!(
            "#FX.{f}{t}, #FX.{t}{f}, and crosses through {}",
            hubs.join(" and ")
        ),
    };
    Err(Error::invalid_parameter(format!(
        "cannot convert {}: no FX rate (looked for {looked_for})",
        shown()
    )))
}
