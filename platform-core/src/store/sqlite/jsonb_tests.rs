//! The JSONB reader of `crate::json::jsonb` against the blobs SQLite makes: what it reads of
//! them is what SQLite prints of them, parsed.

use crate::json::jsonb::*;
use rusqlite::Connection;
use serde_json::{Map, Value};

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

/// What the map path answers: the map read of the blob, fields left out as
/// [`print_object`] is told to, printed by `serde_json` (without its closing brace).
fn printed_through_map(
    map: &Map<String, Value>,
    omit: &[&str],
    hide: &dyn Fn(FieldHeader<'_>) -> bool,
) -> Vec<u8> {
    let kept: Map<String, Value> = map
        .iter()
        .filter(|(k, v)| !(omit.contains(&k.as_str()) || v.is_object() && hide(FieldHeader::of(v))))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut text = serde_json::to_vec(&kept).unwrap();
    text.pop();
    text
}

/// A body printed from its JSONB is, byte for byte, the map read of it printed by
/// `serde_json`, with fields left out as asked: numbers as a document's numbers print
/// (`2.5E+30` as `2.5e30`), strings escaped as `serde_json` escapes them whatever their
/// JSONB form (with JSON escapes, raw text set from SQL), nested objects and arrays.
#[test]
fn a_body_prints_as_the_map_read_of_it_prints() {
    let conn = Connection::open_in_memory().unwrap();
    let long = "y".repeat(70_000);
    let docs = [
        r#"{"_id":"A","a":1,"b":-2,"c":1.5,"d":-0.0,"e":1e-7,"f":2.5E+30,"g":12345678901234567890,"h":-9223372036854775808,"i":123456789012345678901234567890}"#.to_string(),
        r#"{"_id":"B","t":true,"f":false,"n":null,"e":"","arr":[],"obj":{}}"#.to_string(),
        r#"{"_id":"C","esc":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u20ac\ud83d\ude00","raw":"é€😀","ctl":"\u0001\u001f\u007f"}"#.to_string(),
        r#"{"_id":"D","nested":{"a":[1,[2,[3,{"b":[{"c":null}]}]]],"z":{"y":{"x":"w"}}},"k\"ey":1,"ké":2,"_bundle":"b","series":{"_type":"TimeSeries","_access":"secret","unit":"MW"}}"#.to_string(),
        format!(r#"{{"_id":"E","long":"{long}","list":[{}]}}"#, (0..3000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")),
        r#"{"a":5,"_id":"F","keeps":{"k":1,"k2":{"x":[{"y":1}]}}}"#.to_string(),
        format!(r#"{{"_id":"G",{}}}"#, (0..40).map(|i| format!(r#""f{i}":{i}"#)).collect::<Vec<_>>().join(",")),
        // Headers with escapes, a repeated key (the last counts), a `_type` no string;
        // integers at the edges of those printed as written.
        r#"{"_id":"I","esc":{"_type":"Time\u0053eries","_access":"s\u0065cret","u":1},"rep":{"_access":"x","_access":"secret","_type":"TimeSeries"},"rep2":{"_access":"secret","_access":"x","_type":"TimeSeries"},"num":{"_type":1,"_access":"secret"},"n18":123456789012345678,"m18":-123456789012345678,"n19":1234567890123456789,"n0":0,"neg0":-0,"neg":-5,"e":1E2,"f":10.0}"#.to_string(),
    ];
    let hide = |h: FieldHeader<'_>| h.access.is_some();
    let data_of_secret =
        |h: FieldHeader<'_>| h.kind == Some("TimeSeries") && h.access == Some("secret");
    for doc in &docs {
        let blob = jsonb(&conn, &format!("'{}'", doc.replace('\'', "''")));
        let map = to_map(&blob).unwrap();
        for (omit, hide) in [
            (
                &[][..],
                &(|_: FieldHeader<'_>| false) as &dyn Fn(FieldHeader<'_>) -> bool,
            ),
            (&["_bundle"][..], &hide),
            (&[][..], &data_of_secret),
        ] {
            let mut out = Vec::new();
            let has_id = print_object(&blob, omit, &[], hide, &mut out)
                .unwrap_or_else(|| panic!("not printed: {doc:.80}"));
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                String::from_utf8(printed_through_map(&map, omit, hide)).unwrap(),
                "{doc:.80}"
            );
            assert!(has_id);
        }
    }
    // Which of those headers hide: told after their escapes, by the last of a key.
    let blob = jsonb(&conn, &format!("'{}'", docs[7]));
    let mut out = Vec::new();
    print_object(&blob, &[], &[], &data_of_secret, &mut out).unwrap();
    let shown: Map<String, Value> = serde_json::from_slice(&[&out[..], b"}"].concat()).unwrap();
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        ["_id", "rep2", "num", "n18", "m18", "n19", "n0", "neg0", "neg", "e", "f"]
    );
    // Text set from SQL (raw, with quotes, backslashes and control characters), numbers
    // from SQL.
    let blob: Vec<u8> = conn
        .query_row(
            "SELECT jsonb_set(jsonb('{\"_id\":\"H\"}'), '$.u', ?1, '$.v', ?2, '$.r', ?3)",
            rusqlite::params!["ann \"q\" \\ \n\u{1} é", 7, 0.25],
            |r| r.get(0),
        )
        .unwrap();
    let mut out = Vec::new();
    print_object(&blob, &[], &[], &|_| false, &mut out).unwrap();
    assert_eq!(
        out,
        printed_through_map(&to_map(&blob).unwrap(), &[], &|_| false)
    );
}

/// Fields read by name are those the map read of the whole body holds, in its order (the
/// last value of a repeated key, where the key came first); a field of a form left to
/// SQLite is refused only where it is named.
#[test]
fn fields_read_by_name_are_those_of_the_whole_map() {
    let conn = Connection::open_in_memory().unwrap();
    let blob = jsonb(
        &conn,
        r#"'{"a":1,"b":{"c":[1,{"e":null}]},"a":3,"d":"x\ny","f":[1.5e3]}'"#,
    );
    let whole = to_map(&blob).unwrap();
    for fields in [&["a"][..], &["d", "b"], &["zz"], &[], &["f", "a", "b", "d"]] {
        let part = to_map_fields(&blob, fields).unwrap();
        let mut expected = whole.clone();
        expected.retain(|k, _| fields.contains(&k.as_str()));
        assert_eq!(part, expected, "{fields:?}");
        assert!(part.keys().eq(expected.keys()), "{fields:?}");
    }
    assert_eq!(whole["a"], 3);
    let blob = jsonb(&conn, r#"'{"a":0x1F,"b":2}'"#);
    assert_eq!(to_map_fields(&blob, &["a"]), None);
    assert_eq!(
        to_map_fields(&blob, &["b"]),
        Some(Map::from_iter([("b".to_string(), Value::from(2))]))
    );
    assert_eq!(to_map_fields(&jsonb(&conn, "'[1]'"), &["a"]), None);
}

proptest::proptest! {
    /// Text prints as `serde_json` prints the string, whatever its bytes (the plain ASCII
    /// path and the escaped one).
    #[test]
    fn text_prints_as_serde_json_prints_it(s in "[ -~\u{7f}\u{0}-\u{1f}\"\\\\é€😀]{0,40}") {
        let mut out = Vec::new();
        print_text(s.as_bytes(), &mut out).unwrap();
        proptest::prop_assert_eq!(out, serde_json::to_vec(&s).unwrap());
    }

    /// An object is printed where its keys are distinct and refused where one repeats,
    /// however many keys it has and whatever their hashes.
    #[test]
    fn a_repeated_key_is_found_among_any_keys(
        keys in proptest::collection::vec("[a-c_]{0,3}|[a-z]{8,12}", 0..60)
    ) {
        let conn = Connection::open_in_memory().unwrap();
        let text = format!(
            "{{{}}}",
            keys.iter().enumerate().map(|(i, k)| format!("\"{k}\":{i}")).collect::<Vec<_>>().join(",")
        );
        let nested = format!(r#"{{"o":{text}}}"#);
        let distinct = keys.iter().collect::<std::collections::HashSet<_>>().len() == keys.len();
        let top = print_object(&jsonb(&conn, &format!("'{text}'")), &[], &[], &|_| false, &mut Vec::new());
        proptest::prop_assert_eq!(top.is_some(), distinct);
        let mut out = Vec::new();
        let blob = jsonb(&conn, &format!("'[{nested}]'"));
        let (_, payload, _) = element(&blob).unwrap();
        let (ty, p, _) = element(payload).unwrap();
        proptest::prop_assert_eq!(print_value(ty, p, 1, &mut out).is_some(), distinct);
    }
}

/// What a map would keep one of, or the caller refuses, or is no standard JSONB object,
/// is not printed (the caller reads the map instead).
#[test]
fn repeated_keys_refused_fields_and_other_forms_are_not_printed() {
    let conn = Connection::open_in_memory().unwrap();
    let print = |sql: &str, refuse: &[&str]| {
        let blob = jsonb(&conn, sql);
        let mut out = Vec::new();
        print_object(&blob, &[], refuse, &|_| false, &mut out).map(|_| out)
    };
    assert_eq!(
        print(r#"'{"a":1,"b":2}'"#, &[]),
        Some(br#"{"a":1,"b":2"#.to_vec())
    );
    assert_eq!(print(r#"'{"a":1,"a":2}'"#, &[]), None);
    // (An object that is a top-level value is read whole, as the map reads it.)
    let blob = jsonb(&conn, r#"'{"a":{"k":1,"k":2}}'"#);
    let mut out = Vec::new();
    print_object(&blob, &[], &[], &|_| false, &mut out).unwrap();
    assert_eq!(out, br#"{"a":{"k":2}"#);
    assert_eq!(
        out,
        printed_through_map(&to_map(&blob).unwrap(), &[], &|_| false)
    );
    assert_eq!(print(r#"'{"a":[{"k":1,"k":2}]}'"#, &[]), None);
    let many = (0..20)
        .map(|i| format!(r#""f{i}":1"#))
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(print(&format!(r#"'{{{many},"f3":2}}'"#), &[]), None);
    let printed = print(&format!(r#"'{{{many}}}'"#), &[]).unwrap();
    assert_eq!(printed, format!("{{{many}").into_bytes());
    assert_eq!(print(r#"'{"a":1,"_oid":"x"}'"#, &["_oid"]), None);
    let blob = jsonb(&conn, r#"'{"a":1,"_id":"x"}'"#);
    assert_eq!(
        print_object(&blob, &[], &[], &|_| false, &mut Vec::new()),
        Some(true)
    );
    let blob = jsonb(&conn, r#"'{"a":1}'"#);
    assert_eq!(
        print_object(&blob, &[], &[], &|_| false, &mut Vec::new()),
        Some(false)
    );
    assert_eq!(print(r#"'{"a":0x1F}'"#, &[]), None);
    assert_eq!(print(r#"'[1]'"#, &[]), None);
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    assert_eq!(print(&format!("'{deep}'"), &[]), None);
    let blob = jsonb(&conn, r#"'{"a":[1,2,3],"b":"text"}'"#);
    for cut in 0..blob.len() {
        let printed = print_object(&blob[..cut], &[], &[], &|_| false, &mut Vec::new());
        assert!(printed.is_none(), "cut at {cut}");
    }
}

/// A body whose leading `_id` and `_type` a current row keeps in its columns: the blob with
/// them put back in front is, byte for byte, the one SQLite makes of the whole text, and
/// SQLite prints it as that text, whatever the size of the object (each form of header).
#[test]
fn a_lead_put_back_is_the_blob_of_the_whole_text() {
    let conn = Connection::open_in_memory().unwrap();
    let long = |n: usize| format!(",\"a\":\"{}\"", "x".repeat(n));
    for rest in [
        String::new(),
        ",\"n\":1".to_string(),
        long(2),
        long(230),
        long(300),
        long(70_000),
    ] {
        for (id, kind) in [
            ("M1", None),
            ("M1", Some("Meter")),
            ("é€😀 id", Some("Typ é")),
        ] {
            let lead = match kind {
                Some(kind) => format!("\"_id\":\"{id}\",\"_type\":\"{kind}\""),
                None => format!("\"_id\":\"{id}\""),
            };
            let whole = format!("{{{lead}{rest}}}");
            let kept = format!("{{{}}}", rest.strip_prefix(',').unwrap_or(&rest));
            let blob = jsonb(&conn, &format!("'{}'", kept.replace('\'', "''")));
            let put_back = with_lead(&blob, id, kind).unwrap();
            assert_eq!(
                put_back,
                jsonb(&conn, &format!("'{}'", whole.replace('\'', "''"))),
                "{lead} before {} bytes",
                rest.len()
            );
            let printed: String = conn
                .query_row("SELECT json(?1)", [&put_back], |r| r.get(0))
                .unwrap();
            assert_eq!(printed, whole);
            assert_eq!(
                to_map(&put_back).unwrap(),
                serde_json::from_str::<Map<String, Value>>(&whole).unwrap()
            );
        }
    }
    assert_eq!(with_lead(&jsonb(&conn, "'[1]'"), "M1", None), None);
}
