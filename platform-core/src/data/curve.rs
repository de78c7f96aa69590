//! Forward curves: one curve per ondate, made of contracts (tenors).
//!
//! ```text
//! curve    := {"ondate": date | {"curveDate": date, "expiryCalendar"?: code}, "contracts": [contract]}
//! contract := {"tenor": period-code, "value": number | null, "status"?: status,
//!              "properties"?: {...}}
//! ```
//!
//! The platform fills each contract's `properties.absolute`, `relative`, `start`, `end` (the first
//! and last delivery day) and `expiry` from the tenor and the ondate (`query::period`): unless
//! sent, the expiry is set by the expiry calendar the ondate names, else the one the curve's
//! header names (`expiryCalendar`, written into the ondate), else it is the calendar day before
//! delivery starts. A contract keeps the code it was sent with (an absolute one in its canonical
//! form), its other form in `relative` or `absolute`. Saving a curve for an ondate replaces that ondate's contracts (the save's answer
//! says how many stored contracts it dropped); with `_merge=true` the contracts sent are merged
//! into the stored ones by contract (its absolute code, or a balance-of tenor), the others kept.
//! Other ondates stay.
//!
//! Stored form (binary, so a tenor can be found without decoding whole curves):
//!
//! ```text
//! curve    := 1:u8 ondate:text count:varint contract*
//! contract := tenor:text relative:text absolute:text value status:text start:text end:text
//!             expiry:text extra:text          (text := len:varint utf8; extra: JSON or "")
//! value    := 0:u8 | 1:u8 f64le | 2:u8 text
//! ```

use super::bytes::{put_text, put_varint, Reader};
use crate::error::{Error, ErrorCode, Result};
use crate::json::json_kind;
use crate::observations::model::{PointValue, Status};
use crate::query::period::{self, Period};
use crate::store::{DataKey, DataWrite};
use chrono::{Days, NaiveDate};
use serde_json::{Map, Value};

/// One contract of a curve, with its computed properties.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    /// The tenor code (relative when it has one).
    pub tenor: String,
    /// The relative code ("" for none).
    pub relative: String,
    /// The absolute code ("" for balance-of codes).
    pub absolute: String,
    /// The value.
    pub value: PointValue,
    /// The status.
    pub status: Option<Status>,
    /// First delivery day (YYYY-MM-DD).
    pub start: String,
    /// Last delivery day (YYYY-MM-DD).
    pub end: String,
    /// Expiry (YYYY-MM-DD).
    pub expiry: String,
    /// Other properties sent with the contract (JSON object text, or "").
    pub extra: String,
}

/// A curve of one ondate.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredCurve {
    /// The ondate object (`{"curveDate", "expiryCalendar"?}`).
    pub ondate: Map<String, Value>,
    /// The contracts, in the order sent.
    pub contracts: Vec<Contract>,
}

impl StoredCurve {
    /// The ondate as text.
    pub fn curve_date(&self) -> &str {
        self.ondate
            .get("curveDate")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// Reads an ondate: a date text or `{"curveDate": date, ...}`; returns the date and the object.
pub fn parse_ondate(name: &str, v: Option<&Value>) -> Result<(NaiveDate, Map<String, Value>)> {
    let missing = || {
        Error::new(
            ErrorCode::MissingParameter,
            format!("curve {name} has no ondate"),
        )
    };
    let (text, mut obj) = match v {
        None | Some(Value::Null) => return Err(missing()),
        Some(Value::String(s)) => (s.clone(), Map::new()),
        Some(Value::Object(m)) => match m.get("curveDate") {
            Some(Value::String(s)) => (s.clone(), m.clone()),
            _ => return Err(missing()),
        },
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "{name}.ondate must be a date or an object, not {}",
                json_kind(other)
            )))
        }
    };
    let date = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        Error::invalid_body(format!(
            "{name}.ondate \"{text}\" is not a date (YYYY-MM-DD)"
        ))
    })?;
    obj.insert(
        "curveDate".into(),
        Value::String(date.format("%Y-%m-%d").to_string()),
    );
    Ok((date, obj))
}

/// Parses the sent curve of an ondate into contracts with their computed properties.
pub fn parse(name: &str, sent: &Map<String, Value>) -> Result<StoredCurve> {
    let (ondate, ondate_obj) = parse_ondate(name, sent.get("ondate"))?;
    let items = match sent.get("contracts") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(other) => {
            return Err(Error::invalid_body(format!(
                "{name}.contracts must be an array, not {}",
                json_kind(other)
            )))
        }
    };
    let mut contracts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = |m: String| Error::invalid_body(format!("{name}.contracts[{i}]: {m}"));
        let Value::Object(c) = item else {
            return Err(at(format!(
                "a contract must be an object, not {}",
                json_kind(item)
            )));
        };
        let tenor = c
            .get("tenor")
            .and_then(Value::as_str)
            .ok_or_else(|| at("tenor is missing".into()))?;
        let code = period::parse(tenor)
            .map_err(|e| Error::invalid_parameter(format!("{name}.contracts[{i}]: {e}")))?;
        let resolved = code
            .resolve(ondate)
            .map_err(|e| Error::invalid_parameter(format!("{name}.contracts[{i}]: {e}")))?;
        let absolute = resolved
            .absolute
            .as_ref()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let relative = match &code {
            Period::Absolute(a) => period::relative_code(a, ondate)
                .map(|r| r.to_string())
                .unwrap_or_default(),
            other => other.to_string(),
        };
        let mut props = match c.get("properties") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(at(format!(
                    "properties must be an object, not {}",
                    json_kind(other)
                )))
            }
        };
        let expiry = match props.shift_remove("expiry") {
            Some(Value::String(s)) => NaiveDate::parse_from_str(&s, "%Y-%m-%d")
                .map_err(|_| at(format!("properties.expiry \"{s}\" is not a date")))?,
            _ => resolved
                .delivery
                .start
                .checked_sub_days(Days::new(1))
                .unwrap_or(resolved.delivery.start),
        };
        for computed in ["absolute", "relative", "start", "end"] {
            props.shift_remove(computed);
        }
        contracts.push(Contract {
            // The code as sent, in its canonical form (`2024Q3` is `2024Q03`); the other form
            // is in `relative` or `absolute`.
            tenor: code.to_string(),
            relative,
            absolute,
            value: contract_value(c.get("value").unwrap_or(&Value::Null))
                .map_err(|e| at(e.public_message()))?,
            status: Status::from_json(c.get("status").unwrap_or(&Value::Null))
                .map_err(|e| at(e.public_message()))?,
            start: resolved.delivery.start.format("%Y-%m-%d").to_string(),
            end: resolved.delivery.end.format("%Y-%m-%d").to_string(),
            expiry: expiry.format("%Y-%m-%d").to_string(),
            extra: if props.is_empty() {
                String::new()
            } else {
                Value::Object(props).to_string()
            },
        });
    }
    Ok(StoredCurve {
        ondate: ondate_obj,
        contracts,
    })
}

/// A contract's value: a number, or null for none (the interface types it as a number; a
/// string such as `"abc"` is refused rather than kept as text). `"NaN"` (any case), the prior
/// art's mark of a value that is missing, is null.
fn contract_value(v: &Value) -> Result<PointValue> {
    match v {
        Value::String(s) if super::value_type::is_missing_mark(s) => Ok(PointValue::Null),
        Value::String(s) => Err(Error::invalid_body(format!(
            "value \"{s}\" is not a number: a contract's value is a number or null (or \"NaN\")"
        ))),
        other => PointValue::from_json(other),
    }
}

/// The field naming an expiry calendar: of an ondate, or of a curve's header (the calendar of
/// every ondate that names none).
pub const EXPIRY_CALENDAR: &str = "expiryCalendar";

/// Sets the expiry of each contract of a curve whose ondate names an expiry calendar, or whose
/// header names one for ondates that name none: its business (or calendar) days before the
/// contract's first delivery day (a contract sent with its own `properties.expiry` keeps it).
/// The header's calendar is written into the ondate, so the curve says which calendar set its
/// expiries. Without a calendar an expiry is the calendar day before delivery starts (`parse`).
fn apply_expiry(
    curve: &mut StoredCurve,
    header: &Map<String, Value>,
    sent: &Map<String, Value>,
    refs: &super::CalendarRefs,
) -> Result<()> {
    let own = curve.ondate.get(EXPIRY_CALENDAR).and_then(Value::as_str);
    let id = match own.or_else(|| header.get(EXPIRY_CALENDAR).and_then(Value::as_str)) {
        Some(id) => id.to_string(),
        None => return Ok(()),
    };
    if own.is_none() {
        curve
            .ondate
            .insert(EXPIRY_CALENDAR.into(), Value::String(id.clone()));
    }
    let id = id.as_str();
    let Some(rule) = refs.expiry.get(id) else {
        return Err(Error::Internal(format!(
            "the expiry calendar \"{id}\" was not loaded before the write"
        )));
    };
    let items = sent.get("contracts").and_then(Value::as_array);
    for (i, c) in curve.contracts.iter_mut().enumerate() {
        let own = items
            .and_then(|items| items.get(i))
            .and_then(|c| c.get("properties"))
            .and_then(|p| p.get("expiry"))
            .is_some_and(Value::is_string);
        if own {
            continue;
        }
        let start = NaiveDate::parse_from_str(&c.start, "%Y-%m-%d")
            .map_err(|e| Error::caused("a contract's start", e))?;
        c.expiry = rule.expiry(start)?.format("%Y-%m-%d").to_string();
    }
    Ok(())
}

/// What a curve write did to the curve an ondate held before it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replaced {
    /// The contracts the ondate held.
    pub stored: usize,
    /// The contracts it holds now.
    pub written: usize,
    /// The tenors of the stored contracts the write dropped (none in a merge).
    pub dropped: Vec<String>,
    /// Whether the contracts sent were merged into the stored ones (`_merge=true`).
    pub merged: bool,
}

/// A curve written: its ondate, and what it did to a curve the ondate held.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Written {
    /// The ondate.
    pub ondate: String,
    /// The stored curve replaced or merged into, if the ondate had one.
    pub replaced: Option<Replaced>,
}

/// The key two contracts of one ondate are the same contract by: the absolute code (`M01` and
/// `2024M04` on an ondate in March are one), or the tenor for a balance-of code.
fn contract_key(c: &Contract) -> &str {
    if c.absolute.is_empty() {
        &c.tenor
    } else {
        &c.absolute
    }
}

/// The contracts sent merged into the stored ones by tenor: each stored contract the write
/// sends again is replaced where it stands, the others stay, and new ones follow in the order
/// sent. A contract sent twice, or another expiry calendar than the stored curve's, is a 400.
fn merge(name: &str, stored: StoredCurve, sent: StoredCurve) -> Result<StoredCurve> {
    let calendar = |c: &StoredCurve| c.ondate.get("expiryCalendar").cloned();
    if calendar(&stored) != calendar(&sent) {
        let named = |c: &StoredCurve| match calendar(c) {
            Some(Value::String(id)) => format!("expiry calendar {id}"),
            _ => "no expiry calendar".to_string(),
        };
        return Err(Error::invalid_parameter(format!(
            "{name}: _merge=true keeps the stored contracts of {} with their expiries: the \
             stored curve has {}, the write {}; send the ondate with the stored one, or the \
             whole curve without _merge",
            sent.curve_date(),
            named(&stored),
            named(&sent)
        )));
    }
    let mut out = stored;
    let mut added = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in sent.contracts {
        if !seen.insert(contract_key(&c).to_string()) {
            return Err(Error::invalid_body(format!(
                "{name}: the contract {} of {} is sent twice: _merge=true merges one contract \
                 of each",
                contract_key(&c),
                sent.ondate
                    .get("curveDate")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            )));
        }
        match out
            .contracts
            .iter_mut()
            .find(|s| contract_key(s) == contract_key(&c))
        {
            Some(slot) => *slot = c,
            None => added.push(c),
        }
    }
    out.contracts.extend(added);
    out.ondate = sent.ondate;
    Ok(out)
}

/// Writes the curve of one ondate, replacing the ondate's stored curve or, with `merge`,
/// merging the contracts sent into it; `None` when nothing changed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write(
    tx: &mut dyn DataWrite,
    key: &DataKey,
    current: Option<u32>,
    version: u32,
    keep_history: bool,
    name: &str,
    header: &Map<String, Value>,
    sent: &Map<String, Value>,
    refs: &super::CalendarRefs,
    merge_contracts: bool,
) -> Result<Option<Written>> {
    let mut curve = parse(name, sent)?;
    apply_expiry(&mut curve, header, sent, refs)?;
    let stored = match current {
        Some(cur) => tx.curve(key, cur, curve.curve_date())?,
        None => None,
    };
    let before = stored.as_deref().map(decode).transpose()?;
    let mut replaced = None;
    if let Some(before) = before {
        let stored_count = before.contracts.len();
        let dropped: Vec<String> = if merge_contracts {
            Vec::new()
        } else {
            let kept: std::collections::HashSet<&str> =
                curve.contracts.iter().map(contract_key).collect();
            before
                .contracts
                .iter()
                .filter(|c| !kept.contains(contract_key(c)))
                .map(|c| c.tenor.clone())
                .collect()
        };
        if merge_contracts {
            curve = merge(name, before, curve)?;
        }
        replaced = Some(Replaced {
            stored: stored_count,
            written: curve.contracts.len(),
            dropped,
            merged: merge_contracts,
        });
    }
    let payload = encode(&curve);
    if stored.as_deref() == Some(payload.as_slice()) {
        return Ok(None);
    }
    tx.put_curve(
        key,
        version,
        keep_history,
        curve.curve_date(),
        Some(&payload),
    )?;
    Ok(Some(Written {
        ondate: curve.curve_date().to_string(),
        replaced,
    }))
}

/// The JSON of one contract.
pub fn contract_json(c: &Contract, ondate: &Map<String, Value>) -> Value {
    let mut props: Map<String, Value> = if c.extra.is_empty() {
        Map::new()
    } else {
        serde_json::from_str(&c.extra).unwrap_or_default()
    };
    let opt = |s: &str| {
        if s.is_empty() {
            Value::Null
        } else {
            Value::String(s.to_string())
        }
    };
    props.insert("absolute".into(), opt(&c.absolute));
    props.insert("relative".into(), opt(&c.relative));
    props.insert("start".into(), Value::String(c.start.clone()));
    props.insert("end".into(), Value::String(c.end.clone()));
    props.insert("expiry".into(), Value::String(c.expiry.clone()));
    let mut m = Map::new();
    m.insert("tenor".into(), Value::String(c.tenor.clone()));
    m.insert("value".into(), c.value.to_json());
    if let Some(s) = &c.status {
        m.insert("status".into(), s.to_json());
    }
    m.insert("ondate".into(), Value::Object(ondate.clone()));
    m.insert("properties".into(), Value::Object(props));
    Value::Object(m)
}

/// The `ondate` and `contracts` fields of a curve's JSON.
pub fn curve_fields(curve: &StoredCurve) -> (Value, Value) {
    (
        Value::Object(curve.ondate.clone()),
        Value::Array(
            curve
                .contracts
                .iter()
                .map(|c| contract_json(c, &curve.ondate))
                .collect(),
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// Stored form

/// Encodes a curve.
pub fn encode(curve: &StoredCurve) -> Vec<u8> {
    let mut out = vec![1u8];
    put_text(&mut out, &Value::Object(curve.ondate.clone()).to_string());
    put_varint(&mut out, curve.contracts.len() as u64);
    for c in &curve.contracts {
        put_text(&mut out, &c.tenor);
        put_text(&mut out, &c.relative);
        put_text(&mut out, &c.absolute);
        match &c.value {
            PointValue::Null => out.push(0),
            PointValue::Num(n) => {
                out.push(1);
                out.extend_from_slice(&n.to_le_bytes());
            }
            PointValue::Text(s) => {
                out.push(2);
                put_text(&mut out, s);
            }
        }
        put_text(
            &mut out,
            &c.status.as_ref().map(Status::encode).unwrap_or_default(),
        );
        put_text(&mut out, &c.start);
        put_text(&mut out, &c.end);
        put_text(&mut out, &c.expiry);
        put_text(&mut out, &c.extra);
    }
    out
}

/// Decodes a curve.
pub fn decode(bytes: &[u8]) -> Result<StoredCurve> {
    let mut r = Reader::new(bytes, "stored curve");
    if r.byte()? != 1 {
        return Err(Error::Internal("unknown curve format".into()));
    }
    let ondate: Map<String, Value> =
        serde_json::from_str(&r.text()?).map_err(|e| Error::caused("stored ondate", e))?;
    let count = r.varint()? as usize;
    let mut contracts = Vec::with_capacity(count.min(100_000));
    for _ in 0..count {
        let tenor = r.text()?;
        let relative = r.text()?;
        let absolute = r.text()?;
        let value = read_value(&mut r)?;
        let status = r.text()?;
        contracts.push(Contract {
            tenor,
            relative,
            absolute,
            value,
            status: (!status.is_empty()).then(|| Status::decode(&status)),
            start: r.text()?,
            end: r.text()?,
            expiry: r.text()?,
            extra: r.text()?,
        });
    }
    Ok(StoredCurve { ondate, contracts })
}

/// The value of the contract whose relative or absolute code is `code`, reading only the codes
/// and values of a stored curve.
pub fn find_tenor(bytes: &[u8], code: &str) -> Result<Option<(PointValue, Option<Status>)>> {
    let mut r = Reader::new(bytes, "stored curve");
    if r.byte()? != 1 {
        return Err(Error::Internal("unknown curve format".into()));
    }
    r.str()?;
    let count = r.varint()?;
    for _ in 0..count {
        r.str()?;
        let relative = r.str()?;
        let absolute = r.str()?;
        let hit = relative == code || absolute == code;
        let value = read_value(&mut r)?;
        let status = r.str()?;
        if hit {
            return Ok(Some((
                value,
                (!status.is_empty()).then(|| Status::decode(status)),
            )));
        }
        for _ in 0..4 {
            r.str()?;
        }
    }
    Ok(None)
}

/// One contract of a stored curve as a continuation series reads it: its codes and dates as
/// the stored bytes of their text (compared as bytes, read as text only once picked).
#[derive(Debug, Clone, PartialEq)]
pub struct ContractView<'a> {
    /// The absolute code ("" for balance-of codes).
    pub absolute: &'a [u8],
    /// The value.
    pub value: PointValue,
    /// The encoded status ("" for none).
    pub status: &'a [u8],
    /// First delivery day (YYYY-MM-DD).
    pub start: &'a [u8],
    /// Expiry (YYYY-MM-DD).
    pub expiry: &'a [u8],
}

/// The contracts of a stored curve, one at a time, reading neither the ondate nor the other
/// properties (a clone reads them again from the first).
pub fn contract_views(bytes: &[u8]) -> Result<ContractViews<'_>> {
    let mut r = Reader::new(bytes, "stored curve");
    if r.byte()? != 1 {
        return Err(Error::Internal("unknown curve format".into()));
    }
    r.skip_text()?;
    let left = r.varint()?;
    Ok(ContractViews { r, left })
}

/// The iterator of [`contract_views`].
#[derive(Clone)]
pub struct ContractViews<'a> {
    r: Reader<'a>,
    left: u64,
}

impl<'a> ContractViews<'a> {
    fn read(&mut self) -> Result<ContractView<'a>> {
        let r = &mut self.r;
        r.skip_text()?;
        r.skip_text()?;
        let absolute = r.raw_text()?;
        let value = read_value(r)?;
        let status = r.raw_text()?;
        let start = r.raw_text()?;
        r.skip_text()?;
        let expiry = r.raw_text()?;
        r.skip_text()?;
        Ok(ContractView {
            absolute,
            value,
            status,
            start,
            expiry,
        })
    }
}

impl<'a> Iterator for ContractViews<'a> {
    type Item = Result<ContractView<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let view = self.read();
        if view.is_err() {
            // Nothing after a corrupt contract can be read.
            self.left = 0;
        }
        Some(view)
    }
}

/// The relative codes of a stored curve.
pub fn relative_codes(bytes: &[u8]) -> Result<Vec<String>> {
    Ok(decode(bytes)?
        .contracts
        .into_iter()
        .map(|c| c.relative)
        .filter(|r| !r.is_empty())
        .collect())
}

/// Reads a stored value (`0` null, `1` f64, `2` text).
fn read_value(r: &mut Reader<'_>) -> Result<PointValue> {
    Ok(match r.byte()? {
        0 => PointValue::Null,
        1 => PointValue::Num(f64::from_le_bytes(r.take::<8>()?)),
        2 => PointValue::Text(r.text()?),
        _ => return Err(r.corrupt("value tag")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(contracts: Value) -> Map<String, Value> {
        json!({"ondate": {"curveDate": "2024-03-01", "expiryCalendar": "#REOMB"}, "contracts": contracts})
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn contracts_get_their_periods() {
        let curve = parse(
            "C",
            &sent(json!([
                {"tenor": "M01", "value": 25.5},
                {"tenor": "2024Q3", "value": 24.0, "properties": {"expiry": "2024-06-25", "source": "broker"}},
                {"tenor": "BOM", "value": null}
            ])),
        )
        .unwrap();
        let m01 = &curve.contracts[0];
        assert_eq!(
            (
                m01.absolute.as_str(),
                m01.start.as_str(),
                m01.end.as_str(),
                m01.expiry.as_str()
            ),
            ("2024M04", "2024-04-01", "2024-04-30", "2024-03-31")
        );
        let q = &curve.contracts[1];
        assert_eq!(
            (q.tenor.as_str(), q.relative.as_str(), q.absolute.as_str()),
            ("2024Q03", "Q02", "2024Q03")
        );
        assert_eq!(q.expiry, "2024-06-25");
        assert_eq!(
            contract_json(q, &curve.ondate)["properties"]["source"],
            "broker"
        );
        let bom = &curve.contracts[2];
        assert_eq!(
            (bom.absolute.as_str(), bom.start.as_str(), bom.end.as_str()),
            ("", "2024-03-02", "2024-03-31")
        );
        assert_eq!(decode(&encode(&curve)).unwrap(), curve);
        let payload = encode(&curve);
        assert_eq!(
            find_tenor(&payload, "Q02").unwrap().unwrap().0,
            PointValue::Num(24.0)
        );
        assert_eq!(
            find_tenor(&payload, "2024M04").unwrap().unwrap().0,
            PointValue::Num(25.5)
        );
        assert!(find_tenor(&payload, "Y01").unwrap().is_none());
    }

    #[test]
    fn a_merge_replaces_the_contracts_sent_by_contract_and_keeps_the_others() {
        let stored = parse(
            "C",
            &sent(json!([
                {"tenor": "M01", "value": 25.5},
                {"tenor": "M02", "value": 26.0},
                {"tenor": "BOM", "value": 24.0}
            ])),
        )
        .unwrap();
        // `2024M04` is M01 on 1 March: the same contract, replaced where it stands.
        let update = parse(
            "C",
            &sent(json!([
                {"tenor": "2024M04", "value": 30.0},
                {"tenor": "Q02", "value": 27.0},
                {"tenor": "BOM", "value": 23.5}
            ])),
        )
        .unwrap();
        let merged = merge("C", stored.clone(), update).unwrap();
        let got: Vec<(&str, PointValue)> = merged
            .contracts
            .iter()
            .map(|c| (c.tenor.as_str(), c.value.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("2024M04", PointValue::Num(30.0)),
                ("M02", PointValue::Num(26.0)),
                ("BOM", PointValue::Num(23.5)),
                ("Q02", PointValue::Num(27.0)),
            ]
        );
        // One contract twice, or another expiry calendar, is refused.
        let twice = parse(
            "C",
            &sent(json!([{"tenor": "M01", "value": 1}, {"tenor": "2024M04", "value": 2}])),
        )
        .unwrap();
        let m = merge("C", stored.clone(), twice)
            .unwrap_err()
            .public_message();
        assert!(m.contains("2024M04") && m.contains("twice"), "{m}");
        let plain = json!({"ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 1}]});
        let plain = parse("C", plain.as_object().unwrap()).unwrap();
        let m = merge("C", stored, plain).unwrap_err().public_message();
        assert!(
            m.contains("#REOMB") && m.contains("no expiry calendar"),
            "{m}"
        );
    }

    #[test]
    fn bad_curves_are_refused() {
        let no_ondate = json!({"contracts": []}).as_object().cloned().unwrap();
        assert_eq!(
            parse("C", &no_ondate).unwrap_err().code(),
            ErrorCode::MissingParameter
        );
        let err = parse("C", &sent(json!([{"tenor": "X01", "value": 1}]))).unwrap_err();
        assert!(err.to_string().contains("X01"), "{err}");
        assert!(parse("C", &sent(json!([{"value": 1}]))).is_err());
        assert!(parse("C", &sent(json!([{"tenor": "M01", "value": [1]}]))).is_err());
        let bad_date = json!({"ondate": "2024-02-30", "contracts": []})
            .as_object()
            .cloned()
            .unwrap();
        assert!(parse("C", &bad_date).is_err());
    }
}
