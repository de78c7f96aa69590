//! The answer of `suggest` and `tune`: the window's dates and one result per item, each with the
//! milliseconds it took. An item that fails answers with its error in its place; an internal
//! error fails the whole request.

use super::load::{window_dates, Span};
use crate::error::{ErrorCode, Result};
use crate::validation::shared::ms;
use chrono::NaiveDate;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// Answers each item with `one`; an item `one` fails on answers with the fields `failed` gives
/// it and the error's message.
pub(crate) fn per_item<T>(
    today: NaiveDate,
    span: Span,
    items: &[T],
    mut one: impl FnMut(&T) -> Result<Map<String, Value>>,
    failed: impl Fn(&T) -> Map<String, Value>,
) -> Result<Value> {
    let (from, to) = window_dates(today, span.days);
    let mut results = Vec::with_capacity(items.len());
    for item in items {
        let started = Instant::now();
        let mut out = match one(item) {
            Ok(m) => m,
            Err(e) if e.code() == ErrorCode::Internal => return Err(e),
            Err(e) => {
                let mut m = failed(item);
                m.insert("error".into(), json!(e.public_message()));
                m
            }
        };
        out.insert("ms".into(), json!(ms(started)));
        results.push(Value::Object(out));
    }
    Ok(json!({
        "days": span.days,
        "from": from.to_string(),
        "to": to.to_string(),
        "results": results,
    }))
}
