//! Turning an HTTP request into core inputs: credentials, environment, parameters, body.

use crate::error::ApiError;
use crate::AppState;
use actix_web::http::header;
use actix_web::{web, HttpMessage, HttpRequest};
use futures_util::StreamExt;
use platform_core::auth::{Credentials, Principal};
use platform_core::query::Params;
use platform_core::{ErrorCode, Platform};

/// The request header that selects an environment.
pub const ENVIRONMENT_HEADER: &str = "x-platform-environment";

/// The tenant of an authenticated request, kept for the access log.
#[derive(Debug, Clone)]
pub struct TenantTag(pub String);

/// The decoded query string, plus a form body on GET (for URLs over 2048 characters).
pub async fn params(
    req: &HttpRequest,
    payload: &mut web::Payload,
    limit: usize,
) -> Result<Params, ApiError> {
    let mut pairs: Vec<(String, String)> = form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect();
    let is_form = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if is_form && req.method() == actix_web::http::Method::GET {
        let body = read_body(payload, limit).await?;
        pairs.extend(form_urlencoded::parse(&body).into_owned());
    }
    let params = Params::new(pairs);
    params.check_names()?;
    Ok(params)
}

/// Refuses a request whose query holds an unknown parameter starting with `_` (see
/// `Params::check_names`), on every route, before anything runs.
pub async fn check_query_names(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<
    actix_web::dev::ServiceResponse<actix_web::body::EitherBody<impl actix_web::body::MessageBody>>,
    actix_web::Error,
> {
    use actix_web::ResponseError as _;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect();
    if let Err(e) = Params::new(pairs).check_names() {
        let res = ApiError(e).error_response();
        return Ok(req.into_response(res).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// Reads the whole body, refusing more than `limit` bytes.
pub async fn read_body(payload: &mut web::Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    };
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| match e {
            actix_web::error::PayloadError::Overflow => too_large(),
            other => ApiError::new(
                ErrorCode::InvalidBody,
                format!("could not read the request body: {other}"),
            ),
        })?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Parses a JSON body.
pub fn parse_json(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(
            ErrorCode::InvalidJson,
            "the request body is empty; send a JSON object or array",
        ));
    }
    serde_json::from_slice(body).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidJson,
            format!("the request body is not valid JSON: {e}"),
        )
    })
}

/// Runs `f` on a blocking thread as the authenticated caller of `req`.
///
/// Authentication and the core call share one trip to the blocking pool; the tenant is recorded
/// on the request for the access log.
pub async fn as_caller<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    f: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Platform, &Principal) -> platform_core::Result<T> + Send + 'static,
{
    let credentials = match req.headers().get(header::AUTHORIZATION) {
        None => None,
        Some(v) => {
            let text = v.to_str().map_err(|_| {
                ApiError::new(
                    ErrorCode::NotAuthenticated,
                    "the Authorization header is not valid text",
                )
            })?;
            Some(Credentials::from_authorization(text)?)
        }
    };
    let environment = match req.headers().get(ENVIRONMENT_HEADER) {
        None => None,
        Some(v) => Some(
            v.to_str()
                .map_err(|_| {
                    ApiError::new(
                        ErrorCode::InvalidParameter,
                        "x-platform-environment is not valid text",
                    )
                })?
                .to_string(),
        ),
    };
    let platform = state.platform.clone();
    let (tenant, out) = web::block(move || {
        let principal = platform.authenticate(credentials.as_ref(), environment.as_deref())?;
        let out = f(&platform, &principal);
        Ok::<_, platform_core::Error>((principal.tenant, out))
    })
    .await
    .map_err(|e| {
        ApiError(platform_core::Error::Internal(format!(
            "blocking task failed: {e}"
        )))
    })??;
    req.extensions_mut().insert(TenantTag(tenant));
    Ok(out?)
}
