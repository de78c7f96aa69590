//! What an operator uses: the health and readiness probes, Prometheus metrics, request ids and
//! the access log, `ETag`s on GET answers, and small bodies left uncompressed.

use crate::endpoint::{AnswerDoc, Endpoint, Verb};
use crate::error::ApiError;
use crate::request::Caller;
use crate::state::{AppState, MetricsAccess};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use serde_json::json;
use std::collections::HashMap;
use std::time::Instant;
use tracing::Instrument as _;

/// The header that carries a request's id, taken from the request or made, and echoed.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Query parameters whose values never reach a log line.
const SECRET_PARAMETERS: [&str; 8] = [
    "token",
    "access_token",
    "password",
    "secret",
    "key",
    "api_key",
    "apikey",
    "signature",
];

/// Bodies smaller than this go uncompressed (compression would not pay for its header).
pub const COMPRESS_MIN_BYTES: usize = 1024;

/// `/health`, `/ready` and `/metrics` (registered first, before `/openapi.json` and the
/// services' routes).
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(Verb::Get, "/health", "The process serves requests", |r| {
        r.to(health)
    })
    .open(),
    Endpoint::new(
        Verb::Get,
        "/ready",
        "The database answers and the workers run (503 when not)",
        |r| r.to(ready),
    )
    .answer(AnswerDoc::Readiness)
    .open(),
    Endpoint::new(
        Verb::Get,
        "/metrics",
        "Prometheus metrics (open, a role, or off, as --metrics says)",
        |r| r.to(metrics),
    )
    .answer(AnswerDoc::Metrics)
    .token_optional(),
];

/// `GET /health`: the process serves requests. No token, no database.
async fn health() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"status": "up", "version": env!("CARGO_PKG_VERSION")}))
}

/// `GET /ready`: the database answers (its migrations were applied when it opened) and this
/// server's workers run; 503 with the same JSON when not, and while the server drains before
/// it stops (`"status": "draining"`). While the database does not answer but a read replica
/// serves, 200 with `"status": "degraded"`. No token.
async fn ready(state: web::Data<AppState>) -> HttpResponse {
    if let Some(draining) = crate::shutdown::draining_answer(&state.drain) {
        return draining;
    }
    let platform = state.platform.clone();
    let database = match web::block(move || platform.ping()).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let (workers_ok, workers) = match &state.workers {
        Some(w) => w.report(),
        None => (true, json!("none")),
    };
    // While the primary does not answer, a read replica that serves keeps GETs answered:
    // the node is degraded, and stays in its load balancer's pool (200), since every node
    // shares the primary and taking them all out would stop the reads too.
    let replicas = state.platform.replicas();
    let degraded = database.is_err() && workers_ok && replicas.iter().any(|r| r.serving);
    let ready = (database.is_ok() && workers_ok) || degraded;
    let mut body = json!({
        "status": if degraded { "degraded" } else if ready { "ready" } else { "unavailable" },
        "database": if database.is_ok() { "up" } else { "down" },
        "workers": workers,
    });
    // Read replicas are reported; one that does not serve leaves its reads to the primary,
    // so the server is ready without it.
    if !replicas.is_empty() {
        body["replicas"] = replicas
            .iter()
            .map(|r| {
                let mut one = json!({
                    "name": r.name,
                    "status": if r.serving { "serving" } else { "skipped" },
                    "lagMs": r.lag.map(|l| l.as_millis() as u64),
                });
                if let Some(why) = &r.reason {
                    one["reason"] = json!(why);
                }
                one
            })
            .collect();
    }
    if let Err(e) = database {
        tracing::warn!(error = %e, "readiness: the database does not answer");
        body["reason"] = json!(if degraded {
            "the database does not answer: GETs are served by the read replicas, writes answer 503"
        } else {
            "the database does not answer"
        });
    }
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body)
}

/// `GET /metrics`: the Prometheus text format, as `--metrics` allows.
async fn metrics(caller: Caller) -> Result<HttpResponse, ApiError> {
    let access = caller.state().config.metrics;
    match access {
        MetricsAccess::Off => {
            return Err(ApiError::new(
                platform_core::ErrorCode::NotFound,
                "no endpoint at /metrics (the server runs with --metrics off)",
            ))
        }
        MetricsAccess::Role(role) => {
            caller
                .run(move |_, who| who.require(role, "reading the server's metrics"))
                .await?;
        }
        MetricsAccess::Open => {}
    }
    let platform = caller.state().platform.clone();
    web::block(move || crate::monitor::record_at_scrape(&platform))
        .await
        .map_err(|e| ApiError::Core(platform_core::Error::Internal(e.to_string())))?;
    let mut text = crate::monitor::recorder()
        .map(|h| h.render())
        .unwrap_or_default();
    text.push_str(&crate::monitor::process_metrics());
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(text))
}

/// A request's id, kept in its extensions.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The id a request brings (1 to 128 of `A-Z a-z 0-9 - _ . :`), or a new one.
fn request_id(req: &ServiceRequest) -> String {
    let given = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            (1..=128).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
        });
    match given {
        Some(id) => id.to_string(),
        None => new_request_id(),
    }
}

/// A new request id: 20 hex digits (80 bits) from a generator each thread seeds once from the
/// system's randomness. An id must be unique, not secret: no system call for each request.
pub(crate) fn new_request_id() -> String {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let mut seed = [0u8; 8];
            match getrandom::getrandom(&mut seed) {
                Ok(()) => u64::from_le_bytes(seed),
                // No randomness: the clock and this thread's address still differ by thread.
                Err(_) => {
                    let nanos = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos() as u64);
                    nanos ^ (std::ptr::addr_of!(seed) as usize as u64)
                }
            }
        });
    }
    // SplitMix64: each step a distinct state, each state mixed to a well-spread output.
    let next = || {
        STATE.with(|state| {
            let s = state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
            state.set(s);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    };
    let (a, b) = (next(), next());
    let mut bytes = [0u8; 10];
    bytes[..8].copy_from_slice(&a.to_le_bytes());
    bytes[8..].copy_from_slice(&b.to_le_bytes()[..2]);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The query string with the values of secret-bearing parameters replaced by `[redacted]`.
pub fn redacted_query(query: &str) -> String {
    if query.is_empty() {
        return String::new();
    }
    query
        .split('&')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let decoded: String = form_urlencoded::parse(name.as_bytes())
                .next()
                .map(|(k, _)| k.to_ascii_lowercase())
                .unwrap_or_default();
            let secret = SECRET_PARAMETERS.contains(&decoded.as_str())
                || decoded.ends_with("token")
                || decoded.ends_with("password")
                || decoded.ends_with("secret");
            if secret && !value.is_empty() {
                format!("{name}=[redacted]")
            } else {
                pair.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The outermost layer: gives the request its id (every log line of the request carries it,
/// and the answer echoes it), writes the access log line, and counts the request in the
/// metrics by method, route template and status.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let id = request_id(&req);
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!("request", id = %id);
    async move {
        let mut res = next.call(req).await?;
        let elapsed = started.elapsed();
        let request = res.request();
        let route = request
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_string());
        let status = res.status().as_u16();
        request_metrics(request.method(), route, status, elapsed.as_secs_f64());
        // (The line's fields are made only where it is written.)
        tracing::info!(
            target: "platform::access",
            method = %request.method(),
            path = %request.path(),
            query = %redacted_query(request.query_string()),
            status,
            ms = (elapsed.as_secs_f64() * 10_000.0).round() / 10.0,
            tenant = %request
                .extensions()
                .get::<crate::request::TenantTag>()
                .map_or("-", |t| t.0.as_str()),
            "request"
        );
        if let Ok(v) = HeaderValue::from_str(&id) {
            res.headers_mut()
                .insert(HeaderName::from_static(REQUEST_ID_HEADER), v);
        }
        let committed = res
            .request()
            .extensions()
            .get::<crate::positions::Committed>()
            .copied();
        if let Some(c) = committed {
            if let Ok(v) = HeaderValue::from_str(&c.header_value()) {
                res.headers_mut().insert(
                    HeaderName::from_static(crate::positions::POSITION_HEADER),
                    v,
                );
            }
        }
        Ok(res)
    }
    .instrument(span)
    .await
}

/// The handles of one route's request metrics, for one method and status.
struct RouteMetrics {
    method: Method,
    status: u16,
    requests: metrics::Counter,
    duration: metrics::Histogram,
}

thread_local! {
    /// [`RouteMetrics`] by route template, kept by each worker thread: a look-up in the
    /// registry builds the key's labels and hashes them, on every request otherwise.
    static ROUTE_METRICS: std::cell::RefCell<HashMap<String, Vec<RouteMetrics>>> =
        std::cell::RefCell::default();
}

/// Counts a request in `platform_http_requests_total` (by method, route and status) and
/// records its duration in `platform_http_request_duration_seconds` (by method and route).
fn request_metrics(method: &Method, route: String, status: u16, seconds: f64) {
    ROUTE_METRICS.with_borrow_mut(|all| {
        let known = match all.get_mut(&route) {
            Some(known) => known,
            None => all.entry(route.clone()).or_default(),
        };
        let at = known
            .iter()
            .position(|m| m.status == status && m.method == method);
        let m = match at {
            Some(at) => &known[at],
            None => {
                let m = method.as_str().to_string();
                known.push(RouteMetrics {
                    method: method.clone(),
                    status,
                    requests: metrics::counter!("platform_http_requests_total",
                        "method" => m.clone(), "route" => route.clone(), "status" => status.to_string()),
                    duration: metrics::histogram!("platform_http_request_duration_seconds",
                        "method" => m, "route" => route),
                });
                &known[known.len() - 1]
            }
        };
        m.requests.increment(1);
        m.duration.record(seconds);
    });
}

/// Whether a response is a stream of events (never compressed, never given an `ETag`).
fn is_event_stream(res: &ServiceResponse<impl MessageBody>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// Marks bodies under [`COMPRESS_MIN_BYTES`] and event streams `identity`, so the compression
/// layer outside leaves them as they are ([`unmark_identity`] takes the mark off again).
pub async fn small_stays_plain(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let small = match res.response().body().size() {
        actix_web::body::BodySize::Sized(n) => n < COMPRESS_MIN_BYTES as u64,
        _ => false,
    };
    if (small || is_event_stream(&res)) && !res.headers().contains_key(header::CONTENT_ENCODING) {
        res.headers_mut().insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static("identity"),
        );
    }
    Ok(res)
}

/// Takes off the `identity` mark [`small_stays_plain`] put on (it says nothing to a client).
pub async fn unmark_identity(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    if res
        .headers()
        .get(header::CONTENT_ENCODING)
        .is_some_and(|v| v == "identity")
    {
        res.headers_mut().remove(header::CONTENT_ENCODING);
    }
    Ok(res)
}

/// `ETag` on successful GET answers, a hash of the representation (so it changes with every
/// version of what it shows, and is the same on every server of one database); a request whose
/// `If-None-Match` names it gets 304 without a body. `Last-Modified` from a JSON document's
/// `_timestamp`.
pub async fn conditional(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let get = req.method() == Method::GET || req.method() == Method::HEAD;
    let if_none_match = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let res = next.call(req).await?.map_into_boxed_body();
    if !get || res.status() != StatusCode::OK || is_event_stream(&res) {
        return Ok(res);
    }
    let (req, res) = res.into_parts();
    let (head, body) = res.into_parts();
    let matches = |etag: &str| {
        if_none_match.as_deref().is_some_and(|list| {
            list.split(',').any(|t| {
                let t = t.trim();
                t == "*" || t.trim_start_matches("W/") == etag
            })
        })
    };
    // An answer sent in pieces carries the tag its handler made of them (`etag_of_pieces`).
    let tagged = head
        .headers()
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let Some(etag) = tagged {
        let res = if matches(&etag) {
            not_modified(&head)
        } else {
            head.set_body(body)
        };
        return Ok(ServiceResponse::new(req, res));
    }
    let bytes = match body.try_into_bytes() {
        Ok(bytes) => bytes,
        Err(body) => return Ok(ServiceResponse::new(req, head.set_body(body))),
    };
    let etag = etag_of_pieces([&bytes[..]]);
    let json = head
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let modified = if head.headers().contains_key(header::LAST_MODIFIED) {
        None // set by the handler
    } else if json && bytes.first() == Some(&b'{') {
        last_modified(&bytes)
    } else {
        None
    };
    let mut res = if matches(&etag) {
        not_modified(&head)
    } else {
        head.set_body(BoxBody::new(bytes))
    };
    if let Ok(v) = HeaderValue::from_str(&etag) {
        res.headers_mut().insert(header::ETAG, v);
    }
    if let Some(v) = modified.and_then(|m| HeaderValue::from_str(&m).ok()) {
        res.headers_mut().insert(header::LAST_MODIFIED, v);
    }
    Ok(ServiceResponse::new(req, res))
}

/// The `ETag` of an answer made of these pieces, in order: XXH3-128 of its bytes (a published
/// algorithm, so every server gives the same tag, at memory speed), quoted.
pub fn etag_of_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = twox_hash::XxHash3_128::new();
    for piece in pieces {
        hasher.write(piece);
    }
    format!("\"{:032x}\"", hasher.finish_128())
}

/// 304 for an answer whose tag the request named: no body, and the answer's `ETag`, caching
/// and `Last-Modified` headers.
fn not_modified<B>(head: &HttpResponse<B>) -> HttpResponse {
    let mut res = HttpResponse::NotModified().finish();
    for name in [
        header::CACHE_CONTROL,
        header::VARY,
        header::LAST_MODIFIED,
        header::ETAG,
    ] {
        if let Some(v) = head.headers().get(&name) {
            res.headers_mut().insert(name, v.clone());
        }
    }
    res
}

/// The `_timestamp` of a JSON document as an HTTP date.
fn last_modified(bytes: &[u8]) -> Option<String> {
    http_date(&top_level_timestamp(bytes)?)
}

/// A document's `_timestamp` as an HTTP date (whole seconds), for `Last-Modified`. A handler
/// that has the document sets the header itself, and [`conditional`] then does not read the
/// answer again for it.
pub fn http_date(timestamp: &str) -> Option<String> {
    let at = platform_core::api::time::parse_instant(timestamp).ok()?;
    Some(actix_web::http::header::HttpDate::from(std::time::SystemTime::from(at)).to_string())
}

/// The top-level `_timestamp` of a JSON object, read only as far as it: a data answer's header
/// comes before its observations, which are not parsed again for it.
fn top_level_timestamp(bytes: &[u8]) -> Option<String> {
    use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};
    struct Find<'a>(&'a mut Option<String>);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "_timestamp" {
                    *self.0 = map.next_value::<Option<String>>()?;
                    // Found: stop here (the rest of the answer is not read).
                    return Err(serde::de::Error::custom("found"));
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut found = None;
    let _ = serde_json::Deserializer::from_slice(bytes).deserialize_map(Find(&mut found));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prometheus::Prometheus;

    /// The handles kept per worker thread count each method, route and status apart, and time
    /// each method and route, as look-ups in the registry would.
    #[test]
    fn request_metrics_count_each_method_route_and_status_apart() {
        let recorder = Prometheus::new(&[0.01, 0.1]);
        metrics::with_local_recorder(&recorder, || {
            for (method, route, status) in [
                (Method::GET, "/a", 200),
                (Method::GET, "/a", 404),
                (Method::GET, "/a", 200),
                (Method::POST, "/a", 200),
                (Method::GET, "/b", 200),
                (Method::GET, "/a", 200),
            ] {
                request_metrics(&method, route.to_string(), status, 0.001);
            }
        });
        let text = recorder.render();
        let value = |series: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
                .unwrap_or_else(|| panic!("no {series} in\n{text}"))
                .to_string()
        };
        let total = "platform_http_requests_total";
        assert_eq!(
            value(&format!(
                r#"{total}{{method="GET",route="/a",status="200"}}"#
            )),
            "3"
        );
        assert_eq!(
            value(&format!(
                r#"{total}{{method="GET",route="/a",status="404"}}"#
            )),
            "1"
        );
        assert_eq!(
            value(&format!(
                r#"{total}{{method="POST",route="/a",status="200"}}"#
            )),
            "1"
        );
        assert_eq!(
            value(&format!(
                r#"{total}{{method="GET",route="/b",status="200"}}"#
            )),
            "1"
        );
        let count = "platform_http_request_duration_seconds_count";
        assert_eq!(
            value(&format!(r#"{count}{{method="GET",route="/a"}}"#)),
            "4"
        );
        assert_eq!(
            value(&format!(r#"{count}{{method="POST",route="/a"}}"#)),
            "1"
        );
    }

    #[test]
    fn the_tag_of_an_answer_in_pieces_is_the_tag_of_its_joined_bytes() {
        let (a, b) = (vec![7u8; 1000], b"the rest of it".to_vec());
        let joined = [&a[..], &b[..]].concat();
        let one_shot = format!("\"{:032x}\"", twox_hash::XxHash3_128::oneshot(&joined));
        assert_eq!(etag_of_pieces([&a[..], &b[..]]), one_shot);
        assert_eq!(etag_of_pieces([&joined[..]]), one_shot);
        assert_ne!(etag_of_pieces([&b[..], &a[..]]), one_shot);
    }

    /// The tag is XXH3-128 with seed 0 whatever the CPU's vector units, so servers of one
    /// database (and of other versions) agree: values from another implementation of it.
    #[test]
    fn the_tag_is_xxh3_128_of_the_bytes() {
        let long: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(etag_of_pieces([]), "\"99aa06d3014798d86001c324468d497f\"");
        assert_eq!(
            etag_of_pieces([&b"plat"[..], b"form"]),
            "\"31da6d7f61575242d21f4e24f96eb70d\""
        );
        assert_eq!(
            etag_of_pieces(long.chunks(7_777)),
            "\"54182c58bbb1337c42c23aeead96750d\""
        );
    }

    #[test]
    fn request_ids_are_twenty_hex_digits_and_differ_across_threads() {
        let mine: Vec<String> = (0..10_000).map(|_| new_request_id()).collect();
        let theirs: Vec<String> =
            std::thread::spawn(|| (0..10_000).map(|_| new_request_id()).collect())
                .join()
                .unwrap();
        let all: std::collections::HashSet<&String> = mine.iter().chain(&theirs).collect();
        assert_eq!(all.len(), 20_000);
        assert!(all.iter().all(|id| id.len() == 20
            && id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))));
    }

    #[test]
    fn the_timestamp_is_read_at_the_top_level_only() {
        let doc = br#"{"a": {"_timestamp": "2020-01-01T00:00:00Z"}, "_timestamp": "2024-03-01T10:00:00.5Z", "data": [1, 2"#;
        assert_eq!(
            top_level_timestamp(doc).as_deref(),
            Some("2024-03-01T10:00:00.5Z")
        );
        assert_eq!(
            last_modified(doc).as_deref(),
            Some("Fri, 01 Mar 2024 10:00:00 GMT")
        );
        assert_eq!(top_level_timestamp(br#"{"a": {"_timestamp": "x"}}"#), None);
        assert_eq!(top_level_timestamp(br#"[{"_timestamp": "x"}]"#), None);
        assert_eq!(top_level_timestamp(br#"{"_timestamp": 5}"#), None);
        assert_eq!(top_level_timestamp(b"not json"), None);
    }

    #[test]
    fn secret_parameters_are_redacted_and_others_kept() {
        assert_eq!(
            redacted_query("_limit=5&token=pt_abc&x=1&access_token=a%20b&myToken=z&Password=p"),
            "_limit=5&token=[redacted]&x=1&access_token=[redacted]&myToken=[redacted]&Password=[redacted]"
        );
        assert_eq!(redacted_query(""), "");
        assert_eq!(redacted_query("token="), "token=");
        assert_eq!(redacted_query("_filter=%7B%7D"), "_filter=%7B%7D");
    }
}
