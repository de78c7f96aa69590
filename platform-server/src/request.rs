//! Turning an HTTP request into core inputs: credentials, environment, parameters, body.
//!
//! Handlers take them as extractors: [`Caller`] (who calls, and the way to the core),
//! [`Query`] (the query parameters, and a GET's form body) and [`Body`] (a JSON body, read only
//! after the caller is authenticated, within the size and time limits).

use crate::endpoint::{BodyDoc, Function};
use crate::error::{ApiError, HttpCode};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{web, HttpMessage, HttpRequest};
use futures_util::StreamExt;
use platform_core::api::interface::{take_commit_position, ReplicaReads};
use platform_core::api::Params;
use platform_core::api::{Credentials, Principal};
use platform_core::{ErrorCode, Platform, Snapshot};

/// The request header that selects an environment.
pub const ENVIRONMENT_HEADER: &str = "x-platform-environment";

/// The tenant of an authenticated request, kept for the access log.
#[derive(Debug, Clone)]
pub struct TenantTag(pub String);

/// The principal a request authenticated as before its body was read (see [`read_body`]).
#[derive(Debug, Clone)]
struct Authenticated(Principal);

/// The decoded query string, plus a form body on GET (for URLs over 2048 characters).
async fn params(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    payload: &mut web::Payload,
) -> Result<Params, ApiError> {
    let mut pairs: Vec<(String, String)> = form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect();
    if is_form_get(req) {
        let body = read_body(req, state, payload).await?;
        pairs.extend(form_urlencoded::parse(&body).into_owned());
    }
    let params = Params::new(pairs);
    params.check_names()?;
    Ok(params)
}

/// Fails when the request target (path and query) is longer than `max_url` bytes.
pub fn check_url(uri: &actix_web::http::Uri, max_url: usize) -> Result<(), ApiError> {
    let target = uri.path_and_query().map_or(uri.path(), |pq| pq.as_str());
    if target.len() <= max_url {
        return Ok(());
    }
    Err(ApiError::http(
        HttpCode::UriTooLong,
        format!(
            "the URL \"{target}\" is longer than the limit of {max_url} bytes; send a long query \
             as a form body (GET with content-type application/x-www-form-urlencoded)"
        ),
    ))
}

/// Refuses a request whose URL is over the limit ([`check_url`]) or whose query holds an
/// unknown parameter starting with `_` (see `Params::check_names`), on every route, before
/// anything runs.
pub async fn check_url_and_query_names(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<
    actix_web::dev::ServiceResponse<actix_web::body::EitherBody<impl actix_web::body::MessageBody>>,
    actix_web::Error,
> {
    use actix_web::ResponseError as _;
    let max_url = req
        .app_data::<web::Data<AppState>>()
        .map_or(crate::state::DEFAULT_MAX_URL, |s| s.config.max_url);
    if let Err(e) = check_url(req.uri(), max_url) {
        let res = e.error_response();
        return Ok(req.into_response(res).map_into_right_body());
    }
    let pairs: Vec<(String, String)> = form_urlencoded::parse(req.query_string().as_bytes())
        .into_owned()
        .collect();
    if let Err(e) = Params::new(pairs).check_names() {
        let res = ApiError::Core(e).error_response();
        return Ok(req.into_response(res).map_into_right_body());
    }
    if let Err(e) = check_release(req.match_info().unprocessed()) {
        let res = e.error_response();
        return Ok(req.into_response(res).map_into_right_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// The one release check: a path `/{service}/{release}/...` of a known service names the
/// current release, else 404 naming it (the routes themselves are written with it).
fn check_release(path: &str) -> Result<(), ApiError> {
    let mut segments = path.trim_start_matches('/').split('/');
    let (Some(service), Some(release)) = (segments.next(), segments.next()) else {
        return Ok(());
    };
    if release == platform_core::api::interface::services::RELEASE
        || platform_core::api::interface::services::find(service).is_none()
    {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::NotFound,
        format!(
            "unknown release \"{release}\" of the {service} service: use {}",
            platform_core::api::interface::services::RELEASE
        ),
    ))
}

/// Reads the whole body of an authenticated caller, refusing more than `max_body` bytes and a
/// body that has not arrived within `body_timeout`.
///
/// The caller is authenticated from the headers first: an unauthenticated request is answered
/// 401 without waiting for its body (the server then closes the connection, the body unread).
/// The body must arrive within the time limit, else 408 (and the connection is closed).
async fn read_body(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    payload: &mut web::Payload,
) -> Result<Vec<u8>, ApiError> {
    if req.extensions().get::<Authenticated>().is_none() {
        // A token kept from an earlier request has its body read at once: the call that
        // follows authenticates it (a save, in its own write transaction).
        match kept_tenant(req, state) {
            Some(tenant) => {
                req.extensions_mut().insert(TenantTag(tenant));
            }
            None => {
                let principal = authenticate(req, state).await?;
                req.extensions_mut().insert(Authenticated(principal));
            }
        }
    }
    let (limit, timeout) = (state.config.max_body, state.config.body_timeout);
    match actix_rt::time::timeout(timeout, read_all(payload, limit)).await {
        Ok(body) => body,
        Err(_) => Err(ApiError::http(
            HttpCode::RequestTimeout,
            format!(
                "the request body did not arrive within {} seconds",
                timeout.as_secs_f64()
            ),
        )),
    }
}

async fn read_all(payload: &mut web::Payload, limit: usize) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::http(
            HttpCode::PayloadTooLarge,
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
fn parse_json(body: &[u8]) -> Result<serde_json::Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::http(
            HttpCode::InvalidJson,
            "the request body is empty; send a JSON object or array",
        ));
    }
    platform_core::api::formats::from_slice(body).map_err(|e| {
        ApiError::http(
            HttpCode::InvalidJson,
            format!("the request body is not valid JSON: {e}"),
        )
    })
}

/// The function of `functions` that `_function` names (`name`) on `endpoint` (e.g. `POST
/// validation/v1`), or a refusal listing them.
pub fn function_named(
    functions: &'static [Function],
    name: &str,
    endpoint: &str,
) -> Result<&'static Function, ApiError> {
    Function::find(functions, name).ok_or_else(|| {
        ApiError::new(
            ErrorCode::InvalidParameter,
            format!(
                "unknown _function \"{name}\" on {endpoint}: use {}",
                Function::names(functions)
            ),
        )
    })
}

/// The body of `_function=<function>` if it is of the shape the function takes (a function of
/// a POST or PUT refuses every other JSON type, before anything runs):
/// - [`BodyDoc::Object`]: a JSON object; [`BodyDoc::ObjectOrArray`]: an object or an array;
/// - [`BodyDoc::OptionalObject`]: an object, or nothing (`None`);
/// - [`BodyDoc::None`] (reads none): nothing, or an object, which is ignored (`None`).
///
/// An empty body where one is needed is `INVALID_JSON`, as for any body; a body of another type
/// is `INVALID_BODY`, its message naming the shape taken.
pub fn function_body(
    function: &Function,
    body: &[u8],
) -> Result<Option<serde_json::Value>, ApiError> {
    use serde_json::Value;
    let Function { name, body: shape } = *function;
    let (taken, optional) = match shape {
        BodyDoc::Object => ("a JSON object", false),
        BodyDoc::ObjectOrArray => ("a JSON object or an array of objects", false),
        BodyDoc::OptionalObject | BodyDoc::None => ("a JSON object or empty", true),
        // No function reads CSV (a CSV import is an endpoint of its own).
        BodyDoc::Csv => {
            return Err(ApiError::Core(platform_core::Error::Internal(format!(
                "_function={name} is declared with a CSV body"
            ))))
        }
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        if optional {
            return Ok(None);
        }
        return Err(ApiError::http(
            HttpCode::InvalidJson,
            format!("the body of _function={name} is empty; it must be {taken}"),
        ));
    }
    let value = parse_json(body)?;
    let fits = matches!(
        (&value, shape),
        (Value::Object(_), _) | (Value::Array(_), BodyDoc::ObjectOrArray)
    );
    if !fits {
        return Err(ApiError::new(
            ErrorCode::InvalidBody,
            format!(
                "the body of _function={name} must be {taken}, not {}",
                platform_core::api::formats::json_kind(&value)
            ),
        ));
    }
    Ok(match shape {
        BodyDoc::None => None,
        _ => Some(value),
    })
}

/// The credentials and environment a request's headers carry.
fn credentials(req: &HttpRequest) -> Result<(Option<Credentials>, Option<String>), ApiError> {
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
    Ok((credentials, environment))
}

fn blocking_failed(e: actix_web::error::BlockingError) -> ApiError {
    ApiError::Core(platform_core::Error::Internal(format!(
        "blocking task failed: {e}"
    )))
}

/// The tenant of the principal the platform keeps for the request's token from an earlier
/// request, if it keeps one (see `Tenancy::write_authenticated`).
fn kept_tenant(req: &HttpRequest, state: &web::Data<AppState>) -> Option<String> {
    let (credentials, environment) = credentials(req).ok()?;
    state
        .platform
        .tenancy()
        .kept_principal(credentials.as_ref(), environment.as_deref())
        .map(|p| p.tenant)
}

/// Authenticates the caller from the headers alone. A request without credentials is refused
/// at once; others are authenticated on this thread when the database lives in this process
/// and a connection is free at once (a known token costs a read of the authentication epoch),
/// else in one trip to the blocking pool.
async fn authenticate(
    req: &HttpRequest,
    state: &web::Data<AppState>,
) -> Result<Principal, ApiError> {
    let (credentials, environment) = credentials(req)?;
    let platform = state.platform.clone();
    if credentials.is_none() {
        // Refused before any store access: no trip to the blocking pool.
        return Ok(platform
            .tenancy()
            .authenticate(None, environment.as_deref())?);
    }
    // A panic stays in this call, as it would on a blocking thread: the worker goes on.
    let inline = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        platform.try_without_waiting(|platform| {
            platform
                .tenancy()
                .authenticate(credentials.as_ref(), environment.as_deref())
        })
    }))
    .map_err(|_| {
        ApiError::Core(platform_core::Error::Internal(
            "a core call panicked".into(),
        ))
    })?;
    if let Some(done) = inline {
        let principal = done?;
        req.extensions_mut()
            .insert(TenantTag(principal.tenant.clone()));
        return Ok(principal);
    }
    let span = tracing::Span::current();
    let principal = web::block(move || {
        let _request = span.enter();
        platform
            .tenancy()
            .authenticate(credentials.as_ref(), environment.as_deref())
    })
    .await
    .map_err(blocking_failed)??;
    req.extensions_mut()
        .insert(TenantTag(principal.tenant.clone()));
    Ok(principal)
}

/// Runs `f` on a blocking thread as the authenticated caller of `req`.
///
/// Authentication and the core call share one trip to the blocking pool (a request whose body
/// was read authenticated before, and reuses that caller); the tenant is recorded on the
/// request for the access log.
async fn as_caller<T, F>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    f: F,
) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&Platform, &Principal) -> platform_core::Result<T> + Send + 'static,
{
    let known = req.extensions().get::<Authenticated>().map(|c| c.0.clone());
    let (credentials, environment) = match known {
        Some(_) => (None, None),
        None => credentials(req)?,
    };
    let key = position_key(req, state);
    let after = state.positions.reads_after(req, key.as_deref())?;
    let platform = state.platform.clone();
    // The request's span (its id) goes with the call, so the core's log lines carry it.
    let span = tracing::Span::current();
    let done = web::block(move || {
        let _request = span.enter();
        // Authenticated on the primary (or, while it does not answer, where the request may
        // read); the call's reads where the request may read.
        let authenticate = || {
            platform
                .tenancy()
                .authenticate(credentials.as_ref(), environment.as_deref())
        };
        let principal = match known {
            Some(p) => p,
            None => match authenticate() {
                Err(e) if after.is_some() && e.code() == ErrorCode::Unavailable => {
                    let _replicas = after.map(ReplicaReads::allow);
                    authenticate()?
                }
                done => done?,
            },
        };
        let _replicas = after.map(ReplicaReads::allow);
        let out = f(&platform, &principal);
        Ok::<_, platform_core::Error>((principal.tenant, out, take_commit_position()))
    })
    .await
    .map_err(blocking_failed)??;
    finished(req, state, key, done)
}

/// A call made on the blocking pool, done: the caller's tenant kept for the access log, a
/// write's commit position recorded (`committed_at`), and the call's answer.
fn finished<T>(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    key: Option<String>,
    (tenant, out, committed): (String, platform_core::Result<T>, Option<u64>),
) -> Result<T, ApiError> {
    req.extensions_mut().insert(TenantTag(tenant));
    committed_at(req, state, key, committed);
    Ok(out?)
}

/// What names the caller's token among the recent writes (with read replicas only: a hash of
/// the token of the request, or of the one its body read authenticated).
fn position_key(req: &HttpRequest, state: &web::Data<AppState>) -> Option<String> {
    if !state.positions.enabled() {
        return None;
    }
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    Some(platform_core::api::interface::hash_token(value))
}

/// Records a write's commit position for the answer's header and the token's later reads.
fn committed_at(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    key: Option<String>,
    committed: Option<u64>,
) {
    if let Some(at) = committed {
        req.extensions_mut().insert(crate::positions::Committed(at));
        if let Some(key) = key {
            state.positions.wrote(key, at);
        }
    }
}

/// Who calls: the request and the server state, and [`Caller::run`], which authenticates the
/// caller and makes one core call in one trip to the blocking pool.
pub struct Caller {
    req: HttpRequest,
    state: web::Data<AppState>,
}

impl Caller {
    /// Runs `f` on a blocking thread as the authenticated caller (see `as_caller`).
    pub async fn run<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Platform, &Principal) -> platform_core::Result<T> + Send + 'static,
    {
        as_caller(&self.req, &self.state, f).await
    }

    /// Runs `f`, a write, on a blocking thread as the authenticated caller: a caller whose
    /// token the platform keeps from an earlier request is authenticated in `f`'s first write
    /// transaction, with no read of its own (`Tenancy::write_authenticated`: one round trip
    /// fewer on a database server), and `f` made again if tenancy changed meanwhile, so `f`
    /// must do the same work on every run. With read replicas, where the request may read
    /// from one, as [`Caller::run`].
    pub async fn run_write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: Fn(&Platform, &Principal) -> platform_core::Result<T> + Send + 'static,
    {
        let (req, state) = (&self.req, &self.state);
        let key = position_key(req, state);
        let after = state.positions.reads_after(req, key.as_deref())?;
        if after.is_some() || req.extensions().get::<Authenticated>().is_some() {
            return as_caller(req, state, f).await;
        }
        let (credentials, environment) = credentials(req)?;
        let platform = state.platform.clone();
        let span = tracing::Span::current();
        let done = web::block(move || {
            let _request = span.enter();
            let (principal, out) = platform.tenancy().write_authenticated(
                credentials.as_ref(),
                environment.as_deref(),
                |p| f(&platform, p),
            )?;
            Ok::<_, platform_core::Error>((principal.tenant, out, take_commit_position()))
        })
        .await
        .map_err(blocking_failed)??;
        finished(req, state, key, done)
    }

    /// Runs `f` as the authenticated caller, on this thread when the database lives in this
    /// process and a connection is free at once (no trip to the blocking pool), else as
    /// [`Caller::run`] does. Only for calls whose cost is bounded and small (a document by id,
    /// the last observations of a series): this thread serves other connections meanwhile.
    ///
    /// The caller is authenticated in a [`Snapshot`] that `f` is given to make its reads in
    /// (one read transaction for the whole request): on this thread, or on the pool (over a
    /// database server, where the snapshot's first read carries the authentication epoch's:
    /// one round trip for the request, see [`platform_core::api::tenancy::Tenancy::read_authenticated`]).
    pub async fn run_short<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: Fn(&Platform, &Principal, Option<&Snapshot<'_>>) -> platform_core::Result<T>
            + Send
            + 'static,
    {
        let platform = &self.state.platform;
        let known = self
            .req
            .extensions()
            .get::<Authenticated>()
            .map(|c| c.0.clone());
        let (credentials, environment) = match known {
            Some(_) => (None, None),
            None => credentials(&self.req)?,
        };
        // A panic stays in this call, as it would on a blocking thread: the worker goes on.
        let run = std::panic::AssertUnwindSafe(|| {
            platform.try_without_waiting(|platform| {
                let snapshot = platform.snapshot()?;
                let principal = match &known {
                    Some(p) => p.clone(),
                    None => snapshot
                        .tenancy()
                        .authenticate(credentials.as_ref(), environment.as_deref())?,
                };
                let out = f(platform, &principal, Some(&snapshot));
                // A call that would wait is run again on the pool, authentication included.
                if matches!(&out, Err(e) if e.is_would_wait()) {
                    return Err(platform_core::Error::would_wait());
                }
                Ok((principal.tenant, out))
            })
        });
        let inline = std::panic::catch_unwind(run).map_err(|_| {
            ApiError::Core(platform_core::Error::Internal(
                "a core call panicked".into(),
            ))
        })?;
        match inline {
            Some(done) => {
                let (tenant, out) = done?;
                self.req.extensions_mut().insert(TenantTag(tenant));
                Ok(out?)
            }
            None => self.run_in_snapshot(f).await,
        }
    }

    /// [`Caller::run_short`] on a blocking thread, for a database a network away: the caller
    /// authenticated and `f` run in one snapshot, the authentication epoch read with `f`'s
    /// first read (one round trip for both, where the token is kept), on a read replica where
    /// the request may read from one.
    async fn run_in_snapshot<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: Fn(&Platform, &Principal, Option<&Snapshot<'_>>) -> platform_core::Result<T>
            + Send
            + 'static,
    {
        let (req, state) = (&self.req, &self.state);
        let known = req.extensions().get::<Authenticated>().map(|c| c.0.clone());
        let (credentials, environment) = match known {
            Some(_) => (None, None),
            None => credentials(req)?,
        };
        let key = position_key(req, state);
        let after = state.positions.reads_after(req, key.as_deref())?;
        let platform = state.platform.clone();
        let span = tracing::Span::current();
        let (tenant, out) = web::block(move || {
            let _request = span.enter();
            let run = |after: Option<u64>| {
                let _replicas = after.map(ReplicaReads::allow);
                let snapshot = platform.snapshot()?;
                match &known {
                    Some(p) => {
                        let out = f(&platform, p, Some(&snapshot));
                        Ok((p.clone(), out))
                    }
                    None => snapshot.tenancy().read_authenticated(
                        credentials.as_ref(),
                        environment.as_deref(),
                        |p| f(&platform, p, Some(&snapshot)),
                    ),
                }
            };
            // A token made a moment ago may not have reached a replica yet: a caller a replica
            // does not know is authenticated again on the primary.
            let (principal, out) = match run(after) {
                Err(e) if after.is_some() && e.code() == ErrorCode::NotAuthenticated => run(None)?,
                done => done?,
            };
            Ok::<_, platform_core::Error>((principal.tenant, out))
        })
        .await
        .map_err(blocking_failed)??;
        req.extensions_mut().insert(TenantTag(tenant));
        Ok(out?)
    }

    /// The request (headers for content negotiation).
    pub fn req(&self) -> &HttpRequest {
        &self.req
    }

    /// The server's state.
    pub fn state(&self) -> &web::Data<AppState> {
        &self.state
    }

    /// A JSON body read from `payload` as [`Body`] reads it, for a handler that reads its body
    /// only in some cases.
    pub async fn body(&self, mut payload: web::Payload) -> Result<serde_json::Value, ApiError> {
        parse_json(&read_body(&self.req, &self.state, &mut payload).await?)
    }

    /// The body as it came, read from `payload` after the caller is authenticated and within
    /// the size and time limits, as [`Body`] reads it (for a body that is not JSON).
    pub async fn bytes(&self, mut payload: web::Payload) -> Result<Vec<u8>, ApiError> {
        read_body(&self.req, &self.state, &mut payload).await
    }

    /// The body of `_function=<function>`, read from `payload` as [`Body`] reads it and of the
    /// shape the function takes ([`function_body`]): `None` where it reads none or the body is
    /// optional and empty.
    pub async fn function_body(
        &self,
        mut payload: web::Payload,
        function: &Function,
    ) -> Result<Option<serde_json::Value>, ApiError> {
        function_body(
            function,
            &read_body(&self.req, &self.state, &mut payload).await?,
        )
    }
}

fn state_of(req: &HttpRequest) -> Result<web::Data<AppState>, ApiError> {
    req.app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ApiError::Core(platform_core::Error::Internal("no server state".into())))
}

impl actix_web::FromRequest for Caller {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(state_of(req).map(|state| Caller {
            req: req.clone(),
            state,
        }))
    }
}

/// The query parameters of a request, and those of a GET's form body (for URLs past 2048
/// characters).
pub struct Query(pub Params);

impl actix_web::FromRequest for Query {
    type Error = ApiError;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        // Only a GET's form body is read here; other bodies stay for their handler.
        let mut payload = match is_form_get(&req) {
            true => web::Payload::from_request(&req, payload).into_inner().ok(),
            false => None,
        };
        Box::pin(async move {
            let state = state_of(&req)?;
            let mut empty = None;
            let payload = match payload.as_mut() {
                Some(p) => p,
                None => empty.insert(
                    web::Payload::from_request(&req, &mut actix_web::dev::Payload::None)
                        .into_inner()
                        .map_err(|e| {
                            ApiError::Core(platform_core::Error::Internal(format!(
                                "the request body: {e}"
                            )))
                        })?,
                ),
            };
            params(&req, &state, payload).await.map(Query)
        })
    }
}

/// A JSON body, read after the caller is authenticated (see `read_body`) and parsed with
/// every key once (`parse_json`).
pub struct Body(pub serde_json::Value);

impl actix_web::FromRequest for Body {
    type Error = ApiError;
    type Future = futures_util::future::LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let req = req.clone();
        let payload = web::Payload::from_request(&req, payload).into_inner();
        Box::pin(async move {
            let state = state_of(&req)?;
            let mut payload = payload.map_err(|e| {
                ApiError::Core(platform_core::Error::Internal(format!(
                    "the request body: {e}"
                )))
            })?;
            let bytes = read_body(&req, &state, &mut payload).await?;
            parse_json(&bytes).map(Body)
        })
    }
}

fn is_form_get(req: &HttpRequest) -> bool {
    req.method() == actix_web::http::Method::GET
        && req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(e: ApiError) -> (String, String) {
        let envelope = actix_web::ResponseError::error_response(&e);
        let header = envelope.headers().get(crate::error::ERROR_HEADER).unwrap();
        let text = header.to_str().unwrap().to_string();
        let (code, message) = text[1..].split_once("] ").unwrap();
        (code.to_string(), message.to_string())
    }

    #[test]
    fn a_function_body_is_of_the_shape_the_function_takes() {
        let object = Function::new("run").body(BodyDoc::Object);
        let none = Function::new("automations");
        let either = Function::new("save").body(BodyDoc::ObjectOrArray);
        assert_eq!(
            function_body(&object, b"{\"a\": 1}").unwrap(),
            Some(json!({"a": 1}))
        );
        assert_eq!(function_body(&none, b"").unwrap(), None);
        assert_eq!(function_body(&none, b" {\"a\": 1} ").unwrap(), None);
        assert_eq!(function_body(&either, b"[]").unwrap(), Some(json!([])));
        let refused =
            |f: &Function, body: &str| code(function_body(f, body.as_bytes()).unwrap_err());
        assert_eq!(
            refused(&none, "\"x\""),
            (
                "INVALID_BODY".into(),
                "the body of _function=automations must be a JSON object or empty, not a string"
                    .into()
            )
        );
        assert_eq!(
            refused(&object, "[{}]").1,
            "the body of _function=run must be a JSON object, not an array"
        );
        assert_eq!(
            refused(&either, "null").1,
            "the body of _function=save must be a JSON object or an array of objects, not null"
        );
        assert_eq!(refused(&object, " ").0, "INVALID_JSON");
        assert_eq!(refused(&none, "{").0, "INVALID_JSON");
    }
}
