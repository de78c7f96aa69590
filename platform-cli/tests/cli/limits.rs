//! The real server under clients that stall or send too much: bodies that never arrive (from
//! unauthenticated and authenticated clients), a thousand stalled connections at once, and
//! URLs past the limit, even past what the HTTP parser can read.

use crate::Server;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn addr(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_string()
}

/// An answer read off a socket: status, headers (lower-case names), body, and how long the
/// first byte took.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    first_byte: Duration,
    closed: bool,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Asserts the JSON error envelope and `x-platform-error`, and returns the message.
    #[track_caller]
    fn assert_error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "{}", self.body);
        let body: Value = serde_json::from_str(&self.body).expect(&self.body);
        assert_eq!(body["error"]["status"], status, "{body}");
        assert_eq!(body["error"]["code"], code, "{body}");
        let message = body["error"]["message"].as_str().unwrap().to_string();
        let header = self.header("x-platform-error").expect("x-platform-error");
        assert_eq!(header, format!("[{code}] {message}"));
        assert!(header.len() < 1024, "{header}");
        message
    }
}

/// Reads one answer from `stream` (until it is whole, the server closes, or `wait` passes).
fn read_answer(stream: &mut TcpStream, started: Instant, wait: Duration) -> Answer {
    let (bytes, first_byte, closed) =
        read_until(stream, started, wait, |b| split_answer(b).is_some());
    let (mut answer, _) = split_answer(&bytes).unwrap_or_else(|| (parse(&bytes), 0));
    answer.first_byte = first_byte;
    answer.closed = closed;
    answer
}

/// Reads until `done` says so, the server closes, or `wait` passes: the bytes, when the first
/// came, and whether the server closed.
fn read_until(
    stream: &mut TcpStream,
    started: Instant,
    wait: Duration,
    done: impl Fn(&[u8]) -> bool,
) -> (Vec<u8>, Duration, bool) {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut bytes = Vec::new();
    let mut first_byte = None;
    let mut buf = [0u8; 65536];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return (bytes, first_byte.unwrap_or(started.elapsed()), true),
            Ok(n) => {
                first_byte.get_or_insert_with(|| started.elapsed());
                bytes.extend_from_slice(&buf[..n]);
                if done(&bytes) {
                    return (bytes, first_byte.unwrap_or(started.elapsed()), false);
                }
            }
            Err(_) => return (bytes, first_byte.unwrap_or(started.elapsed()), false),
        }
    }
}

/// The first whole answer (with a Content-Length body) in `bytes`, and where it ends.
fn split_answer(bytes: &[u8]) -> Option<(Answer, usize)> {
    let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&bytes[..head_end]);
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())?;
    let end = head_end + length;
    (bytes.len() >= end).then(|| (parse(&bytes[..end]), end))
}

fn parse(bytes: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
        first_byte: Duration::ZERO,
        closed: false,
    }
}

/// Sends `request` on a new connection and reads the answer until the server closes.
fn exchange(server: &Server, request: &[u8], wait: Duration) -> Answer {
    let mut stream = TcpStream::connect(addr(server)).unwrap();
    let started = Instant::now();
    stream.write_all(request).unwrap();
    let mut answer = read_answer(&mut stream, started, wait);
    if !answer.closed {
        // Wait for the close after the answer.
        let mut rest = [0u8; 1024];
        stream.set_read_timeout(Some(wait)).unwrap();
        answer.closed = matches!(stream.read(&mut rest), Ok(0));
    }
    answer
}

/// A POST announcing 100 bytes and sending 1.
fn stalled_post(auth: Option<&str>) -> Vec<u8> {
    let auth = auth
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    format!("POST /object/v1 HTTP/1.1\r\nHost: x\r\n{auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{")
        .into_bytes()
}

fn objects(server: &Server) -> Value {
    crate::get(&server.url, &server.admin_token, "/object/v1/private").unwrap()
}

#[test]
fn stalled_bodies_do_not_hold_the_server() {
    // The test's own sockets: raise its limit of open files as the server does.
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    assert!(
        limit >= 1200,
        "this test needs 1,200 open files, the limit is {limit}"
    );
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(&dir.path().join("p.db"), &[("PLATFORM_BODY_TIMEOUT", "1")]);

    // A thousand unauthenticated clients announce a body and stall after one byte.
    let mut stalled = Vec::new();
    for _ in 0..1000 {
        let mut s = TcpStream::connect(addr(&server)).unwrap();
        s.write_all(&stalled_post(None)).unwrap();
        stalled.push(s);
    }
    // Meanwhile an authenticated client is served at once.
    let started = Instant::now();
    let list = objects(&server);
    let latency = started.elapsed();
    assert_eq!(list, Value::Array(vec![]));
    assert!(latency < Duration::from_secs(1), "served in {latency:?}");

    // Each stalled one got its 401 without the server waiting for the body, and was closed.
    for s in &mut stalled {
        let answer = read_answer(s, Instant::now(), Duration::from_secs(10));
        answer.assert_error(401, "NOT_AUTHENTICATED");
        assert_eq!(answer.header("connection"), Some("close"));
    }
    drop(stalled);

    // One more, timed: the 401 comes at once and the connection is closed.
    let answer = exchange(&server, &stalled_post(None), Duration::from_secs(10));
    answer.assert_error(401, "NOT_AUTHENTICATED");
    assert!(
        answer.first_byte < Duration::from_millis(500),
        "{:?}",
        answer.first_byte
    );
    assert!(answer.closed);

    // An authenticated client that stalls gets 408 after the body time limit (1 s here).
    let answer = exchange(
        &server,
        &stalled_post(Some(&server.admin_token)),
        Duration::from_secs(10),
    );
    let message = answer.assert_error(408, "REQUEST_TIMEOUT");
    assert!(message.contains("within 1 seconds"), "{message}");
    assert!(
        answer.first_byte >= Duration::from_millis(900)
            && answer.first_byte < Duration::from_secs(3),
        "{:?}",
        answer.first_byte
    );
    assert!(answer.closed);

    // A chunked body that never ends is answered, and its connection closed by the server
    // (after twice the body time limit) even though nothing reads the body.
    let chunked =
        "POST /object/v1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab";
    let started = Instant::now();
    let answer = exchange(&server, chunked.as_bytes(), Duration::from_secs(10));
    answer.assert_error(401, "NOT_AUTHENTICATED");
    assert!(answer.closed, "the server closes the connection");
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );

    // Nothing was stored, and the server still serves.
    assert_eq!(objects(&server), Value::Array(vec![]));
}

#[test]
fn urls_over_the_limit_get_the_error_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("p.db"));
    let token = server.admin_token.clone();
    let get = |target: &str| {
        format!("GET {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n")
            .into_bytes()
    };
    // 20 KB (parsed by actix-http, refused by the server's limit), 100 KB (past what the HTTP
    // parser reads: 64 KiB) and 200 KB (past its 128 KiB head buffer).
    for size in [20_000, 100_000, 200_000] {
        let target = format!("/object/v1/private?name={}", "n".repeat(size));
        let answer = exchange(&server, &get(&target), Duration::from_secs(10));
        let message = answer.assert_error(414, "URI_TOO_LONG");
        assert!(
            message.contains("\"/object/v1/private?name=nnn") && message.contains("16384 bytes"),
            "{message}"
        );
        assert!(answer.closed);
    }
    // Under the limit, a long URL is served; on a kept-alive connection a later long one is
    // refused after the first is answered.
    let fits = format!("/object/v1/private?name={}", "n".repeat(16_000));
    let long = format!("/object/v1/private?name={}", "n".repeat(100_000));
    let mut stream = TcpStream::connect(addr(&server)).unwrap();
    let started = Instant::now();
    stream.write_all(&get(&fits)).unwrap();
    stream.write_all(&get(&long)).unwrap();
    let (bytes, _, closed) = read_until(&mut stream, started, Duration::from_secs(10), |_| false);
    let (first, end) = split_answer(&bytes).expect("two answers");
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(first.body, "[]");
    let (second, _) = split_answer(&bytes[end..]).expect("a second answer");
    second.assert_error(414, "URI_TOO_LONG");
    assert!(closed);
    assert_eq!(objects(&server), Value::Array(vec![]));
}
