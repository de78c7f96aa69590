//! Content negotiation: CSV and XML (golden files), HTML through mustache templates, and 406.

use crate::common::TestServer;
use actix_web::http::header;
use actix_web::test::TestRequest;
use platform_core::auth::Role;
use serde_json::{json, Value};

async fn get_as(s: &TestServer, token: &str, path: &str, accept: &str) -> crate::common::Resp {
    s.send(
        TestRequest::get()
            .uri(path)
            .insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
            .insert_header((header::ACCEPT, accept.to_string())),
    )
    .await
}

async fn seed(s: &TestServer) -> String {
    let c = s.client(Role::Writer);
    c.save(json!([
        {"_id": "A", "name": "Alpha, \"the first\"", "n": 1, "tags": ["x", "y"]},
        {"_id": "B", "name": "Bravo", "nested": {"k": true}, "note": null}
    ]))
    .await;
    c.token.clone()
}

/// Replaces the timestamps (2026-11-22T00:04:38.911Z) that change from run to run.
fn stable(text: &str) -> String {
    let is_stamp = |t: &str| {
        let b = t.as_bytes();
        b.len() == 24
            && b[4] == b'-'
            && b[10] == b'T'
            && b[23] == b'Z'
            && b[..4].iter().all(u8::is_ascii_digit)
    };
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.get(..24).is_some_and(is_stamp) {
            out.push_str("<TIMESTAMP>");
            rest = &rest[24..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[actix_rt::test]
async fn csv_of_a_list_and_of_one_item() {
    let s = TestServer::new();
    let token = seed(&s).await;
    let r = get_as(
        &s,
        &token,
        "/object/v1/private?_project=name,n,tags,nested,note",
        "text/csv",
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    assert_eq!(r.header("x-total-count").as_deref(), Some("2"));
    assert_eq!(r.body.as_str().unwrap(), include_str!("golden/objects.csv"));
    let one = get_as(&s, &token, "/object/v1/private/B", "text/csv").await;
    assert_eq!(
        stable(one.body.as_str().unwrap()),
        include_str!("golden/object_b.csv")
    );
}

#[actix_rt::test]
async fn xml_of_a_list_and_of_one_item() {
    let s = TestServer::new();
    let token = seed(&s).await;
    let r = get_as(
        &s,
        &token,
        "/object/v1/private?_project=name,n,tags,nested,note",
        "application/xml",
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/xml"));
    assert_eq!(r.body.as_str().unwrap(), include_str!("golden/objects.xml"));
    let one = get_as(&s, &token, "/object/v1/private/A/1", "application/xml").await;
    assert_eq!(
        stable(one.body.as_str().unwrap()),
        include_str!("golden/object_a_v1.xml")
    );
}

#[actix_rt::test]
async fn html_through_a_template_with_partials() {
    let s = TestServer::new();
    let token = seed(&s).await;
    let c = s.client(Role::Writer);
    let r = c.post("/script/v1", json!({"_id": "row", "scriptType": "mustache", "script": "<li>{{_id}}: {{name}}{{#tags}} [{{.}}]{{/tags}}</li>"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    c.post("/script/v1", json!({"_id": "page", "scriptType": "mustache", "script": "<ul>{{#items}}{{> row}}{{/items}}{{^items}}none{{/items}}</ul>"})).await;
    c.post("/script/v1", json!({"_id": "one", "scriptType": "mustache", "script": "<h1>{{name}}</h1>{{#nested}}k={{k}}{{/nested}}{{^tags}} no tags{{/tags}}"})).await;
    let list = get_as(&s, &token, "/object/v1/private?_template=page", "text/html").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert!(list
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(
        list.body.as_str().unwrap(),
        "<ul><li>A: Alpha, &quot;the first&quot; [x] [y]</li><li>B: Bravo</li></ul>"
    );
    let one = get_as(
        &s,
        &token,
        "/object/v1/private/B?_template=one",
        "text/html",
    )
    .await;
    assert_eq!(one.body.as_str().unwrap(), "<h1>Bravo</h1>k=true no tags");
    let empty = get_as(
        &s,
        &token,
        "/object/v1/private?_template=page&name=nobody",
        "text/html",
    )
    .await;
    assert_eq!(empty.body.as_str().unwrap(), "<ul>none</ul>");
}

#[actix_rt::test]
async fn template_errors() {
    let s = TestServer::new();
    let token = seed(&s).await;
    let c = s.client(Role::Writer);
    let m = get_as(
        &s,
        &token,
        "/object/v1/private?_template=missing",
        "text/html",
    )
    .await
    .assert_error(404, "NOT_FOUND");
    assert!(m.contains("_template"), "{m}");
    let m = c
        .post(
            "/script/v1",
            json!({"_id": "broken", "scriptType": "mustache", "script": "{{#open}}never closed"}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("does not compile"), "{m}");
    c.post(
        "/script/v1",
        json!({"_id": "code", "scriptType": "rhai", "script": "let x = 1;"}),
    )
    .await;
    let m = get_as(&s, &token, "/object/v1/private?_template=code", "text/html")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("not a mustache template"), "{m}");
}

#[actix_rt::test]
async fn unacceptable_formats_are_406_listing_what_is_available() {
    let s = TestServer::new();
    let token = seed(&s).await;
    let m = get_as(&s, &token, "/object/v1/private", "image/png")
        .await
        .assert_error(406, "NOT_ACCEPTABLE");
    assert!(
        m.contains("application/json") && m.contains("text/csv") && m.contains("application/xml"),
        "{m}"
    );
    let m = get_as(&s, &token, "/object/v1/private/A", "text/html")
        .await
        .assert_error(406, "NOT_ACCEPTABLE");
    assert!(m.contains("_template"), "{m}");
    // A browser-like Accept falls back to JSON.
    let r = get_as(
        &s,
        &token,
        "/object/v1/private/A",
        "text/html;q=0.9,*/*;q=0.8",
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["_id"], "A");
}

/// Reads an Arrow IPC stream answer: its one record batch.
fn arrow_batch(bytes: &[u8]) -> arrow_array::RecordBatch {
    let mut reader = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
    let batch = reader.next().expect("a batch").unwrap();
    assert!(reader.next().is_none());
    batch
}

async fn get_bytes(
    s: &TestServer,
    token: &str,
    path: &str,
    accept: &str,
) -> (u16, String, Vec<u8>) {
    let res = s
        .start(
            TestRequest::get()
                .uri(path)
                .insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
                .insert_header((header::ACCEPT, accept.to_string())),
        )
        .await;
    let status = res.status().as_u16();
    let kind = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, kind, actix_web::test::read_body(res).await.to_vec())
}

/// An Arrow answer of many of the connection's write slices arrives whole and in order, its
/// tag that of its bytes, and a null deep in it (past the first slices) still a null.
#[actix_rt::test]
async fn a_large_arrow_answer_arrives_whole_through_its_slices() {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Float64Type, TimestampMillisecondType};
    use arrow_array::Array as _;
    const ARROW: &str = "application/vnd.apache.arrow.stream";
    const N: i64 = 20_000;
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    let start = 1_704_067_200_000i64; // 2024-01-01T00:00:00Z
    let data: Vec<Value> = (0..N)
        .map(|i| {
            let time = chrono::DateTime::from_timestamp_millis(start + i * 60_000)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            let value = if i == 15_000 {
                Value::Null
            } else {
                json!(i as f64 * 0.25)
            };
            json!({"time": time, "value": value})
        })
        .collect();
    c.save(json!({"_id": "BIG", "_type": "Hub", "PRICE": {
        "_type": "VarTimeSeries", "timezone": "UTC", "calendar": "#PT1M", "data": data}}))
        .await;
    let res = s
        .start(
            TestRequest::get()
                .uri("/data/v1/private/BIG:PRICE")
                .insert_header((header::AUTHORIZATION, format!("Bearer {}", c.token)))
                .insert_header((header::ACCEPT, ARROW)),
        )
        .await;
    assert_eq!(res.status().as_u16(), 200);
    let etag = res
        .headers()
        .get(header::ETAG)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let body = actix_web::test::read_body(res).await;
    assert!(body.len() > 8 * 32 * 1024, "{} bytes", body.len());
    assert_eq!(etag, platform_server::ops::etag_of_pieces([&body[..]]));
    let batch = arrow_batch(&body);
    assert_eq!(batch.num_rows(), N as usize);
    let times = batch.column_by_name("time").unwrap();
    let times = times.as_primitive::<TimestampMillisecondType>();
    let values = batch.column_by_name("value").unwrap();
    let values = values.as_primitive::<Float64Type>();
    assert_eq!(values.null_count(), 1);
    for i in 0..N as usize {
        assert_eq!(times.value(i), start + i as i64 * 60_000, "time {i}");
        if i == 15_000 {
            assert!(values.is_null(i));
        } else {
            assert_eq!(values.value(i), i as f64 * 0.25, "value {i}");
        }
    }
}

#[actix_rt::test]
async fn arrow_streams_of_a_series_and_a_list() {
    use arrow_array::cast::AsArray as _;
    use arrow_array::types::{Float64Type, Int64Type, TimestampMillisecondType};
    use arrow_array::Array as _;
    const ARROW: &str = "application/vnd.apache.arrow.stream";
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "DE", "_type": "Hub", "n": 7, "POWER": {
    "_type": "VarTimeSeries", "timezone": "Europe/Berlin", "calendar": "HOURLY",
    "data": [
        {"time": "2024-10-27T01:00", "value": 10.5},
        {"time": "2024-10-27T02:00", "value": 11},
        {"time": "2024-10-27T02:00", "value": 12, "status": {"quality": "FAILED"}},
        {"time": "2024-10-27T03:00", "value": 13}
    ]}}))
    .await;
    let (status, kind, body) = get_bytes(&s, &c.token, "/data/v1/private/DE:POWER", ARROW).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(kind, ARROW);
    let batch = arrow_batch(&body);
    assert_eq!(batch.num_rows(), 4);
    let times = batch.column_by_name("time").unwrap();
    let times = times.as_primitive::<TimestampMillisecondType>();
    // The repeated 02:00 of the autumn change: 00:00Z and 01:00Z, an hour apart.
    assert_eq!(times.value(2) - times.value(1), 3_600_000);
    assert_eq!(times.value(0), 1_729_983_600_000, "2024-10-26T23:00:00Z");
    let values = batch.column_by_name("value").unwrap();
    let values = values.as_primitive::<Float64Type>();
    assert_eq!(values.values().to_vec(), [10.5, 11.0, 12.0, 13.0]);
    let quality = batch.column_by_name("quality").unwrap();
    assert_eq!(quality.as_string::<i32>().value(2), "FAILED");
    // Sent in pieces, tagged as its joined bytes would be, and a request naming the tag gets
    // 304 without a body.
    let request = |tag: Option<&str>| {
        let mut r = TestRequest::get()
            .uri("/data/v1/private/DE:POWER")
            .insert_header((header::AUTHORIZATION, format!("Bearer {}", c.token)))
            .insert_header((header::ACCEPT, ARROW));
        if let Some(tag) = tag {
            r = r.insert_header((header::IF_NONE_MATCH, tag.to_string()));
        }
        r
    };
    let res = s.start(request(None)).await;
    let etag = res
        .headers()
        .get(header::ETAG)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let again = actix_web::test::read_body(res).await;
    assert_eq!(again, body);
    assert_eq!(etag, platform_server::ops::etag_of_pieces([&body[..]]));
    let res = s.start(request(Some(&etag))).await;
    assert_eq!(res.status().as_u16(), 304);
    assert_eq!(
        res.headers().get(header::ETAG).unwrap().to_str().unwrap(),
        etag
    );
    assert!(actix_web::test::read_body(res).await.is_empty());
    let res = s.start(request(Some("\"other\""))).await;
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(actix_web::test::read_body(res).await, body);
    // Ranges and the other parameters apply as for JSON.
    let (_, _, body) = get_bytes(
        &s,
        &c.token,
        "/data/v1/private/DE:POWER?_range=last(2)",
        ARROW,
    )
    .await;
    assert_eq!(arrow_batch(&body).num_rows(), 2);

    // A list of objects: a column per field.
    c.save(json!({"_id": "FR", "_type": "Hub", "n": 8})).await;
    let (status, _, body) = get_bytes(
        &s,
        &c.token,
        "/object/v1/private?_sort=_id&_project=_id,n",
        ARROW,
    )
    .await;
    assert_eq!(status, 200);
    let batch = arrow_batch(&body);
    assert_eq!(batch.num_rows(), 2);
    let ids = batch.column_by_name("_id").unwrap();
    assert_eq!(ids.as_string::<i32>().value(1), "FR");
    let n = batch.column_by_name("n").unwrap();
    assert_eq!(n.as_primitive::<Int64Type>().value(0), 7);
    assert!(!n.is_null(1));
}
