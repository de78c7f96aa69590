//! SQLite's binary JSON (JSONB, the format of its `jsonb()` function) read straight into
//! `serde_json` values, without SQLite printing it as text and `serde_json` parsing that text
//! again (a document read by id spent most of its parse there).
//!
//! An element is a header and a payload. The header's first byte holds the element's type in
//! its low four bits and, in its high four, the payload's size (0 to 11) or how many of the
//! following bytes hold it big-endian (12: one, 13: two, 14: four, 15: eight). Numbers keep
//! their JSON text; arrays and objects hold their elements one after another (an object's
//! keys and values alternating). Only the forms SQLite writes for standard JSON are read here:
//! JSON5's (hexadecimal integers, `Infinity`, JSON5 escapes) and anything unknown answer
//! `None`, and the caller reads such a document through SQLite's `json()` instead.

use serde_json::{Map, Number, Value};

const NULL: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 5;
const TEXT: u8 = 7;
const TEXTJ: u8 = 8;
const TEXTRAW: u8 = 10;
const ARRAY: u8 = 11;
const OBJECT: u8 = 12;

/// The depth `serde_json` parses to (deeper documents are refused there, and read there).
const MAX_DEPTH: usize = 128;

/// The JSON object a JSONB blob holds, or `None` where it is not an object of the standard
/// forms (see the module).
pub(super) fn to_map(blob: &[u8]) -> Option<Map<String, Value>> {
    let (ty, payload, rest) = element(blob)?;
    if ty != OBJECT || !rest.is_empty() {
        return None;
    }
    object(payload, 1)
}

/// The first element of `b`: its type, its payload and the bytes after it.
fn element(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let first = *b.first()?;
    let (size, head): (usize, usize) = match first >> 4 {
        n @ 0..=11 => (usize::from(n), 1),
        12 => (usize::from(*b.get(1)?), 2),
        13 => (
            usize::from(u16::from_be_bytes(b.get(1..3)?.try_into().ok()?)),
            3,
        ),
        14 => (
            usize::try_from(u32::from_be_bytes(b.get(1..5)?.try_into().ok()?)).ok()?,
            5,
        ),
        _ => (
            usize::try_from(u64::from_be_bytes(b.get(1..9)?.try_into().ok()?)).ok()?,
            9,
        ),
    };
    let end = head.checked_add(size)?;
    Some((first & 0x0f, b.get(head..end)?, &b[end..]))
}

fn value(ty: u8, payload: &[u8], depth: usize) -> Option<Value> {
    Some(match ty {
        NULL if payload.is_empty() => Value::Null,
        TRUE if payload.is_empty() => Value::Bool(true),
        FALSE if payload.is_empty() => Value::Bool(false),
        // The number's JSON text, read as `serde_json` reads it in a document.
        INT | FLOAT => Value::Number(std::str::from_utf8(payload).ok()?.parse::<Number>().ok()?),
        ARRAY => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut items = Vec::new();
            let mut rest = payload;
            while !rest.is_empty() {
                let (ty, p, after) = element(rest)?;
                items.push(value(ty, p, depth + 1)?);
                rest = after;
            }
            Value::Array(items)
        }
        OBJECT => {
            if depth >= MAX_DEPTH {
                return None;
            }
            Value::Object(object(payload, depth + 1)?)
        }
        _ => Value::String(text(ty, payload)?),
    })
}

fn object(payload: &[u8], depth: usize) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut rest = payload;
    while !rest.is_empty() {
        let (kty, k, after) = element(rest)?;
        let key = text(kty, k)?;
        let (ty, p, after) = element(after)?;
        // As a parse of the text would: a later value of a key replaces the earlier one.
        map.insert(key, value(ty, p, depth)?);
        rest = after;
    }
    Some(map)
}

/// A string element: text as it is (`TEXT`, `TEXTRAW`) or with JSON's escapes (`TEXTJ`).
fn text(ty: u8, payload: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(payload).ok()?;
    match ty {
        TEXT | TEXTRAW => Some(s.to_owned()),
        TEXTJ => {
            let mut quoted = String::with_capacity(s.len() + 2);
            quoted.push('"');
            quoted.push_str(s);
            quoted.push('"');
            serde_json::from_str(&quoted).ok()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    /// The JSONB SQLite makes of `sql` (an expression of JSON functions).
    fn jsonb(conn: &Connection, sql: &str) -> Vec<u8> {
        conn.query_row(&format!("SELECT jsonb({sql})"), [], |r| r.get(0))
            .unwrap()
    }

    /// What SQLite prints of the same JSONB, parsed by `serde_json`.
    fn through_text(conn: &Connection, blob: &[u8]) -> Map<String, Value> {
        let text: String = conn
            .query_row("SELECT json(?1)", [blob], |r| r.get(0))
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_document_reads_as_sqlites_text_of_it_parses() {
        let conn = Connection::open_in_memory().unwrap();
        let long = "x".repeat(70_000);
        let docs = [
            r#"{}"#.to_string(),
            r#"{"a":1,"b":-2,"c":1.5,"d":-0.0,"e":1e-7,"f":2.5E+30,"g":12345678901234567890,"h":-9223372036854775808}"#.to_string(),
            r#"{"t":true,"f":false,"n":null,"e":"","arr":[],"obj":{}}"#.to_string(),
            r#"{"esc":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u20ac\ud83d\ude00","raw":"é€😀","ctl":"\u0001"}"#.to_string(),
            r#"{"nested":{"a":[1,[2,[3,{"b":[{"c":null}]}]]],"z":{"y":{"x":"w"}}},"k\"ey":1,"ké":2}"#.to_string(),
            format!(r#"{{"long":"{long}","list":[{}]}}"#, (0..3000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")),
            r#"{"order":1,"keeps":2,"as":3,"written":4,"a":5}"#.to_string(),
        ];
        for doc in &docs {
            let blob = jsonb(&conn, &format!("'{}'", doc.replace('\'', "''")));
            let ours = to_map(&blob).unwrap_or_else(|| panic!("not read: {doc:.80}"));
            assert_eq!(ours, through_text(&conn, &blob), "{doc:.80}");
            assert_eq!(
                ours.keys().collect::<Vec<_>>(),
                through_text(&conn, &blob).keys().collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn values_set_by_sql_functions_read_as_their_text() {
        // Text bound from SQL is kept raw (TEXTRAW), numbers from SQL as INT and FLOAT.
        let conn = Connection::open_in_memory().unwrap();
        let blob: Vec<u8> = conn
            .query_row(
                "SELECT jsonb_set(jsonb('{\"a\":1}'), '$._user', ?1, '$._version', ?2, '$.r', ?3, \
                 '$._tag', json('[\"b\",\"a\"]'))",
                rusqlite::params!["ann \"q\" \\ \n é", 7, 0.25],
                |r| r.get(0),
            )
            .unwrap();
        let ours = to_map(&blob).unwrap();
        assert_eq!(ours, through_text(&conn, &blob));
        assert_eq!(ours["_user"], "ann \"q\" \\ \n é");
        assert_eq!(ours["_version"], 7);
    }

    #[test]
    fn json5_forms_and_broken_blobs_are_left_to_sqlite() {
        let conn = Connection::open_in_memory().unwrap();
        // JSON5's numbers and escapes have forms of their own: left to SQLite.
        for json5 in [
            r#"{"a":0x1F}"#,
            r#"{"a":Infinity}"#,
            r#"{"a":.5}"#,
            r#"{"a":"\x41"}"#,
        ] {
            let blob = jsonb(&conn, &format!("'{json5}'"));
            assert_eq!(to_map(&blob), None, "{json5}");
        }
        // JSON5 that SQLite stores in the standard forms reads as its text.
        for json5 in [
            r#"{a:1}"#,
            r#"{"a":+1}"#,
            r#"{"a":'single'}"#,
            r#"{"a":[1,2,],}"#,
        ] {
            let blob = jsonb(&conn, &format!("'{}'", json5.replace('\'', "''")));
            assert_eq!(
                to_map(&blob).unwrap(),
                through_text(&conn, &blob),
                "{json5}"
            );
        }
        let blob = jsonb(&conn, "'{\"a\":[1,2,3],\"b\":\"text\"}'");
        for cut in 0..blob.len() {
            assert_eq!(to_map(&blob[..cut]), None, "cut at {cut}");
        }
        assert!(to_map(&blob).is_some());
        // Not an object, or followed by more bytes.
        assert_eq!(to_map(&jsonb(&conn, "'[1]'")), None);
        let mut longer = blob.clone();
        longer.push(0);
        assert_eq!(to_map(&longer), None);
        // Deeper than serde_json parses.
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(to_map(&jsonb(&conn, &format!("'{deep}'"))), None);
    }
}
