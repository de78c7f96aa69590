//! Response formats: content negotiation and the non-JSON renderings of items and lists.
//!
//! - [`negotiate`] picks a [`Format`] from an HTTP `Accept` header and the formats an endpoint
//!   offers.
//! - [`csv`]: one row per object (`_id` first, then top-level fields), and plain header + rows
//!   tables for time series and curves.
//! - [`xml`]: a well-formed document mirroring the JSON (root `<items>` for lists, `<item>` for
//!   one object).
//! - [`template`]: mustache rendering for `Accept: text/html` with `_template=ID`.
//! - [`Format::Svg`] is negotiated here and drawn by the server (a chart of a data read).
//!
//! Everything here is pure: no store, no HTTP types. The server maps a [`Format`] to its
//! `Content-Type` with [`Format::content_type`].
//!
//! ## `Accept` grammar
//!
//! ```text
//! accept     = [ range *( "," range ) ]          ; empty or absent: JSON (else the first offered)
//! range      = type "/" subtype *( ";" param )   ; case-insensitive
//! type       = token | "*"                       ; "*/*", "text/*", "application/*" ...
//! param      = "q=" qvalue | other-param         ; other parameters are ignored
//! qvalue     = a number in 0..=1                 ; 0 means "not acceptable"; default 1
//! ```
//!
//! A range that does not parse (no `/`, `*/json`, a `q` that is not a number in `0..=1`) matches
//! nothing. For each offered format the most specific matching range gives its weight (exact
//! type, then `type/*`, then `*/*`); the highest weight wins and ties go to the order of the
//! offer. [`Format::Xml`] also answers to `text/xml`.

pub mod arrow;
pub mod csv;
pub mod template;
pub mod xml;

#[cfg(test)]
mod tests;

use crate::error::{Error, ErrorCode, Result};

/// The media type of the Arrow IPC stream format.
pub const ARROW_STREAM: &str = "application/vnd.apache.arrow.stream";

/// A representation a response can be given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `application/json`, the default.
    Json,
    /// `text/csv`: one row per item (see [`csv`]).
    Csv,
    /// `application/xml`: a document mirroring the JSON (see [`xml`]).
    Xml,
    /// `text/html`: a mustache template rendered over the data (see `template`).
    Html,
    /// `application/vnd.apache.arrow.stream`: columns in the Arrow IPC stream format (see
    /// [`arrow`]).
    Arrow,
    /// `image/svg+xml`: a chart of data (drawn by the server, offered on data reads only).
    Svg,
}

impl Format {
    /// The `Content-Type` header value of a response in this format.
    pub fn content_type(&self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8",
            Format::Xml => "application/xml",
            Format::Html => "text/html; charset=utf-8",
            Format::Arrow => ARROW_STREAM,
            Format::Svg => "image/svg+xml",
        }
    }

    /// The media type (`type/subtype`, no parameters) that names this format in `Accept`.
    pub fn media_type(&self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Csv => "text/csv",
            Format::Xml => "application/xml",
            Format::Html => "text/html",
            Format::Arrow => ARROW_STREAM,
            Format::Svg => "image/svg+xml",
        }
    }

    /// Every `type/subtype` this format answers to (the media type, plus aliases).
    fn aliases(&self) -> &'static [&'static str] {
        match self {
            Format::Json => &["application/json"],
            Format::Csv => &["text/csv"],
            Format::Xml => &["application/xml", "text/xml"],
            Format::Html => &["text/html"],
            Format::Arrow => &[ARROW_STREAM],
            Format::Svg => &["image/svg+xml"],
        }
    }
}

/// One parsed media range of an `Accept` header: `type/subtype` (lower case) and its weight.
#[derive(Debug, Clone, PartialEq)]
struct MediaRange {
    kind: String,
    subtype: String,
    q: f32,
}

impl MediaRange {
    /// Parses one comma-separated element; `None` when it is not a media range.
    fn parse(element: &str) -> Option<MediaRange> {
        let mut parts = element.split(';');
        let (kind, subtype) = parts.next()?.trim().split_once('/')?;
        let (kind, subtype) = (kind.trim(), subtype.trim());
        let is_token = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
        };
        if !is_token(kind) || !is_token(subtype) || (kind == "*" && subtype != "*") {
            return None;
        }
        let mut q = 1.0;
        for param in parts {
            let Some((name, value)) = param.split_once('=') else {
                continue;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                q = value
                    .trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))?;
            }
        }
        Some(MediaRange {
            kind: kind.to_ascii_lowercase(),
            subtype: subtype.to_ascii_lowercase(),
            q,
        })
    }

    /// How specifically this range matches `media` (`type/subtype`): 3 exact, 2 `type/*`,
    /// 1 `*/*`, `None` no match.
    fn specificity(&self, media: &str) -> Option<u8> {
        let (kind, subtype) = media.split_once('/')?;
        if self.kind == "*" {
            Some(1)
        } else if self.kind != kind {
            None
        } else if self.subtype == "*" {
            Some(2)
        } else if self.subtype == subtype {
            Some(3)
        } else {
            None
        }
    }
}

/// The weight `ranges` give `format`: that of the most specific matching range (0 if none).
fn weight(ranges: &[MediaRange], format: Format) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in ranges {
        for media in format.aliases() {
            if let Some(spec) = range.specificity(media) {
                // Among equally specific ranges (e.g. `application/xml` and `text/xml`) the
                // higher weight counts.
                if best.is_none_or(|(s, q)| spec > s || (spec == s && range.q > q)) {
                    best = Some((spec, range.q));
                }
            }
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

/// Picks the format of a response from the request's `Accept` header and the formats the
/// endpoint offers (in order of preference).
///
/// An absent or blank header gives [`Format::Json`] when offered, else the first offered format.
/// Otherwise the offered format with the highest weight wins (ties: the order of `available`);
/// when every offered format has weight 0 the answer is a [`ErrorCode::NotAcceptable`] error
/// listing the media types that are available. See the module documentation for the grammar.
pub fn negotiate(accept: Option<&str>, available: &[Format]) -> Result<Format> {
    let Some(&first) = available.first() else {
        return Err(Error::Internal(
            "negotiate called with no available format".into(),
        ));
    };
    let accept = accept.map(str::trim).unwrap_or("");
    if accept.is_empty() {
        return Ok(if available.contains(&Format::Json) {
            Format::Json
        } else {
            first
        });
    }
    let ranges: Vec<MediaRange> = accept.split(',').filter_map(MediaRange::parse).collect();
    let mut best: Option<(f32, Format)> = None;
    for &format in available {
        let q = weight(&ranges, format);
        if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, format));
        }
    }
    best.map(|(_, format)| format).ok_or_else(|| {
        let offered: Vec<&str> = available.iter().map(Format::media_type).collect();
        let shown: String = if accept.chars().count() > 200 {
            accept.chars().take(200).chain("...".chars()).collect()
        } else {
            accept.to_string()
        };
        Error::new(
            ErrorCode::NotAcceptable,
            format!(
                "none of the media types in Accept '{shown}' is available; available: {}",
                offered.join(", ")
            ),
        )
    })
}
