//! Every parser of a query mini-language takes any text without panicking: it parses or it
//! returns an error that names the input.

use super::*;
use proptest::prelude::*;

/// Text made of the characters the grammars care about, so that inputs get deep into parsers.
fn grammar_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("("),
            Just(")"),
            Just(","),
            Just("["),
            Just("]"),
            Just("{"),
            Just("}"),
            Just("\""),
            Just(":"),
            Just("$gt"),
            Just("$and"),
            Just("$regex"),
            Just("-"),
            Just("|"),
            Just(" "),
            Just("1"),
            Just("-1"),
            Just("2024-03-01"),
            Just("T"),
            Just("M01"),
            Just("gt"),
            Just("range"),
            Just("within"),
            Just("sphere"),
            Just("in"),
            Just("last"),
            Just("between"),
            Just("from"),
            Just("Europe/London"),
            Just("a.b"),
            Just("."),
            Just("\\"),
            Just("é"),
            Just("2024Q2"),
            Just("D"),
            Just("h0"),
            Just("B"),
            Just("null"),
            Just("true"),
        ],
        0..24,
    )
    .prop_map(|parts| parts.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![grammar_text(), "\\PC{0,40}"]
}

/// 600 cases, or more when `PROPTEST_CASES` asks for more (CI runs this harness longer).
fn config() -> ProptestConfig {
    let default = ProptestConfig::default();
    ProptestConfig {
        cases: default.cases.max(600),
        ..default
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parsers_never_panic(text in any_text()) {
        let now = chrono::DateTime::parse_from_rfc3339("2024-07-08T16:23:07Z").unwrap().with_timezone(&chrono::Utc);
        let _ = filter::parse_param("field", &text);
        let _ = filter::parse_param(&text, "x");
        let _ = filter::parse_json_filter(&text);
        let _ = search::parse(&text);
        let _ = SortSpec::parse(&text);
        let _ = Projection::parse(&text);
        let _ = Paging::from_params(&Params::from_slice(&[("_limit", &text), ("_skip", &text)]));
        if let Ok(r) = range::parse(&text) {
            let _ = r.resolve(now);
        }
        if let Ok(p) = period::parse(&text) {
            let _ = p.resolve(now.date_naive());
        }
        if let Ok(d) = daterule::parse(&text) {
            let _ = d.eval(now);
        }
    }

    #[test]
    fn parse_errors_name_their_input(text in grammar_text()) {
        if let Err(e) = filter::parse_param("field", &text) {
            prop_assert!(e.to_string().contains("field"), "{}", e);
        }
        if let Err(e) = SortSpec::parse(&text) {
            prop_assert!(e.to_string().contains("_sort"), "{}", e);
        }
        if let Err(e) = filter::parse_json_filter(&text) {
            prop_assert!(e.to_string().contains("_filter"), "{}", e);
        }
    }
}
