//! Routes: each handler parses its inputs, makes one core call, and shapes the response.

use crate::error::{ApiError, HttpCode};
use crate::negotiate::Output;
use crate::request::{as_caller, params, parse_json, read_body};
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use platform_core::data::read::DataQuery;
use platform_core::documents::{DeleteTarget, ListRequest, SaveOptions};
use platform_core::ids::{Source, VersionRef};
use platform_core::query::Projection;
use platform_core::services::{self, RELEASE};
use platform_core::store::Collection;
use platform_core::ErrorCode;
use serde_json::Value;

/// The header that carries the total of a paged list.
pub const TOTAL_COUNT_HEADER: &str = "x-total-count";

type Reply = Result<HttpResponse, ApiError>;

/// Registers every route under the current scope.
pub fn register(cfg: &mut web::ServiceConfig) {
    crate::secrets::register(cfg);
    crate::extensions::register(cfg);
    crate::validation::register(cfg);
    crate::automation::register(cfg);
    cfg.service(
        web::resource("/{service}")
            .route(web::get().to(build_info))
            .route(web::post().to(save_alias))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/{service}/{release}")
            .route(web::post().to(save))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/{service}/{release}/{source}")
            .route(web::get().to(list))
            .route(web::post().to(save_to_source))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/{service}/{release}/{source}/{key}")
            .route(web::get().to(get_current))
            .route(web::delete().to(delete_latest))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/{service}/{release}/{source}/{key}/{version}")
            .route(web::get().to(get_version))
            .route(web::delete().to(delete_version))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/{service}/{release}/{source}/{key}/{version}/{tag}")
            .route(web::put().to(tag))
            .default_service(web::to(method_not_allowed)),
    );
}

/// Fails with 404 unless `release` is the one release of `service`.
pub(crate) fn check_release(service: &str, release: &str) -> Result<(), ApiError> {
    if release == RELEASE {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::NotFound,
            format!("unknown release \"{release}\" of the {service} service: use {RELEASE}"),
        ))
    }
}

/// Whether a path names the (read-only) data service, checking the release.
fn is_data(service: &str, release: &str) -> Result<bool, ApiError> {
    if service != "data" {
        return Ok(false);
    }
    if release != RELEASE {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("unknown release \"{release}\" of the data service: use {RELEASE}"),
        ));
    }
    Ok(true)
}

fn read_only() -> ApiError {
    ApiError::http(
        HttpCode::MethodNotAllowed,
        "the data service is read-only: write data by saving its object, delete it by deleting the object",
    )
}

/// The collection a versioned service keeps, checking service and release.
fn collection(service: &str, release: &str) -> Result<Collection, ApiError> {
    if service == "data" {
        return Err(read_only());
    }
    let info = services::find(service).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("unknown service \"{service}\""),
        )
    })?;
    if release != RELEASE {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("unknown release \"{release}\" of the {service} service: use {RELEASE}"),
        ));
    }
    match info.name {
        "object" => Ok(Collection::Object),
        "type" => Ok(Collection::Type),
        "script" => Ok(Collection::Script),
        "extension" => Ok(Collection::Extension),
        "action" => Err(ApiError::http(
            HttpCode::MethodNotAllowed,
            "the action service only lists the automation targets: GET /action/v1/public",
        )),
        other => Err(ApiError::new(
            ErrorCode::NotFound,
            format!("the {other} service is not available in this build yet"),
        )),
    }
}

fn json(value: impl serde::Serialize) -> HttpResponse {
    HttpResponse::Ok().json(value)
}

async fn build_info(path: web::Path<String>) -> Reply {
    let service = path.into_inner();
    let info = services::find(&service).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("unknown service \"{service}\""),
        )
    })?;
    Ok(json(services::build_info(info)))
}

/// Answers 405 for a method the path does not have.
pub async fn method_not_allowed(req: HttpRequest) -> Reply {
    Err(ApiError::http(
        HttpCode::MethodNotAllowed,
        format!("{} is not allowed on {}", req.method(), req.path()),
    ))
}

/// Answers 404 for a path no service has.
pub async fn unknown_path(req: HttpRequest, state: web::Data<AppState>) -> Reply {
    crate::request::check_url(req.uri(), state.config.max_url)?;
    Err(ApiError::new(
        ErrorCode::NotFound,
        format!("no endpoint at {}", req.path()),
    ))
}

async fn save_body(
    req: HttpRequest,
    state: web::Data<AppState>,
    mut payload: web::Payload,
    coll: Collection,
    source: Option<Source>,
) -> Reply {
    let params = params(&req, &state, &mut payload).await?;
    let body = parse_json(&read_body(&req, &state, &mut payload).await?)?;
    let opts = SaveOptions::from_params(&params, source)?;
    let saved = as_caller(&req, &state, move |p, who| p.save(who, coll, body, &opts)).await?;
    Ok(json(saved))
}

async fn save_alias(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Reply {
    let service = path.into_inner();
    if service == "secret" {
        return crate::secrets::save(req, state, payload).await;
    }
    if service == "automation" {
        return crate::automation::save_automation(req, state, payload).await;
    }
    let coll = collection(&service, RELEASE)?;
    save_body(req, state, payload, coll, None).await
}

async fn save(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Reply {
    let (service, release) = path.into_inner();
    save_body(req, state, payload, collection(&service, &release)?, None).await
}

async fn save_to_source(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Reply {
    let (service, release, source) = path.into_inner();
    let coll = collection(&service, &release)?;
    if coll == Collection::Extension
        && req
            .query_string()
            .split('&')
            .any(|kv| kv == "_publish=true")
    {
        return crate::extensions::publish_or_install(req, state, &source, payload).await;
    }
    let source: Source = source.parse()?;
    save_body(req, state, payload, coll, Some(source)).await
}

async fn list(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    let (service, release, source) = path.into_inner();
    if is_data(&service, &release)? {
        return list_data(req, source, state, payload).await;
    }
    let coll = collection(&service, &release)?;
    let source: Source = source.parse()?;
    let params = params(&req, &state, &mut payload).await?;
    let output = Output::choose(&req, &params)?;
    let out = output.clone();
    let profile = params.get("_profile").map(str::to_string);
    let data_query = match &profile {
        Some(_) => Some(DataQuery::from_params(&params)?),
        None => None,
    };
    let request = ListRequest::from_params(&params)?;
    let (body, total) = as_caller(&req, &state, move |p, who| {
        let page = match (profile, data_query) {
            (Some(name), Some(q)) if coll == Collection::Object => {
                p.list_profile(who, source, &request, &name, &q)?
            }
            _ => p.list(who, coll, source, &request)?,
        };
        Ok((
            out.body(p, who, &Value::Array(page.items), true)?,
            page.total,
        ))
    })
    .await?;
    Ok(output.respond(body, Some(total)))
}

async fn get_current(
    req: HttpRequest,
    path: web::Path<(String, String, String, String)>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    let (service, release, source, key) = path.into_inner();
    let data = is_data(&service, &release)?;
    let coll = if data {
        Collection::Object
    } else {
        collection(&service, &release)?
    };
    let source: Source = source.parse()?;
    let params = params(&req, &state, &mut payload).await?;
    if let Some(function) = params.get("_function") {
        if function != "listAutomations" {
            return Err(ApiError::new(
                ErrorCode::InvalidParameter,
                format!("unknown _function \"{function}\" on an item: use listAutomations"),
            ));
        }
        let templates = as_caller(&req, &state, move |p, who| {
            p.list_automations(who, &service, source, &key)
        })
        .await?;
        let total = templates.len() as u64;
        return Ok(HttpResponse::Ok()
            .insert_header((TOTAL_COUNT_HEADER, total.to_string()))
            .json(templates));
    }
    let output = Output::choose(&req, &params)?;
    let project = Projection::from_params(&params)?;
    let profile = params.get("_profile").map(str::to_string);
    let query = if data || profile.is_some() {
        Some(DataQuery::from_params(&params)?)
    } else {
        None
    };
    let out = output.clone();
    let body = as_caller(&req, &state, move |p, who| {
        let item = match (data, profile, query) {
            (true, _, Some(q)) => p.read_data(who, source, &key, &q)?,
            (false, Some(name), Some(q)) if coll == Collection::Object => {
                p.profile(who, source, &key, &name, &q)?
            }
            _ => p.get(who, coll, source, &key, None, project.as_ref())?,
        };
        out.body(p, who, &item, false)
    })
    .await?;
    Ok(output.respond(body, None))
}

async fn get_version(
    req: HttpRequest,
    path: web::Path<(String, String, String, String, String)>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    let (service, release, source, key, version) = path.into_inner();
    let coll = collection(&service, &release)?;
    let source: Source = source.parse()?;
    let params = params(&req, &state, &mut payload).await?;
    let output = Output::choose(&req, &params)?;
    let out = output.clone();
    if version == "*" {
        let (body, total) = as_caller(&req, &state, move |p, who| {
            let versions = p.versions(who, coll, source, &key)?;
            let total = versions.len() as u64;
            Ok((out.body(p, who, &Value::Array(versions), true)?, total))
        })
        .await?;
        return Ok(output.respond(body, Some(total)));
    }
    let which: VersionRef = version.parse()?;
    let project = Projection::from_params(&params)?;
    let body = as_caller(&req, &state, move |p, who| {
        let item = p.get(who, coll, source, &key, Some(&which), project.as_ref())?;
        out.body(p, who, &item, false)
    })
    .await?;
    Ok(output.respond(body, None))
}

async fn tag(
    req: HttpRequest,
    path: web::Path<(String, String, String, String, String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (service, release, source, key, version, tag) = path.into_inner();
    let coll = collection(&service, &release)?;
    let source: Source = source.parse()?;
    let which: VersionRef = version.parse()?;
    let out = as_caller(&req, &state, move |p, who| {
        p.tag(who, coll, source, &key, &which, &tag)
    })
    .await?;
    Ok(json(out))
}

async fn delete_with(
    req: HttpRequest,
    state: web::Data<AppState>,
    mut payload: web::Payload,
    (service, release, source, key): (String, String, String, String),
    target: DeleteTarget,
) -> Reply {
    let coll = collection(&service, &release)?;
    let source: Source = source.parse()?;
    let params = params(&req, &state, &mut payload).await?;
    let reason = params.get("_reason").map(str::to_string);
    let out = as_caller(&req, &state, move |p, who| {
        p.delete(who, coll, source, &key, &target, reason.as_deref())
    })
    .await?;
    Ok(json(out))
}

async fn delete_latest(
    req: HttpRequest,
    path: web::Path<(String, String, String, String)>,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Reply {
    let (service, release, source, key) = path.into_inner();
    if service == "extension" && release == RELEASE && source == "private" {
        return crate::extensions::uninstall(req, state, key).await;
    }
    let path = (service, release, source, key);
    delete_with(req, state, payload, path, DeleteTarget::Latest).await
}

async fn delete_version(
    req: HttpRequest,
    path: web::Path<(String, String, String, String, String)>,
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Reply {
    let (service, release, source, key, version) = path.into_inner();
    let target = if version == "*" {
        DeleteTarget::All
    } else {
        DeleteTarget::Version(version.parse()?)
    };
    delete_with(req, state, payload, (service, release, source, key), target).await
}

async fn list_data(
    req: HttpRequest,
    source: String,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    let source: Source = source.parse()?;
    let params = params(&req, &state, &mut payload).await?;
    let output = Output::choose(&req, &params)?;
    let query = DataQuery::from_params(&params)?;
    let request = ListRequest::from_params(&params)?;
    let out = output.clone();
    let (body, total) = as_caller(&req, &state, move |p, who| {
        let page = p.list_data(who, source, &request, &query)?;
        Ok((
            out.body(p, who, &Value::Array(page.items), true)?,
            page.total,
        ))
    })
    .await?;
    Ok(output.respond(body, Some(total)))
}
