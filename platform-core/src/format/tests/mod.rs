//! Tests of the response formats: negotiation, CSV and XML against golden files (and a
//! well-formedness checker), mustache hand cases and the official mustache spec (read from the
//! mustache crate's package).
//!
//! Here the golden items and a user error's code and message; `negotiation`, `csv_output`,
//! `xml_output` (with a well-formedness checker), `mustache` (hand cases) and `spec` (the
//! official spec) hold the tests.

mod csv_output;
mod mustache;
mod negotiation;
mod spec;
mod xml_output;

use super::{csv, negotiate, template, xml, Format};
use crate::error::{Error, ErrorCode};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The golden items: a nested object, arrays, null, a string with comma, quote and newline,
/// numbers, booleans, keys that are not XML names, non-ASCII, control characters.
fn golden_items() -> Value {
    json!([
        {
            "_id": "GB",
            "name": "Britain, \"Great\"\nKingdom",
            "n": 42,
            "ratio": 1.5,
            "active": true,
            "nested": {"a": 1, "b": [1, "two"], "c": {"deep": null}},
            "tags": ["x", "y"],
            "gone": null,
            "#type": "Country",
            "a b": "space key",
            "city": "Zürich – 東京",
            "größe": 3,
            "empty": "",
            "list0": [],
            "obj0": {}
        },
        {
            "_id": "FR",
            "n": -7,
            "active": false,
            "extra": "only here",
            "ctrl": "bell\u{7}tab\tcr\r",
            "<tag>": "a & b < c > d 'q'",
            "big": 18446744073709551615u64,
            "exp": 1e300
        },
        {
            "name": "no id",
            "1st": 1,
            "a:b": "colon",
            "": "empty key",
            "matrix": [[1, 2], [], [null]]
        }
    ])
}

fn user_error(result: Result<impl std::fmt::Debug, Error>) -> (ErrorCode, String) {
    let e = result.expect_err("expected an error");
    (e.code(), e.public_message())
}
