//! Routes of the secret service: `GET v1`, `GET v1/{key}`, `POST v1`, `DELETE v1/{key}`.

use crate::error::ApiError;
use crate::request::{Body, Caller};
use crate::routes::{listed, method_not_allowed};
use actix_web::{web, HttpResponse};

type Reply = Result<HttpResponse, ApiError>;

/// Registers the secret routes (before the generic ones, which they take precedence over).
pub fn register(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/secret/v1")
            .route(web::get().to(list))
            .route(web::post().to(save))
            .default_service(web::to(method_not_allowed)),
    )
    .service(
        web::resource("/secret/v1/{key}")
            .route(web::get().to(get))
            .route(web::delete().to(delete))
            .default_service(web::to(method_not_allowed)),
    );
}

async fn list(caller: Caller) -> Reply {
    let items = caller.run(|p, who| p.secrets().list(who)).await?;
    let total = items.len() as u64;
    Ok(listed(items, total))
}

/// `POST /secret/v1` (and the `POST /secret` alias).
pub async fn save(caller: Caller, Body(body): Body) -> Reply {
    let saved = caller
        .run(move |p, who| p.secrets().save(who, body))
        .await?;
    Ok(HttpResponse::Ok().json(saved))
}

async fn get(caller: Caller, path: web::Path<String>) -> Reply {
    let key = path.into_inner();
    let secret = caller.run(move |p, who| p.secrets().get(who, &key)).await?;
    Ok(HttpResponse::Ok().json(secret))
}

async fn delete(caller: Caller, path: web::Path<String>) -> Reply {
    let key = path.into_inner();
    let out = caller
        .run(move |p, who| p.secrets().delete(who, &key))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
