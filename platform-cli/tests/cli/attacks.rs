//! Attacks on the real server, kept so that the holes they looked for stay closed.
//!
//! - The bad-input corpus: a table of malformed requests against `platform serve` on a SQLite
//!   file, covering every service and route. Each must be answered with a 4xx and the error
//!   envelope (never a 5xx, never silence), and the database must be exactly as it was.
//! - Durability: a server killed with SIGKILL under write load loses no acknowledged write.

use crate::{chrono_like, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// No request of the corpus may take longer: a hang is a failure.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Who a request is made as.
#[derive(Clone)]
enum Auth {
    /// The server's admin token (tenant `default`, role `platform`).
    Admin,
    /// No Authorization header.
    Without,
    /// This Authorization header, byte for byte.
    Value(Vec<u8>),
}

/// One request of the corpus.
#[derive(Clone)]
struct Case {
    name: String,
    method: String,
    path: String,
    auth: Auth,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
    /// Sent over a plain socket, byte for byte (for paths, headers and methods an HTTP client
    /// would normalise or refuse to send).
    raw: bool,
}

impl Case {
    fn new(method: &str, path: impl Into<String>) -> Case {
        let path = path.into();
        Case {
            name: format!("{method} {}", shorten(&path)),
            method: method.to_string(),
            path,
            auth: Auth::Admin,
            headers: Vec::new(),
            body: Vec::new(),
            raw: false,
        }
    }

    fn get(path: impl Into<String>) -> Case {
        Case::new("GET", path)
    }

    /// A JSON body (declared `application/json`), given as bytes: it need not be JSON.
    fn json(self, body: impl Into<Vec<u8>>) -> Case {
        self.body_as("application/json", body)
    }

    fn body_as(mut self, content_type: &str, body: impl Into<Vec<u8>>) -> Case {
        self.body = body.into();
        let shown = shorten(&String::from_utf8_lossy(&self.body));
        self.name = format!("{} [{content_type}] {shown}", self.name);
        self.header("content-type", content_type)
    }

    fn header(mut self, name: &str, value: impl Into<Vec<u8>>) -> Case {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    fn auth(mut self, auth: Auth) -> Case {
        self.auth = auth;
        self
    }

    fn raw(mut self) -> Case {
        self.raw = true;
        self
    }

    fn note(mut self, note: &str) -> Case {
        self.name = format!("{} ({note})", self.name);
        self
    }
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= 90 {
        text.to_string()
    } else {
        let head: String = text.chars().take(90).collect();
        format!("{head}... ({} bytes)", text.len())
    }
}

/// An answer: status, headers (lower-case names) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Vec<&[u8]> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
            .collect()
    }
}

/// Percent-encodes everything but unreserved characters.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The client side: ureq for ordinary requests, a socket for raw ones.
struct Client {
    agent: ureq::Agent,
    url: String,
    token: String,
}

impl Client {
    fn new(url: &str, token: &str) -> Client {
        Client {
            agent: ureq::AgentBuilder::new().timeout(TIMEOUT).build(),
            url: url.to_string(),
            token: token.to_string(),
        }
    }

    fn authorization(&self, auth: &Auth) -> Option<Vec<u8>> {
        match auth {
            Auth::Admin => Some(format!("Bearer {}", self.token).into_bytes()),
            Auth::Without => None,
            Auth::Value(v) => Some(v.clone()),
        }
    }

    fn send(&self, case: &Case) -> Result<Answer, String> {
        if case.raw {
            return self.send_raw(case);
        }
        let mut req = self
            .agent
            .request(&case.method, &format!("{}{}", self.url, case.path));
        let auth = self.authorization(&case.auth);
        for (name, value) in auth
            .iter()
            .map(|v| ("authorization", v))
            .chain(case.headers.iter().map(|(n, v)| (n.as_str(), v)))
        {
            let value = std::str::from_utf8(value).expect("a raw case for bytes that are not text");
            req = req.set(name, value);
        }
        let result = if case.body.is_empty() && !["POST", "PUT", "PATCH"].contains(&&*case.method) {
            req.call()
        } else {
            req.send_bytes(&case.body)
        };
        let res = match result {
            Ok(res) => res,
            Err(ureq::Error::Status(_, res)) => res,
            Err(e) => return Err(format!("no answer: {e}")),
        };
        let status = res.status();
        let headers = res
            .headers_names()
            .into_iter()
            .flat_map(|n| {
                res.all(&n)
                    .into_iter()
                    .map(|v| (n.to_ascii_lowercase(), v.as_bytes().to_vec()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut body = Vec::new();
        res.into_reader()
            .take(16 << 20)
            .read_to_end(&mut body)
            .map_err(|e| format!("reading the body: {e}"))?;
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    /// HTTP/1.1 over a socket: the request exactly as the case has it, `Connection: close`.
    fn send_raw(&self, case: &Case) -> Result<Answer, String> {
        let addr = self.url.trim_start_matches("http://");
        let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect: {e}"))?;
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(TIMEOUT)).unwrap();
        let mut req = Vec::new();
        write!(
            req,
            "{} {} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n",
            case.method, case.path
        )
        .unwrap();
        let auth = self.authorization(&case.auth);
        for (name, value) in auth
            .iter()
            .map(|v| ("authorization", v))
            .chain(case.headers.iter().map(|(n, v)| (n.as_str(), v)))
        {
            req.extend_from_slice(name.as_bytes());
            req.extend_from_slice(b": ");
            req.extend_from_slice(value);
            req.extend_from_slice(b"\r\n");
        }
        write!(req, "content-length: {}\r\n\r\n", case.body.len()).unwrap();
        req.extend_from_slice(&case.body);
        // A server may answer and close before reading a whole body: read the answer anyway.
        let _ = stream.write_all(&req);
        let started = Instant::now();
        let mut bytes = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(format!("no answer within {:?}", started.elapsed()))
                }
                // A reset after the answer (the server did not read the whole body) ends it.
                Err(_) if !bytes.is_empty() => break,
                Err(e) => return Err(format!("reading: {e}")),
            }
        }
        parse_answer(&bytes)
    }
}

fn parse_answer(bytes: &[u8]) -> Result<Answer, String> {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("not an HTTP answer: {:?}", String::from_utf8_lossy(bytes)))?;
    let head = String::from_utf8_lossy(&bytes[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status line: {head}"))?;
    let mut headers = Vec::new();
    let raw_head = &bytes[..end];
    for line in raw_head.split(|b| *b == b'\n').skip(1) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(colon) = line.iter().position(|b| *b == b':') {
            let name = String::from_utf8_lossy(&line[..colon]).to_ascii_lowercase();
            let value = line[colon + 1..].trim_ascii().to_vec();
            headers.push((name, value));
        }
    }
    let mut body = bytes[end + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case(b"chunked"));
    if chunked {
        let mut out = Vec::new();
        let mut rest = body.as_slice();
        loop {
            let line_end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or("a truncated chunked body")?;
            let size = usize::from_str_radix(
                String::from_utf8_lossy(&rest[..line_end])
                    .split(';')
                    .next()
                    .unwrap()
                    .trim(),
                16,
            )
            .map_err(|e| format!("chunk size: {e}"))?;
            rest = &rest[line_end + 2..];
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[..size.min(rest.len())]);
            rest = &rest[(size + 2).min(rest.len())..];
        }
        body = out;
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// What every refused request must look like: a 4xx, the JSON error envelope and its header.
fn judge(answer: &Answer) -> Result<(), String> {
    let text = || shorten(&String::from_utf8_lossy(&answer.body));
    if !(400..500).contains(&answer.status) {
        return Err(format!("answered {}: {}", answer.status, text()));
    }
    let body: Value = serde_json::from_slice(&answer.body)
        .map_err(|_| format!("{} without a JSON body: {}", answer.status, text()))?;
    let object = body.as_object().filter(|o| o.len() == 1);
    let err = object
        .and_then(|o| o.get("error"))
        .ok_or_else(|| format!("not the error envelope: {}", text()))?;
    if err["status"] != answer.status {
        return Err(format!(
            "envelope status {} on a {}",
            err["status"], answer.status
        ));
    }
    let code = err["code"]
        .as_str()
        .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        .ok_or_else(|| format!("no error code: {}", text()))?;
    if err["message"].as_str().is_none_or(str::is_empty) {
        return Err(format!("no message: {}", text()));
    }
    match answer.header("x-platform-error").as_slice() {
        [header] => {
            if !header.iter().all(|b| (b' '..=b'~').contains(b)) {
                return Err(format!(
                    "x-platform-error is not printable ASCII: {:?}",
                    String::from_utf8_lossy(header)
                ));
            }
            if !header.starts_with(format!("[{code}] ").as_bytes()) {
                return Err(format!(
                    "x-platform-error {:?} does not start with [{code}]",
                    shorten(&String::from_utf8_lossy(header))
                ));
            }
        }
        other => return Err(format!("{} x-platform-error headers", other.len())),
    }
    Ok(())
}

/// A GET as the admin that must succeed, as JSON.
fn read(client: &Client, path: &str) -> Value {
    let answer = client.send(&Case::get(path)).unwrap();
    assert_eq!(
        answer.status,
        200,
        "{path}: {}",
        String::from_utf8_lossy(&answer.body)
    );
    serde_json::from_slice(&answer.body).unwrap()
}

/// A write as the admin that must succeed.
fn write(client: &Client, method: &str, path: &str, body: Value) -> Value {
    let answer = client
        .send(&Case::new(method, path).json(body.to_string()))
        .unwrap();
    assert_eq!(
        answer.status,
        200,
        "{method} {path} {body}: {}",
        String::from_utf8_lossy(&answer.body)
    );
    serde_json::from_slice(&answer.body).unwrap()
}

fn ids_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i["_id"].as_str().unwrap().to_string())
        .collect()
}

/// Every list of every service, every version list and every data item, as the admin sees them.
fn snapshot(client: &Client) -> BTreeMap<String, Value> {
    let mut all = BTreeMap::new();
    let mut take = |path: String| {
        let value = read(client, &path);
        all.insert(path, value.clone());
        value
    };
    for service in ["object", "type", "script", "extension"] {
        for source in ["private", "public"] {
            let list = take(format!("/{service}/v1/{source}?_limit=1000"));
            for id in ids_of(&list) {
                take(format!("/{service}/v1/{source}/{}/*", enc(&id)));
            }
        }
    }
    for source in ["private", "public"] {
        let list = take(format!("/data/v1/{source}?_limit=1000"));
        for id in ids_of(&list) {
            take(format!("/data/v1/{source}/{}", enc(&id)));
        }
    }
    for id in ids_of(&take("/secret/v1".into())) {
        take(format!("/secret/v1/{}", enc(&id)));
    }
    for id in ids_of(&take("/validationconfig/v1?_limit=1000".into())) {
        take(format!("/validationconfig/v1/{}/*", enc(&id)));
    }
    take("/validation/v1?_limit=1000".into());
    take("/validation/v1?_function=jobs".into());
    take("/automation/v1?_limit=1000".into());
    take("/automation/v1/log?_limit=1000".into());
    take("/automation/v1/mail?_limit=1000".into());
    all
}

/// What the corpus attacks: an object with a series and a curve, versions and a tag, a public
/// object, a type, a script, a secret, a published extension draft, configurations, a record
/// and an automation. Returns the automation's id.
fn seed(client: &Client) -> String {
    let days: Vec<Value> = (1..=5)
        .map(|d| json!({"time": format!("2024-07-0{d}"), "value": d}))
        .collect();
    write(
        client,
        "POST",
        "/object/v1",
        json!({"_id": "PWR", "name": "power", "capacity": 100,
               "S": {"_type": "VarTimeSeries", "calendar": "DAILY", "timezone": "Europe/Berlin", "data": days},
               "H": {"_type": "VarTimeSeries", "calendar": "HOURLY", "timezone": "Europe/Berlin",
                     "data": [{"time": "2024-03-31T01:00", "value": 1}, {"time": "2024-03-31T03:00", "value": 2}]},
               "F": {"_type": "VarCurve", "ondate": "2024-07-01",
                     "contracts": [{"tenor": "M01", "value": 10}, {"tenor": "M02", "value": 11}]}}),
    );
    write(
        client,
        "POST",
        "/object/v1",
        json!({"_id": "A1", "name": "alpha", "capacity": 1}),
    );
    write(
        client,
        "POST",
        "/object/v1",
        json!({"_id": "A1", "capacity": 2}),
    );
    write(client, "PUT", "/object/v1/private/A1/1/gold", json!({}));
    write(
        client,
        "POST",
        "/object/v1",
        json!({"_id": "#PUB", "name": "public"}),
    );
    write(
        client,
        "POST",
        "/type/v1",
        json!({"_id": "Plant", "description": "a plant"}),
    );
    write(
        client,
        "POST",
        "/script/v1",
        json!({"_id": "lib1", "script": "fn double(x) { x * 2 }"}),
    );
    write(
        client,
        "POST",
        "/secret/v1",
        json!({"_id": "smtp", "value": "pw"}),
    );
    let draft = write(
        client,
        "POST",
        "/extension/v1",
        json!({"_id": "default.tools", "publisher": "default", "code": "tools", "name": "Tools"}),
    );
    write(client, "POST", "/extension/v1/public?_publish=true", draft);
    write(
        client,
        "POST",
        "/validationconfig/v1",
        json!({"_id": "PWR:S", "kind": "timeseries", "checks": [{"id": "positive", "expression": "value > 0"}]}),
    );
    write(
        client,
        "POST",
        "/validationconfig/v1",
        json!({"_id": "PWR:F", "kind": "curve", "checks": [{"id": "positive", "expression": "value > 0"}]}),
    );
    write(
        client,
        "POST",
        "/validation/v1?_function=run",
        json!({"target": "PWR:S", "point": "2024-07-01"}),
    );
    let automation = write(
        client,
        "POST",
        "/automation/v1",
        json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "never"},
               "conditions": [{"service": "object", "id": "NEVER", "action": "update"}]}),
    );
    automation["_id"].as_str().unwrap().to_string()
}

/// JSON that is not JSON (or not the JSON a write takes), each with a name.
fn malformed_bodies() -> Vec<(&'static str, Vec<u8>)> {
    let deep_arrays = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_objects = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    vec![
        ("empty", Vec::new()),
        ("blank", b"  \n\t ".to_vec()),
        ("truncated object", br#"{"_id": "ATT-1""#.to_vec()),
        ("truncated after a comma", br#"{"_id": "ATT-1", "#.to_vec()),
        ("a lone bracket", b"[".to_vec()),
        ("100k nested arrays", deep_arrays.into_bytes()),
        ("100k nested objects", deep_objects.into_bytes()),
        (
            "a number out of range",
            br#"{"_id": "ATT-1", "n": 1e999999}"#.to_vec(),
        ),
        ("NaN", br#"{"_id": "ATT-1", "n": NaN}"#.to_vec()),
        ("-Infinity", br#"{"_id": "ATT-1", "n": -Infinity}"#.to_vec()),
        ("a string", br#""ATT-1""#.to_vec()),
        ("a number", b"42".to_vec()),
        ("null", b"null".to_vec()),
        ("true", b"true".to_vec()),
        (
            "bytes that are not UTF-8",
            b"{\"_id\": \"ATT-\xff\xfe\"}".to_vec(),
        ),
        ("single quotes", br#"{'_id': 'ATT-1'}"#.to_vec()),
        ("trailing garbage", br#"{"_id": "ATT-1"} x"#.to_vec()),
        (
            "a lone surrogate",
            br#"{"_id": "ATT-1", "x": "\ud800"}"#.to_vec(),
        ),
        (
            "a raw control character",
            b"{\"_id\": \"ATT-\x01\"}".to_vec(),
        ),
        ("a trailing comma", br#"{"_id": "ATT-1",}"#.to_vec()),
    ]
}

/// Every route that reads a body.
fn write_routes(automation: &str) -> Vec<(&'static str, String)> {
    let mut routes: Vec<(&str, String)> = [
        "/object/v1",
        "/object",
        "/object/v1/private",
        "/object/v1/public",
        "/type/v1",
        "/script/v1",
        "/extension/v1",
        "/extension/v1/public?_publish=true",
        "/extension/v1/private?_publish=true",
        "/secret/v1",
        "/secret",
        "/validationconfig/v1",
        "/automation/v1",
    ]
    .into_iter()
    .map(|p| ("POST", p.to_string()))
    .collect();
    for function in [
        "run",
        "test",
        "runMany",
        "suggest",
        "tune",
        "override",
        "removeOverride",
        "comment",
    ] {
        routes.push(("POST", format!("/validation/v1?_function={function}")));
    }
    routes.push(("PUT", format!("/automation/v1/{automation}")));
    routes
}

fn post(path: &str, body: Value) -> Case {
    Case::new("POST", path).json(body.to_string())
}

fn series(data: Value) -> Value {
    json!({"_id": "PWR", "H": {"_type": "VarTimeSeries", "calendar": "HOURLY", "timezone": "Europe/Berlin", "data": data}})
}

fn curve(ondate: Value, contracts: Value) -> Value {
    json!({"_id": "PWR", "F": {"_type": "VarCurve", "ondate": ondate, "contracts": contracts}})
}

/// Objects, series and curves with a field of the wrong type or value.
fn object_cases() -> Vec<Case> {
    let long_id = "X".repeat(10_000);
    let mut cases: Vec<Case> = [
        json!({"_id": 5}),
        json!({"_id": null}),
        json!({"_id": ["A"]}),
        json!({"_id": {"a": 1}}),
        json!({"_id": ""}),
        json!({"_id": "#"}),
        json!({"name": "no id"}),
        json!({"_id": "ATT/1"}),
        json!({"_id": "ATT:1"}),
        json!({"_id": "ATT\u{0}X"}),
        json!({"_id": "ATT\nX"}),
        json!({"_id": "\u{fc}n\u{ef}c\u{f8}d\u{e9}/\u{1f600}"}),
        json!({"_id": long_id}),
        json!({"_id": "ATT-1", "_type": 5}),
        json!({"_id": "ATT-1", "_type": ["a"]}),
        json!({"_id": "A1", "_type": ""}),
        json!([{"_id": "ATT-OK"}, {"_id": 5}]),
        json!([{"_id": "ATT-OK"}, {"_id": "ATT/2"}]),
        json!([{"_id": "ATT-OK"}, 1]),
        json!([null]),
        json!([[{"_id": "ATT-1"}]]),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "data": "not an array"}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "data": [1]}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "data": [null]}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "calendar": "FORTNIGHTLY", "data": []}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "timezone": "Mars/Olympus_Mons", "data": []}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarTimeSeries", "calendar": 5}}),
        json!({"_id": "ATT-1", "S": {"_type": "VarCurve", "contracts": []}}),
    ]
    .into_iter()
    .map(|b| post("/object/v1", b))
    .collect();
    // A public id in private, a private id in public.
    cases.push(post("/object/v1/private", json!({"_id": "#ATT"})));
    cases.push(post("/object/v1/public", json!({"_id": "ATT-1"})));
    cases.push(post("/object/v1/all", json!({"_id": "ATT-1"})));
    // Save options.
    cases.push(post("/object/v1?_replace=maybe", json!({"_id": "A1"})));
    cases.push(post(
        "/object/v1?_onDuplicate=sometimes",
        json!({"_id": "A1"}),
    ));
    // Series: times.
    for time in [
        json!("2024-03-31T02:30"),
        json!("2024-03-31T02:00:00"),
        json!("2024-03-31 02:59"),
        json!("garbage"),
        json!(""),
        json!("2024-13-01T00:00"),
        json!("2024-02-30T00:00"),
        json!("2024-07-01T25:00"),
        json!("2024-07-01T10:61"),
        json!("99999-01-01T00:00:00Z"),
        json!("+275760-09-13T00:00:00Z"),
        json!("-0001-01-01T00:00:00Z"),
        json!("0000-00-00"),
        json!("2024-07-01T00:00:00.0001Z"),
        json!("2024-07-01T00:00:00+25:00"),
        json!("2024-07-01T00:00:00Zjunk"),
        json!(12345),
        json!(null),
        json!(true),
        json!({"a": 1}),
        json!(["2024-07-01"]),
    ] {
        cases.push(post(
            "/object/v1",
            series(json!([{"time": time, "value": 1}])),
        ));
    }
    cases.push(post("/object/v1", series(json!([{"value": 1}]))));
    // Series: values (a number, or text: `"abc"` is a value) and statuses.
    for value in [json!({"a": 1}), json!([1]), json!(true)] {
        cases.push(post(
            "/object/v1",
            series(json!([{"time": "2024-07-01T10:00", "value": value}])),
        ));
    }
    for status in [
        json!({"quality": "GREAT"}),
        json!({"source": 5}),
        json!({"reliability": ["QUOTED"]}),
        json!("VALID"),
    ] {
        cases.push(post(
            "/object/v1",
            series(json!([{"time": "2024-07-01T10:00", "value": 1, "status": status}])),
        ));
    }
    // An instant given twice.
    cases.push(post(
        "/object/v1",
        series(json!([{"time": "2024-07-01T10:00", "value": 1}, {"time": "2024-07-01T08:00:00Z", "value": 2}])),
    ));
    // Curves: tenors, values, ondates, contracts.
    let huge_tenor = format!("M{}", "9".repeat(5_000));
    for tenor in [
        json!("M99999999"),
        json!(huge_tenor),
        json!(""),
        json!("XYZ"),
        json!("M-1"),
        json!("2024M13"),
        json!("2024D0230"),
        json!("BOX"),
        json!(5),
        json!(null),
    ] {
        cases.push(post(
            "/object/v1",
            curve(json!("2024-07-02"), json!([{"tenor": tenor, "value": 1}])),
        ));
    }
    for value in [json!("abc"), json!({"a": 1}), json!([1]), json!(true)] {
        cases.push(post(
            "/object/v1",
            curve(
                json!("2024-07-02"),
                json!([{"tenor": "M01", "value": value}]),
            ),
        ));
    }
    for ondate in [
        json!("garbage"),
        json!("2024-02-30"),
        json!(""),
        json!(5),
        json!("99999-01-01"),
    ] {
        cases.push(post(
            "/object/v1",
            curve(ondate, json!([{"tenor": "M01", "value": 1}])),
        ));
    }
    for contracts in [
        json!("x"),
        json!([1]),
        json!([{"value": 1}]),
        json!({"M01": 1}),
    ] {
        cases.push(post("/object/v1", curve(json!("2024-07-02"), contracts)));
    }
    cases.push(post(
        "/object/v1",
        json!({"_id": "PWR", "F": {"_type": "VarCurve", "contracts": [{"tenor": "M01", "value": 1}]}}),
    ));
    // Types and scripts.
    cases.push(post("/type/v1", json!({"_id": "ATT-T", "properties": 3})));
    cases.push(post("/type/v1", json!({"_id": "ATT-T", "_extends": 5})));
    cases.push(post(
        "/type/v1",
        json!({"_id": "Plant", "_extends": "Plant"}),
    ));
    cases.push(post(
        "/script/v1",
        json!({"_id": "ATT-S", "script": "fn ("}),
    ));
    cases.push(post("/script/v1", json!({"_id": "ATT-S", "script": 5})));
    cases.push(post(
        "/script/v1",
        json!({"_id": "ATT-S", "scriptType": "mustache", "script": "{{#a}}"}),
    ));
    cases.push(post(
        "/script/v1",
        json!({"_id": "ATT-S", "scriptType": "cobol", "script": "x"}),
    ));
    cases
}

fn secret_cases() -> Vec<Case> {
    [
        json!({"_id": "ATT-S", "value": 5}),
        json!({"_id": "ATT-S", "value": null}),
        json!({"value": "x"}),
        json!({"_id": 5, "value": "x"}),
        json!({"_id": "", "value": "x"}),
        json!({"_id": "a/b", "value": "x"}),
        json!({"_id": "ATT-S", "value": "x", "enabled": "yes"}),
        json!({"_id": "ATT-S", "value": "x", "notBefore": "garbage"}),
        json!({"_id": "ATT-S", "value": "x", "expires": "2024-13-01"}),
        json!({"_id": "ATT-S", "value": "x", "notBefore": 5}),
        json!({"_id": "ATT-S"}),
        json!([{"_id": "ATT-S", "value": "x"}]),
        json!({"_id": "smtp", "enabled": "no"}),
        json!({"_id": "smtp", "expires": "yesterday"}),
    ]
    .into_iter()
    .map(|b| post("/secret/v1", b))
    .collect()
}

fn extension_cases() -> Vec<Case> {
    let mut cases: Vec<Case> = [
        json!({"_id": "nodot"}),
        json!({"_id": 5}),
        json!({"_id": "default.att", "views": "not an array"}),
        json!({"_id": "default.att", "views": [5]}),
        json!({"_id": "default.att", "resources": 5}),
        json!({"_id": "default.att", "resources": {"script": {"install": 5}}}),
        json!({"_id": "default.att", "resources": {"object": "A1"}}),
        json!({"_id": "default.att", "resources": {"object": [5]}}),
        json!({"_id": "default.att", "publisher": "other"}),
        json!({"_id": "default.att", "code": "other"}),
    ]
    .into_iter()
    .map(|b| post("/extension/v1", b))
    .collect();
    for (path, body) in [
        (
            "/extension/v1/public?_publish=true",
            json!({"_id": "default.nope"}),
        ),
        ("/extension/v1/public?_publish=true", json!({})),
        ("/extension/v1/public?_publish=true", json!({"_id": 5})),
        (
            "/extension/v1/private?_publish=true",
            json!({"_id": "default.nope"}),
        ),
        (
            "/extension/v1/private?_publish=true",
            json!({"_id": "default.tools"}),
        ),
        (
            "/extension/v1/all?_publish=true",
            json!({"_id": "default.tools"}),
        ),
        (
            "/extension/v1/elsewhere?_publish=true",
            json!({"_id": "default.tools"}),
        ),
    ] {
        cases.push(post(path, body));
    }
    cases.push(Case::new("DELETE", "/extension/v1/private/default.nope"));
    cases.push(Case::new("DELETE", "/extension/v1/private/default.tools").note("a draft"));
    cases.push(
        Case::get("/extension/v1/private/default.tools/view/nope").header("accept", "text/html"),
    );
    cases.push(Case::get("/extension/v1/private/default.tools/view/nope").note("no Accept"));
    cases.push(
        Case::get("/extension/v1/public/default.tools/view/nope").header("accept", "text/html"),
    );
    cases.push(Case::get("/extension/v1/public/default.tools/messages"));
    cases.push(Case::get("/extension/v1/realtime?_limit=abc"));
    cases.push(Case::get("/extension/v1/realtime?_limit=-1"));
    cases
}

fn config_cases() -> Vec<Case> {
    let check = json!({"expression": "value > 0"});
    let base = |extra: Value| {
        let mut body = json!({"_id": "PWR:S", "kind": "timeseries", "checks": [check.clone()]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let many: Vec<Value> = (0..51)
        .map(|i| json!({"id": format!("c{i}"), "expression": "value > 0"}))
        .collect();
    let mut bodies = vec![
        json!({}),
        json!({"_id": "ATT:S"}),
        json!({"kind": "timeseries"}),
        base(json!({"kind": "banana"})),
        base(json!({"kind": 5})),
        base(json!({"_id": 5})),
        base(json!({"_id": "PWR"})),
        base(json!({"_id": "PWR:S:2024-07-01"})),
        base(json!({"checks": "value > 0"})),
        base(json!({"checks": [5]})),
        base(json!({"checks": many})),
        base(json!({"checks": [{"expression": "value >"}]})),
        base(json!({"checks": [{"expression": 5}]})),
        base(json!({"checks": [{"expression": ""}]})),
        base(json!({"checks": [{"expression": "value > 0", "severity": "fatal"}]})),
        base(json!({"checks": [{"expression": "value > 0", "scope": "galaxy"}]})),
        base(json!({"checks": [{"expression": "value > 0", "enabled": "yes"}]})),
        base(json!({"checks": [{"id": 5, "expression": "value > 0"}]})),
        base(json!({"checks": [{"name": 5, "expression": "value > 0"}]})),
        base(json!({"checks": [{"expression": "value > 0", "scope": 5}]})),
        base(json!({"checks": [{"expression": "value > 0", "severity": 5}]})),
        base(json!({"options": "x"})),
        base(json!({"enabled": "yes"})),
        base(json!({"runOnUpdate": "yes"})),
        base(json!({"scripts": "lib1"})),
        base(json!({"scripts": [5]})),
        base(json!({"scripts": ["no-such-library"]})),
        base(json!({"tags": "x"})),
        // Fields the rules do not read: refused, not kept and ignored.
        base(json!({"maxPoints": 2})),
        base(json!({"colour": "red"})),
        base(json!({"checks": [{"expression": "value > 0", "severty": "warning"}]})),
    ];
    for (option, value) in [
        ("lookback", json!(-1)),
        ("lookback", json!(1001)),
        ("lookback", json!("ten")),
        ("lookback", json!(1.5)),
        ("curveHistory", json!(31)),
        ("curveHistory", json!(-1)),
        ("maxPoints", json!(0)),
        ("maxPoints", json!(5001)),
        ("maxPoints", json!(1e300)),
        ("writeStatus", json!("yes")),
    ] {
        bodies.push(base(json!({"options": {option: value}})));
    }
    let mut cases: Vec<Case> = bodies
        .into_iter()
        .map(|b| post("/validationconfig/v1", b))
        .collect();
    cases.push(post(
        "/validationconfig/v1",
        json!({"_id": "PWR:F", "kind": "curve", "checks": [{"expression": "value > 0", "scope": "point"}]}),
    ));
    cases.push(Case::get("/validationconfig/v1?_function=bogus"));
    cases.push(post("/validationconfig/v1?_function=bogus", json!({})));
    cases.push(Case::get("/validationconfig/v1/PWR:S?_function=bogus"));
    cases.push(Case::get("/validationconfig/v1/NOPE:S"));
    cases.push(Case::get("/validationconfig/v1/PWR:S/abc"));
    cases.push(Case::get("/validationconfig/v1/PWR:S/0"));
    cases.push(Case::get("/validationconfig/v1/PWR:S/99"));
    cases.push(Case::new("DELETE", "/validationconfig/v1/NOPE:S"));
    cases.push(Case::new("PUT", "/validationconfig/v1/PWR:S/1/123"));
    cases.push(Case::new("PUT", "/validationconfig/v1/PWR:S/9/tag"));
    cases.push(Case::new("PUT", "/validationconfig/v1/PWR:S/1/%2A"));
    cases
}

fn function_cases() -> Vec<Case> {
    let record = "PWR:S:2024-07-01";
    let points: Vec<String> = (0..101)
        .map(|i| chrono_like(1_719_792_000 + i * 3600))
        .collect();
    let targets: Vec<String> = (0..26).map(|i| format!("PWR:S{i}")).collect();
    let items: Vec<Value> = (0..26)
        .map(|i| json!({"target": format!("PWR:S{i}"), "points": ["2024-07-01"]}))
        .collect();
    let ids: Vec<String> = (0..501).map(|i| format!("{record}{i}")).collect();
    let range = |extra: Value| {
        let mut body = json!({"target": "PWR:S", "from": "2024-07-01", "to": "2024-07-02"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let calls: Vec<(&str, Value)> = vec![
        ("run", json!({})),
        ("run", json!({"target": 5})),
        ("run", json!({"target": "NOPE:X"})),
        ("run", json!({"target": "PWR:NOPE"})),
        ("run", json!({"target": "PWR"})),
        ("run", json!({"target": "PWR:S", "points": "2024-07-01"})),
        ("run", json!({"target": "PWR:S", "points": [5]})),
        ("run", json!({"target": "PWR:S", "points": ["garbage"]})),
        ("run", json!({"target": "PWR:S", "point": "garbage"})),
        ("run", json!({"target": "PWR:S", "point": "2024-02-30"})),
        ("run", range(json!({"from": "garbage"}))),
        ("run", range(json!({"to": "99999-01-01"}))),
        ("run", range(json!({"from": 5}))),
        ("run", range(json!({"background": "yes"}))),
        ("run", range(json!({"background": 1}))),
        (
            "run",
            json!({"target": "PWR:S", "points": ["2024-07-01"], "background": true}),
        ),
        ("run", json!({"target": "PWR:S", "checks": "positive"})),
        ("run", json!({"target": "PWR:S", "checks": [5]})),
        ("run", json!({"target": "PWR:F", "tenors": "M01"})),
        ("run", json!({"target": "PWR:F", "ondate": "garbage"})),
        (
            "run",
            json!({"target": "PWR:S", "config": {"kind": "timeseries"}}),
        ),
        ("test", json!({})),
        ("test", json!({"target": "PWR:S", "points": points})),
        ("test", json!({"config": 5})),
        (
            "test",
            json!({"config": {"_id": "PWR:S", "kind": "banana", "checks": []}}),
        ),
        (
            "test",
            json!({"config": {"_id": "PWR:S", "kind": "timeseries", "checks": [{"expression": "value >"}]}}),
        ),
        (
            "test",
            json!({"target": "PWR:S", "from": "garbage", "to": "2024-07-02"}),
        ),
        (
            "test",
            json!({"target": "PWR:S", "background": true, "from": "2024-07-01", "to": "2024-07-02"}),
        ),
        ("runMany", json!({})),
        ("runMany", json!({"targets": "PWR:S"})),
        ("runMany", json!({"targets": [5]})),
        (
            "runMany",
            json!({"targets": ["PWR:S"], "background": "yes"}),
        ),
        (
            "runMany",
            json!({"targets": ["PWR:S"], "from": "garbage", "to": "2024-07-02"}),
        ),
        ("runMany", json!({"targets": ["PWR:S"], "points": "x"})),
        ("runMany", json!({"targets": ["PWR:S"], "ondate": 5})),
        ("suggest", json!({})),
        ("suggest", json!({"targets": "PWR:S"})),
        ("suggest", json!({"targets": targets})),
        ("suggest", json!({"targets": ["PWR:S"], "days": 0})),
        ("suggest", json!({"targets": ["PWR:S"], "days": 367})),
        ("suggest", json!({"targets": ["PWR:S"], "days": "x"})),
        ("suggest", json!({"targets": ["PWR:S"], "days": -1})),
        (
            "suggest",
            json!({"targets": ["PWR:F"], "kind": "curve", "maxCurves": 1}),
        ),
        (
            "suggest",
            json!({"targets": ["PWR:F"], "kind": "curve", "maxCurves": 61}),
        ),
        ("suggest", json!({"targets": ["PWR:S"], "kind": "banana"})),
        ("suggest", json!({"targets": [5]})),
        ("tune", json!({})),
        ("tune", json!({"items": "x"})),
        ("tune", json!({"items": [5]})),
        ("tune", json!({"items": items})),
        (
            "tune",
            json!({"items": [{"target": "PWR:S", "points": ["2024-07-01"]}], "days": 0}),
        ),
        (
            "tune",
            json!({"items": [{"target": "PWR:S", "points": ["2024-07-01"]}], "days": 367}),
        ),
        (
            "tune",
            json!({"items": [{"target": "PWR:F", "points": ["2024-07-01"]}], "maxCurves": 1}),
        ),
        ("tune", json!({"items": [{"points": ["2024-07-01"]}]})),
        ("override", json!({})),
        ("override", json!({"ids": [record]})),
        ("override", json!({"ids": [record], "reason": ""})),
        ("override", json!({"ids": [record], "reason": 5})),
        ("override", json!({"ids": record, "reason": "r"})),
        ("override", json!({"ids": [5], "reason": "r"})),
        ("override", json!({"ids": ids, "reason": "r"})),
        ("removeOverride", json!({})),
        ("removeOverride", json!({"ids": record})),
        ("removeOverride", json!({"ids": ids})),
        ("comment", json!({"ids": [record]})),
        ("comment", json!({"ids": [record], "message": 5})),
        ("comment", json!({"ids": [record], "message": ""})),
        ("comment", json!({"ids": ids, "message": "m"})),
        ("bogus", json!({})),
        ("stats", json!({})),
        ("jobs", json!({})),
    ];
    let mut cases: Vec<Case> = calls
        .into_iter()
        .map(|(f, b)| post(&format!("/validation/v1?_function={f}"), b))
        .collect();
    cases.push(post("/validation/v1", json!({"target": "PWR:S"})).note("no _function"));
    cases.push(post(
        "/validation/v1?_function=run&_delay=abc",
        range(json!({})),
    ));
    cases.push(post(
        "/validation/v1?_function=run&_delay=-5",
        range(json!({})),
    ));
    cases.push(post(
        "/validation/v1?_function=runMany&_delay=1e99",
        json!({"targets": ["PWR:S"]}),
    ));
    cases.push(post(
        "/validation/v1?_function=run&_delay=100",
        range(json!({"from": "garbage"})),
    ));
    cases.push(post(
        "/validation/v1?_function=test&_delay=10",
        json!({"target": "PWR:S", "point": "2024-07-01"}),
    ));
    for query in [
        "_function=bogus",
        "_function=run",
        "_function=stats&from=garbage",
        "_function=stats&to=2024-13-01",
        "_function=stats&from=2024-02-30",
        "_function=stats&from=99999-01-01",
    ] {
        cases.push(Case::get(format!("/validation/v1?{query}")));
    }
    cases.push(Case::get(format!(
        "/validation/v1/{record}?_function=bogus"
    )));
    cases.push(Case::get("/validation/v1/PWR:S:1999-01-01"));
    cases
}

fn automation_cases(automation: &str) -> Vec<Case> {
    let email = |extra: Value| {
        let mut body = json!({"target": "platform.email", "properties": {"to": "ops@example.com", "subject": "s"},
                              "conditions": [{"service": "object", "id": "NEVER", "action": "update"}]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let conditions: Vec<Value> = (0..21)
        .map(|i| json!({"service": "object", "id": format!("N{i}")}))
        .collect();
    let mut cases: Vec<Case> = [
        json!({}),
        email(json!({"target": 5})),
        email(json!({"target": "platform.fax"})),
        email(json!({"conditions": []})),
        email(json!({"conditions": conditions})),
        email(json!({"conditions": "object"})),
        email(json!({"conditions": [5]})),
        email(json!({"conditions": [{"service": "nope"}]})),
        email(json!({"conditions": [{"service": "object", "action": "explode"}]})),
        email(json!({"conditions": [{"service": "object", "source": "elsewhere"}]})),
        email(json!({"properties": "x"})),
        email(json!({"properties": {"to": "not an address", "subject": "s"}})),
        email(json!({"properties": {"to": "ops@example.com"}})),
        email(json!({"_id": "0123456789abcdef01234567"})),
        email(json!({"_id": 5})),
        email(json!({"target": "platform.script", "properties": {"script": "no-such-script"}})),
        email(json!({"target": "platform.validation"})),
        email(json!({"properties": {"to": "ops@example.com", "subject": "s", "@transformer": "no-such-script"}})),
    ]
    .into_iter()
    .map(|b| post("/automation/v1", b))
    .collect();
    let put = |path: String, body: Value| Case::new("PUT", path).json(body.to_string());
    cases.push(put(
        format!("/automation/v1/{automation}"),
        json!({"enabled": "yes"}),
    ));
    cases.push(put(format!("/automation/v1/{automation}"), json!({})));
    cases.push(put(
        "/automation/v1/0123456789abcdef01234567".into(),
        json!({"enabled": true}),
    ));
    cases.push(Case::new(
        "POST",
        format!("/automation/v1/{automation}/toggle"),
    ));
    cases.push(Case::new(
        "POST",
        "/automation/v1/0123456789abcdef01234567/enable",
    ));
    cases.push(Case::new(
        "DELETE",
        "/automation/v1/0123456789abcdef01234567",
    ));
    for query in ["_run=maybe", "_run=true&_delay=abc", "_run=true&_delay=-1"] {
        cases.push(Case::get(format!("/automation/v1/{automation}?{query}")));
    }
    cases.push(Case::get(
        "/automation/v1/0123456789abcdef01234567?_run=true",
    ));
    for query in [
        "from=garbage",
        "to=2024-13-01",
        "status=bogus",
        "_limit=abc",
        "_skip=-1",
    ] {
        cases.push(Case::get(format!("/automation/v1/log?{query}")));
    }
    for query in ["_limit=abc", "_skip=-1", "_limit=-5"] {
        cases.push(Case::get(format!("/automation/v1/mail?{query}")));
        cases.push(Case::get(format!("/automation/v1?{query}")));
        cases.push(Case::get(format!("/action/v1/public?{query}")));
    }
    cases.push(Case::get("/action/v1/private"));
    cases.push(Case::get("/action/v1/public/platform.nope"));
    cases.push(Case::get("/action/v1/private/platform.email"));
    cases
}

/// The standard query parameters with garbage, on every list that takes them.
fn query_cases() -> Vec<Case> {
    let deep_filter = format!("{}{{\"a\":1}}{}", "{\"$or\":[".repeat(40), "]}".repeat(40));
    let garbage: Vec<String> = vec![
        "_limit=-5".into(),
        "_limit=abc".into(),
        "_limit=1e99".into(),
        "_limit=99999999999999999999999".into(),
        "_limit=%00".into(),
        "_limit=%ff".into(),
        "_skip=-1".into(),
        "_skip=1e99".into(),
        "_skip=abc".into(),
        format!("_sort={}", enc("{\"name\":")),
        format!("_sort={}", enc("{\"name\":2}")),
        format!("_sort={}", enc("{\"name\":\"up\"}")),
        "_sort=".into(),
        "_sort=,".into(),
        "_sort=%22name%22".into(),
        "_filter=garbage".into(),
        format!("_filter={}", enc("{\"name\":{\"$bogus\":1}}")),
        format!("_filter={}", enc("[1]")),
        format!("_filter={}", enc("{\"$or\":5}")),
        format!("_filter={}", enc(&deep_filter)),
        format!("_project={}", enc("{\"a\":2}")),
        format!("_project={}", enc("{\"a\":")),
        "_function=bogus".into(),
        "_distinct=%22x".into(),
        "_searchinfo=a&_limit=abc".into(),
        "_search=%22unbalanced".into(),
        "_sort=%22%C3%A9%F0%9F%98%80%22".into(),
        "_bogus=1".into(),
        "_l%zzimit=5".into(),
        "_LIMIT=5".into(),
        "name=bogus(1)".into(),
        "name=range(1)".into(),
        "name=gt()".into(),
        "geolocation=within(sphere(garbage))".into(),
        "capacity=gt(abc)".into(),
    ];
    let lists = [
        "/object/v1/private",
        "/object/v1/public",
        "/object/v1/all",
        "/type/v1/private",
        "/script/v1/public",
        "/extension/v1/private",
        "/extension/v1/public",
        "/validationconfig/v1",
        "/validation/v1",
        "/data/v1/private",
    ];
    let mut cases = Vec::new();
    for list in lists {
        for query in &garbage {
            // Comparing text with a number field: private objects hold `capacity`.
            if query.starts_with("capacity")
                && !matches!(list, "/object/v1/private" | "/object/v1/all")
            {
                continue;
            }
            cases.push(Case::get(format!("{list}?{query}")));
        }
    }
    // Where a list reads data: `_range`, `_profile`.
    for list in ["/object/v1/private", "/object/v1/all"] {
        for query in [
            "_profile=S&_range=garbage",
            "_profile=&_range=last(1)",
            "_profile=S&_range=last(x)",
        ] {
            cases.push(Case::get(format!("{list}?{query}")));
        }
    }
    for query in [
        "_range=garbage",
        "_range=last(x)",
        "tenor=XYZ",
        "listTenors=maybe",
    ] {
        cases.push(Case::get(format!("/data/v1/private?{query}")));
    }
    // Item reads and the remaining parameters.
    for path in [
        format!("/object/v1/private/A1?_project={}", enc("{\"a\":2}")),
        format!("/object/v1/private/A1/1?_project={}", enc("{")),
        format!("/object/v1/all?_id=A1&_project={}", enc("{\"a\":")),
        "/object/v1/private?_id=A1".into(),
        "/object/v1/private/A1?_function=bogus".into(),
        "/object/v1/private/A1?_bogus=1".into(),
        "/object/v1/private?_distinct=".into(),
        "/object/v1/private/PWR?_profile=NOPE".into(),
        "/object/v1/private/PWR?_profile=S&_range=garbage".into(),
        "/object/v1/private?_profile=S&_range=garbage".into(),
        "/object/v1/private?_searchinfo=a&_limit=-5".into(),
        "/object/v1/private?_search=a&_skip=abc".into(),
        "/object/v1/private?%23type=%23NoSuchType&_limit=x".into(),
        "/data/v1/private?_id=PWR:S".into(),
        "/data/v1/all?_id=PWR:S&_range=garbage".into(),
        "/data/v1/private?_distinct=_objtype&_limit=abc".into(),
        "/data/v1/private/PWR:F:garbage".into(),
        "/data/v1/private/PWR:F:2024-02-30".into(),
        "/data/v1/private/PWR:F?tenor=M99999999".into(),
        format!("/data/v1/private/PWR:F?tenor=M{}", "9".repeat(5_000)),
        "/data/v1/private/PWR:F?tenor=XYZ".into(),
        "/data/v1/private/PWR:F?tenor=".into(),
        "/data/v1/private/PWR:F?listTenors=maybe".into(),
        "/data/v1/private/PWR:S?currency=XXX".into(),
        "/data/v1/private/PWR:S?units=bogus".into(),
        "/data/v1/private/PWR:S?units=MWh&__density=abc".into(),
        "/data/v1/private/PWR:NOPE".into(),
        "/data/v1/private/NOPE:S".into(),
        "/data/v1/public/PWR:S".into(),
    ] {
        cases.push(Case::get(path));
    }
    for range in [
        "garbage",
        "last(-1)",
        "last(abc)",
        "last(99999999999999999999)",
        "from(2024-13-01)",
        "from(garbage)",
        "between(2024-01-01)",
        "between(2024-01-01,2024-02-30)",
        "from(2024-01-01,Mars/Olympus_Mons)",
        "from(99999-01-01)",
        "between(2024-01-01,2024-02-01,UTC,extra)",
        "t-Dxh",
        "%00",
        "last(1",
    ] {
        cases.push(Case::get(format!("/data/v1/private/PWR:S?_range={range}")));
    }
    // Output formats.
    cases.push(Case::get("/object/v1/private/A1").header("accept", "image/png"));
    cases.push(Case::get("/object/v1/private").header("accept", "application/pdf"));
    cases.push(
        Case::get("/object/v1/private/A1?_template=no-such-template").header("accept", "text/html"),
    );
    cases.push(
        Case::get("/object/v1/private/A1")
            .header("accept", "text/html")
            .note("no _template"),
    );
    cases.push(Case::get("/data/v1/private/PWR:S").header("accept", "image/png"));
    cases
}

/// Paths no route has, or with ids and versions that cannot be.
fn path_cases() -> Vec<Case> {
    let long = "X".repeat(10_000);
    let mut cases: Vec<Case> = [
        "/object/v2/private".to_string(),
        "/object/v2/private/A1".into(),
        "/object/V1/private".into(),
        "/object/v1/Private".into(),
        "/object/v1/nowhere".into(),
        "/object/v1/nowhere/A1".into(),
        "/data/v2/private".into(),
        "/data/v2/private/PWR:S".into(),
        "/data/v1/nowhere".into(),
        "/secret/v2".into(),
        "/secret/v2/smtp".into(),
        "/extension/v2/public".into(),
        "/extension/v1/all".into(),
        "/extension/v1/all/default.tools".into(),
        "/validationconfig/v2".into(),
        "/validation/v2".into(),
        "/automation/v2".into(),
        "/action/v2/public".into(),
        "/type/v2/private".into(),
        "/script/v2/public".into(),
        "/nope".into(),
        "/nope/v1/private".into(),
        "/object/v1/private/A1/1/gold/extra".into(),
        "/object/v1/private/A1/1/gold/extra/more".into(),
        "/object/v1/public/A1".into(),
        "/object/v1/private/%23PUB".into(),
        "/object/v1/private/A1/0".into(),
        "/object/v1/private/A1/-1".into(),
        "/object/v1/private/A1/99".into(),
        "/object/v1/private/A1/99999999999999999999999".into(),
        "/object/v1/private/A1/1.5".into(),
        "/object/v1/private/A1/silver".into(),
        "/object/v1/private/NOPE/*".into(),
        "/object/v1/private/A%2FB".into(),
        "/object/v1/private/A1%2F1".into(),
        "/object/v1/private/A1%00".into(),
        "/object/v1/private/%ff%fe".into(),
        "/object/v1/private/%zz".into(),
        format!("/object/v1/private/{long}"),
        format!("/object/v1/private/{long}/*"),
        format!("/type/v1/private/{long}"),
        format!("/script/v1/public/%23{long}"),
        format!("/extension/v1/private/{long}"),
        format!("/data/v1/private/{long}:S"),
        format!("/secret/v1/{long}"),
        format!("/validationconfig/v1/{long}:S"),
        format!("/validation/v1/{long}:S:2024-07-01"),
        format!("/automation/v1/{long}"),
        format!("/action/v1/public/{long}"),
        "/secret/v1/nope".into(),
        "/object/v1/private/%C3%A9%F0%9F%98%80".into(),
        "/secret/v1/a%2Fb".into(),
        "/automation/v1/nope".into(),
        "/extension/v1/private/default.nope".into(),
        "/extension/v1/public/default.nope/1".into(),
    ]
    .into_iter()
    .map(Case::get)
    .collect();
    for (method, path) in [
        ("DELETE", format!("/object/v1/private/{long}")),
        ("DELETE", "/object/v1/private/NOPE".into()),
        ("DELETE", "/object/v1/private/A1/99".into()),
        ("DELETE", "/object/v1/private/A1/silver".into()),
        ("DELETE", "/object/v1/private/A1/-1".into()),
        ("DELETE", "/object/v1/all/A1".into()),
        ("DELETE", "/object/v1/nowhere/A1".into()),
        ("DELETE", format!("/secret/v1/{long}")),
        ("DELETE", "/secret/v1/nope".into()),
        ("DELETE", format!("/extension/v1/private/{long}")),
        ("DELETE", "/type/v1/private/NOPE/*".into()),
        ("PUT", "/object/v1/private/A1/1/123".into()),
        ("PUT", "/object/v1/private/A1/1/*".into()),
        ("PUT", "/object/v1/private/A1/1/%2A".into()),
        ("PUT", format!("/object/v1/private/A1/1/{}", "t".repeat(65))),
        ("PUT", format!("/object/v1/private/A1/1/{long}")),
        ("PUT", "/object/v1/private/A1/1/a%2Fb".into()),
        ("PUT", "/object/v1/private/A1/1/a%00b".into()),
        ("PUT", "/object/v1/private/A1/99/t".into()),
        ("PUT", "/object/v1/private/A1/silver/t".into()),
        ("PUT", "/object/v1/private/NOPE/1/t".into()),
        ("PUT", "/object/v1/all/A1/1/t".into()),
        ("PUT", "/object/v1/public/A1/1/t".into()),
        ("PUT", "/data/v1/private/PWR:S/1/t".into()),
    ] {
        cases.push(Case::new(method, path));
    }
    // Sent as they are: dot segments, bytes a client would encode.
    for path in [
        "/object/v1/private/../../../etc/passwd",
        "/object/v1/private/..",
        "/object/v1/private/.",
        "/object/v1/../v1/private/A1/1/gold/x/y",
        "/object/v1/private/%2e%2e/%2e%2e",
        "/object/v1/private/A1/..%2F..%2Fsecret",
        "/secret/v1/..",
        "//object/v1/private/A1/x/y/z",
        "/object//v1",
        "/%00",
        "/object/v1/private?_limit=%00",
        "/object/v1/private?_sort=%ff%00",
    ] {
        cases.push(Case::get(path).raw());
    }
    cases
}

/// Methods a path does not have.
fn method_cases(automation: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for (method, path) in [
        ("PATCH", "/object/v1".to_string()),
        ("DELETE", "/object/v1".into()),
        ("GET", "/object/v1".into()),
        ("PUT", "/object/v1/private".into()),
        ("DELETE", "/object/v1/private".into()),
        ("PATCH", "/object/v1/private".into()),
        ("PUT", "/object/v1/private/A1".into()),
        ("POST", "/object/v1/private/A1".into()),
        ("PATCH", "/object/v1/private/A1/1".into()),
        ("POST", "/object/v1/private/A1/1".into()),
        ("GET", "/object/v1/private/A1/1/gold".into()),
        ("DELETE", "/object/v1/private/A1/1/gold".into()),
        ("DELETE", "/object".into()),
        ("PUT", "/object".into()),
        ("POST", "/data/v1".into()),
        ("POST", "/data/v1/private".into()),
        ("DELETE", "/data/v1/private/PWR:S".into()),
        ("PUT", "/data/v1/private/PWR:S".into()),
        ("DELETE", "/secret/v1".into()),
        ("PUT", "/secret/v1".into()),
        ("PUT", "/secret/v1/smtp".into()),
        ("PATCH", "/secret/v1/smtp".into()),
        ("POST", "/secret/v1/smtp".into()),
        ("DELETE", "/validationconfig/v1".into()),
        ("PUT", "/validationconfig/v1/PWR:S".into()),
        ("POST", "/validationconfig/v1/PWR:S".into()),
        ("DELETE", "/validationconfig/v1/PWR:S/1".into()),
        ("DELETE", "/validation/v1".into()),
        ("PUT", "/validation/v1".into()),
        ("POST", "/validation/v1/PWR:S:2024-07-01".into()),
        ("DELETE", "/validation/v1/PWR:S:2024-07-01".into()),
        ("DELETE", "/automation/v1".into()),
        ("PATCH", format!("/automation/v1/{automation}")),
        ("POST", format!("/automation/v1/{automation}")),
        ("GET", format!("/automation/v1/{automation}/enable")),
        ("DELETE", "/automation/v1/log".into()),
        ("POST", "/automation/v1/mail".into()),
        ("DELETE", "/action/v1/public".into()),
        ("POST", "/action/v1/public/platform.email".into()),
        (
            "POST",
            "/extension/v1/private/default.tools/view/main".into(),
        ),
        ("DELETE", "/extension/v1/realtime".into()),
        (
            "POST",
            "/extension/v1/private/default.tools/messages".into(),
        ),
        ("OPTIONS", "/object/v1/private".into()),
        ("PATCH", "/type/v1/private/Plant".into()),
        ("PUT", "/script/v1/private/lib1".into()),
    ] {
        cases.push(Case::new(method, path));
    }
    cases.push(Case::new("FOO", "/object/v1/private").raw());
    cases
}

/// Credentials, environments and content types that are wrong.
fn header_cases(token: &str) -> Vec<Case> {
    let value = |v: &[u8]| Auth::Value(v.to_vec());
    let basic = |user_token: &str| {
        Auth::Value(format!("Basic {}", base64(user_token.as_bytes())).into_bytes())
    };
    let auths = vec![
        Auth::Without,
        value(b"garbage"),
        value(b"Bearer"),
        value(b"Bearer "),
        value(b"Bearer pt_0000"),
        value(format!("Bearer {token}x").as_bytes()),
        value(format!("Bearer {}", &token[..token.len() - 1]).as_bytes()),
        value(format!("Bearer {}", "a".repeat(10_000)).as_bytes()),
        value(format!("Token {token}").as_bytes()),
        value(b"Basic !!!not-base64"),
        value(b"Basic "),
        basic(&format!("intruder:{token}")),
        basic("admin:pt_wrong"),
        basic("admin"),
        basic(&format!(":{token}")),
        value(b"Digest username=\"admin\""),
    ];
    let mut cases = Vec::new();
    for auth in auths {
        cases.push(Case::get("/object/v1/private").auth(auth.clone()));
        cases.push(post("/object/v1", json!({"_id": "ATT-AUTH"})).auth(auth.clone()));
        cases.push(Case::get("/secret/v1/smtp").auth(auth));
    }
    for bytes in [b"Bearer \xff\xfe".as_slice(), b"Basic \xc3\xa9t\xc3\xa9"] {
        cases.push(Case::get("/object/v1/private").auth(value(bytes)).raw());
    }
    let environments: Vec<Vec<u8>> = vec![
        b"nope".to_vec(),
        b"production2".to_vec(),
        "e".repeat(16_000).into_bytes(),
        b"../production".to_vec(),
        b"a b".to_vec(),
        b"".to_vec(),
    ];
    for env in environments {
        cases.push(Case::get("/object/v1/private").header("x-platform-environment", env.clone()));
        cases.push(
            post("/object/v1", json!({"_id": "ATT-ENV"})).header("x-platform-environment", env),
        );
    }
    cases.push(
        Case::get("/object/v1/private")
            .header("x-platform-environment", b"\xff\xfeprod".to_vec())
            .raw(),
    );
    // A body in another format than the one a route reads.
    for (content_type, body) in [
        (
            "application/x-www-form-urlencoded",
            b"_id=ATT-FORM&name=x".to_vec(),
        ),
        (
            "application/xml",
            b"<object><_id>ATT-XML</_id></object>".to_vec(),
        ),
        ("text/csv", b"_id,name\nATT-CSV,x\n".to_vec()),
        (
            "multipart/form-data; boundary=x",
            b"--x\r\nContent-Disposition: form-data; name=\"_id\"\r\n\r\nATT-MP\r\n--x--\r\n"
                .to_vec(),
        ),
        ("application/octet-stream", b"\x00\x01\x02".to_vec()),
    ] {
        for path in [
            "/object/v1",
            "/secret/v1",
            "/validation/v1?_function=run",
            "/automation/v1",
        ] {
            cases.push(Case::new("POST", path).body_as(content_type, body.clone()));
        }
    }
    // A GET's query in a form body: the same rules as in the URL.
    let deep = format!(
        "_filter={}",
        enc(&format!(
            "{}1{}",
            "{\"a\":".repeat(100_000),
            "}".repeat(100_000)
        ))
    );
    for body in [
        b"_limit=abc".to_vec(),
        b"_limit=\xff".to_vec(),
        b"%zz=1&_bogus=1".to_vec(),
        b"_sort=%7B".to_vec(),
        deep.into_bytes(),
    ] {
        for path in [
            "/object/v1/private",
            "/validationconfig/v1",
            "/data/v1/private",
        ] {
            cases.push(Case::get(path).body_as("application/x-www-form-urlencoded", body.clone()));
        }
    }
    cases
}

#[test]
fn the_bad_input_corpus_is_refused_with_the_error_envelope_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("attacked.db"));
    let client = Client::new(&server.url, &server.admin_token);
    let automation = seed(&client);
    let before = snapshot(&client);
    assert!(before.len() > 20, "the snapshot reads every list");

    let mut cases = Vec::new();
    for (method, path) in write_routes(&automation) {
        for (what, body) in malformed_bodies() {
            cases.push(Case::new(method, path.clone()).json(body).note(what));
        }
    }
    cases.extend(object_cases());
    cases.extend(secret_cases());
    cases.extend(extension_cases());
    cases.extend(config_cases());
    cases.extend(function_cases());
    cases.extend(automation_cases(&automation));
    cases.extend(query_cases());
    cases.extend(path_cases());
    cases.extend(method_cases(&automation));
    cases.extend(header_cases(&server.admin_token));

    let started = Instant::now();
    let mut failures = Vec::new();
    let mut server_errors = 0;
    for case in &cases {
        match client.send(case) {
            Ok(answer) => {
                if answer.status >= 500 {
                    server_errors += 1;
                }
                if let Err(why) = judge(&answer) {
                    failures.push(format!("{}: {why}", case.name));
                }
            }
            Err(why) => failures.push(format!("{}: {why}", case.name)),
        }
    }
    eprintln!(
        "bad-input corpus: {} cases in {:?}, {} answered 5xx, {} failed",
        cases.len(),
        started.elapsed(),
        server_errors,
        failures.len()
    );
    let after = snapshot(&client);
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| {
            format!(
                "{k}: {} -> {}",
                shorten(&before.get(k).map(Value::to_string).unwrap_or_default()),
                shorten(&after.get(k).map(Value::to_string).unwrap_or_default())
            )
        })
        .collect();
    assert!(cases.len() >= 300, "{} cases", cases.len());
    assert!(
        failures.is_empty() && changed.is_empty(),
        "{} failed:\n{}\n{} changed:\n{}",
        failures.len(),
        failures.join("\n"),
        changed.len(),
        changed.join("\n")
    );
    assert_eq!(server_errors, 0);
}

/// A small xorshift generator: the moments of the kills, reproducible from the printed seed
/// (`PLATFORM_ATTACK_SEED`).
struct Rng(u64);

impl Rng {
    fn seeded() -> (Rng, u64) {
        let seed = std::env::var("PLATFORM_ATTACK_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
            });
        (Rng(seed | 1), seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A write the server acknowledged with 200: object `id` at `version` holds `n`, and its
/// series `S` holds `n` at `time`.
#[derive(Debug, Clone)]
struct Acked {
    id: String,
    version: u64,
    n: u64,
    time: String,
}

/// The objects of one writer; every fifth write saves two of them in one array POST.
fn objects_of(writer: usize) -> Vec<String> {
    (0..4).map(|k| format!("W{writer}-{k}")).collect()
}

fn write_body(id: &str, n: u64) -> (Value, String) {
    // Two writers never share an object, so `n` (unique per writer) names one point.
    let time = chrono_like(1_704_067_200 + i64::try_from(n).unwrap() * 60);
    let body = json!({"_id": id, "n": n, "S": {"_type": "VarTimeSeries", "data": [{"time": time, "value": n}]}});
    (body, time)
}

/// Writes until the server stops answering; returns what it acknowledged and the next `n`.
fn load(
    url: &str,
    token: &str,
    writer: usize,
    mut n: u64,
    progress: &AtomicUsize,
) -> (Vec<Acked>, u64) {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(5))
        .build();
    let objects = objects_of(writer);
    let mut acked = Vec::new();
    loop {
        let pair = n % 5 == 4;
        let sent: Vec<(Value, String)> = if pair {
            vec![write_body(&objects[0], n), write_body(&objects[1], n + 1)]
        } else {
            vec![write_body(&objects[(n % 4) as usize], n)]
        };
        let ns: Vec<u64> = (n..n + sent.len() as u64).collect();
        n += sent.len() as u64;
        let body = if pair {
            Value::Array(sent.iter().map(|(b, _)| b.clone()).collect())
        } else {
            sent[0].0.clone()
        };
        let answer = match agent
            .post(&format!("{url}/object/v1"))
            .set("Authorization", &format!("Bearer {token}"))
            .send_json(body)
        {
            Ok(res) => match res.into_json::<Value>() {
                Ok(v) => v,
                // Killed while answering: not acknowledged.
                Err(_) => return (acked, n),
            },
            Err(ureq::Error::Status(code, res)) => {
                panic!("a write was refused: {code} {:?}", res.into_string())
            }
            Err(_) => return (acked, n),
        };
        let saved = match answer {
            Value::Array(items) => items,
            one => vec![one],
        };
        assert_eq!(saved.len(), sent.len(), "{saved:?}");
        for ((saved, (body, time)), n) in saved.iter().zip(&sent).zip(ns) {
            assert_eq!(saved["_id"], body["_id"]);
            acked.push(Acked {
                id: body["_id"].as_str().unwrap().to_string(),
                version: saved["_version"].as_u64().expect("a version"),
                n,
                time: time.clone(),
            });
        }
        progress.fetch_add(1, Ordering::Relaxed);
    }
}

/// Every acknowledged write is there as it was acknowledged: the version list has its version,
/// the series holds its point, and its version holds its `n` (read for the writes from
/// `fresh` on, those acknowledged since the last restart; the last round reads them all).
fn verify(client: &Client, acked: &[Acked], fresh: usize) -> usize {
    let mut reads = 0;
    let mut by_object: BTreeMap<&str, Vec<(usize, &Acked)>> = BTreeMap::new();
    for (i, a) in acked.iter().enumerate() {
        by_object.entry(&a.id).or_default().push((i, a));
    }
    for (id, writes) in by_object {
        let versions: Vec<u64> = read(client, &format!("/object/v1/private/{id}/*"))
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["_version"].as_u64().unwrap())
            .collect();
        let series = read(client, &format!("/data/v1/private/{id}:S"));
        let points: BTreeMap<String, f64> = series["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["time"].as_str().unwrap().to_string(),
                    p["value"].as_f64().unwrap(),
                )
            })
            .collect();
        reads += 2;
        for &(i, w) in &writes {
            assert!(
                versions.contains(&w.version),
                "{id}: version {} of {w:?} lost ({versions:?})",
                w.version
            );
            assert_eq!(
                points.get(&w.time),
                Some(&(w.n as f64)),
                "{id}: the point of {w:?} lost"
            );
            if i >= fresh {
                let doc = read(client, &format!("/object/v1/private/{id}/{}", w.version));
                assert_eq!(doc["n"], w.n, "{id} version {}: {doc}", w.version);
                reads += 1;
            }
        }
    }
    reads
}

#[test]
fn a_server_killed_under_write_load_keeps_every_acknowledged_write() {
    const ROUNDS: usize = 5;
    const WRITERS: usize = 3;
    let (mut rng, seed) = Rng::seeded();
    eprintln!("kill -9 durability: seed {seed} (PLATFORM_ATTACK_SEED)");
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("killed.db");
    let mut server = Server::start(&db);
    let token = server.admin_token.clone();
    let mut acked: Vec<Acked> = Vec::new();
    let mut next: Vec<u64> = (0..WRITERS).map(|w| w as u64 * 1_000_000).collect();
    for round in 0..ROUNDS {
        let url = server.url.clone();
        let progress = Arc::new(AtomicUsize::new(0));
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (url, token, n, progress) =
                    (url.clone(), token.clone(), next[w], progress.clone());
                std::thread::spawn(move || load(&url, &token, w, n, &progress))
            })
            .collect();
        // Under load (the writers are acknowledged), then at a random moment.
        let waiting = Instant::now();
        while progress.load(Ordering::Relaxed) < 10 {
            assert!(
                waiting.elapsed() < Duration::from_secs(30),
                "round {round}: the writers made no progress"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let after = Duration::from_millis(rng.below(1200));
        std::thread::sleep(after);
        // SIGKILL: no shutdown, no flush, no checkpoint.
        server.child.kill().unwrap();
        server.child.wait().unwrap();
        let before = acked.len();
        for (w, writer) in writers.into_iter().enumerate() {
            let (mine, n) = writer.join().unwrap();
            acked.extend(mine);
            next[w] = n;
        }
        let new = acked.len() - before;
        assert!(new >= 10, "round {round}: {new} writes acknowledged");
        // The database opens as it is (no second admin), and every acknowledged write is there.
        server = Server::start_existing(&db);
        let client = Client::new(&server.url, &token);
        let fresh = if round + 1 == ROUNDS { 0 } else { before };
        let reads = verify(&client, &acked, fresh);
        eprintln!(
            "round {round}: killed {after:?} into the load, {new} writes acknowledged ({} in all), {reads} reads verified them",
            acked.len()
        );
        // The restarted server serves: a write after the restart is read back.
        let (body, _) = write_body("AFTER", round as u64);
        let saved = write(&client, "POST", "/object/v1", body);
        assert_eq!(read(&client, "/object/v1/private/AFTER")["n"], saved["n"]);
    }
    assert_eq!(
        server.stop().code(),
        Some(0),
        "a clean stop after the last restart"
    );
    eprintln!(
        "kill -9 durability: {ROUNDS} kills, {} acknowledged writes kept, in {:?}",
        acked.len(),
        started.elapsed()
    );
}
