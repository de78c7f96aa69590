//! The connection layer under actix-http: each accepted TCP stream is wrapped in a [`Guarded`]
//! stream that follows HTTP/1.1 framing (request lines, heads, Content-Length and chunked
//! bodies) to do what actix-http cannot be configured to do:
//!
//! - **Long URLs.** actix-http answers a request target of 64 KiB or more (the `http` crate's
//!   limit) with an empty 400, and a head past its 128 KiB buffer with an empty 431, before any
//!   application code runs. The guard holds back each request line until it ends; a line whose
//!   origin-form target passes the URL limit is replaced by a request for the first `max_url + 1`
//!   bytes of that target, with `connection: close`, which the application's URL check answers
//!   414 with the error envelope ([`crate::request::check_url`]). The rest of that request is
//!   read and thrown away, so the client gets the answer rather than a reset.
//! - **Bodies that never end.** A request body must arrive in full within `body_limit` of its
//!   head, else the connection is closed. The application reads bodies with a shorter limit
//!   (and answers 408); this bounds the bodies it does not read, which actix-http otherwise
//!   drains (chunked ones) for as long as the client keeps the connection.
//!
//! Bytes pass unchanged otherwise. A stream the guard does not understand (an upgrade, framing
//! it cannot follow) is passed through untouched from there on; actix-http judges it.

use actix_rt::time::{sleep_until, Instant, Sleep};
use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The limits a [`Guarded`] stream enforces.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest request target, in bytes.
    pub max_url: usize,
    /// Longest time from the end of a request head to the end of its body.
    pub body_limit: Duration,
}

/// How long a connection whose long URL was answered waits for the client to close, reading
/// and discarding what it sends, before closing itself.
const LINGER: Duration = Duration::from_secs(1);

/// Longest method (with its space) the guard waits for before it gives up following a stream.
const MAX_METHOD: usize = 32;
/// Longest head whose header lines the guard keeps to learn the body's framing.
const MAX_HEAD: usize = 128 * 1024;

/// Where the request stream stands.
#[derive(Debug)]
enum Phase {
    /// Reading a request line, held back until it ends.
    Line(Line),
    /// Reading a head's header lines (kept to learn the body's framing).
    Headers(Vec<u8>),
    /// A Content-Length body with this many bytes to come.
    Body(u64),
    /// A chunked body.
    Chunked(Chunk),
    /// No longer followed: bytes pass as they come.
    Off,
    /// A long URL was answered: what the client sends is discarded.
    Cut,
}

/// A request line being read.
#[derive(Debug, Default)]
struct Line {
    bytes: Vec<u8>,
    /// Where the space after the method is.
    space: Option<usize>,
    /// The target's length, once a space or CR ended it.
    target: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
enum Chunk {
    /// A chunk-size line: the size so far, and whether an extension started.
    Size { size: u64, ext: bool },
    /// Chunk data with this many bytes to come.
    Data(u64),
    /// The CR LF after chunk data (`true` once the CR was seen).
    DataEnd(bool),
    /// Trailer lines: the length of the current one.
    Trailer(usize),
}

/// What following some bytes decided.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// Pass these bytes.
    Pass,
    /// The request line with this target is too long: answer it.
    TooLong { method: Vec<u8>, target: Vec<u8> },
}

/// What one byte of a request line decided.
enum LineStep {
    /// The line goes on (held back).
    More,
    /// A blank line between requests: passed, and a new line begins.
    Blank,
    /// The line ended: passed, its header lines follow.
    Ended,
    /// Not a request line the guard follows (passed as it is).
    Off,
    /// The target is too long: answer it.
    TooLong(Step),
}

impl Line {
    /// Takes one byte of the line; a line that ends or is given up is appended to `out`.
    fn push(&mut self, b: u8, max_url: usize, out: &mut Vec<u8>) -> LineStep {
        self.bytes.push(b);
        let len = self.bytes.len();
        if b == b'\n' {
            let blank = self.bytes.iter().all(|c| *c == b'\r' || *c == b'\n');
            out.append(&mut self.bytes);
            return if blank {
                LineStep::Blank
            } else {
                LineStep::Ended
            };
        }
        let Some(space) = self.space else {
            if b == b' ' {
                self.space = Some(len - 1);
            } else if len > MAX_METHOD {
                out.append(&mut self.bytes);
                return LineStep::Off;
            }
            return LineStep::More;
        };
        if self.target.is_none() && (b == b' ' || b == b'\r') {
            self.target = Some(len - 1 - (space + 1));
        }
        let target = self.target.unwrap_or(len - (space + 1));
        let origin_form = self.bytes.get(space + 1) == Some(&b'/');
        if target > max_url && origin_form {
            return LineStep::TooLong(Step::TooLong {
                method: self.bytes[..space].to_vec(),
                target: self.bytes[space + 1..space + 2 + max_url].to_vec(),
            });
        }
        if target > max_url || len > space + 1 + target + MAX_METHOD {
            // Not an origin-form target, or a line that does not end.
            out.append(&mut self.bytes);
            return LineStep::Off;
        }
        LineStep::More
    }
}

/// What the bytes of a head's header lines decided.
enum HeadStep {
    /// The head goes on.
    More,
    /// The head is too long to keep: no longer followed.
    Off,
    /// The head ended (a blank line): the whole head.
    Ended(Vec<u8>),
}

/// Takes the bytes of `rest` up to the end of a line (a head can only end at a line end),
/// passing them to `out` and keeping them in `head`; how many were taken, and what they
/// decided.
fn head_lines(head: &mut Vec<u8>, rest: &[u8], out: &mut Vec<u8>) -> (usize, HeadStep) {
    let n = rest
        .iter()
        .position(|&b| b == b'\n')
        .map_or(rest.len(), |at| at + 1);
    let piece = &rest[..n];
    out.extend_from_slice(piece);
    if head.len() + n > MAX_HEAD {
        return (n, HeadStep::Off);
    }
    head.extend_from_slice(piece);
    if piece.last() != Some(&b'\n') {
        return (n, HeadStep::More);
    }
    let ended =
        head.ends_with(b"\n\r\n") || head.ends_with(b"\n\n") || head == b"\r\n" || head == b"\n";
    if ended {
        (n, HeadStep::Ended(std::mem::take(head)))
    } else {
        (n, HeadStep::More)
    }
}

/// What the bytes of a chunked body decided.
enum ChunkStep {
    /// The body goes on.
    More,
    /// Not a chunked body the guard can follow.
    Off,
    /// The body (its last trailer line) ended.
    End,
}

impl Chunk {
    /// Takes the bytes of `rest` it can (a run of chunk data, or one byte of framing), passing
    /// them to `out`; how many were taken, and what they decided.
    fn follow(&mut self, rest: &[u8], out: &mut Vec<u8>) -> (usize, ChunkStep) {
        let b = rest[0];
        let mut step = ChunkStep::More;
        match self {
            Chunk::Data(remaining) => {
                let n = (*remaining).min(rest.len() as u64) as usize;
                out.extend_from_slice(&rest[..n]);
                *remaining -= n as u64;
                if *remaining == 0 {
                    *self = Chunk::DataEnd(false);
                }
                return (n, ChunkStep::More);
            }
            Chunk::Size { size, ext } => match b {
                b'\n' if *size == 0 => *self = Chunk::Trailer(0),
                b'\n' => *self = Chunk::Data(*size),
                b'\r' => {}
                _ if *ext => {}
                b';' | b' ' | b'\t' => *ext = true,
                _ => match (b as char).to_digit(16) {
                    Some(d) if *size < (1 << 56) => *size = *size * 16 + u64::from(d),
                    _ => step = ChunkStep::Off,
                },
            },
            Chunk::DataEnd(cr) => match b {
                b'\r' if !*cr => *cr = true,
                b'\n' => {
                    *self = Chunk::Size {
                        size: 0,
                        ext: false,
                    }
                }
                _ => step = ChunkStep::Off,
            },
            Chunk::Trailer(len) => match b {
                b'\n' if *len == 0 => step = ChunkStep::End,
                b'\n' => *len = 0,
                b'\r' => {}
                _ => *len += 1,
            },
        }
        out.push(b);
        (1, step)
    }
}

/// Follows HTTP/1.1 framing over the bytes a client sends.
#[derive(Debug)]
struct Tracker {
    phase: Phase,
    max_url: usize,
    /// Whether a body is being received (its time limit runs).
    in_body: bool,
    /// How many bodies have started (a new one gets a new time limit).
    bodies: u64,
}

impl Tracker {
    fn new(max_url: usize) -> Tracker {
        Tracker {
            phase: Phase::Line(Line::default()),
            max_url,
            in_body: false,
            bodies: 0,
        }
    }

    /// Follows `input`, appending what may pass to `out`.
    fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Step {
        let mut i = 0;
        while i < input.len() {
            let rest = &input[i..];
            match &mut self.phase {
                Phase::Off => {
                    out.extend_from_slice(rest);
                    return Step::Pass;
                }
                Phase::Cut => return Step::Pass,
                Phase::Body(remaining) => {
                    let n = (*remaining).min(rest.len() as u64) as usize;
                    out.extend_from_slice(&rest[..n]);
                    *remaining -= n as u64;
                    i += n;
                    if *remaining == 0 {
                        self.next_request();
                    }
                }
                Phase::Line(line) => {
                    i += 1;
                    match line.push(rest[0], self.max_url, out) {
                        LineStep::More => {}
                        LineStep::Blank => *line = Line::default(),
                        LineStep::Ended => self.phase = Phase::Headers(Vec::new()),
                        LineStep::Off => self.phase = Phase::Off,
                        LineStep::TooLong(step) => {
                            self.phase = Phase::Cut;
                            return step;
                        }
                    }
                }
                Phase::Headers(head) => {
                    let (n, ended) = head_lines(head, rest, out);
                    i += n;
                    match ended {
                        HeadStep::More => {}
                        HeadStep::Off => self.phase = Phase::Off,
                        HeadStep::Ended(head) => self.start_body(&head),
                    }
                }
                Phase::Chunked(chunk) => {
                    let (n, step) = chunk.follow(rest, out);
                    i += n;
                    match step {
                        ChunkStep::More => {}
                        ChunkStep::Off => self.phase = Phase::Off,
                        ChunkStep::End => self.next_request(),
                    }
                }
            }
        }
        Step::Pass
    }

    /// After a head: its body's framing, and a new time limit for a body that has bytes.
    fn start_body(&mut self, head: &[u8]) {
        self.phase = framing(head);
        match self.phase {
            Phase::Body(0) => self.next_request(),
            Phase::Body(_) | Phase::Chunked(_) => {
                self.in_body = true;
                self.bodies += 1;
            }
            _ => {}
        }
    }

    fn next_request(&mut self) {
        self.phase = Phase::Line(Line::default());
        self.in_body = false;
    }

    /// Bytes held back (a request line not yet ended), released when the client closes.
    fn held(&mut self) -> Vec<u8> {
        match &mut self.phase {
            Phase::Line(line) => std::mem::take(&mut line.bytes),
            _ => Vec::new(),
        }
    }
}

/// The body framing a request head announces.
fn framing(head: &[u8]) -> Phase {
    let text = String::from_utf8_lossy(head);
    let mut length = None;
    let mut chunked = false;
    for line in text.split('\n') {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-length") {
            match (length, value.parse::<u64>()) {
                (None, Ok(n)) => length = Some(n),
                _ => return Phase::Off,
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value
                .rsplit(',')
                .next()
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("chunked"));
            if !chunked {
                return Phase::Off;
            }
        } else if name.eq_ignore_ascii_case("upgrade") {
            return Phase::Off;
        }
    }
    match (chunked, length) {
        (true, None) => Phase::Chunked(Chunk::Size {
            size: 0,
            ext: false,
        }),
        (false, Some(n)) => Phase::Body(n),
        (false, None) => Phase::Body(0),
        (true, Some(_)) => Phase::Off,
    }
}

/// A client connection under the guard (see the module documentation).
pub struct Guarded<T> {
    io: T,
    limits: Limits,
    tracker: Tracker,
    /// Bytes that may pass, not yet handed on, from `start`.
    ready: Vec<u8>,
    start: usize,
    scratch: Box<[u8]>,
    /// The end of the current body's time limit, and which body it is for.
    deadline: Option<(u64, Pin<Box<Sleep>>)>,
    /// When a cut connection stops waiting for the client to close.
    linger: Option<Pin<Box<Sleep>>>,
    /// Whether the client's side has ended (or is no longer read).
    eof: bool,
    /// Whether the writing side was shut down.
    shut: bool,
}

impl<T> Guarded<T> {
    /// Guards `io` with `limits`.
    pub fn new(io: T, limits: Limits) -> Guarded<T> {
        Guarded {
            io,
            limits,
            tracker: Tracker::new(limits.max_url),
            ready: Vec::new(),
            start: 0,
            scratch: vec![0; 16 * 1024].into_boxed_slice(),
            deadline: None,
            linger: None,
            eof: false,
            shut: false,
        }
    }
}

impl<T: AsyncRead + Unpin> Guarded<T> {
    /// Reads from the client into `scratch`: the number of bytes, 0 at its end.
    fn read_some(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let mut rb = ReadBuf::new(&mut self.scratch);
        ready!(Pin::new(&mut self.io).poll_read(cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }

    /// Throws away what the client sends until it closes; ready at its end.
    fn discard(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if ready!(self.read_some(cx))? == 0 {
                return Poll::Ready(Ok(()));
            }
        }
    }

    /// Starts the time limit of a body that just started.
    fn arm(&mut self) {
        let tracker = &self.tracker;
        if !tracker.in_body {
            self.deadline = None;
        } else if self
            .deadline
            .as_ref()
            .is_none_or(|(n, _)| *n != tracker.bodies)
        {
            let end = Instant::now() + self.limits.body_limit;
            self.deadline = Some((tracker.bodies, Box::pin(sleep_until(end))));
        }
    }

    /// Fails once the current body's time limit has passed (and wakes the reader then).
    fn check_deadline(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if let Some((_, timer)) = &mut self.deadline {
            if timer.as_mut().poll(cx).is_ready() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the request body did not arrive within {} seconds",
                        self.limits.body_limit.as_secs_f64()
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Guarded<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.start < this.ready.len() {
                let n = (this.ready.len() - this.start).min(buf.remaining());
                buf.put_slice(&this.ready[this.start..this.start + n]);
                this.start += n;
                if this.start == this.ready.len() {
                    this.ready.clear();
                    this.start = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            if matches!(this.tracker.phase, Phase::Cut) {
                // The answer to a long URL is on its way; the rest of the request is discarded.
                ready!(this.discard(cx))?;
                this.eof = true;
                continue;
            }
            // A Content-Length body that fills the caller's buffer passes without a copy.
            if let Phase::Body(remaining) = this.tracker.phase {
                if remaining >= buf.remaining() as u64 {
                    let before = buf.filled().len();
                    match Pin::new(&mut this.io).poll_read(cx, buf) {
                        Poll::Pending => {
                            this.check_deadline(cx)?;
                            return Poll::Pending;
                        }
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Ready(Ok(())) => {
                            let n = buf.filled().len() - before;
                            if n == 0 {
                                this.eof = true;
                            } else {
                                this.tracker.phase = Phase::Body(remaining - n as u64);
                                if remaining == n as u64 {
                                    this.tracker.next_request();
                                    this.arm();
                                }
                            }
                            return Poll::Ready(Ok(()));
                        }
                    }
                }
            }
            let n = match this.read_some(cx) {
                Poll::Pending => {
                    this.check_deadline(cx)?;
                    return Poll::Pending;
                }
                Poll::Ready(r) => r?,
            };
            if n == 0 {
                this.ready = this.tracker.held();
                this.start = 0;
                this.eof = true;
                continue;
            }
            let mut out = std::mem::take(&mut this.ready);
            let step = this.tracker.feed(&this.scratch[..n], &mut out);
            if let Step::TooLong { method, target } = step {
                out.extend_from_slice(&method);
                out.push(b' ');
                out.extend_from_slice(&target);
                out.extend_from_slice(b" HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
            }
            this.ready = out;
            this.start = 0;
            this.arm();
        }
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Guarded<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.shut {
            ready!(Pin::new(&mut this.io).poll_shutdown(cx))?;
            this.shut = true;
        }
        if matches!(this.tracker.phase, Phase::Cut) && !this.eof {
            // Closing with unread bytes would reset the connection and could lose the answer:
            // wait a moment for the client to close, discarding what it sends.
            let timer = this
                .linger
                .get_or_insert_with(|| Box::pin(sleep_until(Instant::now() + LINGER)));
            if timer.as_mut().poll(cx).is_pending() {
                ready!(this.discard(cx))?;
            }
            this.eof = true;
        }
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn follow(max_url: usize, parts: &[&[u8]]) -> (Vec<u8>, Option<Step>, Tracker) {
        let mut t = Tracker::new(max_url);
        let mut out = Vec::new();
        for p in parts {
            let step = t.feed(p, &mut out);
            if step != Step::Pass {
                return (out, Some(step), t);
            }
        }
        (out, None, t)
    }

    #[test]
    fn requests_pass_unchanged_across_any_split() {
        let stream: &[u8] =
            b"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /b?q=1 HTTP/1.1\r\n\
            Host: x\r\n\r\nPOST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n\
            A\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n\r\nGET /d HTTP/1.1\r\n\r\n";
        for split in 0..stream.len() {
            let (out, step, t) = follow(64, &[&stream[..split], &stream[split..]]);
            assert_eq!(step, None);
            assert_eq!(out, stream, "split at {split}");
            assert!(
                matches!(t.phase, Phase::Line(ref l) if l.bytes.is_empty()),
                "{split}"
            );
            assert!(!t.in_body);
        }
        // Byte by byte.
        let parts: Vec<&[u8]> = stream.chunks(1).collect();
        let (out, step, _) = follow(64, &parts);
        assert_eq!((out.as_slice(), step), (stream, None));
    }

    #[test]
    fn a_head_is_followed_up_to_its_limit_and_left_alone_past_it() {
        // Headers of exactly MAX_HEAD bytes (the request line aside): the body is tracked.
        let line = b"POST /a HTTP/1.1\r\n";
        let framing = b"Content-Length: 3\r\n";
        let filler = MAX_HEAD - framing.len() - b"X: \r\n\r\n".len();
        let head = format!("X: {}\r\n", "a".repeat(filler));
        let at_limit = [&line[..], framing, head.as_bytes(), b"\r\n"].concat();
        for parts in [vec![&at_limit[..]], at_limit.chunks(4096).collect()] {
            let (out, step, t) = follow(64, &parts);
            assert_eq!((out.as_slice(), step), (&at_limit[..], None));
            assert!(t.in_body && matches!(t.phase, Phase::Body(3)));
        }
        // One byte more: left to actix-http, every byte passed on.
        let head = format!("X: {}\r\n", "a".repeat(filler + 1));
        let over = [&line[..], framing, head.as_bytes(), b"\r\nabc"].concat();
        for parts in [vec![&over[..]], over.chunks(4096).collect()] {
            let (out, step, t) = follow(64, &parts);
            assert_eq!((out.as_slice(), step), (&over[..], None));
            assert!(!t.in_body && matches!(t.phase, Phase::Off));
        }
    }

    #[test]
    fn a_long_target_is_replaced_before_any_of_it_passes() {
        let long = format!("GET /x?q={} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(100));
        let bytes = long.as_bytes();
        let prior = b"GET /ok HTTP/1.1\r\n\r\n";
        let (out, step, t) = follow(20, &[prior, &bytes[..10], &bytes[10..]]);
        assert_eq!(out, prior);
        assert_eq!(
            step,
            Some(Step::TooLong {
                method: b"GET".to_vec(),
                target: bytes[4..25].to_vec()
            })
        );
        assert!(matches!(t.phase, Phase::Cut));
        // At the limit, it passes.
        let fits = b"GET /123456789012345678 HTTP/1.1\r\n\r\n";
        let (out, step, _) = follow(20, &[fits]);
        assert_eq!((out.as_slice(), step), (&fits[..], None));
        // Other forms of target are left to actix-http.
        let absolute = format!("GET http://h/{} HTTP/1.1\r\n\r\n", "a".repeat(100));
        let (out, step, t) = follow(20, &[absolute.as_bytes()]);
        assert_eq!((out.as_slice(), step), (absolute.as_bytes(), None));
        assert!(matches!(t.phase, Phase::Off));
    }

    #[test]
    fn bodies_are_timed_and_odd_framing_is_left_alone() {
        let (_, _, t) = follow(64, &[b"POST /a HTTP/1.1\r\nContent-Length: 100\r\n\r\nx"]);
        assert!(t.in_body);
        assert!(matches!(t.phase, Phase::Body(99)));
        let (_, _, t) = follow(
            64,
            &[b"POST /a HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab"],
        );
        assert!(t.in_body);
        for odd in [
            &b"POST /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"[..],
            b"POST /a HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"GET /a HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            let (out, step, t) = follow(64, &[odd, b"more"]);
            assert_eq!(step, None);
            assert!(out.ends_with(b"more"));
            assert!(
                matches!(t.phase, Phase::Off),
                "{}",
                String::from_utf8_lossy(odd)
            );
        }
    }
}
