//! Routes of the validationconfig and validation services.

use crate::error::ApiError;
use crate::request::{as_caller, params, parse_json, read_body};
use crate::routes::{check_release, method_not_allowed, TOTAL_COUNT_HEADER};
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use platform_core::documents::{DeleteTarget, ListRequest, SaveOptions};
use platform_core::ids::{Source, VersionRef};
use platform_core::store::Collection;
use platform_core::ErrorCode;
use serde_json::Value;

type Reply = Result<HttpResponse, ApiError>;

const CONFIG: Collection = Collection::ValidationConfig;

/// Registers the routes (before the generic ones).
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/validationconfig/{release}")
            .route(web::get().to(list_configs))
            .route(web::post().to(save_config))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/validationconfig/{release}/{id}")
            .route(web::get().to(get_config))
            .route(web::delete().to(delete_config))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/validationconfig/{release}/{id}/{version}")
            .route(web::get().to(config_version))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/validationconfig/{release}/{id}/{version}/{tag}")
            .route(web::put().to(tag_config))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/validation/{release}")
            .route(web::get().to(validation_get))
            .route(web::post().to(validation_post))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/validation/{release}/{id}")
            .route(web::get().to(get_record))
            .default_service(web::to(method_not_allowed)),
    );
}

fn listed(items: Vec<Value>, total: u64) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((TOTAL_COUNT_HEADER, total.to_string()))
        .json(items)
}

async fn list_configs(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    check_release("validationconfig", &path.into_inner())?;
    let params = params(&req, &state, &mut payload).await?;
    if let Some(function) = params.get("_function") {
        return config_function(&req, &state, function).await;
    }
    let request = ListRequest::from_params(&params)?;
    let page = as_caller(&req, &state, move |p, who| {
        p.list(who, CONFIG, Source::Private, &request)
    })
    .await?;
    Ok(listed(page.items, page.total))
}

async fn save_config(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    check_release("validationconfig", &path.into_inner())?;
    let params = params(&req, &state, &mut payload).await?;
    if let Some(function) = params.get("_function") {
        return config_function(&req, &state, function).await;
    }
    let body = parse_json(&read_body(&req, &state, &mut payload).await?)?;
    let opts = SaveOptions::from_params(&params, Some(Source::Private))?;
    let saved = as_caller(&req, &state, move |p, who| p.save(who, CONFIG, body, &opts)).await?;
    Ok(HttpResponse::Ok().json(saved))
}

/// `_function=automations` (GET or POST validationconfig/v1, POST validation/v1): recreates the
/// missing automations of `runOnUpdate` configurations.
async fn config_function(req: &HttpRequest, state: &web::Data<AppState>, function: &str) -> Reply {
    if function != "automations" {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{function}\" on validationconfig/v1: use automations"),
        ));
    }
    let out = as_caller(req, state, move |p, who| p.sync_validation_automations(who)).await?;
    Ok(HttpResponse::Ok().json(out))
}

/// `_function=listAutomations` on one item of the service.
async fn item_templates(
    req: &HttpRequest,
    state: &web::Data<AppState>,
    service: &'static str,
    id: String,
) -> Reply {
    let templates = as_caller(req, state, move |p, who| {
        p.list_automations(who, service, Source::Private, &id)
    })
    .await?;
    let total = templates.len() as u64;
    Ok(listed(templates, total))
}

fn wants_templates(req: &HttpRequest) -> Result<bool, ApiError> {
    match web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
        .ok()
        .and_then(|q| q.get("_function").cloned())
    {
        None => Ok(false),
        Some(f) if f == "listAutomations" => Ok(true),
        Some(f) => Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{f}\" on an item: use listAutomations"),
        )),
    }
}

async fn get_config(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, id) = path.into_inner();
    check_release("validationconfig", &r)?;
    if wants_templates(&req)? {
        return item_templates(&req, &state, "validationconfig", id).await;
    }
    let item = as_caller(&req, &state, move |p, who| {
        p.get(who, CONFIG, Source::Private, &id, None, None)
    })
    .await?;
    Ok(HttpResponse::Ok().json(item))
}

async fn delete_config(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    let (r, id) = path.into_inner();
    check_release("validationconfig", &r)?;
    let params = params(&req, &state, &mut payload).await?;
    let reason = params.get("_reason").map(str::to_string);
    let out = as_caller(&req, &state, move |p, who| {
        p.delete(
            who,
            CONFIG,
            Source::Private,
            &id,
            &DeleteTarget::All,
            reason.as_deref(),
        )
    })
    .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn config_version(
    req: HttpRequest,
    path: web::Path<(String, String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, id, version) = path.into_inner();
    check_release("validationconfig", &r)?;
    if version == "*" {
        let versions = as_caller(&req, &state, move |p, who| {
            p.versions(who, CONFIG, Source::Private, &id)
        })
        .await?;
        let total = versions.len() as u64;
        return Ok(listed(versions, total));
    }
    let which: VersionRef = version.parse()?;
    let item = as_caller(&req, &state, move |p, who| {
        p.get(who, CONFIG, Source::Private, &id, Some(&which), None)
    })
    .await?;
    Ok(HttpResponse::Ok().json(item))
}

/// `PUT validationconfig/v1/{data_id}/{version}/{tag}`: tags a version of a configuration (so
/// that it can be read by tag, as the interface's versioning rules say).
async fn tag_config(
    req: HttpRequest,
    path: web::Path<(String, String, String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, id, version, tag) = path.into_inner();
    check_release("validationconfig", &r)?;
    let which: VersionRef = version.parse()?;
    let out = as_caller(&req, &state, move |p, who| {
        p.tag(who, CONFIG, Source::Private, &id, &which, &tag)
    })
    .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn validation_get(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    check_release("validation", &path.into_inner())?;
    let params = params(&req, &state, &mut payload).await?;
    match params.get("_function") {
        Some("stats") => {
            let out =
                as_caller(&req, &state, move |p, who| p.validation_stats(who, &params)).await?;
            Ok(HttpResponse::Ok().json(out))
        }
        Some("jobs") => {
            let jobs = as_caller(&req, &state, move |p, who| p.validation_jobs(who)).await?;
            let total = jobs.len() as u64;
            Ok(listed(jobs, total))
        }
        Some(other) => Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{other}\" on GET: use stats or jobs"),
        )),
        None => {
            let request = ListRequest::from_params(&params)?;
            let page = as_caller(&req, &state, move |p, who| {
                p.validation_records(who, &request)
            })
            .await?;
            Ok(listed(page.items, page.total))
        }
    }
}

async fn validation_post(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    check_release("validation", &path.into_inner())?;
    let params = params(&req, &state, &mut payload).await?;
    let function = params
        .get("_function")
        .ok_or_else(|| ApiError::new(ErrorCode::MissingParameter, "POST validation/v1 needs _function (run, test, runMany, suggest, tune, override, removeOverride, comment, automations)"))?
        .to_string();
    // The interface lists it on this service too; its body is not shown, so none is read.
    if function == "automations" {
        return config_function(&req, &state, &function).await;
    }
    let mut body = parse_json(&read_body(&req, &state, &mut payload).await?)?;
    if let (Some(delay), Value::Object(m)) = (params.get("_delay"), &mut body) {
        m.insert("_delay".into(), Value::String(delay.to_string()));
    }
    let out = as_caller(&req, &state, move |p, who| match function.as_str() {
        "run" => p.validation_run(who, &body, false, "manual"),
        "test" => p.validation_run(who, &body, true, "manual"),
        "runMany" => p.validation_run_many(who, &body, "manual"),
        "suggest" => p.validation_suggest(who, &body),
        "tune" => p.validation_tune(who, &body),
        "override" | "removeOverride" | "comment" => p.validation_records_action(who, &function, &body),
        other => Err(platform_core::Error::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{other}\": use run, test, runMany, suggest, tune, override, removeOverride, comment or automations"),
        )),
    })
    .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn get_record(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, id) = path.into_inner();
    check_release("validation", &r)?;
    if wants_templates(&req)? {
        return item_templates(&req, &state, "validation", id).await;
    }
    let record = as_caller(&req, &state, move |p, who| p.validation_record(who, &id)).await?;
    Ok(HttpResponse::Ok().json(record))
}
