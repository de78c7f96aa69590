//! Mustache templates: `Accept: text/html` with `_template=ID` renders the item (or
//! `{ "items": [...] }` for a list) with a `mustache` script of the script service.
//!
//! Rendering follows the [mustache spec](https://github.com/mustache/spec) (interpolation,
//! sections, inverted sections, comments, set delimiters, partials with standalone
//! indentation); the optional modules (lambdas, inheritance, dynamic names) are off. The engine
//! is the `mustache2` crate (pinned), wrapped so that stored templates cannot hurt the server:
//!
//! - Partials come from the map given to [`render`]; a missing one renders as nothing (spec). The
//!   caller loads them from the script store beforehand, using [`partial_names`] on the template
//!   and on each partial it loads.
//! - A template or partial that does not compile is an
//!   [`ErrorCode::InvalidParameter`](crate::error::ErrorCode::InvalidParameter) error with the
//!   engine's message and the line and column (a partial is only compiled when it is reached).
//! - Limits: sections nest at most [`MAX_NESTING`] deep; a render expands partials at most
//!   [`MAX_PARTIAL_EXPANSIONS`] times (a partial that includes itself without end stops there)
//!   and writes at most [`MAX_OUTPUT_BYTES`]; going over any is an error, never a truncated
//!   page. The engine runs on a thread of its own (64 MiB stack, reserved, not committed). Work
//!   that writes nothing is not bounded: sections nested over the same long list cost its length
//!   to the power of the nesting.
//! - Escaping: `{{x}}` escapes `& " < >` (the spec's set; write attributes in double quotes).
//!   Interpolating a list or an object (which the spec leaves undefined) writes debug text, and
//!   that text is always escaped, even in `{{{x}}}`.
//! - Numbers interpolate as decimal text (`1.0` as `1`); `0` and `0.0` are falsey, as are `null`,
//!   `false`, `""` and `[]`. An empty object is falsey too.
//! - Line endings: a CRLF in a template or partial is read as LF, so output lines coming from
//!   the template end with LF (the engine does not treat CRLF-ended lines as standalone).
//! - Known deviation (whitespace only): inside a standalone, indented partial, a line that starts
//!   a second or later iteration of a section is not indented.
//!
//! ## Workarounds for `mustache2` 1.0.7
//!
//! - Its lexer panics on a non-ASCII character inside a tag (`{{größe}}`, `{{! Übersicht }}`),
//!   so tag contents are percent-encoded before compiling, and the data's keys the same way; a
//!   re-scan checks that the encoding moved no tag boundary. Partial names are mapped back.
//! - It panics on `{{=}}`: set-delimiter tags are checked here first. Any other panic is caught
//!   and becomes an error.
//! - It writes lists and objects unescaped: the output sink escapes them (see `Sink`).
//! - It reads (and keeps a copy of) a partial at every use, in a list it drops recursively, and
//!   its parser recurses per nested section: hence its own thread with a large stack, the
//!   expansion and nesting limits.

use crate::error::{Error, Result};
use mustache2::render::{provider::SourceProvider, RenderManager, SourceCache};
use mustache2::Data;
use serde_json::Value;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::ops::Range;

/// The most partial expansions one render may make.
pub const MAX_PARTIAL_EXPANSIONS: usize = 100_000;
/// The most bytes one render may write.
pub const MAX_OUTPUT_BYTES: usize = 64 << 20;
/// The deepest nesting of sections a template or partial may have.
pub const MAX_NESTING: usize = 100;
/// The stack of the engine's thread: room for [`MAX_PARTIAL_EXPANSIONS`] levels of the engine's
/// recursive drop (about 200 bytes each in a debug build). Only the pages used are committed.
const ENGINE_STACK_BYTES: usize = 64 << 20;

/// The names used in the partial tags (`{{> name}}`) of `template`, each once, in order of first
/// use, following set-delimiter tags. Partials of those partials are not included: the caller
/// asks again for each partial it loads.
pub fn partial_names(template: &str) -> Vec<String> {
    let scan = scan(template);
    let mut names: Vec<String> = Vec::new();
    for tag in &scan.tags {
        if tag.kind == TagKind::Partial {
            let name = template[tag.content.start + 1..tag.content.end].trim();
            if !name.is_empty() && !name.starts_with('*') && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Checks that `template` compiles (its partials are not looked at), for saving a script.
///
/// The error is [`ErrorCode::InvalidParameter`](crate::error::ErrorCode::InvalidParameter) whose
/// message is the engine's and the position only, e.g. `unclosed group at line 1, column 1`, for
/// the caller to prefix with the script's name.
pub fn compile(template: &str) -> Result<()> {
    match run(template, &Value::Null, &HashMap::new()) {
        Ok(_) => Ok(()),
        Err(Failure::Compile { detail, .. }) => Err(Error::invalid_parameter(detail)),
        Err(Failure::Other(e)) => Err(e),
    }
}

/// Renders `template` over `data`, with `partials` by name.
///
/// Errors: a template or a reached partial that does not compile (`the template does not
/// compile: ...`, `partial 'name' does not compile: ...`), or a render that goes over a limit, is
/// [`ErrorCode::InvalidParameter`](crate::error::ErrorCode::InvalidParameter) (see the module
/// documentation).
pub fn render(template: &str, data: &Value, partials: &HashMap<String, String>) -> Result<String> {
    run(template, data, partials).map_err(Failure::into_error)
}

/// Why a render failed.
enum Failure {
    /// The template (`partial: None`) or a partial does not compile; `detail` is the message and
    /// position.
    Compile {
        partial: Option<String>,
        detail: String,
    },
    /// Anything else, ready for the caller.
    Other(Error),
}

impl Failure {
    fn into_error(self) -> Error {
        match self {
            Failure::Compile {
                partial: None,
                detail,
            } => Error::invalid_parameter(format!("the template does not compile: {detail}")),
            Failure::Compile {
                partial: Some(name),
                detail,
            } => Error::invalid_parameter(format!("partial '{name}' does not compile: {detail}")),
            Failure::Other(e) => e,
        }
    }
}

/// Runs the engine on a thread of its own with a large stack: the engine keeps every source it
/// reads in a linked list that it drops recursively (one level per partial expansion), and its
/// parser recurses once per nested section.
fn run(
    template: &str,
    data: &Value,
    partials: &HashMap<String, String>,
) -> std::result::Result<String, Failure> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mustache".into())
            .stack_size(ENGINE_STACK_BYTES)
            .spawn_scoped(scope, || run_here(template, data, partials))
            .map_err(|e| Failure::Other(Error::caused("cannot start the template thread", e)))?
            .join()
            .unwrap_or_else(|_| Err(engine_failed()))
    })
}

fn engine_failed() -> Failure {
    Failure::Other(Error::invalid_parameter(
        "the template could not be rendered: the mustache engine failed on it",
    ))
}

fn run_here(
    template: &str,
    data: &Value,
    partials: &HashMap<String, String>,
) -> std::result::Result<String, Failure> {
    let main = prepare(template).map_err(|e| e.into_failure(None))?;
    let state = RefCell::new(State::default());
    state.borrow_mut().remember(&main);
    let provider = Provider {
        main: Some(main.text),
        partials,
        state: &state,
    };
    let mut sink = Sink {
        out: String::new(),
        overflow: false,
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let cache = SourceCache::default();
        let mut manager = RenderManager::new(provider, &cache);
        manager
            .render_to(&mut sink, None, to_data(data))
            .map_err(|e| {
                (
                    e.message.into_owned(),
                    e.source.map(|(id, span)| (id, span.start)),
                )
            })
    }));
    let state = state.into_inner();
    if sink.overflow {
        return Err(Failure::Other(Error::invalid_parameter(format!(
            "the template's output exceeds {} MiB",
            MAX_OUTPUT_BYTES >> 20
        ))));
    }
    if let Some(failure) = state.failure {
        return Err(failure);
    }
    match outcome {
        Ok(Ok(())) => Ok(sink.out),
        Ok(Err((message, at))) => Err(compile_failure(
            &message,
            at,
            &state.loaded,
            template,
            partials,
        )),
        Err(_) => Err(engine_failed()),
    }
}

/// Turns an engine error into a compile failure naming the template or partial and the
/// position.
fn compile_failure(
    message: &str,
    at: Option<(usize, usize)>,
    loaded: &[Option<String>],
    template: &str,
    partials: &HashMap<String, String>,
) -> Failure {
    let Some((id, offset)) = at else {
        return Failure::Compile {
            partial: None,
            detail: message.to_string(),
        };
    };
    let partial = loaded.get(id).cloned().flatten();
    let source = match &partial {
        None => template,
        Some(name) => partials.get(name).map_or("", String::as_str),
    };
    let position = prepare(source)
        .map(|p| line_column(&normalize(source), p.original_offset(offset)))
        .map(|(line, column)| format!(" at line {line}, column {column}"))
        .unwrap_or_default();
    Failure::Compile {
        partial,
        detail: format!("{message}{position}"),
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

// ---------------------------------------------------------------------------------------------
// Scanning tags the way the engine's lexer does.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    /// `{{=<% %>=}}`.
    SetDelimiter,
    /// `{{> name}}`.
    Partial,
    /// Anything else.
    Other,
}

#[derive(Debug)]
struct Tag {
    /// The tag's content, between its delimiters.
    content: Range<usize>,
    kind: TagKind,
    /// The new delimiters, for a well-formed set-delimiter tag.
    delimiters: Option<(String, String)>,
}

#[derive(Debug, Default)]
struct Scan {
    tags: Vec<Tag>,
    /// Where the content of an unclosed tag starts.
    unclosed: Option<usize>,
}

/// Finds every tag of `src`, following set-delimiter tags, exactly where the engine finds them:
/// a tag ends at its close delimiter, counting nested open delimiters.
fn scan(src: &str) -> Scan {
    let mut open = "{{".to_string();
    let mut close = "}}".to_string();
    let mut pos = 0;
    let mut out = Scan::default();
    while let Some(found) = src[pos..].find(open.as_str()) {
        let start = pos + found;
        let Some(end) = closing(&src.as_bytes()[start..], open.as_bytes(), close.as_bytes()) else {
            out.unclosed = Some(start + open.len());
            break;
        };
        let content = start + open.len()..start + end - close.len();
        let text = &src[content.clone()];
        let mut next = start + end;
        let mut delimiters = None;
        let kind = match text.chars().next() {
            Some('{') => {
                if close == "}}" && src[next..].starts_with('}') {
                    next += 1;
                }
                TagKind::Other
            }
            Some('=') => {
                if let Some((o, c)) = text
                    .strip_prefix('=')
                    .and_then(|t| t.strip_suffix('='))
                    .and_then(|t| t.trim().split_once(' '))
                {
                    open = o.trim().to_string();
                    close = c.trim().to_string();
                    delimiters = Some((open.clone(), close.clone()));
                }
                TagKind::SetDelimiter
            }
            Some('>') => TagKind::Partial,
            _ => TagKind::Other,
        };
        out.tags.push(Tag {
            content,
            kind,
            delimiters,
        });
        pos = next;
    }
    out
}

/// The length of the tag at the start of `tag` (which starts with `open`), up to and including
/// its close delimiter; `None` when it is not closed.
fn closing(tag: &[u8], open: &[u8], close: &[u8]) -> Option<usize> {
    let mut layer = 0usize;
    let mut i = open.len();
    while i < tag.len() {
        if tag[i..].starts_with(close) {
            if layer == 0 {
                return Some(i + close.len());
            }
            layer -= 1;
        } else if tag[i..].starts_with(open) {
            layer += 1;
        }
        i += 1;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Preparing a source for the engine.

/// A source ready for the engine: CRLF read as LF, tag contents percent-encoded.
struct Prepared {
    text: String,
    /// `(offset in text, offset in the normalised source)` after each encoded character.
    offsets: Vec<(usize, usize)>,
    /// Encoded partial name -> name as written.
    names: Vec<(String, String)>,
}

impl Prepared {
    /// The offset in the normalised source of an offset in the prepared text.
    fn original_offset(&self, offset: usize) -> usize {
        let i = self.offsets.partition_point(|&(enc, _)| enc <= offset);
        match i.checked_sub(1).map(|i| self.offsets[i]) {
            Some((enc, orig)) => orig + (offset - enc),
            None => offset,
        }
    }
}

/// Why a source could not be prepared, with the byte offset in the normalised source.
struct PrepareError {
    message: String,
    text: String,
    offset: usize,
}

impl PrepareError {
    fn into_failure(self, partial: Option<&str>) -> Failure {
        let (line, column) = line_column(&self.text, self.offset);
        Failure::Compile {
            partial: partial.map(str::to_string),
            detail: format!("{} at line {line}, column {column}", self.message),
        }
    }
}

fn normalize(src: &str) -> Cow<'_, str> {
    if src.contains("\r\n") {
        Cow::Owned(src.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(src)
    }
}

/// Percent-encodes the non-ASCII characters of a name (data keys and tag contents alike).
fn encode_name(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() * 3);
    for c in name.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            for b in c.encode_utf8(&mut [0; 4]).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    Cow::Owned(out)
}

fn prepare(src: &str) -> std::result::Result<Prepared, PrepareError> {
    let src = normalize(src);
    let found = scan(&src);
    let fail = |message: &str, offset: usize| PrepareError {
        message: message.to_string(),
        text: src.to_string(),
        offset,
    };
    let mut regions: Vec<Range<usize>> = Vec::new();
    let mut names = Vec::new();
    let mut depth = 0usize;
    for tag in &found.tags {
        let text = &src[tag.content.clone()];
        match text.as_bytes().first() {
            Some(b'#' | b'^') => depth += 1,
            Some(b'/') => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Err(fail(
                &format!("sections nest more than {MAX_NESTING} deep"),
                tag.content.start,
            ));
        }
        match tag.kind {
            TagKind::SetDelimiter => match &tag.delimiters {
                None => {
                    return Err(fail(
                        "a set-delimiter tag must read '=<open> <close>='",
                        tag.content.start,
                    ))
                }
                Some((open, close)) if !open.is_ascii() || !close.is_ascii() => {
                    return Err(fail("delimiters must be ASCII", tag.content.start))
                }
                Some(_) => {}
            },
            TagKind::Partial => {
                let name = &text[1..];
                names.push((
                    encode_name(name).trim().to_string(),
                    name.trim().to_string(),
                ));
                regions.push(tag.content.clone());
            }
            TagKind::Other => regions.push(tag.content.clone()),
        }
    }
    if let Some(start) = found.unclosed {
        regions.push(start..src.len());
    }
    let mut text = String::with_capacity(src.len());
    let mut offsets = Vec::new();
    let mut last = 0;
    for region in &regions {
        text.push_str(&src[last..region.start]);
        for (i, c) in src[region.clone()].char_indices() {
            if c.is_ascii() {
                text.push(c);
            } else {
                text.push_str(&encode_name(c.encode_utf8(&mut [0; 4])));
                offsets.push((text.len(), region.start + i + c.len_utf8()));
            }
        }
        last = region.end;
    }
    text.push_str(&src[last..]);
    if !offsets.is_empty() {
        // The encoding must not have moved a tag boundary (it could with delimiters made of '%'
        // and hex digits).
        let again = scan(&text);
        let same = again.unclosed.is_some() == found.unclosed.is_some()
            && again.tags.len() == found.tags.len()
            && again.tags.iter().zip(&found.tags).all(|(a, b)| {
                a.kind == b.kind && text[a.content.clone()] == encode_name(&src[b.content.clone()])
            });
        if !same {
            return Err(fail(
                "non-ASCII text in a tag clashes with the delimiters",
                found.tags.first().map_or(0, |t| t.content.start),
            ));
        }
    }
    Ok(Prepared {
        text,
        offsets,
        names,
    })
}

// ---------------------------------------------------------------------------------------------
// The engine's side: partials, data, output.

/// What a render learns while it runs.
#[derive(Default)]
struct State {
    /// Encoded partial name -> name as written.
    names: HashMap<String, String>,
    /// The sources handed to the engine, in order (`None` is the template): the engine's error
    /// positions refer to this order.
    loaded: Vec<Option<String>>,
    expansions: usize,
    /// The first problem met in a partial, reported after the render.
    failure: Option<Failure>,
}

impl State {
    fn remember(&mut self, prepared: &Prepared) {
        for (encoded, name) in &prepared.names {
            self.names
                .entry(encoded.clone())
                .or_insert_with(|| name.clone());
        }
    }
}

/// Hands the template (key `None`) and partials (key `Some(name)`) to the engine.
struct Provider<'a> {
    main: Option<String>,
    partials: &'a HashMap<String, String>,
    state: &'a RefCell<State>,
}

impl SourceProvider for Provider<'_> {
    type Key = Option<String>;

    fn get_src(&mut self, key: &Self::Key) -> std::result::Result<String, Cow<'static, str>> {
        let mut state = self.state.borrow_mut();
        let Some(name) = key else {
            state.loaded.push(None);
            return self
                .main
                .take()
                .ok_or(Cow::Borrowed("template already loaded"));
        };
        if state.failure.is_some() {
            return Err(Cow::Borrowed("render failed"));
        }
        let Some(source) = self.partials.get(name) else {
            return Err(Cow::Borrowed("unknown partial"));
        };
        state.expansions += 1;
        if state.expansions > MAX_PARTIAL_EXPANSIONS {
            state.failure = Some(Failure::Other(Error::invalid_parameter(format!(
                "the template expands partials more than {MAX_PARTIAL_EXPANSIONS} times \
                 (does partial '{name}' include itself without end?)"
            ))));
            return Err(Cow::Borrowed("too many partials"));
        }
        match prepare(source) {
            Ok(prepared) => {
                state.remember(&prepared);
                state.loaded.push(Some(name.clone()));
                Ok(prepared.text)
            }
            Err(e) => {
                state.failure = Some(e.into_failure(Some(name)));
                Err(Cow::Borrowed("partial does not compile"))
            }
        }
    }

    fn resolve_partial(&self, _: &Self::Key, name: &str) -> Self::Key {
        let state = self.state.borrow();
        Some(
            state
                .names
                .get(name)
                .cloned()
                .unwrap_or_else(|| name.to_string()),
        )
    }

    fn display_key(key: &'_ Self::Key) -> Cow<'_, str> {
        Cow::Borrowed(key.as_deref().unwrap_or("template"))
    }
}

/// JSON to the engine's data, keys encoded like tag contents.
fn to_data(value: &Value) -> Data {
    match value {
        Value::Null => Data::Null,
        Value::Bool(b) => Data::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Data::Int(i),
            // Beyond i64: keep the exact digits.
            _ if n.is_u64() => Data::String(n.to_string()),
            (None, Some(f)) => Data::Float(f),
            (None, None) => Data::String(n.to_string()),
        },
        Value::String(s) => Data::String(s.clone()),
        Value::Array(items) => Data::List(items.iter().map(to_data).collect()),
        Value::Object(map) => Data::Map(
            map.iter()
                .map(|(k, v)| (encode_name(k).into_owned(), to_data(v)))
                .collect(),
        ),
    }
}

/// The output, bounded by [`MAX_OUTPUT_BYTES`].
///
/// The engine writes template text and escaped strings with `write_str`/`write_char`, and any
/// other value with `write!` (one `write_str` for a raw string, several pieces for the debug
/// text of a list or object). So text arriving through `write_fmt` in more than one piece is
/// escaped: a list's strings cannot inject markup.
struct Sink {
    out: String,
    overflow: bool,
}

impl fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.out.len() + s.len() > MAX_OUTPUT_BYTES {
            self.overflow = true;
            return Err(fmt::Error);
        }
        self.out.push_str(s);
        Ok(())
    }

    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> fmt::Result {
        let mut probe = Probe {
            text: String::new(),
            pieces: 0,
            room: MAX_OUTPUT_BYTES.saturating_sub(self.out.len()),
        };
        if fmt::write(&mut probe, args).is_err() {
            self.overflow = true;
            return Err(fmt::Error);
        }
        if probe.pieces > 1 {
            let escaped = escape_html(&probe.text);
            self.write_str(&escaped)
        } else {
            self.write_str(&probe.text)
        }
    }
}

/// Collects one formatted value, counting the pieces it arrives in.
struct Probe {
    text: String,
    pieces: usize,
    room: usize,
}

impl fmt::Write for Probe {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len() + s.len() > self.room {
            return Err(fmt::Error);
        }
        self.pieces += 1;
        self.text.push_str(s);
        Ok(())
    }
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
