//! The filter grammars: parse results and the in-memory meaning.

use super::*;
use serde_json::json;

fn doc(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn param(path: &str, value: &str) -> Filter {
    parse_param(path, value).unwrap()
}

#[test]
fn plain_values_match_text_and_json_text() {
    let f = param("n", "2");
    assert!(f.matches(&doc(json!({"n": 2}))));
    assert!(f.matches(&doc(json!({"n": "2"}))));
    assert!(!f.matches(&doc(json!({"n": 2.5}))));
    assert!(!param("n", "2.0").matches(&doc(json!({"n": 2}))));
    assert!(param("flag", "true").matches(&doc(json!({"flag": true}))));
    assert!(param("a.b", "x").matches(&doc(json!({"a": {"b": "x"}}))));
    assert!(
        !param("name", "abc").matches(&doc(json!({"name": "ABC"}))),
        "case-sensitive"
    );
}

#[test]
fn functions_parse_and_match() {
    let d = doc(
        json!({"n": 5, "s": "m", "d": "2024-03-01T10:00:00Z", "geolocation": {"type": "Point", "coordinates": [0.0, 51.5]}}),
    );
    assert!(param("n", "gt(4)").matches(&d));
    assert!(!param("n", "gt(5)").matches(&d));
    assert!(param("n", "gte(5)").matches(&d));
    assert!(param("n", "lt(5.5)").matches(&d));
    assert!(param("n", "lte(5)").matches(&d));
    assert!(param("n", "range(5,6)").matches(&d));
    assert!(param("n", "range(1,5)").matches(&d));
    assert!(!param("n", "range(6,9)").matches(&d));
    assert!(param("s", "range(a,n)").matches(&d));
    assert!(param("d", "range(2024-03-01,2024-03-02)").matches(&d));
    assert!(param("d", "gt(2024-03-01T09:00:00+00:00)").matches(&d));
    assert!(
        !param("d", "gt(2024-03-01T12:00:00+01:00)").matches(&d),
        "11:00 UTC is later"
    );
    assert!(param("s", "ne(x)").matches(&d));
    assert!(param("missing", "ne(x)").matches(&d));
    assert!(param("s", "in(a,m,z)").matches(&d));
    assert!(param("s", "in(\"m\")").matches(&d));
    assert!(!param("s", "in(a,b)").matches(&d));
    assert!(param("s", "eq(m)").matches(&d));
    // London to Paris is about 0.054 rad.
    assert!(param("geolocation", "within(sphere([2.35,48.85],0.06))").matches(&d));
    assert!(!param("geolocation", "within(sphere([2.35,48.85],0.04))").matches(&d));
    assert!(param("geolocation", "within(sphere([0,51.5],0))")
        .matches(&doc(json!({"geolocation": [0, 51.5]}))));
}

#[test]
fn quoted_arguments_keep_commas() {
    assert_eq!(
        param("s", "in(\"a,b\",c)"),
        Filter::TextIn {
            path: "s".into(),
            texts: vec!["a,b".into(), "c".into()]
        }
    );
    assert!(param("s", "eq(\"f(1)\")").matches(&doc(json!({"s": "f(1)"}))));
}

#[test]
fn text_that_only_looks_like_a_call_is_plain_text() {
    assert_eq!(
        param("s", "Q1(est)"),
        Filter::TextIn {
            path: "s".into(),
            texts: vec!["Q1(est)".into()]
        }
    );
    assert_eq!(
        param("s", "Smith (UK)"),
        Filter::TextIn {
            path: "s".into(),
            texts: vec!["Smith (UK)".into()]
        }
    );
}

#[test]
fn bad_parameter_filters_name_the_problem() {
    for (path, value, needle) in [
        ("n", "foo(1)", "unknown filter function \"foo\""),
        ("n", "gt()", "gt() takes one value"),
        ("n", "gt(1,2)", "gt() takes one value"),
        ("n", "range(1)", "range() takes two values"),
        ("n", "range(1,b)", "both bounds"),
        ("n", "in()", "one or more"),
        ("n", "in(a,,b)", "empty value"),
        ("n", "eq(\"a)", "unbalanced quote"),
        ("g", "within(1)", "sphere"),
        ("g", "within(sphere([1],2))", "sphere"),
        ("g", "within(sphere([200,0],1))", "longitude"),
        ("g", "within(sphere([0,0],-1))", "distance"),
        ("a..b", "x", "empty path segment"),
    ] {
        let err = parse_param(path, value).unwrap_err();
        assert!(err.to_string().contains(needle), "{path}={value}: {err}");
    }
}

#[test]
fn json_filters_parse_to_typed_predicates() {
    let f = parse_json_filter(r#"{"n": 2, "s": {"$in": ["a", "b"]}, "$or": [{"x": {"$exists": false}}, {"x": {"$lt": 3}}]}"#).unwrap();
    assert!(f.matches(&doc(json!({"n": 2, "s": "a"}))));
    assert!(f.matches(&doc(json!({"n": 2.0, "s": "b", "x": 1}))));
    assert!(
        !f.matches(&doc(json!({"n": "2", "s": "a"}))),
        "typed: the string 2 is not the number 2"
    );
    assert!(!f.matches(&doc(json!({"n": 2, "s": "a", "x": 5}))));
    let nor = parse_json_filter(r#"{"$nor": [{"a": 1}, {"b": 1}]}"#).unwrap();
    assert!(nor.matches(&doc(json!({"a": 2}))));
    assert!(!nor.matches(&doc(json!({"b": 1}))));
    let re = parse_json_filter(r#"{"name": {"$regex": "^gas", "$options": "i"}}"#).unwrap();
    assert!(re.matches(&doc(json!({"name": "GAS hub"}))));
    let not = parse_json_filter(r#"{"n": {"$not": {"$gt": 5}}}"#).unwrap();
    assert!(not.matches(&doc(json!({"n": 1}))));
    assert!(not.matches(&doc(json!({}))));
    let nin = parse_json_filter(r#"{"t": {"$nin": ["M01"]}, "u": {"$ne": 1}}"#).unwrap();
    assert!(nin.matches(&doc(json!({"t": "M02"}))));
    let arr = parse_json_filter(r#"{"failedTenors": "M01"}"#).unwrap();
    assert!(arr.matches(&doc(json!({"failedTenors": ["M00", "M01"]}))));
    assert!(!arr.matches(&doc(json!({"failedTenors": ["M02"]}))));
    let arr_in = parse_json_filter(r#"{"failedTenors": {"$in": ["Q01", "M01"]}}"#).unwrap();
    assert!(arr_in.matches(&doc(json!({"failedTenors": ["M01"]}))));
    let dates = parse_json_filter(r#"{"d": {"$gte": "2024-01-01", "$lt": "2024-02-01"}}"#).unwrap();
    assert!(dates.matches(&doc(json!({"d": "2024-01-31T23:00:00Z"}))));
    assert!(!dates.matches(&doc(json!({"d": "2024-02-01"}))));
    let nested = parse_json_filter(r#"{"a.b": {"$eq": {"c": 1}}}"#).unwrap();
    assert!(nested.matches(&doc(json!({"a": {"b": {"c": 1}}}))));
}

#[test]
fn bad_json_filters_are_errors() {
    for (text, needle) in [
        ("{", "not valid JSON"),
        ("[1]", "must be a JSON object"),
        (r#"{"a": {"$foo": 1}}"#, "unknown operator \"$foo\""),
        (r#"{"$foo": 1}"#, "unknown operator \"$foo\""),
        (r#"{"$and": {}}"#, "non-empty array"),
        (r#"{"$or": [1]}"#, "must be an object"),
        (r#"{"a": {"$in": 1}}"#, "takes an array"),
        (r#"{"a": {"$exists": 1}}"#, "true or false"),
        (r#"{"a": {"$regex": "("}}"#, "invalid $regex"),
        (r#"{"a": {"$gt": [1]}}"#, "number or a string"),
        (r#"{"a": {"$not": 1}}"#, "operator object"),
        (r#"{"a": {"$regex": "x", "$options": "g"}}"#, "$options"),
    ] {
        let err = parse_json_filter(text).unwrap_err();
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
    let deep = format!("{}{{}}{}", r#"{"$and":["#.repeat(40), "]}".repeat(40));
    assert!(parse_json_filter(&deep)
        .unwrap_err()
        .to_string()
        .contains("deeper"));
}

#[test]
fn text_comparisons_are_listed_for_checking() {
    let f = Filter::and(vec![param("n", "gt(abc)"), param("m", "gt(3)")]);
    assert_eq!(
        f.text_comparisons(),
        vec![("n".to_string(), "gt(abc)".to_string())]
    );
}

#[test]
fn integers_past_2_pow_53_compare_exactly_as_in_sql() {
    // Found by fuzzing the in-memory meaning against SQLite's: both rounded 2^53 + 1 to 2^53
    // in memory, where SQLite compares integers exactly.
    let d = doc(json!({"n": 9_007_199_254_740_993_u64, "m": [1, 9_007_199_254_740_993_u64]}));
    let json = |text: &str| parse_json_filter(text).unwrap();
    assert!(json(r#"{"n": 9007199254740993}"#).matches(&d));
    assert!(!json(r#"{"n": 9007199254740992}"#).matches(&d));
    assert!(!json(r#"{"n": 9007199254740992.0}"#).matches(&d));
    assert!(json(r#"{"m": 9007199254740993}"#).matches(&d));
    assert!(!json(r#"{"m": 9007199254740992}"#).matches(&d));
    assert!(param("n", "gt(9007199254740992)").matches(&d));
    assert!(!param("n", "lte(9007199254740992)").matches(&d));
    assert!(json(r#"{"n": {"$ne": 9007199254740992}}"#).matches(&d));
    // Integers and doubles still meet where they are equal, and fractions still count.
    let small = doc(json!({"n": 2, "x": 2.5, "big": u64::MAX, "low": i64::MIN}));
    assert!(json(r#"{"n": 2.0}"#).matches(&small));
    assert!(param("n", "lt(2.5)").matches(&small));
    assert!(param("n", "gt(1.5)").matches(&small));
    assert!(!param("n", "gt(2)").matches(&small));
    assert!(param("x", "gt(2)").matches(&small));
    assert!(param("big", "gt(9223372036854775807)").matches(&small));
    assert!(param("low", "lt(-9223372036854775000)").matches(&small));
    assert!(param("low", "gte(-9223372036854775808)").matches(&small));
    assert!(!param("low", "lt(-9223372036854775808)").matches(&small));
}

#[test]
fn an_object_value_matches_the_same_fields_in_the_same_order_as_in_sql() {
    // Found by fuzzing the in-memory meaning against SQLite's: memory compared objects without
    // regard to field order, SQLite compares their JSON text.
    let d = doc(json!({"o": {"p": 1, "q": [1, 2.5]}, "a": [{"x": 1, "y": 2}]}));
    let json = |text: &str| parse_json_filter(text).unwrap();
    assert!(json(r#"{"o": {"p": 1, "q": [1, 2.5]}}"#).matches(&d));
    assert!(!json(r#"{"o": {"q": [1, 2.5], "p": 1}}"#).matches(&d));
    assert!(!json(r#"{"o": {"$eq": {"q": [1, 2.5], "p": 1}}}"#).matches(&d));
    assert!(!json(r#"{"o": {"p": 1.0, "q": [1, 2.5]}}"#).matches(&d));
    assert!(json(r#"{"a": {"x": 1, "y": 2}}"#).matches(&d));
    assert!(!json(r#"{"a": {"y": 2, "x": 1}}"#).matches(&d));
    assert!(!json(r#"{"a": [{"y": 2, "x": 1}]}"#).matches(&d));
}
