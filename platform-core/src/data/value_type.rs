//! What a series holds: numbers or text, the check that keeps text out of a numeric series,
//! and the prior art's `"NaN"` read as a missing value in a numeric one.
//!
//! ```text
//! dataType  := "any" | "Numeric" | "string"    the values' type, any case; "number" and
//!                                              "text" read as Numeric and string; default any
//! valueType := "BASIC" | "TRACKED"             the wire shape of the points, any case; stored
//!                                              and answered as sent, it says nothing of the
//!                                              values
//! ```
//!
//! A series is numeric when its header says `"dataType": "Numeric"`, when it has `units` or a
//! `currency`, or, with `dataType` `any` (or none), when it holds only numbers: a text value in
//! a numeric series is refused, naming its place and the value (with a hint when the text is a
//! number written with a thousands separator or a decimal comma), and nothing of the write is
//! kept. In a numeric series the text `"NaN"` (in any case: the prior art's mark of an expected
//! point without a value) is a missing value, stored and answered as `null` is; it is no sign of
//! text either, so a series sent numbers and `"NaN"`s is numeric. A series declared
//! `"dataType": "string"`, or of `any` type and holding text (a new series sent text, or one
//! written with text before), keeps text values (`"NaN"` among them) and numbers as sent, as the
//! interface allows. Null values are allowed in both.
//!
//! `valueType` was read as the values' type (`number`, `text`) before it was known to be the
//! prior art's wire shape; stores of that time are migrated to `dataType` when they open (the
//! store's `upgrade`: SQLite schema step 17, PostgreSQL step 6), and a `valueType` of `number`
//! or `text` sent now is refused, naming `dataType`.

use crate::error::{Error, Result};
use crate::json::json_kind;
use crate::observations::columns::Columns;
use crate::observations::model::PointValue;
use serde_json::{Map, Value};

/// The header field that declares what a series' values are.
pub const DATA_TYPE: &str = "dataType";

/// The header field of the prior art's wire shape of a series' points.
pub const VALUE_TYPE: &str = "valueType";

/// What a series' header says about its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueRule {
    /// Numbers only, and why (`its dataType is Numeric`, `it has units EUR/MWh`...).
    Number(String),
    /// Text declared (`dataType` `string`): any value.
    Text,
    /// `dataType` `any` or none: numeric as soon as it holds (or is sent) a number.
    Undeclared,
}

/// The `dataType` a header declares: `Some(true)` numeric, `Some(false)` string, `None` any.
fn declared_data_type(name: &str, header: &Map<String, Value>) -> Result<Option<bool>> {
    let text = match header.get(DATA_TYPE) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "{name}.{DATA_TYPE} must be \"any\", \"Numeric\" or \"string\", not {}",
                json_kind(other)
            )))
        }
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "any" => Ok(None),
        "numeric" | "number" => Ok(Some(true)),
        "string" | "text" => Ok(Some(false)),
        _ => Err(Error::invalid_body(format!(
            "{name}.{DATA_TYPE} \"{}\" is not one of any, Numeric, string (number and text \
             are read as Numeric and string)",
            crate::ids::shorten(text)
        ))),
    }
}

/// Checks a header's `valueType`: the prior art's `BASIC` or `TRACKED` (any case); `number`
/// and `text`, the values' type by the earlier reading, are refused naming `dataType`.
fn check_value_type(name: &str, header: &Map<String, Value>) -> Result<()> {
    let text = match header.get(VALUE_TYPE) {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "{name}.{VALUE_TYPE} must be \"BASIC\" or \"TRACKED\", not {}",
                json_kind(other)
            )))
        }
    };
    let lower = text.trim().to_ascii_lowercase();
    let instead = match lower.as_str() {
        "basic" | "tracked" => return Ok(()),
        "number" | "numeric" => Some("Numeric"),
        "text" | "string" => Some("string"),
        _ => None,
    };
    Err(Error::invalid_body(match instead {
        Some(data_type) => format!(
            "{name}.{VALUE_TYPE} \"{text}\" names the values' type, which is {DATA_TYPE}: send \
             \"{DATA_TYPE}\": \"{data_type}\" ({VALUE_TYPE} is the wire shape of the points, \
             BASIC or TRACKED)"
        ),
        None => format!(
            "{name}.{VALUE_TYPE} \"{}\" is not one of BASIC, TRACKED (the wire shape of the \
             points; the values' type is {DATA_TYPE}: any, Numeric or string)",
            crate::ids::shorten(text)
        ),
    }))
}

impl ValueRule {
    /// The rule of a series header; a `dataType` other than `any`, `Numeric` or `string`, or a
    /// `valueType` other than `BASIC` or `TRACKED`, is an error.
    pub fn of_header(name: &str, header: &Map<String, Value>) -> Result<ValueRule> {
        check_value_type(name, header)?;
        let declared = declared_data_type(name, header)?;
        let text = |f: &str| {
            header
                .get(f)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        Ok(match declared {
            Some(true) => ValueRule::Number(format!("its {DATA_TYPE} is Numeric")),
            Some(false) => ValueRule::Text,
            None => match (text("units"), text("currency")) {
                (Some(u), _) => ValueRule::Number(format!("it has units {u}")),
                (None, Some(c)) => ValueRule::Number(format!("it has currency {c}")),
                (None, None) => ValueRule::Undeclared,
            },
        })
    }
}

/// Whether a text is the prior art's mark of a missing value: `NaN` in any case.
pub fn is_missing_mark(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case("nan")
}

/// A sent value as the check sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sent<'a> {
    /// A number.
    Num,
    /// A text (not `"NaN"`).
    Text(&'a str),
    /// The text `"NaN"` (any case): a missing value in a numeric series.
    Missing,
    /// Null (or anything else, refused elsewhere).
    Null,
}

impl<'a> Sent<'a> {
    /// Of a parsed value.
    pub fn of(v: &'a PointValue) -> Sent<'a> {
        match v {
            PointValue::Num(_) => Sent::Num,
            PointValue::Text(t) if is_missing_mark(t) => Sent::Missing,
            PointValue::Text(t) => Sent::Text(t),
            PointValue::Null => Sent::Null,
        }
    }

    /// Of a JSON value.
    pub fn of_json(v: &'a Value) -> Sent<'a> {
        match v {
            Value::Number(_) => Sent::Num,
            Value::String(t) if is_missing_mark(t) => Sent::Missing,
            Value::String(t) => Sent::Text(t),
            _ => Sent::Null,
        }
    }
}

/// What a stored series holds, as far as the check needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// No number and no text (no observations, or only nulls).
    Nothing,
    /// Numbers and no text.
    Numbers,
    /// Some text.
    Text,
}

/// What the values of a write are, once checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// They go into a numeric series: each `"NaN"` among them is a missing value, to be
    /// stored as null (the core makes them null where it writes the values).
    Numeric,
    /// They are kept as sent.
    AsSent,
}

/// Checks the values of one write against the rule, and says whether they go into a numeric
/// series. `values` are the sent values with their positions, `place` names a position
/// (`SPOT.data[3]`, `line 7`), and `stored` is asked, only for an undeclared series sent text
/// or `"NaN"`, what the stored series holds.
pub fn check_values<'a>(
    rule: &ValueRule,
    values: impl Iterator<Item = (usize, Sent<'a>)> + Clone,
    place: &dyn Fn(usize) -> String,
    stored: impl FnOnce() -> Result<Stored>,
) -> Result<Checked> {
    let first_text = || {
        values.clone().find_map(|(i, v)| match v {
            Sent::Text(t) => Some((i, t)),
            _ => None,
        })
    };
    let reason = match rule {
        ValueRule::Text => return Ok(Checked::AsSent),
        ValueRule::Number(reason) => reason.clone(),
        ValueRule::Undeclared => match first_text() {
            // Text in a series that holds numbers only; else a series of text.
            Some(_) => match stored()? {
                Stored::Numbers => "it holds only numbers".to_string(),
                Stored::Nothing | Stored::Text => return Ok(Checked::AsSent),
            },
            // Numbers, nulls and "NaN"s: numeric, unless the series holds text.
            None if values.clone().any(|(_, v)| v == Sent::Missing) => {
                return Ok(match stored()? {
                    Stored::Text => Checked::AsSent,
                    Stored::Nothing | Stored::Numbers => Checked::Numeric,
                })
            }
            None => return Ok(Checked::Numeric),
        },
    };
    match first_text() {
        None => Ok(Checked::Numeric),
        Some((i, text)) => Err(not_a_number(&place(i), text, &reason)),
    }
}

/// Each `"NaN"` value among observations sent as JSON (`[{time, value}...]`) made null.
pub fn missing_as_null_json(items: &mut [Value]) {
    for item in items {
        if let Some(v) = item.get_mut("value") {
            if v.as_str().is_some_and(is_missing_mark) {
                *v = Value::Null;
            }
        }
    }
}

/// Each `"NaN"` value among columns made null.
pub fn missing_as_null(columns: &mut Columns) {
    for e in &mut columns.extras {
        if matches!(&e.value, PointValue::Text(t) if is_missing_mark(t)) {
            e.value = PointValue::Null;
        }
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
         send a number, or null (or \"NaN\") for a missing value, or declare \"{DATA_TYPE}\": \
         \"string\" on a series of text; nothing was stored",
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
            rule(json!({"dataType": "string", "units": "MW"})).unwrap(),
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
        // dataType in any case; number and text are read as Numeric and string.
        for numeric in ["Numeric", "NUMERIC", "numeric", "number"] {
            assert_eq!(
                rule(json!({"dataType": numeric})).unwrap(),
                ValueRule::Number("its dataType is Numeric".into()),
                "{numeric}"
            );
        }
        for text in ["string", "String", "text", "TEXT"] {
            assert_eq!(rule(json!({"dataType": text})).unwrap(), ValueRule::Text);
        }
        for any in [json!("any"), json!("ANY"), Value::Null] {
            assert_eq!(
                rule(json!({"dataType": any})).unwrap(),
                ValueRule::Undeclared
            );
        }
        assert_eq!(
            rule(json!({"dataType": "any", "units": "MW"})).unwrap(),
            ValueRule::Number("it has units MW".into())
        );
        let e = rule(json!({"dataType": "float"})).unwrap_err().to_string();
        assert!(
            e.contains("PRICE.dataType \"float\" is not one of any, Numeric, string"),
            "{e}"
        );
        let e = rule(json!({"dataType": 1})).unwrap_err().to_string();
        assert!(
            e.contains("must be \"any\", \"Numeric\" or \"string\", not a number"),
            "{e}"
        );
    }

    #[test]
    fn value_type_is_the_wire_shape_and_says_nothing_of_the_values() {
        for shape in ["BASIC", "TRACKED", "basic", "Tracked"] {
            assert_eq!(
                rule(json!({"valueType": shape})).unwrap(),
                ValueRule::Undeclared,
                "{shape}"
            );
        }
        assert_eq!(
            rule(json!({"valueType": "BASIC", "dataType": "string"})).unwrap(),
            ValueRule::Text
        );
        // The earlier reading's values are refused, naming dataType.
        let e = rule(json!({"valueType": "number"}))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PRICE.valueType \"number\" names the values' type, which is dataType: send \"dataType\": \"Numeric\""),
            "{e}"
        );
        let e = rule(json!({"valueType": "text"})).unwrap_err().to_string();
        assert!(e.contains("send \"dataType\": \"string\""), "{e}");
        let e = rule(json!({"valueType": "float"})).unwrap_err().to_string();
        assert!(
            e.contains("PRICE.valueType \"float\" is not one of BASIC, TRACKED"),
            "{e}"
        );
        let e = rule(json!({"valueType": true})).unwrap_err().to_string();
        assert!(
            e.contains("must be \"BASIC\" or \"TRACKED\", not a boolean"),
            "{e}"
        );
    }

    fn check(rule: &ValueRule, values: &[PointValue], stored: Stored) -> Result<Checked> {
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
        let e = check(&num, &values, Stored::Nothing)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PRICE.data[2]: the value \"abc\" is not a number, and the series is numeric (it has units EUR/MWh)"),
            "{e}"
        );
        // Undeclared: numeric when the stored series holds only numbers (a new series, or one
        // holding text, takes text and numbers as the interface allows).
        assert_eq!(
            check(&ValueRule::Undeclared, &values, Stored::Nothing).unwrap(),
            Checked::AsSent
        );
        assert_eq!(
            check(&ValueRule::Undeclared, &values, Stored::Text).unwrap(),
            Checked::AsSent
        );
        let e = check(&ValueRule::Undeclared, &values, Stored::Numbers)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("PRICE.data[2]") && e.contains("(it holds only numbers)"),
            "{e}"
        );
        // Declared text keeps everything; numbers and nulls pass every rule.
        assert_eq!(
            check(&ValueRule::Text, &values, Stored::Numbers).unwrap(),
            Checked::AsSent
        );
        let nums = [PointValue::Num(2.0), PointValue::Null];
        assert_eq!(
            check(&num, &nums, Stored::Numbers).unwrap(),
            Checked::Numeric
        );
        assert_eq!(
            check(&ValueRule::Undeclared, &nums, Stored::Text).unwrap(),
            Checked::Numeric
        );
    }

    #[test]
    fn nan_is_a_missing_value_in_a_numeric_series_and_text_in_a_series_of_text() {
        let nan = |t: &str| PointValue::Text(t.into());
        let values = [
            PointValue::Num(21.5),
            nan("NaN"),
            nan("nan"),
            nan(" NAN "),
            PointValue::Num(21.7),
        ];
        let num = ValueRule::Number("its dataType is Numeric".into());
        // Declared numeric, or undeclared and holding numbers or nothing: missing values.
        for (rule, stored) in [
            (&num, Stored::Text),
            (&ValueRule::Undeclared, Stored::Nothing),
            (&ValueRule::Undeclared, Stored::Numbers),
        ] {
            assert_eq!(
                check(rule, &values, stored).unwrap(),
                Checked::Numeric,
                "{rule:?} {stored:?}"
            );
        }
        // A series of text keeps "NaN" as the text it is.
        assert_eq!(
            check(&ValueRule::Text, &values, Stored::Nothing).unwrap(),
            Checked::AsSent
        );
        assert_eq!(
            check(&ValueRule::Undeclared, &values, Stored::Text).unwrap(),
            Checked::AsSent
        );
        // Other text is still refused in a numeric series.
        let mixed = [nan("NaN"), nan("n/a")];
        let e = check(&num, &mixed, Stored::Nothing)
            .unwrap_err()
            .to_string();
        assert!(e.contains("PRICE.data[1]: the value \"n/a\""), "{e}");
        assert!(!is_missing_mark("NaNa") && !is_missing_mark("") && is_missing_mark("nAn"));
        // Made null where they go into a numeric series.
        let mut json = vec![
            json!({"time": "2021-01-01", "value": 21.5}),
            json!({"time": "2021-01-04", "value": "NaN"}),
            json!({"time": "2021-01-05", "value": "Nan", "status": {"quality": "VALID"}}),
            json!({"time": "2021-01-06", "value": "abc"}),
        ];
        missing_as_null_json(&mut json);
        let got: Vec<Value> = json.iter().map(|o| o["value"].clone()).collect();
        assert_eq!(
            got,
            vec![json!(21.5), Value::Null, Value::Null, json!("abc")]
        );
        let points: Vec<crate::observations::model::Point> = values
            .iter()
            .enumerate()
            .map(|(i, v)| crate::observations::model::Point {
                t: i as i64 * 86_400_000,
                v: v.clone(),
                status: None,
            })
            .collect();
        let mut columns = Columns::from_points(&points);
        missing_as_null(&mut columns);
        let back: Vec<PointValue> = columns.into_points().into_iter().map(|p| p.v).collect();
        assert_eq!(
            back,
            vec![
                PointValue::Num(21.5),
                PointValue::Null,
                PointValue::Null,
                PointValue::Null,
                PointValue::Num(21.7)
            ]
        );
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
