//! The console's series page scaled on read: "Scale to" a calendar (EFA blocks among them),
//! "Observed" and "Block", kept in the page's URL, read as the API reads them, with the API's
//! refusals shown on the page.

use crate::common::{Client, TestServer};
use crate::console::{get_as, inline_svg, page, title_and_desc};
use platform_core::auth::Role;
use serde_json::json;

/// Half-hourly GB power in London over the spring change day 2025-03-30, whose EFA day runs
/// from 23:00 GMT on the 29th to 23:00 BST on the 30th: 23 hours, 46 half-hours valued 0 to 45
/// in order, so EFA1 (23:00-03:00 local, 3 hours as the clocks skip 01:00-02:00) holds 0..=5
/// and each later block eight more. One half-hour before, 22:30 GMT on the 29th (EFA6 of the
/// 29th), is valued 100.
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

/// A table row of a scaled page: its start, the period's name when the table names periods,
/// the value.
fn row(start: &str, period: Option<&str>, value: &str) -> String {
    let named = period.map_or(String::new(), |p| format!("<td>{p}</td>"));
    format!("<th scope=\"row\">{start}</th>{named}<td class=\"num\">{value}</td>")
}

/// The rows of the page's table, in order.
fn rows(html: &str) -> Vec<String> {
    let body = &html[html.find("<tbody>").expect("a table")..];
    body[..body.find("</tbody>").unwrap()]
        .split("<tr")
        .skip(1)
        .map(|r| r[r.find('>').unwrap() + 1..].to_string())
        .collect()
}

/// The href of the page's CSV download, as the browser reads it.
fn csv_link(html: &str) -> String {
    let end = html.find(" download=\"GB_POWER.csv\"").expect("a CSV link");
    let start = html[..end].rfind("href=\"").unwrap() + "href=\"".len();
    html[start..end - 1].replace("&amp;", "&")
}

#[actix_rt::test]
async fn console_a_series_scaled_to_efa_blocks_shows_each_block_over_the_spring_change() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    spring_day(&c).await;
    // As stored: the selector offers the calendars, EFA blocks and days among them.
    let (r, html) = page(&c, "/console/series/private/GB:POWER").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("<select id=\"scale\" name=\"scale\" data-scale><option value=\"\" selected>as stored</option>"),
        "{html}"
    );
    for option in [
        "<option value=\"EFA\">EFA blocks (EFA)</option>",
        "<option value=\"EFADAY\">EFA days (EFADAY)</option>",
        "<option value=\"GASDAY\">gas days (GASDAY)</option>",
        "<option value=\"HOURLY\">hours (HOURLY)</option>",
        "<option value=\"DAILY\">days (DAILY)</option>",
        "<option value=\"WEEKLY\">weeks (WEEKLY)</option>",
        "<option value=\"MONTHLY\">months (MONTHLY)</option>",
        "<option value=\"summed\">summed</option>",
        "<option value=\"EFA1\">EFA1</option>",
        "<option value=\"EFA6\">EFA6</option>",
        "<option value=\"PEAK\">PEAK</option>",
    ] {
        assert!(html.contains(option), "{option}: {html}");
    }
    assert!(html.contains("<h2 id=\"obs-title\">Observations</h2>"));
    assert!(html.contains("47 in this range, 0 failed"), "{html}");

    // EFA blocks, averaged by default: EFA1 of the 30th starts at 23:00 GMT and holds six
    // half-hours (0..=5: 2.5), EFA2 starts at 03:00 BST (6..=13: 9.5), and so on.
    let (r, html) = page(&c, "/console/series/private/GB:POWER?scale=EFA").await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("<option value=\"EFA\" selected>EFA blocks (EFA)</option>"),
        "{html}"
    );
    assert!(
        html.contains("<h2 id=\"obs-title\">Scaled to EFA blocks (EFA), averaged</h2>"),
        "{html}"
    );
    assert!(html.contains("7 periods in this range, 0 failed"), "{html}");
    // The header names the stored calendar; the table its zone and the periods.
    assert!(html.contains("HALFHOURLY · Europe/London · MWh"), "{html}");
    assert!(
        html.contains("<th scope=\"col\">Time (Europe/London)</th><th scope=\"col\">Period</th>")
    );
    let want = [
        row(
            "2025-03-30T19:00:00+01:00",
            Some("EFA6 of 2025-03-30"),
            "41.5",
        ),
        row(
            "2025-03-30T15:00:00+01:00",
            Some("EFA5 of 2025-03-30"),
            "33.5",
        ),
        row(
            "2025-03-30T11:00:00+01:00",
            Some("EFA4 of 2025-03-30"),
            "25.5",
        ),
        row(
            "2025-03-30T07:00:00+01:00",
            Some("EFA3 of 2025-03-30"),
            "17.5",
        ),
        row(
            "2025-03-30T03:00:00+01:00",
            Some("EFA2 of 2025-03-30"),
            "9.5",
        ),
        row(
            "2025-03-29T23:00:00+00:00",
            Some("EFA1 of 2025-03-30"),
            "2.5",
        ),
        row(
            "2025-03-29T19:00:00+00:00",
            Some("EFA6 of 2025-03-29"),
            "100.0",
        ),
    ];
    let got = rows(&html);
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(&want) {
        assert!(g.starts_with(w.as_str()), "{w}\n{g}");
        assert!(g.contains("CALCULATED"), "{g}");
    }
    // The chart draws the same seven periods.
    let (_, desc) = title_and_desc(&inline_svg(&html));
    assert!(desc.contains("7 observations"), "{desc}");
    // The range presets keep the choice; the CSV download reads the same scaled data.
    assert!(
        html.contains("href=\"/console/series/private/GB%3APOWER?preset=1Y&amp;scale=EFA\""),
        "{html}"
    );
    let link = csv_link(&html);
    assert_eq!(
        link,
        "/data/v1/private/GB%3APOWER?_timezone=series&_calendar=EFA&_observed=averaged"
    );
    let csv = get_as(&c, &link, "text/csv").await;
    assert_eq!(csv.status, 200);
    let text = csv.body.as_str().unwrap();
    assert_eq!(text.lines().count(), 8, "{text}");
    for line in [
        "2025-03-29T23:00:00Z,2.5,",
        "2025-03-30T02:00:00Z,9.5,",
        "2025-03-30T18:00:00Z,41.5,",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
}

#[actix_rt::test]
async fn console_efa_days_days_and_blocks_sum_what_the_choice_says() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    spring_day(&c).await;
    // EFA days, summed: the 30th holds 0..=45 (1035), the 29th the one half-hour before.
    let (r, html) = page(
        &c,
        "/console/series/private/GB:POWER?scale=EFADAY&observed=summed",
    )
    .await;
    assert_eq!(r.status, 200, "{html}");
    assert!(
        html.contains("Scaled to EFA days (EFADAY), summed</h2>"),
        "{html}"
    );
    assert!(html.contains("<option value=\"summed\" selected>summed</option>"));
    let got = rows(&html);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with(&row(
            "2025-03-29T23:00:00+00:00",
            Some("EFA day 2025-03-30"),
            "1035.0"
        )),
        "{}",
        got[0]
    );
    assert!(
        got[1].starts_with(&row(
            "2025-03-28T23:00:00+00:00",
            Some("EFA day 2025-03-29"),
            "100.0"
        )),
        "{}",
        got[1]
    );

    // Only the hours of EFA1: the 30th's first three hours (0..=5: 15); the 29th's half-hour
    // is in EFA6, so that day has no point.
    let (r, html) = page(
        &c,
        "/console/series/private/GB:POWER?scale=EFADAY&observed=summed&block=EFA1",
    )
    .await;
    assert_eq!(r.status, 200, "{html}");
    assert!(html.contains("summed, hours of EFA1 only</h2>"), "{html}");
    assert!(html.contains("<option value=\"EFA1\" selected>EFA1</option>"));
    let got = rows(&html);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with(&row(
            "2025-03-29T23:00:00+00:00",
            Some("EFA day 2025-03-30"),
            "15.0"
        )),
        "{}",
        got[0]
    );
    assert!(csv_link(&html).ends_with("&_calendar=EFADAY&_observed=summed&_block=EFA1"));

    // Days are London's: the 30th from 00:00 GMT to 00:00 BST (1..=45 without 0 and 1: 1034),
    // the 29th's last hour (100 + 0 + 1); dates, no period column.
    let (r, html) = page(
        &c,
        "/console/series/private/GB:POWER?scale=DAILY&observed=summed",
    )
    .await;
    assert_eq!(r.status, 200, "{html}");
    assert!(!html.contains("<th scope=\"col\">Period</th>"));
    let got = rows(&html);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with(&row("2025-03-30", None, "1034.0")),
        "{}",
        got[0]
    );
    assert!(
        got[1].starts_with(&row("2025-03-29", None, "101.0")),
        "{}",
        got[1]
    );
}

#[actix_rt::test]
async fn console_a_scaling_the_api_refuses_shows_its_message_on_the_page() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    spring_day(&c).await;
    for (query, says) in [
        // A block EFA days do not have; a block calendar that does not exist.
        (
            "scale=EFA&block=EFA7",
            "_block &quot;EFA7&quot;: an EFA day has six blocks",
        ),
        ("scale=EFADAY&block=NIGHT", "NIGHT"),
        // Not coarser than the series, nor finer; a calendar there is not.
        (
            "scale=HALFHOURLY",
            "_observed needs a _calendar coarser than the series' calendar",
        ),
        (
            "scale=HOURLY&observed=spread",
            "_distribution needs a _calendar finer",
        ),
        ("scale=FORTNIGHTLY", "FORTNIGHTLY"),
        // An aggregation without a calendar to scale to.
        ("observed=summed", "_observed needs _calendar"),
    ] {
        let path = format!("/console/series/private/GB:POWER?{query}");
        let (r, html) = page(&c, &path).await;
        assert_eq!(r.status, 400, "{query}: {html}");
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("text/html; charset=utf-8"),
            "{query}"
        );
        let header = r.header("x-platform-error").unwrap();
        assert!(header.starts_with("[INVALID_PARAMETER] "), "{header}");
        assert_eq!(r.header("x-odsl-error"), Some(header.clone()));
        // The message is on the page, in place of the chart and table, under the form that
        // asked (the choice kept, to change it).
        assert!(
            html.contains("<div class=\"notice refused\" role=\"alert\"><p><strong>This view was refused: </strong>"),
            "{query}: {html}"
        );
        assert!(html.contains(says), "{query}: {says}: {html}");
        assert!(html.contains("<h1>GB:POWER</h1>"), "{query}");
        assert!(html.contains("<select id=\"scale\""), "{query}");
        assert!(
            !html.contains("<table") && !html.contains("<svg"),
            "{query}: {html}"
        );
    }
    // What the page's URL named and the selector does not list is kept selected.
    let (_, html) = page(&c, "/console/series/private/GB:POWER?scale=EFA&block=EFA7").await;
    assert!(
        html.contains("<option value=\"EFA7\" selected>EFA7</option>"),
        "{html}"
    );
    // A mistake that is not the scaling's is the error envelope, as on every page.
    let (r, _) = page(
        &c,
        "/console/series/private/GB:POWER?scale=EFA&range=last(x)",
    )
    .await;
    let m = r.assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("_range"), "{m}");
    let (r, _) = page(&c, "/console/series/private/NOPE:POWER?scale=EFA").await;
    r.assert_error(404, "NOT_FOUND");
    // A curve is still refused as one, scaled or not.
    c.save(
        json!({"_id": "TTF", "FWD": {"_type": "VarCurve", "ondate": "2024-03-01",
        "contracts": [{"tenor": "M01", "value": 30.1}]}}),
    )
    .await;
    let (r, _) = page(&c, "/console/series/private/TTF:FWD?scale=EFA").await;
    let m = r.assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("curve"), "{m}");
    // Nothing was written by any of it.
    let r = c.get("/data/v1/private/GB:POWER").await;
    assert_eq!(r.body["data"].as_array().map(Vec::len), Some(47));
    assert_eq!(r.body["_version"], json!(1));
}
