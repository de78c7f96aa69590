//! The one place where core errors become HTTP responses.
//!
//! Body: `{"error": {"status": 400, "code": "INVALID_PARAMETER", "message": "..."}}`; header:
//! `x-platform-error: [INVALID_PARAMETER] message`, in ASCII ([`header_text`]), repeated in
//! `x-odsl-error` (the header the prior art's Python SDK prints). Internal
//! failures are logged with an id and answered with "internal error (id ...)"; their details
//! never reach the client. What a message quotes of the input is bounded ([`bounded`]).

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use platform_core::{Error, ErrorCode};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The body of every error answer (its schema is the document's `ErrorEnvelope`).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorEnvelope {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The inside of the error envelope.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The HTTP status, repeated.
    pub status: u16,
    /// The stable code, e.g. `INVALID_PARAMETER` or `NOT_FOUND`.
    pub code: &'static str,
    /// What went wrong and, where it helps, what to send instead.
    pub message: String,
}

/// The response header that carries the error text.
pub const ERROR_HEADER: &str = "x-platform-error";

/// The same text under the name the prior art's SDK reads (decisions 12).
pub const ODSL_ERROR_HEADER: &str = "x-odsl-error";

/// Failures only HTTP knows: the core never produces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpCode {
    /// A body that is not valid JSON.
    InvalidJson,
    /// The path does not have this method.
    MethodNotAllowed,
    /// The request body is larger than the configured limit.
    PayloadTooLarge,
    /// The request body did not arrive within the time limit.
    RequestTimeout,
    /// The request's URL is longer than the limit.
    UriTooLong,
    /// The body is not of the media type the endpoint reads (a CSV import's `text/csv`).
    UnsupportedMediaType,
}

impl HttpCode {
    /// Every HTTP-only code (for tables and tests).
    pub const ALL: [HttpCode; 6] = [
        HttpCode::InvalidJson,
        HttpCode::MethodNotAllowed,
        HttpCode::PayloadTooLarge,
        HttpCode::RequestTimeout,
        HttpCode::UriTooLong,
        HttpCode::UnsupportedMediaType,
    ];

    /// The stable name clients see.
    pub fn name(self) -> &'static str {
        match self {
            HttpCode::InvalidJson => "INVALID_JSON",
            HttpCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            HttpCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            HttpCode::RequestTimeout => "REQUEST_TIMEOUT",
            HttpCode::UriTooLong => "URI_TOO_LONG",
            HttpCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
        }
    }

    /// Its HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            HttpCode::InvalidJson => StatusCode::BAD_REQUEST,
            HttpCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            HttpCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            HttpCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            HttpCode::UriTooLong => StatusCode::URI_TOO_LONG,
            HttpCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        }
    }
}

/// The HTTP status of each core error code: the whole policy in one table.
pub fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidBody
        | ErrorCode::InvalidId
        | ErrorCode::InvalidParameter
        | ErrorCode::MissingParameter
        | ErrorCode::IndexAlign
        | ErrorCode::ConversionError => StatusCode::BAD_REQUEST,
        ErrorCode::NotAuthenticated => StatusCode::UNAUTHORIZED,
        ErrorCode::NotAuthorized => StatusCode::FORBIDDEN,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        // A code of a later core, not yet given a status here (a test holds every code of
        // `ErrorCode::ALL` to a status of its own).
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An error on its way to the client: a core error, or one only HTTP knows.
#[derive(Debug)]
pub enum ApiError {
    /// What a core call (or a core parser) refused.
    Core(Error),
    /// What HTTP itself refused (method, body size, time or media type, URL length, JSON).
    Http(HttpCode, String),
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError::Core(e)
    }
}

impl ApiError {
    /// A core error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError::Core(Error::new(code, message))
    }

    /// An error only HTTP knows.
    pub fn http(code: HttpCode, message: impl Into<String>) -> Self {
        ApiError::Http(code, message.into())
    }

    /// The stable code name clients see.
    pub fn code_name(&self) -> &'static str {
        match self {
            ApiError::Core(e) => e.code().name(),
            ApiError::Http(code, _) => code.name(),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApiError::Core(e) => write!(f, "{e}"),
            ApiError::Http(code, message) => write!(f, "[{}] {message}", code.name()),
        }
    }
}

/// The `x-platform-error` text: `[CODE] message` in printable ASCII, since clients decode header
/// bytes as Latin-1 (`±` would read `Â±`). Other characters are written as JSON writes them
/// (`\u00b1`, surrogate pairs beyond the first plane), control characters as spaces; the JSON
/// body carries the message as it is.
pub fn header_text(code: &str, message: &str) -> String {
    let mut out = format!("[{code}] ");
    for c in message.chars() {
        match c {
            ' '..='~' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out
}

/// Most characters of one quoted input (`"..."`) an error message keeps.
pub const QUOTE_MAX: usize = 200;
/// Most characters of one word (a run without spaces) outside quotes an error message keeps.
pub const WORD_MAX: usize = 200;
/// Most characters of a whole error message.
pub const MESSAGE_MAX: usize = 2000;

/// An error message as clients get it: each quoted input cut to [`QUOTE_MAX`] characters and
/// each word outside quotes to [`WORD_MAX`], then the whole to [`MESSAGE_MAX`], each cut marked
/// with `...`. Messages quote what they were given; this bounds what a huge input echoes.
pub fn bounded(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= QUOTE_MAX.min(WORD_MAX) {
        return message.into();
    }
    let mut out = String::with_capacity(message.len().min(MESSAGE_MAX + 8));
    for (i, part) in message.split('"').enumerate() {
        if i > 0 {
            out.push('"');
        }
        if i % 2 == 1 {
            // Inside quotes.
            push_cut(&mut out, part, QUOTE_MAX);
        } else {
            let mut word = 0;
            let mut cut = false;
            for c in part.chars() {
                if c.is_whitespace() {
                    word = 0;
                    cut = false;
                    out.push(c);
                } else if word < WORD_MAX {
                    word += 1;
                    out.push(c);
                } else if !cut {
                    cut = true;
                    out.push_str("...");
                }
            }
        }
        if out.len() > MESSAGE_MAX * 4 {
            break;
        }
    }
    if out.chars().nth(MESSAGE_MAX).is_some() {
        let end = out
            .char_indices()
            .nth(MESSAGE_MAX)
            .map_or(out.len(), |(i, _)| i);
        out.truncate(end);
        out.push_str("...");
    }
    out.into()
}

fn push_cut(out: &mut String, text: &str, max: usize) {
    match text.char_indices().nth(max) {
        None => out.push_str(text),
        Some((end, _)) => {
            out.push_str(&text[..end]);
            out.push_str("...");
        }
    }
}

static INCIDENT: AtomicU64 = AtomicU64::new(1);

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::Core(e) => status(e.code()),
            ApiError::Http(code, _) => code.status(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        let name = self.code_name();
        let message = match self {
            ApiError::Core(e) if e.code() == ErrorCode::Internal => {
                let incident = INCIDENT.fetch_add(1, Ordering::Relaxed);
                tracing::error!(incident, error = %e, "internal error");
                format!("internal error (id {incident})")
            }
            ApiError::Core(e) if e.code() == ErrorCode::Unavailable => {
                // While the database is lost, the one line that said so stands for every
                // request that fails for it.
                if crate::monitor::loss_logged(e) {
                    tracing::debug!(error = %e, "storage unavailable");
                } else {
                    tracing::warn!(error = %e, "storage unavailable");
                }
                e.public_message()
            }
            ApiError::Core(e) => bounded(&e.public_message()).into_owned(),
            ApiError::Http(_, message) => bounded(message).into_owned(),
        };
        let header_value = HeaderValue::from_str(&header_text(name, &message))
            .unwrap_or_else(|_| HeaderValue::from_static("[INTERNAL_ERROR]"));
        let mut res = HttpResponse::build(status);
        res.insert_header((HeaderName::from_static(ERROR_HEADER), header_value.clone()));
        res.insert_header((HeaderName::from_static(ODSL_ERROR_HEADER), header_value));
        if status == StatusCode::UNAUTHORIZED {
            res.insert_header((
                actix_web::http::header::WWW_AUTHENTICATE,
                "Bearer realm=\"platform\"",
            ));
        }
        res.json(ErrorEnvelope {
            error: ErrorBody {
                status: status.as_u16(),
                code: name,
                message,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_quote_a_bounded_part_of_their_input() {
        assert_eq!(bounded("short \"x\""), "short \"x\"");
        let long = "a".repeat(1000);
        let m = bounded(&format!("invalid range \"{long}\": use last(n)")).into_owned();
        assert_eq!(
            m,
            format!(
                "invalid range \"{}...\": use last(n)",
                "a".repeat(QUOTE_MAX)
            )
        );
        let m = bounded(&format!("bad {long} here")).into_owned();
        assert_eq!(m, format!("bad {}... here", "a".repeat(WORD_MAX)));
        let m = bounded(&"ab ".repeat(10_000)).into_owned();
        assert_eq!(m.chars().count(), MESSAGE_MAX + 3);
        assert!(m.ends_with("..."));
        let m = bounded(&format!("\"{}\"", "é".repeat(500))).into_owned();
        assert_eq!(m.chars().count(), QUOTE_MAX + 5);
        // A list of short words is kept whole.
        let words = "_limit _skip _sort ".repeat(40);
        assert_eq!(bounded(&words), words);
    }

    #[test]
    fn the_error_header_is_printable_ascii() {
        assert_eq!(
            header_text("INVALID_BODY", "5 ± 1 in Zürich\tnow 😀"),
            "[INVALID_BODY] 5 \\u00b1 1 in Z\\u00fcrich now \\ud83d\\ude00"
        );
        assert!(HeaderValue::from_str(&header_text("NOT_FOUND", "é\n\u{7f}")).is_ok());
    }

    /// A write whose connection was lost during its COMMIT answers 503 UNAVAILABLE saying the
    /// outcome is unknown and that sending it again is safe; any other unavailability says
    /// nothing was changed.
    #[test]
    fn a_write_of_unknown_outcome_says_so_and_never_that_nothing_changed() {
        let body_of = |e: platform_core::Error| {
            let res = ApiError::Core(e).error_response();
            assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
            let header = res.headers().get(ERROR_HEADER).unwrap().to_str().unwrap();
            assert!(header.starts_with("[UNAVAILABLE] "), "{header}");
            header.to_string()
        };
        let unknown = body_of(platform_core::Error::outcome_unknown("connection closed"));
        assert!(
            unknown.contains("whether it was stored is unknown"),
            "{unknown}"
        );
        assert!(
            unknown.contains("sending the same request again is safe"),
            "{unknown}"
        );
        assert!(!unknown.contains("nothing was changed"), "{unknown}");
        let lost = body_of(platform_core::Error::Unavailable(
            "connection refused".into(),
        ));
        assert!(lost.contains("nothing was changed"), "{lost}");
    }
}
