//! Data migrations of the documents a store keeps, run by both backends when a schema step
//! needs them (SQLite's step 17, PostgreSQL's step 6): the rule is here once, each backend
//! reads and writes its own rows.

use serde_json::{Map, Value};

/// The `_type` of a time series property (`documents::SERIES_TYPE`, named here since the store
/// sits below the documents).
const SERIES: &str = "VarTimeSeries";

/// The bodies a migration looks at hold this text (a cheap filter before parsing).
pub(crate) const VALUE_TYPE_MARK: &str = "valueType";

/// Moves the earlier reading's `valueType` (`"number"` or `"text"`, the values' type, issue
/// 41) of each time series property of a document body to `dataType` (`"Numeric"` or
/// `"string"`, decisions 13), in its place among the header's fields; a `dataType` the header
/// had beside it (which that reading did not read) gives way. Other `valueType`s (the prior
/// art's `BASIC`, `TRACKED`) stay. Whether anything changed.
pub(crate) fn value_type_to_data_type(body: &mut Map<String, Value>) -> bool {
    let mut changed = false;
    for prop in body.values_mut() {
        let Value::Object(header) = prop else {
            continue;
        };
        if header.get("_type").and_then(Value::as_str) != Some(SERIES) {
            continue;
        }
        let data_type = match header.get("valueType").and_then(Value::as_str) {
            Some("number") => "Numeric",
            Some("text") => "string",
            _ => continue,
        };
        let fields = std::mem::take(header);
        for (name, value) in fields {
            match name.as_str() {
                "valueType" => {
                    header.insert("dataType".into(), Value::String(data_type.into()));
                }
                "dataType" => {}
                _ => {
                    header.insert(name, value);
                }
            }
        }
        changed = true;
    }
    changed
}

/// The same on a body as text: the text again when it changed.
pub(crate) fn value_type_to_data_type_text(text: &str) -> Option<String> {
    if !text.contains(VALUE_TYPE_MARK) {
        return None;
    }
    let mut body: Map<String, Value> = serde_json::from_str(text).ok()?;
    value_type_to_data_type(&mut body).then(|| Value::Object(body).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn series_value_types_of_the_earlier_reading_move_to_data_type_in_place() {
        let mut body = json!({
            "_id": "DE", "name": "x", "valueType": "number",
            "PRICE": {"_type": "VarTimeSeries", "calendar": "HOURLY", "valueType": "number",
                      "units": "EUR/MWh"},
            "FLAGS": {"_type": "VarTimeSeries", "valueType": "text", "dataType": "any"},
            "SDK": {"_type": "VarTimeSeries", "valueType": "BASIC", "dataType": "any"},
            "FWD": {"_type": "VarCurve", "valueType": "number"},
            "PLAIN": {"valueType": "text"}
        })
        .as_object()
        .unwrap()
        .clone();
        assert!(value_type_to_data_type(&mut body));
        let text = Value::Object(body.clone()).to_string();
        assert_eq!(
            text,
            json!({
                "_id": "DE", "name": "x", "valueType": "number",
                "PRICE": {"_type": "VarTimeSeries", "calendar": "HOURLY", "dataType": "Numeric",
                          "units": "EUR/MWh"},
                "FLAGS": {"_type": "VarTimeSeries", "dataType": "string"},
                "SDK": {"_type": "VarTimeSeries", "valueType": "BASIC", "dataType": "any"},
                "FWD": {"_type": "VarCurve", "valueType": "number"},
                "PLAIN": {"valueType": "text"}
            })
            .to_string()
        );
        // Once moved, nothing is left to move.
        assert!(!value_type_to_data_type(&mut body));
        assert_eq!(value_type_to_data_type_text(&text), None);
        assert_eq!(
            value_type_to_data_type_text(r#"{"P":{"_type":"VarTimeSeries","valueType":"text"}}"#)
                .as_deref(),
            Some(r#"{"P":{"_type":"VarTimeSeries","dataType":"string"}}"#)
        );
        assert_eq!(value_type_to_data_type_text(r#"{"a":1}"#), None);
    }
}

/// A database with series of the earlier reading, for the migration tests of both backends:
/// what to save before the bodies are made old, and what the migrated platform answers.
#[cfg(test)]
pub(crate) mod earlier_reading {
    use crate::auth::Principal;
    use crate::documents::SaveOptions;
    use crate::ids::Source;
    use crate::store::Collection;
    use crate::Platform;
    use serde_json::{json, Value};

    /// Saves `DE` at two versions (its series `PRICE` and `FLAGS`, which the test then gives
    /// `valueType` `number` and `text` in every stored body) and `SDK` (a series of the prior
    /// art's `BASIC` shape, which the migration leaves alone); the writer.
    pub(crate) fn save(p: &Platform) -> Principal {
        let who = p.tenancy().local_principal("acme", "bob").unwrap();
        let opts = SaveOptions::default();
        let save = |body: Value| {
            p.objects()
                .save(&who, Collection::Object, body, &opts)
                .unwrap();
        };
        save(json!({"_id": "DE", "name": "Germany",
            "PRICE": {"_type": "VarTimeSeries", "calendar": "DAILY", "units": "EUR/MWh",
                      "data": [{"time": "2024-01-01", "value": 50.5}]},
            "FLAGS": {"_type": "VarTimeSeries", "calendar": "DAILY",
                      "data": [{"time": "2024-01-01", "value": "open"}]}}));
        save(json!({"_id": "DE", "name": "Germany, day-ahead"}));
        save(
            json!({"_id": "SDK", "P": {"_type": "VarTimeSeries", "valueType": "BASIC",
            "dataType": "any", "data": [{"time": "2024-01-01", "value": 1.5}]}}),
        );
        who
    }

    /// Asserts what the migrated platform holds and does: `dataType` where `valueType` was,
    /// at both versions, and the rules that follow from it.
    pub(crate) fn assert_migrated(p: &Platform, who: &Principal) {
        let get = |id: &str, version: Option<&str>| {
            let version = version.map(|v| v.parse().unwrap());
            p.objects()
                .get(
                    who,
                    Collection::Object,
                    Source::Private,
                    id,
                    version.as_ref(),
                    None,
                )
                .unwrap()
        };
        for version in [None, Some("1")] {
            let de = get("DE", version);
            assert_eq!(de["PRICE"]["dataType"], "Numeric", "{version:?}: {de}");
            assert_eq!(de["FLAGS"]["dataType"], "string", "{version:?}: {de}");
            assert!(
                de["PRICE"].get("valueType").is_none() && de["FLAGS"].get("valueType").is_none(),
                "{version:?}: {de}"
            );
            assert_eq!(de["PRICE"]["units"], "EUR/MWh");
        }
        assert_eq!(get("DE", None)["name"], "Germany, day-ahead");
        let sdk = get("SDK", None);
        assert_eq!(
            (&sdk["P"]["valueType"], &sdk["P"]["dataType"]),
            (&json!("BASIC"), &json!("any"))
        );
        // The rules read dataType now: text is refused by PRICE's declaration, and FLAGS, a
        // series of text, keeps "NaN" as text.
        let opts = SaveOptions::default();
        let e = p
            .objects()
            .save(
                who,
                Collection::Object,
                json!({"_id": "DE", "PRICE": {"_type": "VarTimeSeries",
                    "data": [{"time": "2024-01-02", "value": "n/a"}]}}),
                &opts,
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("its dataType is Numeric"), "{e}");
        p.objects()
            .save(
                who,
                Collection::Object,
                json!({"_id": "DE", "FLAGS": {"_type": "VarTimeSeries",
                    "data": [{"time": "2024-01-02", "value": "NaN"}]}}),
                &opts,
            )
            .unwrap();
        let query = crate::data::read::DataQuery::default();
        let flags = p
            .data()
            .read(who, Source::Private, "DE:FLAGS", &query)
            .unwrap();
        assert_eq!(flags["data"][1]["value"], "NaN", "{flags}");
    }
}
