//! Routes of the secret service: `GET v1`, `GET v1/{key}`, `POST v1`, `DELETE v1/{key}`.

use crate::endpoint::{AnswerDoc, BodyDoc, Endpoint, Verb};
use crate::error::ApiError;
use crate::negotiate::listed;
use crate::request::{Body, Caller};
use actix_web::{web, HttpResponse};
use platform_core::api::secrets::Secret;

type Reply = Result<HttpResponse, ApiError>;

/// The secret routes (before the generic ones, which they take precedence over).
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        Verb::Get,
        "/secret/v1",
        "List the secrets, without their values",
        |r| r.to(list),
    )
    .answer(AnswerDoc::List),
    Endpoint::new(Verb::Post, "/secret/v1", "Create or update a secret", |r| {
        r.to(save)
    })
    .body(BodyDoc::Object),
    Endpoint::new(Verb::Get, "/secret/v1/{key}", "One secret", |r| r.to(get)),
    Endpoint::new(Verb::Delete, "/secret/v1/{key}", "Delete a secret", |r| {
        r.to(delete)
    }),
];

async fn list(caller: Caller) -> Reply {
    let items = caller.run(|p, who| p.secrets().secrets(who)).await?;
    let total = items.len() as u64;
    Ok(listed(items, total))
}

/// `POST /secret/v1` (and the `POST /secret` alias).
pub async fn save(caller: Caller, Body(body): Body) -> Reply {
    let saved = caller
        .run(move |p, who| {
            // The caller may write before the body is read, as the service checks it.
            p.secrets().may_write(who)?;
            p.secrets().save(who, &Secret::from_body(&body)?)
        })
        .await?;
    Ok(HttpResponse::Ok().json(saved))
}

async fn get(caller: Caller, path: web::Path<String>) -> Reply {
    let key = path.into_inner();
    let secret = caller
        .run(move |p, who| p.secrets().secret(who, &key))
        .await?;
    Ok(HttpResponse::Ok().json(secret))
}

async fn delete(caller: Caller, path: web::Path<String>) -> Reply {
    let key = path.into_inner();
    let out = caller
        .run(move |p, who| p.secrets().delete(who, &key))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}
