//! Routes of the validationconfig and validation services.

use crate::endpoint::{AnswerDoc, BodyDoc, Endpoint, Function, Verb};
use crate::error::ApiError;
use crate::negotiate::listed;
use crate::request::{function_named, Caller, Query};
use crate::wire::to_wire;
use actix_web::{web, HttpRequest, HttpResponse};
use platform_core::api::Collection;
use platform_core::api::{objects::DeleteTarget, objects::SaveOptions, ListRequest};
use platform_core::api::{
    validation::RecordsAction, validation::StatsQuery, validation::SuggestionRequest,
    validation::TuningRequest,
};
use platform_core::api::{
    validation::RunOutcome, validation::ValidationBatch, validation::ValidationRequest, Source,
    VersionRef,
};
use platform_core::ErrorCode;
use serde_json::Value;
use std::time::Duration;

type Reply = Result<HttpResponse, ApiError>;

const CONFIG: Collection = Collection::ValidationConfig;

const LIST_AND_FUNCTION: &[&str] = &[
    "_filter",
    "_sort",
    "_limit",
    "_skip",
    "_search",
    "_distinct",
    "_project",
    "_function",
];

/// `_function=automations` (GET or POST validationconfig/v1, POST validation/v1) reads no body.
const AUTOMATIONS: &[Function] = &[Function::new("automations")];
/// `_function=listAutomations` on one item.
const LIST_AUTOMATIONS: &[Function] = &[Function::new("listAutomations")];
/// The functions of `GET validation/v1`.
const GET_FUNCTIONS: &[Function] = &[Function::new("stats"), Function::new("jobs")];
/// The functions of `POST validation/v1`: each reads a JSON object but `automations`.
const POST_FUNCTIONS: &[Function] = &[
    Function::new("run").body(BodyDoc::Object),
    Function::new("test").body(BodyDoc::Object),
    Function::new("runMany").body(BodyDoc::Object),
    Function::new("suggest").body(BodyDoc::Object),
    Function::new("tune").body(BodyDoc::Object),
    Function::new("override").body(BodyDoc::Object),
    Function::new("removeOverride").body(BodyDoc::Object),
    Function::new("comment").body(BodyDoc::Object),
    Function::new("automations"),
];

/// The validationconfig and validation routes (before the generic ones).
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        Verb::Get,
        "/validationconfig/v1",
        "List the validation configurations; _function=automations recreates missing automations",
        |r| r.to(list_configs),
    )
    .query(LIST_AND_FUNCTION)
    .functions(AUTOMATIONS, false)
    .answer(AnswerDoc::ObjectOrList),
    Endpoint::new(
        Verb::Post,
        "/validationconfig/v1",
        "Save a validation configuration; _function=automations recreates missing automations",
        |r| r.to(save_config),
    )
    .query(&["_reason", "_replace", "_function"])
    .functions(AUTOMATIONS, false)
    .body(BodyDoc::OptionalObject),
    Endpoint::new(
        Verb::Get,
        "/validationconfig/v1/{id}",
        "One validation configuration (its data id); _function=listAutomations",
        |r| r.to(get_config),
    )
    .query(&["_function"])
    .functions(LIST_AUTOMATIONS, false)
    .answer(AnswerDoc::ObjectOrList),
    Endpoint::new(
        Verb::Delete,
        "/validationconfig/v1/{id}",
        "Delete a validation configuration (its records are kept)",
        |r| r.to(delete_config),
    )
    .query(&["_reason"]),
    Endpoint::new(
        Verb::Get,
        "/validationconfig/v1/{id}/{version}",
        "One version of a configuration, or * for the list of versions",
        |r| r.to(config_version),
    )
    .answer(AnswerDoc::ObjectOrList),
    Endpoint::new(
        Verb::Put,
        "/validationconfig/v1/{id}/{version}/{tag}",
        "Tag a version of a configuration",
        |r| r.to(tag_config),
    ),
    Endpoint::new(
        Verb::Get,
        "/validation/v1",
        "List validation records; _function=stats or jobs",
        |r| r.to(validation_get),
    )
    .query(&[
        "_filter",
        "_sort",
        "_limit",
        "_skip",
        "_search",
        "_distinct",
        "_project",
        "_function",
        "from",
        "to",
        "target",
        "kind",
        "group",
    ])
    .functions(GET_FUNCTIONS, false)
    .answer(AnswerDoc::ObjectOrList),
    Endpoint::new(
        Verb::Post,
        "/validation/v1",
        "Run, test, suggest or tune checks; override, removeOverride or comment records",
        |r| r.to(validation_post),
    )
    .query(&["_function", "_delay", "_wait"])
    .functions(POST_FUNCTIONS, true)
    .body(BodyDoc::OptionalObject),
    Endpoint::new(
        Verb::Get,
        "/validation/v1/{id}",
        "One validation record; _function=listAutomations",
        |r| r.to(get_record),
    )
    .query(&["_function"])
    .functions(LIST_AUTOMATIONS, false)
    .answer(AnswerDoc::ObjectOrList),
];

async fn list_configs(caller: Caller, Query(params): Query) -> Reply {
    if let Some(name) = params.get("_function") {
        function_named(AUTOMATIONS, name, "GET validationconfig/v1")?;
        return config_function(&caller).await;
    }
    let request = ListRequest::from_params(&params)?;
    let page = caller
        .run(move |p, who| p.objects().list(who, CONFIG, Source::Private, &request))
        .await?;
    Ok(listed(page.items, page.total))
}

async fn save_config(caller: Caller, Query(params): Query, payload: web::Payload) -> Reply {
    if let Some(name) = params.get("_function") {
        let function = function_named(AUTOMATIONS, name, "POST validationconfig/v1")?;
        caller.function_body(payload, function).await?;
        return config_function(&caller).await;
    }
    let body = caller.body(payload).await?;
    let opts = SaveOptions::from_params(&params, Some(Source::Private))?;
    let saved = caller
        .run(move |p, who| p.objects().save(who, CONFIG, body, &opts))
        .await?;
    Ok(HttpResponse::Ok().json(saved))
}

/// `_function=automations` (GET or POST validationconfig/v1, POST validation/v1): recreates the
/// missing automations of `runOnUpdate` configurations.
async fn config_function(caller: &Caller) -> Reply {
    let out = caller
        .run(move |p, who| p.validation().recreate_automations(who))
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

/// `_function=listAutomations` on one item of the service.
async fn item_templates(caller: &Caller, service: &'static str, id: String) -> Reply {
    let templates = caller
        .run(move |p, who| {
            p.automations()
                .templates(who, service, Source::Private, &id)
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

async fn get_config(caller: Caller, path: web::Path<String>) -> Reply {
    let id = path.into_inner();
    if wants_templates(caller.req())? {
        return item_templates(&caller, "validationconfig", id).await;
    }
    let item = caller
        .run(move |p, who| {
            p.objects()
                .get(who, CONFIG, Source::Private, &id, None, None)
        })
        .await?;
    Ok(HttpResponse::Ok().json(item))
}

async fn delete_config(caller: Caller, path: web::Path<String>, Query(params): Query) -> Reply {
    let id = path.into_inner();
    let reason = params.get("_reason").map(str::to_string);
    let out = caller
        .run(move |p, who| {
            p.objects().delete(
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

async fn config_version(caller: Caller, path: web::Path<(String, String)>) -> Reply {
    let (id, version) = path.into_inner();
    if version == "*" {
        let versions = caller
            .run(move |p, who| p.objects().versions(who, CONFIG, Source::Private, &id))
            .await?;
        let total = versions.len() as u64;
        return Ok(listed(versions, total));
    }
    let which: VersionRef = version.parse()?;
    let item = caller
        .run(move |p, who| {
            p.objects()
                .get(who, CONFIG, Source::Private, &id, Some(&which), None)
        })
        .await?;
    Ok(HttpResponse::Ok().json(item))
}

/// `PUT validationconfig/v1/{data_id}/{version}/{tag}`: tags a version of a configuration (so
/// that it can be read by tag, as the interface's versioning rules say).
async fn tag_config(caller: Caller, path: web::Path<(String, String, String)>) -> Reply {
    let (id, version, tag) = path.into_inner();
    let which: VersionRef = version.parse()?;
    let out = caller
        .run(move |p, who| {
            p.objects()
                .tag(who, CONFIG, Source::Private, &id, &which, &tag)
        })
        .await?;
    Ok(HttpResponse::Ok().json(out))
}

async fn validation_get(caller: Caller, Query(params): Query) -> Reply {
    match params.get("_function") {
        Some("stats") => {
            let out = caller
                .run(move |p, who| {
                    p.validation()
                        .stats(who, &StatsQuery::from_params(&params)?)
                })
                .await?;
            Ok(HttpResponse::Ok().json(out))
        }
        Some("jobs") => {
            let jobs = caller.run(move |p, who| p.jobs().jobs(who)).await?;
            let total = jobs.len() as u64;
            Ok(listed(jobs, total))
        }
        Some(other) => Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{other}\" on GET: use stats or jobs"),
        )),
        // A projection or `_distinct` answers values of records, else whole records.
        None => {
            let request = ListRequest::from_params(&params)?;
            if request.project.is_some() || request.distinct.is_some() {
                let page = caller
                    .run(move |p, who| p.validation().record_values(who, &request))
                    .await?;
                return Ok(listed(page.items, page.total));
            }
            let page = caller
                .run(move |p, who| p.validation().records(who, &request))
                .await?;
            Ok(listed(page.items, page.total))
        }
    }
}

async fn validation_post(caller: Caller, Query(params): Query, payload: web::Payload) -> Reply {
    let name = params.get("_function").ok_or_else(|| {
        ApiError::new(
            ErrorCode::MissingParameter,
            format!(
                "POST validation/v1 needs _function ({})",
                Function::names(POST_FUNCTIONS)
            ),
        )
    })?;
    let function = function_named(POST_FUNCTIONS, name, "POST validation/v1")?;
    // Of the shape the function takes (`automations` reads none: the interface shows none).
    let body = caller.function_body(payload, function).await?;
    if function.name == "automations" {
        return config_function(&caller).await;
    }
    let mut body = body.unwrap_or_default();
    if let (Some(delay), Value::Object(m)) = (params.get("_delay"), &mut body) {
        m.insert("_delay".into(), Value::String(delay.to_string()));
    }
    let name = function.name;
    let wait = wait_of(&params)?;
    if wait.is_some() && params.get("_delay").is_some() {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            "_wait and _delay together: a run postponed by _delay is not waited for",
        ));
    }
    let (out, job) = caller
        .run(move |p, who| {
            let v = p.validation();
            match name {
                "run" => {
                    let outcome = v.run(who, &ValidationRequest::from_body(&body)?)?;
                    let job = match &outcome {
                        RunOutcome::Queued(queued) => Some(queued.job.clone()),
                        RunOutcome::Done(_) => None,
                    };
                    Ok((to_wire(&outcome)?, job))
                }
                "test" => Ok((
                    to_wire(&v.test(who, &ValidationRequest::from_body(&body)?)?)?,
                    None,
                )),
                "runMany" => {
                    let batch = v.run_batch(who, &ValidationBatch::from_body(&body)?)?;
                    let job = batch.job.clone().filter(|_| batch.background);
                    Ok((to_wire(&batch)?, job))
                }
                "suggest" => Ok((
                    to_wire(&v.suggest(who, &SuggestionRequest::from_body(&body)?)?)?,
                    None,
                )),
                "tune" => Ok((
                    to_wire(&v.tune(who, &TuningRequest::from_body(&body)?)?)?,
                    None,
                )),
                "override" | "removeOverride" | "comment" => {
                    // The caller may act on records before the body is read, as the actions
                    // check it.
                    v.may_act_on_records(who, name)?;
                    let outcomes = match RecordsAction::from_body(name, &body)? {
                        RecordsAction::Override { ids, reason } => {
                            v.override_records(who, &ids, &reason)?
                        }
                        RecordsAction::RemoveOverride { ids } => v.remove_overrides(who, &ids)?,
                        RecordsAction::Comment { ids, message } => {
                            v.comment_records(who, &ids, &message)?
                        }
                    };
                    Ok((to_wire(&outcomes)?, None))
                }
                other => Err(platform_core::Error::invalid_parameter(format!(
                    "_function \"{other}\" is not answered by POST validation/v1"
                ))),
            }
        })
        .await?;
    let out = match (wait, job) {
        (Some(wait), Some(job)) => waited(&caller, out, job, wait).await?,
        _ => out,
    };
    Ok(HttpResponse::Ok().json(out))
}

/// The longest `_wait`, in seconds.
pub const MAX_WAIT_SECS: u64 = 60;

/// `_wait=SECONDS`, checked against its bound.
fn wait_of(params: &platform_core::api::Params) -> Result<Option<Duration>, ApiError> {
    let Some(text) = params.get("_wait") else {
        return Ok(None);
    };
    match text.parse::<u64>() {
        Ok(secs) if secs <= MAX_WAIT_SECS => Ok(Some(Duration::from_secs(secs))),
        _ => Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("_wait must be a number of seconds from 0 to {MAX_WAIT_SECS}, not \"{text}\""),
        )),
    }
}

/// The answer of a run that went to the background as job `id` once its job ends within
/// `wait` (the job's result, the answer the run would have given at once), else the queued
/// answer. A job that fails is the error it failed with.
async fn waited(
    caller: &Caller,
    out: Value,
    id: String,
    wait: Duration,
) -> Result<Value, ApiError> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        let job = {
            let id = id.clone();
            caller
                .run(move |p, who| Ok(p.jobs().jobs(who)?.into_iter().find(|j| j.id == id)))
                .await?
        };
        match job.as_ref().map(|j| j.status.as_str()) {
            Some("done") => return Ok(job.and_then(|j| j.result).unwrap_or_default()),
            Some("failed") => {
                return Err(ApiError::new(
                    ErrorCode::InvalidParameter,
                    format!(
                        "the background run {id} failed: {}",
                        job.as_ref().map(|j| j.message.as_str()).unwrap_or_default()
                    ),
                ))
            }
            // A postponed run (`_delay`) is not waited for.
            _ if std::time::Instant::now() >= deadline
                || job.as_ref().is_some_and(|j| j.not_before.is_some()) =>
            {
                return Ok(out)
            }
            _ => actix_rt::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

async fn get_record(caller: Caller, path: web::Path<String>) -> Reply {
    let id = path.into_inner();
    if wants_templates(caller.req())? {
        return item_templates(&caller, "validation", id).await;
    }
    let record = caller
        .run(move |p, who| p.validation().record(who, &id))
        .await?;
    Ok(HttpResponse::Ok().json(record))
}
