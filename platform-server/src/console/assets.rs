//! The console's stylesheet and script, compiled into the binary.

use crate::error::ApiError;
use actix_web::http::header;
use actix_web::{web, HttpResponse};
use platform_core::ErrorCode;

/// The stylesheet's name under `/console/assets/`.
pub const CSS_NAME: &str = "console.css";
/// The script's name under `/console/assets/`.
pub const JS_NAME: &str = "console.js";

const CSS: &str = include_str!("assets/console.css");
const JS: &str = include_str!("assets/console.js");

/// `GET /console/assets/{name}` (revalidated on each use through its ETag).
pub async fn serve(path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let (body, kind) = match name.as_str() {
        CSS_NAME => (CSS, "text/css; charset=utf-8"),
        JS_NAME => (JS, "text/javascript; charset=utf-8"),
        _ => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no console asset \"{name}\": there are {CSS_NAME} and {JS_NAME}"),
            ))
        }
    };
    Ok(HttpResponse::Ok()
        .content_type(kind)
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body))
}
