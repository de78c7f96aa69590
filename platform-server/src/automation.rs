//! Routes of the automation and action services.
//!
//! | Method | Path | Core call |
//! |---|---|---|
//! | GET | `/automation/v1` | the caller's automations (paged) |
//! | POST | `/automation/v1` | save (create, or update with `_id`) |
//! | GET | `/automation/v1/log` | the automation log (`automation`, `status`, `from`, `to`, `_limit`, `_skip`) |
//! | GET | `/automation/v1/mail` | the mail outbox |
//! | GET, DELETE | `/automation/v1/{id}` | one automation; `?_run=true` (and `_delay`) test-fires it |
//! | PUT | `/automation/v1/{id}` | body `{"enabled": bool}` enables or disables it |
//! | POST | `/automation/v1/{id}/enable`, `/disable` | the same |
//! | GET | `/action/v1/public` | the targets (paged) |
//! | GET | `/action/v1/public/{id}` | one target |

use crate::endpoint::{AnswerDoc, BodyDoc, Endpoint, Verb};
use crate::error::ApiError;
use crate::negotiate::listed;
use crate::request::{Body, Caller, Query};
use actix_web::{web, HttpResponse};
use platform_core::api::time::delay_param;
use platform_core::api::{
    automations::Automation, automations::Automations, automations::LogQuery, Paging,
};
use platform_core::ErrorCode;

type Reply = Result<HttpResponse, ApiError>;

/// The automation and action routes (before the generic ones).
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        Verb::Get,
        "/automation/v1",
        "The caller's automations",
        |r| r.to(list),
    )
    .query(&["_limit", "_skip"])
    .answer(AnswerDoc::List),
    Endpoint::new(
        Verb::Post,
        "/automation/v1",
        "Create an automation, or update one with _id",
        |r| r.to(save_automation),
    )
    .body(BodyDoc::Object),
    Endpoint::new(Verb::Get, "/automation/v1/log", "The automation log", |r| {
        r.to(log)
    })
    .query(&["automation", "status", "from", "to", "_limit", "_skip"])
    .answer(AnswerDoc::List),
    Endpoint::new(Verb::Get, "/automation/v1/mail", "The mail outbox", |r| {
        r.to(mail)
    })
    .query(&["_limit", "_skip"])
    .answer(AnswerDoc::List),
    Endpoint::new(
        Verb::Get,
        "/automation/v1/{id}",
        "One automation; _run=true test-fires it",
        |r| r.to(get),
    )
    .query(&["_run", "_delay"]),
    Endpoint::new(
        Verb::Delete,
        "/automation/v1/{id}",
        "Delete an automation",
        |r| r.to(delete),
    ),
    Endpoint::new(
        Verb::Put,
        "/automation/v1/{id}",
        "Enable or disable an automation: body {\"enabled\": bool}",
        |r| r.to(put),
    )
    .body(BodyDoc::Object),
    Endpoint::new(
        Verb::Post,
        "/automation/v1/{id}/{switch}",
        "Enable or disable an automation",
        |r| r.to(switch),
    ),
    Endpoint::new(
        Verb::Get,
        "/action/v1/{source}",
        "The automation targets",
        |r| r.to(targets_list),
    )
    .sources(&["public"])
    .query(&["_limit", "_skip"])
    .answer(AnswerDoc::List),
    Endpoint::new(
        Verb::Get,
        "/action/v1/{source}/{id}",
        "One automation target",
        |r| r.to(target_get),
    )
    .sources(&["public"]),
];

async fn list(caller: Caller, Query(params): Query) -> Reply {
    let paging = Paging::from_params(&params)?;
    let page = caller
        .run(move |p, who| p.automations().automations(who, &paging))
        .await?;
    Ok(listed(page.items, page.total))
}

/// `POST automation/v1` (and its alias `POST automation`).
pub async fn save_automation(caller: Caller, Body(body): Body) -> Reply {
    let saved = caller
        .run(move |p, who| {
            // The caller may write before the body is read, as the service checks it.
            p.automations().may_save(who)?;
            p.automations().save(who, &Automation::from_body(&body)?)
        })
        .await?;
    Ok(HttpResponse::Ok().json(saved))
}

async fn log(caller: Caller, Query(params): Query) -> Reply {
    let paging = Paging::from_params(&params)?;
    let query = LogQuery {
        automation: params.get("automation").map(str::to_string),
        status: params.get("status").map(str::to_string),
        from: params.get("from").map(str::to_string),
        to: params.get("to").map(str::to_string),
        skip: paging.skip,
        limit: paging.limit,
    };
    let page = caller
        .run(move |p, who| p.automations().log(who, &query))
        .await?;
    Ok(listed(page.items, page.total))
}

async fn mail(caller: Caller, Query(params): Query) -> Reply {
    let paging = Paging::from_params(&params)?;
    let page = caller
        .run(move |p, who| p.automations().mails(who, paging.skip, paging.limit))
        .await?;
    Ok(listed(page.items, page.total))
}

async fn get(caller: Caller, path: web::Path<String>, Query(params): Query) -> Reply {
    let id = path.into_inner();
    if params.flag("_run")? {
        let delay = params.get("_delay").map(str::to_string);
        let out = caller
            .run(move |p, who| {
                // The caller may test-fire before the delay is read, as the service checks it.
                p.automations().may_test(who)?;
                let delay = delay_param(delay.as_deref())?;
                p.automations().test(who, &id, delay)
            })
            .await?;
        return Ok(HttpResponse::Ok().json(out));
    }
    let item = caller
        .run(move |p, who| p.automations().automation(who, &id))
        .await?;
    Ok(HttpResponse::Ok().json(item))
}

async fn delete(caller: Caller, path: web::Path<String>) -> Reply {
    let id = path.into_inner();
    let out = caller
        .run(move |p, who| p.automations().delete(who, &id))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn put(caller: Caller, path: web::Path<String>, Body(body): Body) -> Reply {
    let id = path.into_inner();
    let out = caller
        .run(move |p, who| {
            let on = Automations::enabled_from_body(&body)?;
            p.automations().set_enabled(who, &id, on)
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn switch(caller: Caller, path: web::Path<(String, String)>) -> Reply {
    let (id, switch) = path.into_inner();
    let on = match switch.as_str() {
        "enable" => true,
        "disable" => false,
        other => {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no endpoint automation/v1/{{id}}/{other}: use enable or disable"),
            ))
        }
    };
    let out = caller
        .run(move |p, who| p.automations().set_enabled(who, &id, on))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

fn check_source(source: &str) -> Result<(), ApiError> {
    if source == "public" {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::NotFound,
            format!("the action service lists its targets in the public source, not {source}"),
        ))
    }
}

async fn targets_list(caller: Caller, path: web::Path<String>, Query(params): Query) -> Reply {
    let source = path.into_inner();
    check_source(&source)?;
    let paging = Paging::from_params(&params)?;
    let page = caller
        .run(move |p, who| p.automations().targets(who, &paging))
        .await?;
    Ok(listed(page.items, page.total))
}

async fn target_get(caller: Caller, path: web::Path<(String, String)>) -> Reply {
    let (source, id) = path.into_inner();
    check_source(&source)?;
    let target = caller
        .run(move |p, who| p.automations().target(who, &id))
        .await?;
    Ok(HttpResponse::Ok().json(target))
}
