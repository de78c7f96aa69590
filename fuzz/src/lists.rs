//! The list grammars: query-parameter filters, `_filter`, `_sort`, `_project`, `_search`.
//!
//! Filters are checked against their two meanings: [`Filter::matches`] in memory and the SQL
//! translation of the SQLite store, over a fixed set of documents held in an in-memory
//! platform (one per thread, built once).

use crate::input::{selector, text, MAX_TEXT};
use platform_core::auth::Principal;
use platform_core::documents::{ListRequest, SaveOptions};
use platform_core::ids::Source;
use platform_core::query::filter::{self, Filter};
use platform_core::query::{distinct_strings, search, Paging, Params, Projection, SortSpec};
use platform_core::store::Collection;
use platform_core::{ErrorCode, Platform};
use serde_json::{json, Map, Value};

/// The documents filters run over: numbers (integers, floats, one past 2^53, the ends of 64
/// bits), strings that are numbers, dates and neither, booleans, null, arrays, nested objects
/// (one with the same fields in another order), both geolocation forms, and text with case and
/// accents for `_search`.
fn documents() -> Vec<Value> {
    vec![
        json!({"_id": "D00", "x": 2, "y": "2", "z": {"b": "a"}, "name": "Gas hub",
               "description": "National Balancing Point", "n": -1.5, "d": "2024-03-01",
               "tags": ["a", "b", 2], "geolocation": [0.1, 51.5], "flag": true}),
        json!({"_id": "D01", "x": "a", "y": 2.5, "z": {"b": 2}, "name": "Power",
               "d": "2024-03-01T12:00:00Z", "flag": false, "nul": null,
               "geolocation": {"type": "Point", "coordinates": [2.3, 48.8]}}),
        json!({"_id": "D02", "x": [1, "a", null], "y": "ab c", "z": "plain", "name": "gas",
               "classification": "Gas/NBP", "d": "2024-02-01T00:00:00+01:00", "n": 1e300}),
        json!({"_id": "D03", "x": "B", "y": true, "z": {"b": {"c": "deep"}}, "name": "É clair",
               "description": "ÉCLAIR Ünïcode", "d": "not a date", "n": 0}),
        json!({"_id": "D04", "x": -3, "y": null, "name": "2024-03-01", "s": "2024-03-01T10:00",
               "e": "", "n": "5", "tags": [], "o": {"p": 1, "q": [1, 2.5]}}),
        json!({"_id": "D05", "x": 3.0, "y": [], "z": {}, "name": "Hub", "a": {"b": {"c": 1}},
               "d": "2024-13-01", "n": 9_007_199_254_740_993_u64, "s": "b"}),
        json!({"_id": "d06", "x": "2", "y": [[1]], "z": {"b": [1, 2]}, "name": "hub|power",
               "description": "\"quoted\" -minus", "n": 2, "s": "a\u{0}b", "tags": ["A"],
               "o": {"q": [1, 2.5], "p": 1}, "big": u64::MAX, "low": i64::MIN}),
    ]
}

/// An in-memory platform holding [`documents`], and the documents as it lists them.
struct Store {
    platform: Platform,
    who: Principal,
    listed: Vec<Map<String, Value>>,
}

impl Store {
    fn new() -> Store {
        let platform = Platform::in_memory().expect("an in-memory platform");
        let who = platform
            .tenancy()
            .local_principal("t", "u")
            .expect("a principal");
        platform
            .objects()
            .save(
                &who,
                Collection::Object,
                Value::Array(documents()),
                &SaveOptions::default(),
            )
            .expect("the documents save");
        let mut store = Store {
            platform,
            who,
            listed: Vec::new(),
        };
        let all = store
            .list(&ListRequest::default())
            .expect("all documents list");
        store.listed = all
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => m,
                other => panic!("a listed item {other}"),
            })
            .collect();
        assert_eq!(store.listed.len(), documents().len());
        store
    }

    fn list(&self, req: &ListRequest) -> platform_core::Result<Vec<Value>> {
        let mut req = req.clone();
        req.query.paging = Paging {
            skip: 0,
            limit: None,
        };
        self.platform
            .objects()
            .list(&self.who, Collection::Object, Source::Private, &req)
            .map(|page| page.items)
    }

    /// The ids `filter` keeps in memory and in SQL must be the same.
    fn same_meaning(&self, filter: &Filter, what: &str) {
        if filter.check_size().is_err() {
            return;
        }
        let expected: Vec<&str> = self
            .listed
            .iter()
            .filter(|d| filter.matches(d))
            .map(|d| d["_id"].as_str().expect("an id"))
            .collect();
        let mut req = ListRequest::default();
        req.query.filter = filter.clone();
        match self.list(&req) {
            Ok(items) => {
                let got: Vec<&str> = items
                    .iter()
                    .map(|v| v["_id"].as_str().expect("an id"))
                    .collect();
                assert_eq!(got, expected, "{what}: {filter:?}");
            }
            Err(e) => assert_user_error(&e, what),
        }
    }
}

/// A refused list is the caller's mistake (a 400), never a failure of the store.
fn assert_user_error(e: &platform_core::Error, what: &str) {
    assert!(
        matches!(
            e.code(),
            ErrorCode::InvalidParameter | ErrorCode::InvalidBody
        ),
        "{what}: {:?} {e}",
        e.code()
    );
}

thread_local! {
    static STORE: Store = Store::new();
}

/// Query parameters, one `name=value` a line (at most eight; without `=` the name is
/// `field`), read as a list call reads them: a filter parameter's error names the parameter,
/// and the filter of all of them together means the same in memory and in SQL.
pub fn filter_param(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let pairs: Vec<(String, String)> = text
        .split('\n')
        .take(8)
        .map(|line| {
            let (name, value) = line.split_once('=').unwrap_or(("field", line));
            (name.to_string(), value.to_string())
        })
        .collect();
    for (name, value) in &pairs {
        if name.starts_with(['_', '#']) {
            continue;
        }
        if let Err(e) = filter::parse_param(name, value) {
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
            assert!(e.to_string().contains(name.as_str()), "{e} names {name:?}");
        }
    }
    match ListRequest::from_params(&Params::new(pairs)) {
        Ok(req) => STORE.with(|s| s.same_meaning(&req.query.filter, &text)),
        Err(e) => assert_user_error(&e, &text),
    }
}

/// `_filter` JSON: errors say `_filter`; the filter means the same in memory and in SQL.
pub fn filter_json(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    match filter::parse_json_filter(&text) {
        Ok(f) => STORE.with(|s| s.same_meaning(&f, &text)),
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
            assert!(e.to_string().contains("_filter"), "{e}");
        }
    }
}

/// `_sort`: both forms print back to the same keys; the store sorts by it (every document,
/// once) and `_distinct` of each key's field gives what the in-memory distinct gives.
pub fn sort(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let spec = match SortSpec::parse(&text) {
        Ok(spec) => spec,
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
            assert!(e.to_string().contains("_sort"), "{e}");
            return;
        }
    };
    let keys = &spec.0;
    let distinct_fields = {
        let mut f: Vec<&str> = keys.iter().map(|k| k.field.as_str()).collect();
        f.sort_unstable();
        f.dedup();
        f.len() == keys.len()
    };
    if distinct_fields {
        let object: Map<String, Value> = keys
            .iter()
            .map(|k| (k.field.clone(), json!(if k.descending { -1 } else { 1 })))
            .collect();
        let printed = Value::Object(object).to_string();
        assert_eq!(
            SortSpec::parse(&printed).ok().as_ref(),
            Some(&spec),
            "{printed}"
        );
    }
    let plain = |f: &str| !f.contains(',') && f.trim() == f && !f.starts_with(['-', '+', '{']);
    if keys.iter().all(|k| plain(&k.field)) {
        let printed: Vec<String> = keys
            .iter()
            .map(|k| format!("{}{}", if k.descending { "-" } else { "" }, k.field))
            .collect();
        let printed = printed.join(",");
        assert_eq!(
            SortSpec::parse(&printed).ok().as_ref(),
            Some(&spec),
            "{printed}"
        );
    }
    STORE.with(|s| {
        let mut req = ListRequest::default();
        req.query.sort = spec.clone();
        match s.list(&req) {
            Ok(items) => {
                let mut ids: Vec<&str> = items.iter().filter_map(|v| v["_id"].as_str()).collect();
                ids.sort_unstable();
                let mut all: Vec<&str> =
                    s.listed.iter().filter_map(|d| d["_id"].as_str()).collect();
                all.sort_unstable();
                assert_eq!(ids, all, "{text:?} keeps every document once");
            }
            Err(e) => assert_user_error(&e, &text),
        }
        for key in keys.iter().take(4) {
            let req = ListRequest {
                distinct: Some(key.field.clone()),
                ..ListRequest::default()
            };
            match s.list(&req) {
                Ok(values) => assert_eq!(
                    values,
                    distinct_strings(&s.listed, &key.field),
                    "_distinct={}",
                    key.field
                ),
                Err(e) => assert_user_error(&e, &key.field),
            }
        }
    });
}

/// `_project`: applying a projection twice is applying it once; `_id` stays unless a list
/// drops it; an included field's value is copied unchanged; the list form means what the JSON
/// form of the same fields means.
pub fn project(data: &[u8]) {
    let Some(text) = text(data, MAX_TEXT) else {
        return;
    };
    let projection = match Projection::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
            assert!(e.to_string().contains("_project"), "{e}");
            return;
        }
    };
    let list_form = !text.trim().starts_with('{');
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    let as_json = (list_form && !fields.contains(&"_id")).then(|| {
        let object: Map<String, Value> = fields.iter().map(|f| (f.to_string(), json!(1))).collect();
        Projection::parse(&Value::Object(object).to_string()).expect("the JSON form parses")
    });
    STORE.with(|s| {
        for doc in &s.listed {
            for on_list in [true, false] {
                let once = projection.apply(doc, on_list);
                assert_eq!(projection.apply(&once, on_list), once, "{text:?} twice");
                if !on_list {
                    assert_eq!(once.get("_id"), doc.get("_id"), "{text:?} keeps _id");
                }
                for (key, value) in &once {
                    // An object may be cut down to the named paths inside it.
                    if !value.is_object() {
                        assert_eq!(doc.get(key), Some(value), "{text:?}: {key}");
                    }
                }
                if let Some(j) = &as_json {
                    assert_eq!(j.apply(doc, on_list), once, "{text:?} as JSON");
                }
            }
        }
    });
}

/// `_search`: errors say `_search`; the words print back to the same search; it means the same
/// in memory and in SQL. The first byte of the input picks the `_searchinfo` prefix check.
pub fn search(data: &[u8]) {
    let (choice, rest) = selector(data);
    let Some(text) = text(rest, MAX_TEXT) else {
        return;
    };
    if choice % 4 == 0 {
        searchinfo(&text);
    }
    let parsed = match search::parse(&text) {
        Ok(f) => f,
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidParameter, "{e}");
            assert!(e.to_string().contains("_search"), "{e}");
            return;
        }
    };
    let Filter::Search(terms) = &parsed else {
        panic!("{text:?} parsed as {parsed:?}");
    };
    let word = |w: &str| {
        let bare = !w.is_empty()
            && !w.starts_with(['-', '"'])
            && !w.contains(|c: char| c.is_whitespace() || c == '|');
        if bare {
            Some(w.to_string())
        } else {
            (!w.contains('"')).then(|| format!("\"{w}\""))
        }
    };
    let printed: Option<Vec<String>> = terms
        .iter()
        .map(|t| {
            let words: Option<Vec<String>> = t.any_of.iter().map(|w| word(w)).collect();
            words.map(|w| format!("{}{}", if t.negated { "-" } else { "" }, w.join("|")))
        })
        .collect();
    if let Some(printed) = printed {
        let printed = printed.join(" ");
        assert_eq!(
            search::parse(&printed).ok().as_ref(),
            Some(&parsed),
            "{text:?} prints as {printed:?}"
        );
    }
    STORE.with(|s| s.same_meaning(&parsed, &text));
}

/// `_searchinfo`: the store's prefix completion keeps the documents whose case-folded `_id` or
/// `name` starts with the case-folded text.
fn searchinfo(prefix: &str) {
    STORE.with(|s| {
        let params = Params::from_slice(&[("_searchinfo", prefix)]);
        let req = ListRequest::from_params(&params).expect("any _searchinfo text reads");
        let got = match s.list(&req) {
            Ok(items) => items,
            Err(e) => return assert_user_error(&e, prefix),
        };
        let folded = filter::fold(prefix);
        let mut expected: Vec<&str> = s
            .listed
            .iter()
            .filter(|d| {
                ["_id", "name"].iter().any(|f| {
                    d.get(*f)
                        .and_then(Value::as_str)
                        .is_some_and(|v| filter::fold(v).starts_with(&folded))
                })
            })
            .filter_map(|d| d["_id"].as_str())
            .collect();
        let mut ids: Vec<&str> = got.iter().filter_map(|v| v["_id"].as_str()).collect();
        expected.sort_unstable();
        ids.sort_unstable();
        assert_eq!(ids, expected, "_searchinfo={prefix:?}");
    });
}
