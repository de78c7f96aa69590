//! The one place where core errors become HTTP responses.
//!
//! Body: `{"error": {"status": 400, "code": "INVALID_PARAMETER", "message": "..."}}`; header:
//! `x-platform-error: [INVALID_PARAMETER] message`. Internal failures are logged with an id and
//! answered with "internal error (id ...)"; their details never reach the client.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use platform_core::{Error, ErrorCode};
use serde_json::json;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The response header that carries the error text.
pub const ERROR_HEADER: &str = "x-platform-error";

/// The HTTP status of each error code: the whole policy in one table.
pub fn status(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidJson
        | ErrorCode::InvalidBody
        | ErrorCode::InvalidId
        | ErrorCode::InvalidParameter
        | ErrorCode::MissingParameter
        | ErrorCode::IndexAlign
        | ErrorCode::ConversionError => StatusCode::BAD_REQUEST,
        ErrorCode::NotAuthenticated => StatusCode::UNAUTHORIZED,
        ErrorCode::NotAuthorized => StatusCode::FORBIDDEN,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// A core error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl ApiError {
    /// A user error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError(Error::new(code, message))
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

static INCIDENT: AtomicU64 = AtomicU64::new(1);

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        status(self.0.code())
    }

    fn error_response(&self) -> HttpResponse {
        let code = self.0.code();
        let status = status(code);
        let message = if code == ErrorCode::Internal {
            let incident = INCIDENT.fetch_add(1, Ordering::Relaxed);
            tracing::error!(incident, error = ?self.0, "internal error");
            format!("internal error (id {incident})")
        } else {
            self.0.public_message()
        };
        let header_text = format!("[{}] {}", code.name(), message);
        // Header values may carry UTF-8 bytes (obs-text) but no control characters.
        let cleaned: String = header_text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let header_value = HeaderValue::from_bytes(cleaned.as_bytes())
            .unwrap_or_else(|_| HeaderValue::from_static("[INTERNAL_ERROR]"));
        HttpResponse::build(status)
            .insert_header((HeaderName::from_static(ERROR_HEADER), header_value))
            .json(json!({"error": {"status": status.as_u16(), "code": code.name(), "message": message}}))
    }
}
