//! The console: a web face for people, served by the server itself (`GET /console`).
//!
//! Pages are rendered on the server (maud) with their charts inline as SVG ([`crate::chart`]);
//! the stylesheet and a little plain JavaScript are compiled into the binary and served under
//! `/console/assets/`. No CDN, no build step.
//!
//! How a page authenticates, without a token in a URL:
//! - A request with credentials (`Authorization: Bearer`, or Basic as a browser sends after its
//!   own prompt) gets the page, rendered as that caller; bad input gets the API's error envelope.
//! - A request without them gets the page's shell: the navigation, a sign-in form and an empty
//!   main area. The script keeps the token the user signs in with in `sessionStorage` and loads
//!   the page again with `fetch` and the token as a bearer token, putting the answer's main area
//!   in place; links and forms inside the console are followed the same way (with
//!   `history.pushState`). Actions (override, comment...) are POSTs to the REST interface.
//! - Without JavaScript, `/console/signin` asks the browser for Basic credentials (user and
//!   token); the browser then sends them with every console page, which read as plain HTML.
//!
//! Bad input gets the API's error envelope, except a read a page can show refused in place
//! ([`Rendered::refused`]: the series page's scaling choice), which answers the page with the
//! refusal's message beside the form that asked, under the error's status and headers.
//!
//! Every core call of the console is in `reads.rs`, the pages in their modules.

mod assets;
mod automations;
mod data;
mod layout;
mod objects;
mod reads;
mod scaling;
mod validation;

use crate::error::{ApiError, ERROR_HEADER, ODSL_ERROR_HEADER};
use crate::request::{Caller, Query};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use layout::Nav;
use maud::Markup;
use platform_core::api::Params;
use platform_core::api::Principal;
use platform_core::{Error, ErrorCode, Platform};

type Reply = Result<HttpResponse, ApiError>;

/// Rows of a list page.
const PAGE: usize = 20;

/// The first segment of every console path.
pub const SEGMENT: &str = "console";

/// Registers the console's routes under the current scope. They are pages for people, outside
/// the API's route table (`openapi.rs`) and its document, like the assets they load.
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.route("/console", web::get().to(objects_page))
        .route("/console/", web::get().to(objects_page))
        .route("/console/signin", web::get().to(signin))
        .route("/console/assets/{name}", web::get().to(assets::serve))
        .route("/console/object/{source}/{id}", web::get().to(object_page))
        .route("/console/series/{source}/{id}", web::get().to(series_page))
        .route("/console/curve/{source}/{id}", web::get().to(curve_page))
        .route("/console/validation", web::get().to(validation_page))
        .route(
            "/console/validation/record/{id}",
            web::get().to(record_page),
        )
        .route("/console/automations", web::get().to(automations_page));
}

/// The base path every console URL starts with (`""` or `/api`).
fn base(req: &HttpRequest) -> String {
    let base = req
        .app_data::<web::Data<AppState>>()
        .map(|s| s.config.base_path.trim_matches('/').to_string())
        .unwrap_or_default();
    if base.is_empty() {
        String::new()
    } else {
        format!("/{base}")
    }
}

fn has_credentials(req: &HttpRequest) -> bool {
    req.headers().contains_key(header::AUTHORIZATION)
}

/// An HTML answer: never cached (it shows data), never framed, only the console's own script
/// and stylesheet.
fn html(page: Markup) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::VARY, "Authorization"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ))
        .body(page.into_string())
}

/// A page's main area, and the refusal it shows when a read it asked for was refused.
pub struct Rendered {
    main: Markup,
    refused: Option<Error>,
}

impl Rendered {
    /// A main area that shows the refusal `error` (its message is on the page): the page is
    /// answered with the error's status and `x-platform-error` header.
    pub fn refused(main: Markup, error: Error) -> Rendered {
        Rendered {
            main,
            refused: Some(error),
        }
    }
}

impl From<Markup> for Rendered {
    fn from(main: Markup) -> Rendered {
        Rendered {
            main,
            refused: None,
        }
    }
}

/// A page: its shell without credentials, else `render` as the caller (on a blocking thread).
async fn page<F, R>(caller: Caller, nav: Nav, title: &'static str, render: F) -> Reply
where
    F: FnOnce(&Platform, &Principal, &str) -> platform_core::Result<R> + Send + 'static,
    R: Into<Rendered> + Send + 'static,
{
    let base = base(caller.req());
    if !has_credentials(caller.req()) {
        return Ok(html(layout::shell(&base, nav, title)));
    }
    let at = base.clone();
    let rendered: Rendered = caller.run(move |p, who| render(p, who, &at)).await?.into();
    let mut res = html(layout::page(&base, nav, title, rendered.main));
    if let Some(error) = rendered.refused {
        // The status and error headers of the API's answer to the same refusal.
        let api = ApiError::Core(error).error_response();
        *res.status_mut() = api.status();
        for name in [ERROR_HEADER, ODSL_ERROR_HEADER] {
            if let Some(value) = api.headers().get(name) {
                res.headers_mut()
                    .insert(header::HeaderName::from_static(name), value.clone());
            }
        }
    }
    Ok(res)
}

/// `GET /console/signin`: asks the browser for Basic credentials until it sends good ones, then
/// sends it to the console.
async fn signin(caller: Caller) -> Reply {
    let base = base(caller.req());
    if has_credentials(caller.req()) {
        match caller.run(|_, _| Ok(())).await {
            Ok(()) => {
                return Ok(HttpResponse::SeeOther()
                    .insert_header((header::LOCATION, format!("{base}/console")))
                    .finish())
            }
            Err(ApiError::Core(e)) if e.code() == ErrorCode::NotAuthenticated => {}
            Err(e) => return Err(e),
        }
    }
    Ok(HttpResponse::Unauthorized()
        .insert_header((
            header::WWW_AUTHENTICATE,
            "Basic realm=\"platform console\", charset=\"UTF-8\"",
        ))
        .content_type("text/html; charset=utf-8")
        .body(layout::basic_help(&base).into_string()))
}

async fn objects_page(caller: Caller, Query(params): Query) -> Reply {
    page(caller, Nav::Objects, "Objects", move |p, who, base| {
        objects::search(p, who, base, &params)
    })
    .await
}

async fn object_page(
    caller: Caller,
    path: web::Path<(String, String)>,
    Query(params): Query,
) -> Reply {
    let (source, id) = path.into_inner();
    page(caller, Nav::Objects, "Object", move |p, who, base| {
        objects::object(p, who, base, &source, &id, &params)
    })
    .await
}

async fn series_page(
    caller: Caller,
    path: web::Path<(String, String)>,
    Query(params): Query,
) -> Reply {
    let (source, id) = path.into_inner();
    page(caller, Nav::Objects, "Time series", move |p, who, base| {
        data::series(p, who, base, &source, &id, &params)
    })
    .await
}

async fn curve_page(
    caller: Caller,
    path: web::Path<(String, String)>,
    Query(params): Query,
) -> Reply {
    let (source, id) = path.into_inner();
    page(caller, Nav::Objects, "Curve", move |p, who, base| {
        data::curve(p, who, base, &source, &id, &params)
    })
    .await
}

async fn validation_page(caller: Caller, Query(params): Query) -> Reply {
    page(
        caller,
        Nav::Validation,
        "Validation",
        move |p, who, base| validation::dashboard(p, who, base, &params),
    )
    .await
}

async fn record_page(caller: Caller, path: web::Path<String>) -> Reply {
    let id = path.into_inner();
    page(
        caller,
        Nav::Validation,
        "Validation record",
        move |p, who, base| validation::record(p, who, base, &id),
    )
    .await
}

async fn automations_page(caller: Caller, Query(params): Query) -> Reply {
    page(
        caller,
        Nav::Automations,
        "Automations",
        move |p, who, base| automations::page(p, who, base, &params),
    )
    .await
}

/// Query parameters for a core call, built by a page.
fn params(pairs: &[(&str, &str)]) -> Params {
    Params::new(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// A page's query parameter, trimmed, when not empty.
fn param<'p>(params: &'p Params, name: &str) -> Option<&'p str> {
    params.get(name).map(str::trim).filter(|s| !s.is_empty())
}

/// The `skip` of a paged list: a number, else none.
fn skip_of(q: &Params) -> platform_core::Result<u64> {
    match param(q, "skip") {
        Some(s) => s
            .parse()
            .map_err(|_| Error::invalid_parameter(format!("skip \"{s}\" is not a number"))),
        None => Ok(0),
    }
}

/// Percent-encodes a path segment or query value (a space as `%20`, which both read).
fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}
