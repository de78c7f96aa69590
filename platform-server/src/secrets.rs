//! Routes of the secret service: `GET v1`, `GET v1/{key}`, `POST v1`, `DELETE v1/{key}`.

use crate::error::ApiError;
use crate::request::{as_caller, parse_json, read_body};
use crate::routes::{method_not_allowed, TOTAL_COUNT_HEADER};
use crate::AppState;
use actix_web::{web, HttpRequest, HttpResponse};

type Reply = Result<HttpResponse, ApiError>;

/// Registers the secret routes (before the generic ones, which they take precedence over).
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/secret/{release}")
            .route(web::get().to(list))
            .route(web::post().to(save))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/secret/{release}/{key}")
            .route(web::get().to(get))
            .route(web::delete().to(delete))
            .default_service(web::to(method_not_allowed)),
    );
}

fn release(r: &str) -> Result<(), ApiError> {
    crate::routes::check_release("secret", r)
}

async fn list(req: HttpRequest, path: web::Path<String>, state: web::Data<AppState>) -> Reply {
    release(&path.into_inner())?;
    let items = as_caller(&req, &state, |p, who| p.list_secrets(who)).await?;
    Ok(HttpResponse::Ok()
        .insert_header((TOTAL_COUNT_HEADER, items.len().to_string()))
        .json(items))
}

/// `POST /secret/v1` (and the `POST /secret` alias).
pub async fn save(
    req: HttpRequest,
    state: web::Data<AppState>,
    mut payload: web::Payload,
) -> Reply {
    if let Some(r) = req.match_info().get("release") {
        release(r)?;
    }
    let body = parse_json(&read_body(&req, &state, &mut payload).await?)?;
    let saved = as_caller(&req, &state, move |p, who| p.save_secret(who, body)).await?;
    Ok(HttpResponse::Ok().json(saved))
}

async fn get(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, key) = path.into_inner();
    release(&r)?;
    let secret = as_caller(&req, &state, move |p, who| p.get_secret(who, &key)).await?;
    Ok(HttpResponse::Ok().json(secret))
}

async fn delete(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> Reply {
    let (r, key) = path.into_inner();
    release(&r)?;
    let out = as_caller(&req, &state, move |p, who| p.delete_secret(who, &key)).await?;
    Ok(HttpResponse::Ok().json(out))
}
