//! The curves of a CSV file: contracts grouped by ondate, each ondate and tenor checked on its
//! line.

use super::at_line;
use super::header::Column;
use super::records::{csv_value, fields, record_status, Records};
use crate::data::curve;
use crate::data::series::OnDuplicate;
use crate::error::{Error, Result};
use crate::query::period;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The curves of a file: contracts by ondate, in file order.
#[derive(Debug)]
pub struct CurveRows {
    /// Each ondate (`YYYY-MM-DD`) with its contracts (`{tenor, value[, status]}`), as a curve
    /// property sends them.
    pub curves: Vec<(String, Vec<Value>)>,
    /// Contracts the file held twice, left out by the duplicate policy.
    pub dropped: usize,
}

impl CurveRows {
    /// How many contracts the curves hold.
    pub fn contracts(&self) -> usize {
        self.curves.iter().map(|(_, c)| c.len()).sum()
    }

    /// The curves as a curve property sends them: `{ondate, contracts}` each.
    pub fn into_sent(self) -> Vec<Map<String, Value>> {
        self.curves
            .into_iter()
            .map(|(ondate, contracts)| {
                let mut m = Map::new();
                m.insert("ondate".into(), Value::String(ondate));
                m.insert("contracts".into(), Value::Array(contracts));
                m
            })
            .collect()
    }
}

/// Reads the records of a curve file into contracts by ondate, checking each ondate and tenor
/// on its line; an (ondate, tenor) held twice is refused or resolved by `policy`. `prop` is the
/// curve's name, which messages name; `hint` says how the caller keeps one of two contracts
/// (`or keep one with --on-duplicate first|last`).
pub fn curve_rows(
    records: &Records,
    prop: &str,
    policy: OnDuplicate,
    hint: &str,
) -> Result<CurveRows> {
    let columns = if records.named {
        records.columns.clone()
    } else {
        vec![
            Column::Ondate,
            Column::Tenor,
            Column::Value,
            Column::Quality,
            Column::Source,
            Column::Reliability,
        ]
    };
    let mut curves: Vec<(String, Vec<Value>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // (ondate, tenor) -> (curve, contract, line)
    let mut seen: HashMap<(String, String), (usize, usize, usize)> = HashMap::new();
    let mut dropped = 0;
    for (line, record) in &records.rows {
        let at = at_line(*line);
        let fields = fields(&columns, record).map_err(&at)?;
        let ondate_text = fields.get(&Column::Ondate).copied().unwrap_or_default();
        let (ondate, _) = curve::parse_ondate(prop, Some(&json!(ondate_text))).map_err(&at)?;
        let tenor = fields.get(&Column::Tenor).copied().unwrap_or_default();
        period::parse(tenor)
            .and_then(|p| p.resolve(ondate))
            .map_err(|e| at(Error::invalid_parameter(format!("{prop}: {e}"))))?;
        let value = csv_value(
            fields.get(&Column::Value).copied().unwrap_or_default(),
            records.decimal_comma,
        );
        let mut contract = Map::new();
        contract.insert("tenor".into(), Value::String(tenor.to_string()));
        contract.insert("value".into(), value.to_json());
        if let Some(status) = record_status(&fields).map_err(&at)? {
            contract.insert("status".into(), status.to_json());
        }
        let ondate = ondate.format("%Y-%m-%d").to_string();
        let curve = *index.entry(ondate.clone()).or_insert_with(|| {
            curves.push((ondate.clone(), Vec::new()));
            curves.len() - 1
        });
        let key = (ondate.clone(), tenor.to_ascii_uppercase());
        match (seen.get(&key).copied(), policy) {
            (Some((_, _, first)), OnDuplicate::Reject) => {
                return Err(Error::invalid_body(format!(
                    "lines {first} and {line} are both tenor {tenor} of ondate {ondate}: send \
                     each contract once ({hint}); nothing was stored"
                )))
            }
            (Some(_), OnDuplicate::First) => dropped += 1,
            (Some((c, i, _)), OnDuplicate::Last) => {
                curves[c].1[i] = Value::Object(contract);
                dropped += 1;
            }
            (None, _) => {
                seen.insert(key, (curve, curves[curve].1.len(), *line));
                curves[curve].1.push(Value::Object(contract));
            }
        }
    }
    if curves.is_empty() {
        return Err(Error::invalid_body("the file holds no contracts"));
    }
    Ok(CurveRows { curves, dropped })
}
