//! What a series holds: numbers or text, and the check that keeps text out of a numeric series.
//!
//! ```text
//! valueType := "number" | "text"          a series header field, optional
//! ```
//!
//! A series is numeric when its header says `"valueType": "number"`, when it has `units` or a
//! `currency`, or, undeclared, when it holds only numbers: a text value in a numeric series is
//! refused, naming its place and the value (with a hint when the text is a number written with a
//! thousands separator or a decimal comma), and nothing of the write is kept. A series declared
//! `"valueType": "text"`, or undeclared and holding text (a new series, or one written with text
//! before), keeps text values and numbers as sent, as the interface allows. Null values are
//! allowed in both.

use crate::error::{Error, Result};
use crate::json::json_kind;
use crate::observations::model::PointValue;
use serde_json::{Map, Value};

/// The header field that declares what a series holds.
pub const VALUE_TYPE: &str = "valueType";

/// What a series' header says about its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueRule {
    /// Numbers only, and why (`its valueType is number`, `it has units EUR/MWh`...).
    Number(String),
    /// Text declared: any value.
    Text,
    /// Undeclared: numeric as soon as it holds (or is sent) a number.
    Undeclared,
}

impl ValueRule {
    /// The rule of a series header; a `valueType` other than `number` or `text` is an error.
    pub fn of_header(name: &str, header: &Map<String, Value>) -> Result<ValueRule> {
        let declared = match header.get(VALUE_TYPE) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => match s.as_str() {
                "number" => Some(true),
                "text" => Some(false),
                other => {
                    return Err(Error::invalid_body(format!(
                        "{name}.{VALUE_TYPE} \"{other}\" is not one of number, text"
                    )))
                }
            },
            Some(other) => {
                return Err(Error::invalid_body(format!(
                    "{name}.{VALUE_TYPE} must be \"number\" or \"text\", not {}",
                    json_kind(other)
                )))
            }
        };
        let text = |f: &str| {
            header
                .get(f)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        Ok(match declared {
            Some(true) => ValueRule::Number(format!("its {VALUE_TYPE} is number")),
            Some(false) => ValueRule::Text,
            None => match (text("units"), text("currency")) {
                (Some(u), _) => ValueRule::Number(format!("it has units {u}")),
                (None, Some(c)) => ValueRule::Number(format!("it has currency {c}")),
                (None, None) => ValueRule::Undeclared,
            },
        })
    }
}

/// A sent value as the check sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sent<'a> {
    /// A number.
    Num,
    /// A text.
    Text(&'a str),
    /// Null (or anything else, refused elsewhere).
    Null,
}

impl<'a> Sent<'a> {
    /// Of a parsed value.
    pub fn of(v: &'a PointValue) -> Sent<'a> {
        match v {
            PointValue::Num(_) => Sent::Num,
            PointValue::Text(t) => Sent::Text(t),
            PointValue::Null => Sent::Null,
        }
    }

    /// Of a JSON value.
    pub fn of_json(v: &'a Value) -> Sent<'a> {
        match v {
            Value::Number(_) => Sent::Num,
            Value::String(t) => Sent::Text(t),
            _ => Sent::Null,
        }
    }
}

/// Checks the values of one write against the rule. `values` are the sent values with their
/// positions, `place` names a position (`SPOT.data[3]`, `line 7`), and
/// `stored_holds_only_numbers` is asked, only for an undeclared series sent text, whether the
/// stored series holds numbers and no text.
pub fn check_values<'a>(
    rule: &ValueRule,
    values: impl Iterator<Item = (usize, Sent<'a>)> + Clone,
    place: &dyn Fn(usize) -> String,
    stored_holds_only_numbers: impl FnOnce() -> Result<bool>,
) -> Result<()> {
    let first_text = || {
        values.clone().find_map(|(i, v)| match v {
            Sent::Text(t) => Some((i, t)),
            _ => None,
        })
    };
    let reason = match rule {
        ValueRule::Text => return Ok(()),
        ValueRule::Number(reason) => reason.clone(),
        ValueRule::Undeclared => {
            let Some(_) = first_text() else {
                return Ok(());
            };
            if stored_holds_only_numbers()? {
                "it holds only numbers".to_string()
            } else {
                return Ok(());
            }
        }
    };
    match first_text() {
        None => Ok(()),
        Some((i, text)) => Err(not_a_number(&place(i), text, &reason)),
    }
}

/// The error of a text value in a numeric series.
fn not_a_number(place: &str, text: &str, reason: &str) -> Error {
    let hint = match number_hint(text) {
        Some(hint) => format!(" ({hint})"),
        None => String::new(),
    };
    Error::invalid_body(format!(
        "{place}: the value {} is not a number{hint}, and the series is numeric ({reason}): \
         send a number or null, or declare \"{VALUE_TYPE}\": \"text\" on a series of text; \
         nothing was stored",
        serde_json::to_string(text).unwrap_or_default()
    ))
}

/// What a text that is almost a number probably means: a thousands separator (`1,234.5`,
/// `1.234,5`, `1 234`) or a decimal comma (`80,5`).
pub fn number_hint(text: &str) -> Option<String> {
    let t = text.trim();
    let plain = |s: &str| s.parse::<f64>().ok().filter(|n| n.is_finite());
    if t.is_empty() || plain(t).is_some() {
        return None;
    }
    let has = |c: char| t.contains(c);
    let reads = |s: String| plain(&s).map(|n| (s, n));
    let guess = if has(',') && has('.') {
        // The separator that comes last is the decimal one.
        if t.rfind(',') > t.rfind('.') {
            reads(t.replace('.', "").replace(',', "."))
                .map(|(_, n)| format!("a thousands separator and a decimal comma? write {n}"))
        } else {
            reads(t.replace(',', "")).map(|(_, n)| format!("a thousands separator? write {n}"))
        }
    } else if has(',') {
        let thousands = t
            .trim_start_matches(['-', '+'])
            .split(',')
            .skip(1)
            .all(|g| g.len() == 3);
        match reads(t.replace(',', ".")) {
            Some((_, n)) if !thousands || t.matches(',').count() == 1 => Some(format!(
                "a decimal comma? write {n}{}",
                if thousands {
                    format!(
                        ", or {} if the comma separates thousands",
                        t.replace(',', "")
                    )
                } else {
                    String::new()
                }
            )),
            _ => {
                reads(t.replace(',', "")).map(|(_, n)| format!("a thousands separator? write {n}"))
            }
        }
    } else if has(' ') || has('\u{a0}') || has('\'') || has('_') {
        reads(t.replace([' ', '\u{a0}', '\'', '_'], ""))
            .map(|(_, n)| format!("a thousands separator? write {n}"))
    } else {
        None
    };
    guess
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(header: Value) -> Result<ValueRule> {
        ValueRule::of_header("PRICE", header.as_object().unwrap())
    }

    #[test]
    fn the_header_decides_the_rule() {
        assert!(matches!(rule(json!({})).unwrap(), ValueRule::Undeclared));
        assert_eq!(
            rule(json!({"valueType": "text", "units": "MW"})).unwrap(),
            ValueRule::Text
        );
        assert_eq!(
            rule(json!({"units": "EUR/MWh"})).unwrap(),
            ValueRule::Number("it has units EUR/MWh".into())
        );
        assert_eq!(
            rule(json!({"currency": "EUR"})).unwrap(),
            ValueRule::Number("it has currency EUR".into())
        );
        assert_eq!(
            rule(json!({"valueType": "number"})).unwrap(),
            ValueRule::Number("its valueType is number".into())
        );
        let e = rule(json!({"valueType": "numeric"}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PRICE.valueType \"numeric\" is not one of number, text"),
            "{e}"
        );
        let e = rule(json!({"valueType": 1})).unwrap_err().to_string();
        assert!(
            e.contains("must be \"number\" or \"text\", not a number"),
            "{e}"
        );
    }

    fn check(rule: &ValueRule, values: &[PointValue], stored: bool) -> Result<()> {
        check_values(
            rule,
            values.iter().map(Sent::of).enumerate(),
            &|i| format!("PRICE.data[{i}]"),
            || Ok(stored),
        )
    }

    #[test]
    fn text_in_a_numeric_series_is_named() {
        let num = ValueRule::Number("it has units EUR/MWh".into());
        let values = [
            PointValue::Num(1.0),
            PointValue::Null,
            PointValue::Text("abc".into()),
        ];
        let e = check(&num, &values, false).unwrap_err().to_string();
        assert!(
            e.contains("PRICE.data[2]: the value \"abc\" is not a number, and the series is numeric (it has units EUR/MWh)"),
            "{e}"
        );
        // Undeclared: numeric when the stored series holds only numbers (a new series, or one
        // holding text, takes text and numbers as the interface allows).
        assert!(check(&ValueRule::Undeclared, &values, false).is_ok());
        let e = check(&ValueRule::Undeclared, &values, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PRICE.data[2]") && e.contains("(it holds only numbers)"),
            "{e}"
        );
        // Declared text keeps everything; numbers and nulls pass every rule.
        assert!(check(&ValueRule::Text, &values, true).is_ok());
        let nums = [PointValue::Num(2.0), PointValue::Null];
        assert!(check(&num, &nums, true).is_ok());
        assert!(check(&ValueRule::Undeclared, &nums, true).is_ok());
    }

    #[test]
    fn almost_numbers_get_a_hint() {
        let hint = |t: &str| number_hint(t).unwrap_or_default();
        assert_eq!(hint("1,234.5"), "a thousands separator? write 1234.5");
        assert_eq!(
            hint("1.234,5"),
            "a thousands separator and a decimal comma? write 1234.5"
        );
        assert_eq!(hint("80,5"), "a decimal comma? write 80.5");
        assert_eq!(
            hint("1,234"),
            "a decimal comma? write 1.234, or 1234 if the comma separates thousands"
        );
        assert_eq!(hint("1,234,567"), "a thousands separator? write 1234567");
        assert_eq!(hint("1 234,5"), "");
        assert_eq!(hint("12 345"), "a thousands separator? write 12345");
        assert_eq!(hint("abc"), "");
        assert_eq!(hint("12"), "");
        let e = not_a_number("line 3", "1,234.5", "it has units MW").to_string();
        assert!(
            e.contains("line 3: the value \"1,234.5\" is not a number (a thousands separator? write 1234.5)"),
            "{e}"
        );
    }
}
