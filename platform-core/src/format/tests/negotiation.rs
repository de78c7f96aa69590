//! Content negotiation: defaults, exact types, weights, wildcards and refusals.
use super::*;

const ALL: [Format; 4] = [Format::Json, Format::Csv, Format::Xml, Format::Html];
const DATA: [Format; 3] = [Format::Json, Format::Csv, Format::Xml];

fn pick(accept: &str, available: &[Format]) -> Format {
    negotiate(Some(accept), available).unwrap_or_else(|e| panic!("{accept}: {e}"))
}

#[test]
fn negotiate_defaults_to_json_then_the_first_offer() {
    assert_eq!(negotiate(None, &DATA).unwrap(), Format::Json);
    assert_eq!(negotiate(Some(""), &DATA).unwrap(), Format::Json);
    assert_eq!(negotiate(Some("  "), &DATA).unwrap(), Format::Json);
    assert_eq!(
        negotiate(None, &[Format::Csv, Format::Json]).unwrap(),
        Format::Json
    );
    assert_eq!(
        negotiate(None, &[Format::Xml, Format::Csv]).unwrap(),
        Format::Xml
    );
}

#[test]
fn negotiate_exact_types() {
    assert_eq!(pick("text/csv", &DATA), Format::Csv);
    assert_eq!(pick("application/xml", &DATA), Format::Xml);
    assert_eq!(pick("text/xml", &DATA), Format::Xml);
    assert_eq!(pick("application/json", &DATA), Format::Json);
    assert_eq!(pick("text/html", &ALL), Format::Html);
    assert_eq!(pick("TEXT/CSV", &DATA), Format::Csv);
    assert_eq!(pick(" text/csv ; charset=utf-8 ", &DATA), Format::Csv);
    assert_eq!(pick("image/png, text/csv", &DATA), Format::Csv);
}

#[test]
fn negotiate_weights() {
    assert_eq!(
        pick("application/xml;q=0.5, text/csv;q=0.9", &DATA),
        Format::Csv
    );
    assert_eq!(
        pick("application/xml;q=0.9, text/csv;q=0.5", &DATA),
        Format::Xml
    );
    assert_eq!(
        pick(
            "text/csv;charset=utf-8;q=0.5, application/json;q=0.4",
            &DATA
        ),
        Format::Csv
    );
    assert_eq!(
        pick("text/csv; Q=1, application/json;q=0.999", &DATA),
        Format::Csv
    );
    // q=0 refuses a type that a wildcard would allow.
    assert_eq!(
        pick("text/csv;q=0, */*", &[Format::Csv, Format::Xml]),
        Format::Xml
    );
    // Equal weights: the order of the offer.
    assert_eq!(
        pick("text/csv, application/xml", &[Format::Xml, Format::Csv]),
        Format::Xml
    );
}

#[test]
fn negotiate_wildcards() {
    assert_eq!(pick("*/*", &DATA), Format::Json);
    assert_eq!(pick("*/*", &[Format::Xml, Format::Csv]), Format::Xml);
    assert_eq!(pick("text/*", &ALL), Format::Csv);
    assert_eq!(
        pick("application/*", &[Format::Csv, Format::Xml, Format::Json]),
        Format::Xml
    );
    assert_eq!(
        pick("application/*;q=0.2, text/csv;q=0.1", &DATA),
        Format::Json
    );
    // The most specific range decides a format's weight.
    let ranges = "text/*;q=0.1, text/csv;q=0.9, */*;q=0.5";
    assert_eq!(pick(ranges, &[Format::Html, Format::Csv]), Format::Csv);
    assert_eq!(pick(ranges, &[Format::Html, Format::Json]), Format::Json);
    // What a browser sends.
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    assert_eq!(pick(browser, &DATA), Format::Xml);
    assert_eq!(pick(browser, &ALL), Format::Html);
}

#[test]
fn negotiate_refuses_with_what_is_available() {
    let (code, message) = user_error(negotiate(Some("image/png"), &DATA));
    assert_eq!(code, ErrorCode::NotAcceptable);
    assert!(message.contains("image/png"), "{message}");
    assert!(
        message.contains("available: application/json, text/csv, application/xml"),
        "{message}"
    );
    assert!(!message.contains("text/html"), "{message}");

    let (code, message) = user_error(negotiate(Some("text/html"), &[Format::Csv]));
    assert_eq!(code, ErrorCode::NotAcceptable);
    assert!(message.ends_with("available: text/csv"), "{message}");

    for refused in [
        "text/csv;q=0",
        "garbage",
        "*/csv",
        "text/csv;q=abc",
        "text/csv;q=2",
    ] {
        let (code, _) = user_error(negotiate(Some(refused), &[Format::Csv]));
        assert_eq!(code, ErrorCode::NotAcceptable, "{refused}");
    }
    let long = "x/y,".repeat(200);
    let (_, message) = user_error(negotiate(Some(&long), &DATA));
    assert!(message.len() < 400, "{message}");
}

#[test]
fn negotiate_needs_an_offer() {
    let (code, _) = user_error(negotiate(None, &[]));
    assert_eq!(code, ErrorCode::Internal);
}

#[test]
fn content_types() {
    assert_eq!(Format::Json.content_type(), "application/json");
    assert_eq!(Format::Csv.content_type(), "text/csv; charset=utf-8");
    assert_eq!(Format::Xml.content_type(), "application/xml");
    assert_eq!(Format::Html.content_type(), "text/html; charset=utf-8");
}

#[test]
fn negotiate_svg_charts_of_data() {
    let data_and_chart = [Format::Json, Format::Csv, Format::Xml, Format::Svg];
    assert_eq!(pick("image/svg+xml", &data_and_chart), Format::Svg);
    assert_eq!(pick("image/*", &data_and_chart), Format::Svg);
    // What a browser's <img> sends: the chart; what a plain client sends: JSON.
    assert_eq!(
        pick(
            "image/avif,image/webp,image/svg+xml,image/*,*/*;q=0.8",
            &data_and_chart
        ),
        Format::Svg
    );
    assert_eq!(pick("*/*", &data_and_chart), Format::Json);
    // Not offered (a document read): refused as any other missing type.
    let err = negotiate(Some("image/svg+xml"), &DATA).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAcceptable);
    assert!(err.to_string().contains("application/json"), "{err}");
    assert_eq!(Format::Svg.content_type(), "image/svg+xml");
}
