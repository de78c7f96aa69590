//! SQLite's binary JSON (JSONB, the format of its `jsonb()` function) read straight into
//! `serde_json` values, without SQLite printing it as text and `serde_json` parsing that text
//! again (a document read by id spent most of its parse there).
//!
//! An element is a header and a payload. The header's first byte holds the element's type in
//! its low four bits and, in its high four, the payload's size (0 to 11) or how many of the
//! following bytes hold it big-endian (12: one, 13: two, 14: four, 15: eight). Numbers keep
//! their JSON text; arrays and objects hold their elements one after another (an object's
//! keys and values alternating). Only the forms SQLite writes for standard JSON are read here:
//! JSON5's (hexadecimal integers, `Infinity`, JSON5 escapes) and anything unknown answer
//! `None`, and the caller reads such a document through SQLite's `json()` instead.
//!
//! The reader knows the bytes only, not SQLite: the embedded store hands them back
//! ([`crate::store::StoredBody::Jsonb`]) and what is printed of them is decided above it. Its
//! tests, which have SQLite make the blobs they read, are the store's
//! (`store/sqlite/jsonb_tests.rs`).

use serde_json::{Map, Number, Value};

/// What `print_object` asks about a top-level field whose value is an object (whether to
/// leave it out): that object's `_type` and `_access`, where they are strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldHeader<'a> {
    /// `_type`.
    pub kind: Option<&'a str>,
    /// `_access`.
    pub access: Option<&'a str>,
}

impl<'a> FieldHeader<'a> {
    /// The header of a value (none of an object without them, or of no object).
    pub fn of(value: &'a Value) -> FieldHeader<'a> {
        let field = |name| value.get(name).and_then(Value::as_str);
        FieldHeader {
            kind: field("_type"),
            access: field("_access"),
        }
    }
}

const NULL: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 5;
const TEXT: u8 = 7;
const TEXTJ: u8 = 8;
const TEXTRAW: u8 = 10;
const ARRAY: u8 = 11;
const OBJECT: u8 = 12;

/// The depth `serde_json` parses to (deeper documents are refused there, and read there).
const MAX_DEPTH: usize = 128;

/// The JSON object a JSONB blob holds, or `None` where it is not an object of the standard
/// forms (see the module).
pub(crate) fn to_map(blob: &[u8]) -> Option<Map<String, Value>> {
    let (ty, payload, rest) = element(blob)?;
    if ty != OBJECT || !rest.is_empty() {
        return None;
    }
    object(payload, 1)
}

/// The fields named in `fields` of the JSON object a JSONB blob holds, as [`to_map`] reads
/// them (the others are stepped over, not read), or `None` as [`to_map`] answers it for the
/// blob's form or for a named field's.
pub(crate) fn to_map_fields(blob: &[u8], fields: &[&str]) -> Option<Map<String, Value>> {
    let (ty, payload, rest) = element(blob)?;
    if ty != OBJECT || !rest.is_empty() {
        return None;
    }
    object_where(payload, 1, |key| fields.contains(&key))
}

/// The JSONB object `blob` holds with `_id` (and `_type`, where given) put back in front of
/// its own fields, as text elements: the embedded store's current rows keep a body's leading
/// `_id` and `_type` in their columns only (`store/sqlite/layout.rs`, `lead`), and give them
/// back through this before the body is read. `None` where `blob` is not one object. The texts
/// are written unescaped (SQLite's `TEXT`): the store keeps out only texts that need no escape.
pub(crate) fn with_lead(blob: &[u8], id: &str, kind: Option<&str>) -> Option<Vec<u8>> {
    let (ty, payload, rest) = element(blob)?;
    if ty != OBJECT || !rest.is_empty() {
        return None;
    }
    let mut lead = Vec::with_capacity(id.len() + kind.map_or(0, str::len) + 24);
    push_text(&mut lead, "_id");
    push_text(&mut lead, id);
    if let Some(kind) = kind {
        push_text(&mut lead, "_type");
        push_text(&mut lead, kind);
    }
    let mut out = Vec::with_capacity(lead.len() + payload.len() + 9);
    push_header(&mut out, OBJECT, lead.len() + payload.len());
    out.extend_from_slice(&lead);
    out.extend_from_slice(payload);
    Some(out)
}

/// A text element (`TEXT`: a text that needs no escape in JSON).
fn push_text(out: &mut Vec<u8>, text: &str) {
    push_header(out, TEXT, text.len());
    out.extend_from_slice(text.as_bytes());
}

/// An element's header: its type and its payload's size in the shortest form.
fn push_header(out: &mut Vec<u8>, ty: u8, size: usize) {
    match size {
        0..=11 => out.push((size as u8) << 4 | ty),
        12..=0xff => out.extend_from_slice(&[0xc0 | ty, size as u8]),
        0x100..=0xffff => {
            out.push(0xd0 | ty);
            out.extend_from_slice(&(size as u16).to_be_bytes());
        }
        _ => {
            out.push(0xe0 | ty);
            out.extend_from_slice(&(size as u32).to_be_bytes());
        }
    }
}

/// Prints the JSON object a JSONB blob holds as `serde_json` prints the map [`to_map`] reads
/// of it (the same bytes, without building the map), leaving out the top-level fields named in
/// `omit` and the objects whose header (their `_type` and `_access`) `hide` says, and without
/// its closing brace; `None` where it is not an object of the standard forms, where it repeats
/// a key (the map keeps one of them), or where a top-level field is named in `refuse`.
/// Otherwise whether an `_id` was printed.
pub(crate) fn print_object(
    blob: &[u8],
    omit: &[&str],
    refuse: &[&str],
    hide: &dyn Fn(FieldHeader<'_>) -> bool,
    out: &mut Vec<u8>,
) -> Option<bool> {
    let (ty, payload, rest) = element(blob)?;
    if ty != OBJECT || !rest.is_empty() {
        return None;
    }
    let (mut first, mut id) = (true, false);
    let mut keys = Keys::of(payload);
    out.push(b'{');
    let mut rest = payload;
    while !rest.is_empty() {
        let (kty, k, after) = element(rest)?;
        let key = key_text(kty, k)?;
        if !keys.first(&key, rest)? || refuse.contains(&&*key) {
            return None;
        }
        let (ty, p, after) = element(after)?;
        rest = after;
        if omit.contains(&&*key) {
            continue;
        }
        if ty == OBJECT && hide(header(p)?.view()) {
            // Left out, once known to be read as the map reads it.
            value(ty, p, 1)?;
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        id |= key == "_id";
        print_str(&key, out)?;
        out.push(b':');
        let mark = out.len();
        if print_value(ty, p, 1, out).is_none() {
            // An object that repeats a key (in it or deeper): printed as the map reads it
            // (the last value of the key, where its first was). Not so in an array.
            if ty != OBJECT {
                return None;
            }
            out.truncate(mark);
            serde_json::to_writer(&mut *out, &value(ty, p, 1)?).ok()?;
        }
    }
    Some(id)
}

/// An object's `_type` and `_access` where they are strings, as the map read of the object
/// holds them (the last of a repeated key); `None` where its fields are not of the standard
/// forms.
fn header(payload: &[u8]) -> Option<Header<'_>> {
    let mut found = Header::default();
    let mut rest = payload;
    while !rest.is_empty() {
        let (kty, k, after) = element(rest)?;
        let (ty, p, after) = element(after)?;
        rest = after;
        let slot = match &*key_text(kty, k)? {
            "_type" => &mut found.kind,
            "_access" => &mut found.access,
            _ => continue,
        };
        *slot = match ty {
            TEXT | TEXTRAW | TEXTJ => Some(key_text(ty, p)?),
            _ => None,
        };
    }
    Some(found)
}

/// [`header`]'s answer, its text borrowed where it has no escapes.
#[derive(Default)]
struct Header<'a> {
    kind: Option<std::borrow::Cow<'a, str>>,
    access: Option<std::borrow::Cow<'a, str>>,
}

impl Header<'_> {
    fn view(&self) -> FieldHeader<'_> {
        FieldHeader {
            kind: self.kind.as_deref(),
            access: self.access.as_deref(),
        }
    }
}

/// The keys of one object seen so far, to find a repeated one: a 256-bit filter of their
/// hashes, and where it says a key may be one of them, the object's fields before it read
/// again (nothing is kept per key).
struct Keys<'a> {
    /// The object's payload.
    payload: &'a [u8],
    filter: [u64; 4],
}

impl<'a> Keys<'a> {
    fn of(payload: &'a [u8]) -> Keys<'a> {
        Keys {
            payload,
            filter: [0; 4],
        }
    }

    /// Whether `key`, the key of the field that starts where `rest` (the rest of the
    /// payload) does, is new; `None` where the fields before it do not read as they did.
    fn first(&mut self, key: &str, rest: &[u8]) -> Option<bool> {
        let h = filter_hash(key.as_bytes());
        let (word, bit) = (usize::from(h >> 6), 1u64 << (h & 63));
        if self.filter[word] & bit == 0 {
            self.filter[word] |= bit;
            return Some(true);
        }
        let mut before = self.payload.get(..self.payload.len() - rest.len())?;
        while !before.is_empty() {
            let (kty, k, after) = element(before)?;
            if *key_text(kty, k)? == *key {
                return Some(false);
            }
            before = element(after)?.2;
        }
        Some(true)
    }
}

/// Eight bits of a hash of a key, for [`Keys`]'s filter: of its length and its first and last
/// eight bytes.
fn filter_hash(key: &[u8]) -> u8 {
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let n = key.len();
    let (head, tail) = (word(&key[..n.min(8)]), word(&key[n - n.min(8)..]));
    let h = (head ^ tail.rotate_left(29) ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> 56) as u8
}

/// A key's text: borrowed where it has no escapes.
fn key_text(ty: u8, payload: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    match ty {
        TEXT | TEXTRAW => std::str::from_utf8(payload).ok().map(Into::into),
        _ => text(ty, payload).map(Into::into),
    }
}

fn print_str(s: &str, out: &mut Vec<u8>) -> Option<()> {
    print_text(s.as_bytes(), out)
}

/// Prints text as `serde_json` prints it as a string: where every byte is ASCII from the space
/// on, other than the quote and the backslash (bytes it leaves as they are), copied between
/// quotes; else checked to be UTF-8 and escaped by `serde_json`.
pub(crate) fn print_text(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    if text
        .iter()
        .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\')
    {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text);
        out.push(b'"');
        return Some(());
    }
    serde_json::to_writer(&mut *out, std::str::from_utf8(text).ok()?).ok()
}

/// Prints an element as `serde_json` prints the value [`value`] reads of it.
pub(crate) fn print_value(ty: u8, payload: &[u8], depth: usize, out: &mut Vec<u8>) -> Option<()> {
    match ty {
        NULL if payload.is_empty() => out.extend_from_slice(b"null"),
        TRUE if payload.is_empty() => out.extend_from_slice(b"true"),
        FALSE if payload.is_empty() => out.extend_from_slice(b"false"),
        // An integer of up to 18 digits prints as it is written (as `serde_json` prints the
        // i64 or u64 it reads).
        INT if is_plain_integer(payload) => out.extend_from_slice(payload),
        // Read as a document's number is read, and printed as such a number is.
        INT | FLOAT => {
            let n = std::str::from_utf8(payload).ok()?.parse::<Number>().ok()?;
            serde_json::to_writer(&mut *out, &n).ok()?;
        }
        ARRAY => {
            if depth >= MAX_DEPTH {
                return None;
            }
            out.push(b'[');
            let mut rest = payload;
            let mut first = true;
            while !rest.is_empty() {
                let (ty, p, after) = element(rest)?;
                if !first {
                    out.push(b',');
                }
                first = false;
                print_value(ty, p, depth + 1, out)?;
                rest = after;
            }
            out.push(b']');
        }
        OBJECT => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut keys = Keys::of(payload);
            out.push(b'{');
            let mut rest = payload;
            let mut first = true;
            while !rest.is_empty() {
                let (kty, k, after) = element(rest)?;
                let key = key_text(kty, k)?;
                if !keys.first(&key, rest)? {
                    return None;
                }
                let (ty, p, after) = element(after)?;
                if !first {
                    out.push(b',');
                }
                first = false;
                print_str(&key, out)?;
                out.push(b':');
                print_value(ty, p, depth + 1, out)?;
                rest = after;
            }
            out.push(b'}');
        }
        TEXT | TEXTRAW => print_text(payload, out)?,
        _ => print_str(&text(ty, payload)?, out)?,
    }
    Some(())
}

/// Whether an integer's text is `0` or an optional `-` and 1 to 18 digits without a leading
/// zero (which every 64-bit integer type holds, and prints the same).
fn is_plain_integer(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    (1..=18).contains(&digits.len())
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1 && text.len() == 1)
}

/// The first element of `b`: its type, its payload and the bytes after it.
pub(crate) fn element(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let first = *b.first()?;
    let (size, head): (usize, usize) = match first >> 4 {
        n @ 0..=11 => (usize::from(n), 1),
        12 => (usize::from(*b.get(1)?), 2),
        13 => (
            usize::from(u16::from_be_bytes(b.get(1..3)?.try_into().ok()?)),
            3,
        ),
        14 => (
            usize::try_from(u32::from_be_bytes(b.get(1..5)?.try_into().ok()?)).ok()?,
            5,
        ),
        _ => (
            usize::try_from(u64::from_be_bytes(b.get(1..9)?.try_into().ok()?)).ok()?,
            9,
        ),
    };
    let end = head.checked_add(size)?;
    Some((first & 0x0f, b.get(head..end)?, &b[end..]))
}

fn value(ty: u8, payload: &[u8], depth: usize) -> Option<Value> {
    Some(match ty {
        NULL if payload.is_empty() => Value::Null,
        TRUE if payload.is_empty() => Value::Bool(true),
        FALSE if payload.is_empty() => Value::Bool(false),
        // The number's JSON text, read as `serde_json` reads it in a document.
        INT | FLOAT => Value::Number(std::str::from_utf8(payload).ok()?.parse::<Number>().ok()?),
        ARRAY => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let mut items = Vec::new();
            let mut rest = payload;
            while !rest.is_empty() {
                let (ty, p, after) = element(rest)?;
                items.push(value(ty, p, depth + 1)?);
                rest = after;
            }
            Value::Array(items)
        }
        OBJECT => {
            if depth >= MAX_DEPTH {
                return None;
            }
            Value::Object(object(payload, depth + 1)?)
        }
        _ => Value::String(text(ty, payload)?),
    })
}

fn object(payload: &[u8], depth: usize) -> Option<Map<String, Value>> {
    object_where(payload, depth, |_| true)
}

/// An object's fields whose key `keep` says (the others stepped over, not read).
fn object_where(
    payload: &[u8],
    depth: usize,
    keep: impl Fn(&str) -> bool,
) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut rest = payload;
    while !rest.is_empty() {
        let (kty, k, after) = element(rest)?;
        let key = key_text(kty, k)?;
        let (ty, p, after) = element(after)?;
        rest = after;
        if keep(&key) {
            // As a parse of the text would: a later value of a key replaces the earlier one.
            map.insert(key.into_owned(), value(ty, p, depth)?);
        }
    }
    Some(map)
}

/// A string element: text as it is (`TEXT`, `TEXTRAW`) or with JSON's escapes (`TEXTJ`).
fn text(ty: u8, payload: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(payload).ok()?;
    match ty {
        TEXT | TEXTRAW => Some(s.to_owned()),
        TEXTJ => {
            let mut quoted = String::with_capacity(s.len() + 2);
            quoted.push('"');
            quoted.push_str(s);
            quoted.push('"');
            serde_json::from_str(&quoted).ok()
        }
        _ => None,
    }
}
