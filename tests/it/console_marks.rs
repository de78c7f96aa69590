//! What the console marks: points aggregated from fewer observations than their periods hold
//! (a ring of their own in the chart, said in its text and in the table), time labels that
//! fit side by side, record counts in whole numbers, and the header's "Sign in" while signed
//! out. The charts are read as SVG with roxmltree.

use crate::common::{Client, TestServer};
use crate::console::{get_as, inline_svg, page, sample, title_and_desc};
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The colour of a chart's first line.
const FIRST_LINE: &str = "#1F5FA8";

/// Half-hourly GB power in London over the spring change day 2025-03-30 (its EFA day runs
/// from 23:00 GMT on the 29th to 23:00 BST on the 30th: 46 half-hours), and one half-hour
/// before it, 22:30 GMT on the 29th: EFA6 of the 29th holds 1 of its 8.
async fn spring_day(c: &Client<'_>) {
    let start = chrono::DateTime::parse_from_rfc3339("2025-03-29T23:00:00Z").unwrap();
    let mut data = vec![json!({"time": "2025-03-29T22:30:00Z", "value": 100})];
    data.extend((0..46).map(|i| {
        let t = start + chrono::Duration::minutes(30 * i);
        json!({"time": t.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "value": i})
    }));
    c.save(
        json!({"_id": "GB", "POWER": {"_type": "VarTimeSeries", "calendar": "HALFHOURLY",
        "timezone": "Europe/London", "units": "MWh", "data": data}}),
    )
    .await;
}

/// The partial points' rings of a chart: unfilled circles drawn round in a line's colour.
fn rings(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("circle")
                && n.attribute("fill") == Some("none")
                && n.attribute("stroke") == Some(FIRST_LINE)
        })
        .count()
}

fn svg_body(r: &crate::common::Resp) -> String {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_str().expect("an SVG").to_string()
}

#[actix_rt::test]
async fn console_partial_points_are_marked_in_the_chart_its_text_and_the_table() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    spring_day(&c).await;
    // The chart of the read: one ring on EFA6 of the 29th, one in the legend, and the text
    // alternative names it.
    let r = get_as(
        &c,
        "/data/v1/private/GB:POWER?_calendar=EFA&_observed=averaged",
        "image/svg+xml",
    )
    .await;
    let svg = svg_body(&r);
    assert_eq!(rings(&svg), 2, "{svg}");
    let (_, desc) = title_and_desc(&svg);
    assert!(
        desc.ends_with(
            "no failed points; 1 partial point (from fewer observations than its period holds: \
             2025-03-29T19:00:00Z, 1 of 8)."
        ),
        "{desc}"
    );
    assert!(
        svg.contains("partial: fewer observations than the period (1)"),
        "{svg}"
    );
    // Whole periods only (the 30th's EFA day): no ring, nothing said.
    let r = get_as(
        &c,
        "/data/v1/private/GB:POWER?_calendar=EFADAY&_observed=averaged&_range=between(2025-03-29T23:00,2025-03-30T23:00)",
        "image/svg+xml",
    )
    .await;
    let svg = svg_body(&r);
    assert_eq!(rings(&svg), 0, "{svg}");
    assert!(!title_and_desc(&svg).1.contains("partial"), "{svg}");

    // The series page: the same chart, the row marked partial in words, and the count.
    let (r, html) = page(&c, "/console/series/private/GB:POWER?scale=EFA").await;
    assert_eq!(r.status, 200, "{html}");
    assert_eq!(rings(&inline_svg(&html)), 2);
    assert!(
        html.contains("7 periods in this range, 0 failed, 1 partial (from fewer observations than the period holds)."),
        "{html}"
    );
    let partial_rows: Vec<&str> = html.split("<tr class=\"partial\">").skip(1).collect();
    assert_eq!(partial_rows.len(), 1, "{html}");
    let row = &partial_rows[0][..partial_rows[0].find("</tr>").unwrap()];
    assert!(row.contains("EFA6 of 2025-03-29"), "{row}");
    assert!(
        row.contains("CALCULATED:1 of 8</span> <span class=\"badge partial\">partial: 1 of 8 observations</span>"),
        "{row}"
    );
}

/// The x-axis labels of a chart: `(x, text, font size)` of the texts centred under the plot.
fn x_labels(svg: &str) -> Vec<(f64, String, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let height: f64 = doc
        .root_element()
        .attribute("height")
        .unwrap()
        .parse()
        .unwrap();
    let mut labels: Vec<(f64, String, f64)> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("text")
                && n.attribute("text-anchor") == Some("middle")
                && n.attribute("dy") == Some("0.76em")
                && n.attribute("y").unwrap().parse::<f64>().unwrap() > height / 2.0
        })
        .map(|n| {
            (
                n.attribute("x").unwrap().parse().unwrap(),
                n.text().unwrap().trim().to_string(),
                n.attribute("font-size").unwrap().parse().unwrap(),
            )
        })
        .collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    labels
}

/// No two neighbouring labels overlap, each taken as wide as its characters at 0.64 of its
/// font size (DejaVu Sans's digits, the widest of its label characters).
fn assert_apart(svg: &str, what: &str) {
    let labels = x_labels(svg);
    assert!(labels.len() >= 2, "{what}: {labels:?}");
    for pair in labels.windows(2) {
        let width =
            |(_, text, size): &(f64, String, f64)| text.chars().count() as f64 * 0.64 * size;
        let room = pair[1].0 - pair[0].0;
        let needed = (width(&pair[0]) + width(&pair[1])) / 2.0;
        assert!(
            room >= needed,
            "{what}: {:?} and {:?} overlap ({room} < {needed})",
            pair[0],
            pair[1]
        );
    }
}

#[actix_rt::test]
async fn console_time_and_efa_labels_do_not_overlap() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    spring_day(&c).await;
    // Hourly London prices over three days with the spring change: times of day with their
    // offsets on the axis.
    let data: Vec<Value> = (0..71)
        .map(|h| {
            let t = chrono::DateTime::parse_from_rfc3339("2025-03-29T00:00:00Z").unwrap()
                + chrono::Duration::hours(h);
            json!({"time": t.to_rfc3339(), "value": h % 24})
        })
        .collect();
    c.save(
        json!({"_id": "GB", "HOURLY": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/London", "data": data}}),
    )
    .await;
    for path in [
        "/data/v1/private/GB:POWER?_calendar=EFA&_observed=averaged",
        "/data/v1/private/GB:POWER",
        "/data/v1/private/GB:HOURLY",
        "/data/v1/private/GB:HOURLY?_calendar=EFA&_observed=averaged",
    ] {
        let r = get_as(&c, path, "image/svg+xml").await;
        let svg = svg_body(&r);
        // 960 px wide, as the API draws it.
        assert!(svg.contains("width=\"960\""), "{path}");
        assert_apart(&svg, path);
    }
    // The series page's wide and narrow (phone) charts alike.
    let (_, html) = page(&c, "/console/series/private/GB:POWER?scale=EFA").await;
    let narrow_at = html.find("<div class=\"plot narrow\">").unwrap();
    assert_apart(&inline_svg(&html), "the wide chart");
    assert_apart(&inline_svg(&html[narrow_at..]), "the narrow chart");
}

#[actix_rt::test]
async fn console_record_counts_are_whole_numbers() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    // One failing record (2024-07-05) among ten days: counts of 0 and 1.
    let r = c
        .post("/validationconfig/v1", json!({"_id": "NBP:SPOT", "kind": "timeseries",
            "checks": [{"name": "Range", "expression": "between(value, 0, 200)", "severity": "severe"}]}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let (r, html) = page(&c, "/console/validation").await;
    assert_eq!(r.status, 200, "{html}");
    let svg = inline_svg(&html);
    assert_eq!(title_and_desc(&svg).0, "Failing records by day (records)");
    // The value axis: right-anchored numbers left of the plot, whole ones only.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let ticks: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("text-anchor") == Some("end"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .filter(|t| !t.is_empty())
        .collect();
    assert!(ticks.len() >= 2, "{ticks:?}");
    for t in &ticks {
        let v: f64 = t.parse().unwrap_or_else(|_| panic!("{t} in {ticks:?}"));
        assert_eq!(v.fract(), 0.0, "a tick of {t} records: {ticks:?}");
    }
    assert!(
        ticks.contains(&"0".to_string()) && ticks.contains(&"1".to_string()),
        "{ticks:?}"
    );
}

#[actix_rt::test]
async fn console_the_header_says_sign_in_while_signed_out() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    // Signed out: the shell's header links to the sign-in, and its "Sign out" is hidden.
    let (r, html) = page(&s.anonymous(), "/console/validation").await;
    assert_eq!(r.status, 200);
    assert!(
        html.contains("<a id=\"signin-link\" href=\"/console/signin\">Sign in</a><button id=\"signout\" type=\"button\" hidden>Sign out</button>"),
        "{html}"
    );
    // A page rendered for a caller hides "Sign in" (the script shows "Sign out" for a token).
    let (r, html) = page(&c, "/console/validation").await;
    assert_eq!(r.status, 200);
    assert!(
        html.contains("<a id=\"signin-link\" href=\"/console/signin\" hidden>Sign in</a>"),
        "{html}"
    );
    // Hidden is hidden, whatever display a button or link is given.
    let css = get_as(&s.anonymous(), "/console/assets/console.css", "*/*").await;
    assert!(
        css.body
            .as_str()
            .unwrap()
            .contains("[hidden] { display: none !important; }"),
        "the stylesheet"
    );
    // The script takes Basic credentials from the address and never fetches a URL that
    // carries them (a browser refuses to).
    let js = get_as(&s.anonymous(), "/console/assets/console.js", "*/*").await;
    let js = js.body.as_str().unwrap();
    assert!(
        js.contains("new URL(document.URL)") && js.contains("'Basic ' + base64("),
        "{js}"
    );
}
