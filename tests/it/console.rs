//! The console: charts of data reads as SVG (`Accept: image/svg+xml`), and the console's pages.

use crate::common::{Client, Resp, TestServer};
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};

/// The colour of a failed point's marker.
const FAILED: &str = "#C62828";

pub async fn get_as(c: &Client<'_>, path: &str, accept: &str) -> Resp {
    let mut req = TestRequest::get()
        .uri(path)
        .insert_header((header::ACCEPT, accept.to_string()));
    if let Some(auth) = &c.auth {
        req = req.insert_header((header::AUTHORIZATION, auth.clone()));
    }
    c.server.send(req).await
}

/// The body of an SVG answer, checked: 200, `image/svg+xml`, well-formed XML whose root is an
/// `<svg>` with a title and a description as its first children.
fn svg_of(r: &Resp) -> String {
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.header("content-type").as_deref(), Some("image/svg+xml"));
    let text = r.body.as_str().expect("an SVG body").to_string();
    let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("role"), Some("img"));
    let kids: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(kids[0].tag_name().name(), "title");
    assert_eq!(kids[1].tag_name().name(), "desc");
    text
}

pub fn title_and_desc(svg: &str) -> (String, String) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let find = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name(name))
            .and_then(|n| n.text())
            .unwrap_or_default()
            .to_string()
    };
    (find("title"), find("desc"))
}

/// Markers of failed points (filled circles of the failure colour).
fn failed_markers(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(FAILED))
        .count()
}

pub fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

/// Ten business days of NBP prices in London, one of them failed by a check.
pub async fn sample(c: &Client<'_>) {
    let data: Vec<Value> = (1..=10)
        .map(|d| {
            let mut p = json!({"time": format!("2024-07-{d:02}"), "value": 70.0 + d as f64});
            if d == 5 {
                p["value"] = json!(250.0);
                p["status"] = json!({"quality": "FAILED:Range"});
            }
            p
        })
        .collect();
    c.save(
        json!({"_id": "NBP", "name": "NBP hub", "SPOT": {"_type": "VarTimeSeries",
        "calendar": "DAILY", "timezone": "Europe/London", "currency": "GBP", "units": "therm",
        "data": data}}),
    )
    .await;
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01",
        "contracts": [{"tenor": "M01", "value": 30.1}, {"tenor": "M02", "value": 29.5},
                      {"tenor": "2024Q3", "value": 29.8, "status": {"quality": "FAILED"}}]}}),
    )
    .await;
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-04",
        "contracts": [{"tenor": "M01", "value": 31.0}, {"tenor": "M02", "value": 30.2}]}}),
    )
    .await;
}

#[actix_rt::test]
async fn console_a_series_chart_is_svg_in_the_series_zone_with_failed_points_marked() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let r = get_as(&c, "/data/v1/private/NBP:SPOT", "image/svg+xml").await;
    let svg = svg_of(&r);
    let (title, desc) = title_and_desc(&svg);
    assert_eq!(title, "NBP:SPOT (GBP/therm)");
    assert_eq!(
        desc,
        "Time series from 2024-07-01 to 2024-07-10 (Europe/London), 10 observations; \
         last value 80 GBP/therm (2024-07-10); 1 failed point."
    );
    assert_eq!(failed_markers(&svg), 2, "the point and its legend entry");
    let labels = texts(&svg);
    assert!(
        labels.contains(&"Time (Europe/London)".to_string()),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"quality FAILED (1)".to_string()),
        "{labels:?}"
    );
    // Ticks are local dates (midnight in London is 23:00 UTC the day before).
    assert!(labels.iter().any(|l| l == "2024-07-08"), "{labels:?}");

    // The range narrows the chart: the failed point is out of it.
    let r = get_as(
        &c,
        "/data/v1/private/NBP:SPOT?_range=between(2024-07-06,2024-07-09)",
        "image/svg+xml",
    )
    .await;
    let svg = svg_of(&r);
    assert_eq!(failed_markers(&svg), 0);
    let (_, desc) = title_and_desc(&svg);
    assert!(
        desc.starts_with("Time series from 2024-07-06 to 2024-07-09"),
        "{desc}"
    );

    // What a browser's <img> asks for gets the chart; a plain client still gets JSON.
    let r = get_as(
        &c,
        "/data/v1/private/NBP:SPOT",
        "image/avif,image/webp,image/svg+xml,image/*,*/*;q=0.8",
    )
    .await;
    svg_of(&r);
    let r = get_as(&c, "/data/v1/private/NBP:SPOT", "*/*").await;
    assert_eq!(r.body["data"].as_array().unwrap().len(), 10);
}

#[actix_rt::test]
async fn console_charts_follow_conversion_versions_profiles_and_catalogues() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let admin = s.client(Role::Platform);
    admin
        .save(
            json!({"_id": "#FX.GBPEUR", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "data": [{"time": "2024-01-01", "value": 1.2}]}}),
        )
        .await;
    let r = get_as(
        &c,
        "/data/v1/private/NBP:SPOT?_range=last(1)&currency=EUR",
        "image/svg+xml",
    )
    .await;
    let (title, desc) = title_and_desc(&svg_of(&r));
    assert_eq!(title, "NBP:SPOT (EUR/therm)");
    assert!(
        desc.contains("last value 96 EUR/therm (2024-07-10)"),
        "{desc}"
    );

    // An older version: the object's first save (its ten points).
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
        "timezone": "Europe/London", "data": [{"time": "2024-07-11", "value": 82}]}}),
    )
    .await;
    let r = get_as(&c, "/data/v1/private/NBP:SPOT?_version=1", "image/svg+xml").await;
    let (title, desc) = title_and_desc(&svg_of(&r));
    assert_eq!(title, "NBP/1:SPOT (GBP/therm)");
    assert!(desc.contains("10 observations"), "{desc}");

    // An object read with _profile is a data read too.
    let r = get_as(
        &c,
        "/object/v1/private/NBP?_profile=SPOT&_range=last(2)",
        "image/svg+xml",
    )
    .await;
    assert!(title_and_desc(&svg_of(&r)).1.contains("2 observations"));

    // A catalogue with _range: one line per item, named in the description.
    let r = get_as(&c, "/data/v1/private?_range=last(3)", "image/svg+xml").await;
    let (_, desc) = title_and_desc(&svg_of(&r));
    assert!(desc.contains("Overlaid: TTF:FWD"), "{desc}");
}

#[actix_rt::test]
async fn console_a_curve_chart_draws_contracts_by_delivery_period() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let r = get_as(&c, "/data/v1/private/TTF:FWD:2024-03-01", "image/svg+xml").await;
    let svg = svg_of(&r);
    let (title, desc) = title_and_desc(&svg);
    assert_eq!(title, "TTF:FWD:2024-03-01");
    assert_eq!(
        desc,
        "Curve of 3 contracts by delivery period, from M01 to 2024Q03; \
         last value 29.8 (2024Q03); 1 failed point."
    );
    assert!(texts(&svg).contains(&"Delivery (UTC)".to_string()));
    assert_eq!(failed_markers(&svg), 2, "the contract and its legend entry");
    // One segment per contract over its delivery (a two-point polyline).
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let segments = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter(|n| {
            n.attribute("points")
                .is_some_and(|p| p.split_whitespace().count() == 2)
        })
        .filter(|n| {
            n.attribute("stroke") == Some("#1F5FA8") && n.attribute("stroke-width") == Some("2")
        })
        .count();
    assert_eq!(segments, 3, "{svg}");

    // A tenor's history reads as a series over the ondates.
    let r = get_as(&c, "/data/v1/private/TTF:FWD?tenor=M01", "image/svg+xml").await;
    let (_, desc) = title_and_desc(&svg_of(&r));
    assert!(
        desc.starts_with(
            "Time series from 2024-03-01 to 2024-03-04 (UTC), 2 observations; last value 31"
        ),
        "{desc}"
    );
}

#[actix_rt::test]
async fn console_charts_refuse_bad_input_with_the_error_envelope() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    // A document is no chart.
    let r = get_as(&c, "/object/v1/private/NBP", "image/svg+xml").await;
    let m = r.assert_error(406, "NOT_ACCEPTABLE");
    assert!(m.contains("application/json"), "{m}");
    let r = get_as(
        &c,
        "/data/v1/private/NBP:SPOT?_range=between(x)",
        "image/svg+xml",
    )
    .await;
    r.assert_error(400, "INVALID_PARAMETER");
    let r = get_as(&c, "/data/v1/private/NOPE:SPOT", "image/svg+xml").await;
    r.assert_error(404, "NOT_FOUND");
    let r = get_as(&s.anonymous(), "/data/v1/private/NBP:SPOT", "image/svg+xml").await;
    r.assert_error(401, "NOT_AUTHENTICATED");
    // An empty range still draws a chart that says so.
    let r = get_as(
        &c,
        "/data/v1/private/NBP:SPOT?_range=between(2020-01-01,2020-02-01)",
        "image/svg+xml",
    )
    .await;
    let svg = svg_of(&r);
    assert!(texts(&svg).contains(&"No observations in this range".to_string()));
}

pub async fn page(c: &Client<'_>, path: &str) -> (Resp, String) {
    let r = get_as(c, path, "text/html").await;
    let body = match &r.body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if r.status == 200 {
        assert_unique_ids(&body);
    }
    (r, body)
}

/// Every `id` of a page is used once (labels, charts' titles and skip links point at them).
fn assert_unique_ids(html: &str) {
    let mut seen = std::collections::BTreeSet::new();
    for part in html.split(" id=\"").skip(1) {
        let id = &part[..part.find('"').unwrap()];
        assert!(seen.insert(id.to_string()), "id \"{id}\" twice");
    }
}

/// The first inline chart of a page, parsed.
pub fn inline_svg(html: &str) -> String {
    let start = html.find("<svg").expect("an inline chart");
    let end = html[start..].find("</svg>").expect("the chart's end") + start + "</svg>".len();
    let svg = html[start..end].to_string();
    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
    svg
}

#[actix_rt::test]
async fn console_pages_without_credentials_are_the_shell_with_a_sign_in() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    for path in [
        "/console",
        "/console/object/private/NBP",
        "/console/series/private/NBP:SPOT",
        "/console/curve/private/TTF:FWD",
        "/console/validation",
        "/console/validation/record/NBP:SPOT:2024-07-05",
        "/console/automations",
    ] {
        let (r, html) = page(&s.anonymous(), path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("text/html; charset=utf-8")
        );
        assert!(html.contains("<form id=\"signin-form\">"), "{html}");
        // The token field is never submitted by a form: it has no name.
        assert!(html.contains("<input id=\"token\" type=\"password\""));
        assert!(!html.contains("name=\"token\""));
        assert!(!html.contains("NBP hub"), "no data in the shell");
        assert!(
            html.contains("href=\"/console/signin\""),
            "the way without JavaScript"
        );
        assert_eq!(r.header("cache-control").as_deref(), Some("no-store"));
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains("script-src 'self'"), "{csp}");
    }
    let r = get_as(&s.anonymous(), "/console/assets/console.js", "*/*").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("text/javascript; charset=utf-8")
    );
    assert!(r.body.as_str().unwrap().contains("sessionStorage"));
    let r = get_as(&s.anonymous(), "/console/assets/console.css", "*/*").await;
    assert_eq!(
        r.header("content-type").as_deref(),
        Some("text/css; charset=utf-8")
    );
    let r = get_as(&s.anonymous(), "/console/assets/other.js", "*/*").await;
    r.assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn console_pages_render_the_data_for_the_caller() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let token = c.token.clone();

    let (r, html) = page(&c, "/console?q=hub").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("data-signed-in=\"true\""));
    assert!(
        html.contains("<a href=\"/console/object/private/NBP\">NBP</a>"),
        "{html}"
    );
    assert!(
        html.contains("href=\"/console/series/private/NBP%3ASPOT\""),
        "{html}"
    );
    assert!(html.contains("data-suggest=\"/object/v1/all\""));
    assert!(html.contains("Showing 1–1 of 1"), "{html}");

    c.save(json!({"_id": "NBP", "name": "NBP", "country": "GB"}))
        .await;
    let (r, html) = page(&c, "/console/object/private/NBP?from=1&to=2").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("Fields that differ between versions 1 and 2"),
        "{html}"
    );
    assert!(html.contains("<th scope=\"row\">country</th><td class=\"before\"></td><td class=\"after\"><code>GB</code></td><td>added</td>"), "{html}");

    let (r, html) = page(&c, "/console/series/private/NBP:SPOT?compare=1").await;
    assert_eq!(r.status, 200, "{html}");
    let svg = inline_svg(&html);
    assert_eq!(title_and_desc(&svg).0, "NBP:SPOT (GBP/therm)");
    assert!(title_and_desc(&svg).1.contains("Overlaid: version 1"));
    assert!(
        html.contains("<tr class=\"failed\"><th scope=\"row\">2024-07-05</th>"),
        "{html}"
    );
    // The download reads as the table does: in the series' zone.
    assert!(html.contains("href=\"/data/v1/private/NBP%3ASPOT?_timezone=series\" download=\"NBP_SPOT.csv\" data-accept=\"text/csv\""), "{html}");

    let (r, html) = page(
        &c,
        "/console/series/private/NBP:SPOT?from=2024-07-06&to=2024-07-08",
    )
    .await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("3 in this range, 0 failed"), "{html}");

    let (r, html) = page(
        &c,
        "/console/curve/private/TTF:FWD?ondate=2024-03-01&compare=2024-03-04&tenor=M01",
    )
    .await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("History of M01"), "{html}");
    assert!(
        html.contains("<option value=\"2024-03-04\" selected>2024-03-04</option>"),
        "{html}"
    );
    // Two charts, each wide and narrow (for phones), their titles' ids apart.
    assert_eq!(html.matches("<svg").count(), 4);
    for id in [
        "chart-curve",
        "chart-curve-narrow",
        "chart-tenor",
        "chart-tenor-narrow",
    ] {
        assert_eq!(
            html.matches(&format!("id=\"{id}-title\"")).count(),
            1,
            "{id}"
        );
    }
    assert!(title_and_desc(&inline_svg(&html))
        .1
        .contains("Overlaid: ondate 2024-03-04"));

    // Validation: a configuration and a run give a failed record to act on.
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
    assert!(html.contains("<dt>Open issues</dt><dd>1</dd>"), "{html}");
    assert!(
        html.contains("href=\"/console/validation/record/NBP%3ASPOT%3A2024-07-05\""),
        "{html}"
    );
    assert_eq!(
        title_and_desc(&inline_svg(&html)).0,
        "Failing records by day (records)"
    );
    let (r, html) = page(&c, "/console/validation/record/NBP:SPOT:2024-07-05").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("data-endpoint=\"/validation/v1?_function=override\""),
        "{html}"
    );
    assert!(html.contains("value 250 outside 0..200"), "{html}");

    let (r, html) = page(&c, "/console/automations").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("Mail outbox (0)"), "{html}");

    // The token a page was asked with is never written into it.
    for path in [
        "/console",
        "/console/series/private/NBP:SPOT",
        "/console/validation",
    ] {
        assert!(!page(&c, path).await.1.contains(&token));
    }
}

#[actix_rt::test]
async fn console_bad_input_gets_the_error_envelope() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    for (path, status, code, says) in [
        ("/console?skip=x", 400, "INVALID_PARAMETER", "skip"),
        (
            "/console?field=country",
            400,
            "INVALID_PARAMETER",
            "both a field and a value",
        ),
        ("/console?source=elsewhere", 404, "NOT_FOUND", "elsewhere"),
        ("/console/object/private/NOPE", 404, "NOT_FOUND", "NOPE"),
        (
            "/console/series/private/NBP:SPOT?preset=2W",
            400,
            "INVALID_PARAMETER",
            "preset",
        ),
        (
            "/console/series/private/NBP:SPOT?from=yesterday",
            400,
            "INVALID_PARAMETER",
            "from",
        ),
        (
            "/console/series/private/NBP:SPOT?to=2024-07-01",
            400,
            "INVALID_PARAMETER",
            "from",
        ),
        (
            "/console/series/private/NBP:SPOT?range=last(x)",
            400,
            "INVALID_PARAMETER",
            "_range",
        ),
        (
            "/console/series/private/NBP:SPOT?compare=two",
            400,
            "INVALID_PARAMETER",
            "compare",
        ),
        (
            "/console/series/private/TTF:FWD",
            400,
            "INVALID_PARAMETER",
            "curve",
        ),
        (
            "/console/curve/private/TTF:FWD?ondate=2024-13-01",
            400,
            "INVALID_PARAMETER",
            "ondate",
        ),
        (
            "/console/curve/private/TTF:FWD?ondate=2020-01-01",
            404,
            "NOT_FOUND",
            "TTF:FWD",
        ),
        (
            "/console/validation?status=fine",
            400,
            "INVALID_PARAMETER",
            "status",
        ),
        (
            "/console/validation?from=July",
            400,
            "INVALID_PARAMETER",
            "from",
        ),
        (
            "/console/validation/record/NBP:SPOT:1999-01-01",
            404,
            "NOT_FOUND",
            "record",
        ),
    ] {
        let (r, _) = page(&c, path).await;
        let m = r.assert_error(status, code);
        assert!(m.contains(says), "{path}: {m}");
    }
    let bad = c.with_auth("Bearer pt_0000");
    let (r, _) = page(&bad, "/console").await;
    r.assert_error(401, "NOT_AUTHENTICATED");
}

#[actix_rt::test]
async fn console_without_javascript_signs_in_with_basic_credentials() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let (r, html) = page(&s.anonymous(), "/console/signin").await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.header("www-authenticate").as_deref(),
        Some("Basic realm=\"platform console\", charset=\"UTF-8\"")
    );
    assert!(html.contains("the browser's prompt"), "{html}");
    use base64::Engine as _;
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("writer-user:{}", c.token));
    let browser = c.with_auth(&format!("Basic {basic}"));
    let (r, _) = page(&browser, "/console/signin").await;
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location").as_deref(), Some("/console"));
    // Wrong credentials: asked again.
    let wrong = base64::engine::general_purpose::STANDARD.encode("writer-user:pt_00");
    let (r, _) = page(&c.with_auth(&format!("Basic {wrong}")), "/console/signin").await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").unwrap().starts_with("Basic"));
    let (r, html) = page(&browser, "/console/series/private/NBP:SPOT").await;
    assert_eq!(r.status, 200);
    assert!(html.contains("<h1>NBP:SPOT</h1>"), "{html}");
}

#[actix_rt::test]
async fn console_pages_of_another_tenant_are_missing_as_in_the_api() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "NBP:SPOT", "kind": "timeseries",
            "checks": [{"name": "Range", "expression": "between(value, 0, 200)"}]}),
    )
    .await;
    c.post(
        "/validation/v1?_function=run",
        json!({"target": "NBP:SPOT", "from": "2024-07-01"}),
    )
    .await;
    let other = s.client_of("globex", "gil", Role::Admin);
    for path in [
        "/console/object/private/NBP",
        "/console/series/private/NBP:SPOT",
        "/console/curve/private/TTF:FWD",
        "/console/validation/record/NBP:SPOT:2024-07-05",
    ] {
        let (r, _) = page(&other, path).await;
        r.assert_error(404, "NOT_FOUND");
    }
    // Lists and the dashboard show the other tenant nothing of acme's (no links, no records).
    for path in ["/console", "/console/validation", "/console/automations"] {
        let (r, html) = page(&other, path).await;
        assert_eq!(r.status, 200, "{path}");
        assert!(
            !html.contains("private/NBP") && !html.contains("NBP:SPOT:2024"),
            "{path}: {html}"
        );
    }
}

#[actix_rt::test]
async fn console_a_series_reads_in_its_own_zone_the_repeated_hour_twice() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let data: Vec<Value> = ["00:00", "01:00", "02:00", "02:00", "03:00"]
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"time": format!("2024-10-27T{t}"), "value": 50 + i}))
        .collect();
    c.save(
        json!({"_id": "DE", "POWER": {"_type": "VarTimeSeries", "calendar": "HOURLY",
        "timezone": "Europe/Berlin", "units": "MWh", "data": data}}),
    )
    .await;
    let (r, html) = page(&c, "/console/series/private/DE:POWER").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("<th scope=\"col\">Time (Europe/Berlin)</th>"),
        "{html}"
    );
    // Newest first: the second 02:00 (winter time) above the first (summer time).
    let second = html
        .find("<th scope=\"row\">2024-10-27T02:00:00+01:00</th><td class=\"num\">53.0</td>")
        .unwrap_or_else(|| panic!("the second 02:00: {html}"));
    let first = html
        .find("<th scope=\"row\">2024-10-27T02:00:00+02:00</th><td class=\"num\">52.0</td>")
        .unwrap_or_else(|| panic!("the first 02:00: {html}"));
    assert!(second < first);
    // The chart: its axis in Berlin, the two 02:00 ticks told apart by their offsets.
    let svg = inline_svg(&html);
    let labels = texts(&svg);
    assert!(
        labels.iter().any(|t| t == "Time (Europe/Berlin)"),
        "{labels:?}"
    );
    for tick in ["10-27 02:00+02:00", "10-27 02:00+01:00"] {
        assert!(labels.iter().any(|t| t == tick), "{tick}: {labels:?}");
    }
    assert!(
        title_and_desc(&svg)
            .1
            .contains("from 2024-10-27T00:00:00+02:00 to 2024-10-27T03:00:00+01:00"),
        "{svg}"
    );
}

#[actix_rt::test]
async fn console_the_curve_page_toggles_to_the_monthly_shaped_curve() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    sample(&c).await;
    let base = "/console/curve/private/TTF:FWD?ondate=2024-03-01";
    // As quoted: the contracts, the toggle off.
    let (r, html) = page(&c, base).await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("Contracts on 2024-03-01"), "{html}");
    assert!(
        html.contains("<input id=\"shape\" type=\"checkbox\" name=\"shape\" value=\"monthly\">"),
        "{html}"
    );
    assert!(!html.contains("quoted contracts"));
    // Monthly: the months with the contract that fixed each, charted over the quoted bars.
    let (r, html) = page(&c, &format!("{base}&shape=monthly")).await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains(
        "<input id=\"shape\" type=\"checkbox\" name=\"shape\" value=\"monthly\" checked>"
    ));
    assert!(
        html.contains("Months on 2024-03-01, shaped by hours"),
        "{html}"
    );
    assert!(!html.contains("Contracts on"));
    for row in [
        "<th scope=\"row\">2024M04</th><td class=\"num\">30.1</td><td>2024M04</td>",
        "<th scope=\"row\">2024M05</th><td class=\"num\">29.5</td><td>2024M05</td>",
        "<th scope=\"row\">2024M08</th><td class=\"num\">29.8</td><td>2024Q03</td><td>2024-08-01 – 2024-08-31</td><td class=\"num\">744</td>",
    ] {
        assert!(html.contains(row), "{row}: {html}");
    }
    // June is in no contract: not a row.
    assert!(!html.contains("2024M06"), "{html}");
    assert!(!html.contains("Arbitrage"));
    let (_, desc) = title_and_desc(&inline_svg(&html));
    assert!(
        desc.starts_with(
            "Curve shaped into 5 months, from 2024M04 to 2024M09, over 3 quoted contracts"
        ),
        "{desc}"
    );
    assert!(html.contains("quoted contracts"));
    // A fully quoted quarter that disagrees with its months: the core's message and each
    // quote's miss above the table.
    c.save(
        json!({"_id": "DE", "BASE": {"_type": "VarCurve", "ondate": "2024-11-15",
        "contracts": [{"tenor": "2025M01", "value": 100}, {"tenor": "2025M02", "value": 100},
                      {"tenor": "2025M03", "value": 100}, {"tenor": "2025Q01", "value": 90}]}}),
    )
    .await;
    let (r, html) = page(&c, "/console/curve/private/DE:BASE?shape=monthly").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("The quotes 2025M01 (quoted 100, fitted 97.418101, miss -2.581899)")
            && html.contains("2025Q01 (quoted 90, fitted 97.495836, miss +7.495836) disagree"),
        "{html}"
    );
    assert!(
        html.contains("Quotes that disagree, fitted by least squares")
            && html.contains("<th scope=\"row\">2025Q01</th>"),
        "{html}"
    );
    assert!(!html.contains("were all quoted"), "{html}");
    // Another view is refused, naming the parameter and the value allowed.
    let (r, _) = page(&c, &format!("{base}&shape=weekly")).await;
    let m = r.assert_error(400, "INVALID_PARAMETER");
    assert!(
        m.contains("shape \"weekly\"") && m.contains("monthly"),
        "{m}"
    );
}
