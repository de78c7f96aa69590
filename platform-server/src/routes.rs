//! Routes: each handler parses its inputs, makes one core call, and shapes the response.

use crate::endpoint::{AnswerDoc, BodyDoc, Endpoint, Function, Verb};
use crate::error::{ApiError, HttpCode};
use crate::negotiate::{listed, Output, NEXT_HEADER};
use crate::request::{Body, Caller, Query};
use crate::state::AppState;
use crate::wire::to_wire;
use actix_web::{web, HttpRequest, HttpResponse};
use platform_core::api::data::CsvImport;
use platform_core::api::data::DataQuery;
use platform_core::api::interface::services;
use platform_core::api::Collection;
use platform_core::api::{objects::DeleteTarget, objects::SaveOptions, ListRequest};
use platform_core::api::{Params, Projection};
use platform_core::api::{Source, VersionRef};
use platform_core::ErrorCode;
use serde_json::Value;

mod item;

use item::{plan_read, read_item, respond_item};

type Reply = Result<HttpResponse, ApiError>;

/// Every service (`GET /{service}` answers each one's build information).
pub const ALL_SERVICES: &[&str] = &[
    "object",
    "data",
    "secret",
    "extension",
    "validationconfig",
    "validation",
    "automation",
    "action",
    "type",
    "script",
    "calendar",
];
/// The versioned services the generic routes store.
const VERSIONED: &[&str] = &["object", "type", "script", "extension", "calendar"];
/// The versioned services and the data service.
const READABLE: &[&str] = &["object", "type", "script", "extension", "calendar", "data"];
/// The `_function`s of one item: automations of any item, and the calendar service's.
const ITEM_FUNCTIONS: &[Function] = &[
    Function::new("listAutomations"),
    Function::new("holidays"),
    Function::new("businessDays"),
];
const SAVE_QUERY: &[&str] = &[
    "_reason",
    "_replace",
    "_replaceData",
    "_merge",
    "_onDuplicate",
];
const LIST_QUERY: &[&str] = &[
    "_filter",
    "_sort",
    "_limit",
    "_skip",
    "_after",
    "_count",
    "_search",
    "_searchinfo",
    "_distinct",
    "_project",
    "_id",
    "_type",
    "_profile",
    "_range",
    "_template",
    "currency",
    "units",
    "__density",
    "_calendar",
    "_observed",
    "_distribution",
    "_block",
    "_timezone",
];
const ITEM_QUERY: &[&str] = &[
    "_project",
    "_profile",
    "_range",
    "_function",
    "_template",
    "_version",
    "_asof",
    "_calendar",
    "_observed",
    "_distribution",
    "_block",
    "_timezone",
    "tenor",
    "listTenors",
    "_shape",
    "_weights",
    "_tolerance",
    "_continuation",
    "_roll",
    "_adjust",
    "_nearest",
    "_settlement",
    "currency",
    "units",
    "__density",
    "from",
    "to",
    "date",
    "n",
];

/// The generic routes of the versioned services, registered after every specific one.
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        Verb::Get,
        "/{service}",
        "The service's build information",
        |r| r.to(build_info),
    )
    .services(ALL_SERVICES),
    Endpoint::new(
        Verb::Post,
        "/{service}",
        "Save (as POST /{service}/v1)",
        |r| r.to(save_alias),
    )
    .services(&[
        "object",
        "type",
        "script",
        "extension",
        "calendar",
        "secret",
        "automation",
    ])
    .query(SAVE_QUERY)
    .body(BodyDoc::ObjectOrArray)
    .answer(AnswerDoc::Saved),
    Endpoint::new(
        Verb::Post,
        "/{service}/v1",
        "Create or update one item, or an array in one transaction",
        |r| r.to(save),
    )
    .services(VERSIONED)
    .query(SAVE_QUERY)
    .body(BodyDoc::ObjectOrArray)
    .answer(AnswerDoc::Saved),
    Endpoint::new(
        Verb::Get,
        "/{service}/v1/{source}",
        "List items (paged)",
        |r| r.to(list),
    )
    .services(READABLE)
    .query(LIST_QUERY)
    .answer(AnswerDoc::FormattedList),
    Endpoint::new(
        Verb::Post,
        "/{service}/v1/{source}",
        "Save into a source; extensions: _publish=true publishes (public) or installs (private)",
        |r| r.to(save_to_source),
    )
    .services(VERSIONED)
    .query(&[
        "_reason",
        "_replace",
        "_replaceData",
        "_merge",
        "_onDuplicate",
        "_publish",
        "_accept",
    ])
    .body(BodyDoc::ObjectOrArray)
    .answer(AnswerDoc::Saved),
    Endpoint::new(
        Verb::Get,
        "/{service}/v1/{source}/{key}",
        "One item (its current version, or by tag); _function=listAutomations; on a holiday \
         calendar _function=holidays (from, to) or businessDays (date, n)",
        |r| r.to(get_current),
    )
    .services(READABLE)
    .query(ITEM_QUERY)
    .functions(ITEM_FUNCTIONS, false)
    .answer(AnswerDoc::Formatted),
    Endpoint::new(
        Verb::Post,
        "/{service}/v1/{source}/{key}",
        "Import CSV (text/csv) into the series OBJ:PROP of an object that exists: time,value[,status] \
         or settlementDate,settlementPeriod,value rows (or ondate,tenor,value into a curve); \
         answers the saved object with _read and _dropped",
        |r| r.to(import_csv),
    )
    .services(&["data"])
    .sources(&["public", "private"])
    .query(&[
        "_reason",
        "_replaceData",
        "_merge",
        "_onDuplicate",
        "calendar",
        "timezone",
        "delimiter",
        "valueColumn",
        "timeColumn",
        "expiryCalendar",
    ])
    .body(BodyDoc::Csv)
    .answer(AnswerDoc::Object),
    Endpoint::new(
        Verb::Delete,
        "/{service}/v1/{source}/{key}",
        "Delete the latest version (a rollback); uninstalls a private extension",
        |r| r.to(delete_latest),
    )
    .services(VERSIONED)
    .query(&["_reason"]),
    Endpoint::new(
        Verb::Get,
        "/{service}/v1/{source}/{key}/{version}",
        "One version (number or tag), or * for the list of versions",
        |r| r.to(get_version),
    )
    .services(VERSIONED)
    .query(&["_project", "_template"])
    .answer(AnswerDoc::Formatted),
    Endpoint::new(
        Verb::Delete,
        "/{service}/v1/{source}/{key}/{version}",
        "Delete one version (number or tag), or * for every version",
        |r| r.to(delete_version),
    )
    .services(VERSIONED)
    .query(&["_reason"]),
    Endpoint::new(
        Verb::Put,
        "/{service}/v1/{source}/{key}/{version}/{tag}",
        "Tag a version (a tag moves from the version that had it)",
        |r| r.to(tag),
    )
    .services(VERSIONED),
];

/// Whether a path names the data service (read, and written only by a CSV import).
fn is_data(service: &str) -> bool {
    service == "data"
}

fn read_only() -> ApiError {
    ApiError::http(
        HttpCode::MethodNotAllowed,
        "the data service writes only CSV imports (POST /data/v1/{source}/OBJ:PROP with \
         Content-Type: text/csv): write data by saving its object, delete it by deleting the \
         object",
    )
}

/// The collection a versioned service keeps (the release was checked at the scope).
fn collection(service: &str) -> Result<Collection, ApiError> {
    if service == "data" {
        return Err(read_only());
    }
    let info = services::find(service).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("unknown service \"{service}\""),
        )
    })?;
    match info.name {
        "object" => Ok(Collection::Object),
        "type" => Ok(Collection::Type),
        "script" => Ok(Collection::Script),
        "extension" => Ok(Collection::Extension),
        "calendar" => Ok(Collection::Calendar),
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
    caller: Caller,
    params: Params,
    body: Value,
    coll: Collection,
    source: Option<Source>,
) -> Reply {
    let opts = SaveOptions::from_params(&params, source)?;
    let saved = caller
        .run_write(move |p, who| p.objects().save(who, coll, body.clone(), &opts))
        .await?;
    Ok(json(saved))
}

async fn save_alias(
    caller: Caller,
    path: web::Path<String>,
    Query(params): Query,
    Body(body): Body,
) -> Reply {
    let service = path.into_inner();
    if service == "secret" {
        return crate::secrets::save(caller, Body(body)).await;
    }
    if service == "automation" {
        return crate::automation::save_automation(caller, Body(body)).await;
    }
    let coll = collection(&service)?;
    save_body(caller, params, body, coll, None).await
}

async fn save(
    caller: Caller,
    path: web::Path<String>,
    Query(params): Query,
    Body(body): Body,
) -> Reply {
    let service = path.into_inner();
    save_body(caller, params, body, collection(&service)?, None).await
}

async fn save_to_source(
    caller: Caller,
    path: web::Path<(String, String)>,
    Query(params): Query,
    Body(body): Body,
) -> Reply {
    let (service, source) = path.into_inner();
    let coll = collection(&service)?;
    if coll == Collection::Extension && params.get("_publish") == Some("true") {
        return crate::extensions::publish_or_install(caller, &source, body, &params).await;
    }
    let source: Source = source.parse()?;
    save_body(caller, params, body, coll, Some(source)).await
}

async fn list(caller: Caller, path: web::Path<(String, String)>, Query(params): Query) -> Reply {
    let (service, source) = path.into_inner();
    if is_data(&service) {
        return list_data(caller, source, params).await;
    }
    let coll = collection(&service)?;
    let source: Source = source.parse()?;
    let output = if params.get("_profile").is_some() {
        Output::choose_data(caller.req(), &params)?
    } else {
        Output::choose(caller.req(), &params)?
    };
    let out = output.clone();
    let profile = params.get("_profile").map(str::to_string);
    let data_query = match &profile {
        Some(_) => Some(DataQuery::from_params(&params)?),
        None => None,
    };
    let request = ListRequest::from_params(&params)?;
    let (body, total, next) = caller
        .run(move |p, who| {
            let (page, next) = match (profile, data_query) {
                (Some(name), Some(q)) if coll == Collection::Object => (
                    p.data().list_profile(who, source, &request, &name, &q)?,
                    None,
                ),
                _ => p.objects().list_with_next(who, coll, source, &request)?,
            };
            Ok((
                out.body(p, who, &Value::Array(page.items), true)?,
                (page.total, page.estimated),
                next,
            ))
        })
        .await?;
    let mut response = output.respond(body, Some(total));
    if let Some(next) = next {
        // A cursor is base64url text, always a valid header value.
        if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&next) {
            response.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static(NEXT_HEADER),
                value,
            );
        }
    }
    Ok(response)
}

async fn get_current(
    caller: Caller,
    path: web::Path<(String, String, String)>,
    Query(params): Query,
) -> Reply {
    let (service, source, key) = path.into_inner();
    let data = is_data(&service);
    let coll = if data {
        Collection::Object
    } else {
        collection(&service)?
    };
    let source: Source = source.parse()?;
    if let Some(function) = params.get("_function") {
        let function = function.to_string();
        let calendar = coll == Collection::Calendar && !data;
        return item_function(&caller, service, calendar, source, key, function, params).await;
    }
    let (output, read) = plan_read(caller.req(), data, coll, source, key, &params)?;
    let (body, modified) = if read.is_short() {
        caller
            .run_short(move |p, who, snapshot| read_item(p, who, snapshot, &read))
            .await?
    } else {
        caller
            .run(move |p, who| read_item(p, who, None, &read))
            .await?
    };
    Ok(respond_item(&output, body, modified))
}

/// A `_function` called on one item: the calendar service's own (on a calendar), or
/// `listAutomations` (on any item).
async fn item_function(
    caller: &Caller,
    service: String,
    calendar: bool,
    source: Source,
    key: String,
    function: String,
    params: Params,
) -> Reply {
    if calendar && function != "listAutomations" {
        let answer = caller
            .run(move |p, who| {
                p.calendars()
                    .function(who, source, &key, &function, &params)
            })
            .await?;
        return Ok(json(answer));
    }
    if function != "listAutomations" {
        return Err(ApiError::new(
            ErrorCode::InvalidParameter,
            format!("unknown _function \"{function}\" on an item: use listAutomations"),
        ));
    }
    let templates = caller
        .run(move |p, who| p.automations().templates(who, &service, source, &key))
        .await?;
    let total = templates.len() as u64;
    Ok(listed(templates, total))
}

async fn get_version(
    caller: Caller,
    path: web::Path<(String, String, String, String)>,
    Query(params): Query,
) -> Reply {
    let (service, source, key, version) = path.into_inner();
    let coll = collection(&service)?;
    let source: Source = source.parse()?;
    let output = Output::choose(caller.req(), &params)?;
    let out = output.clone();
    if version == "*" {
        let (body, total) = caller
            .run(move |p, who| {
                let versions = p.objects().versions(who, coll, source, &key)?;
                let total = versions.len() as u64;
                Ok((out.body(p, who, &to_wire(&versions)?, true)?, total))
            })
            .await?;
        return Ok(output.respond(body, Some((total, false))));
    }
    let which: VersionRef = version.parse()?;
    let project = Projection::from_params(&params)?;
    let body = caller
        .run(move |p, who| {
            let item = p
                .objects()
                .get(who, coll, source, &key, Some(&which), project.as_ref())?;
            out.body(p, who, &item, false)
        })
        .await?;
    Ok(output.respond(body, None))
}

async fn tag(caller: Caller, path: web::Path<(String, String, String, String, String)>) -> Reply {
    let (service, source, key, version, tag) = path.into_inner();
    let coll = collection(&service)?;
    let source: Source = source.parse()?;
    let which: VersionRef = version.parse()?;
    let out = caller
        .run_write(move |p, who| p.objects().tag(who, coll, source, &key, &which, &tag))
        .await?;
    Ok(json(out))
}

/// `POST /data/v1/{source}/{OBJ:PROP}` with a CSV body: its rows into that series (or curve) of
/// an object that exists (`Data::import_csv`). An item of another service has no POST.
async fn import_csv(
    caller: Caller,
    path: web::Path<(String, String, String)>,
    Query(params): Query,
    payload: web::Payload,
) -> Reply {
    let (service, source, key) = path.into_inner();
    if !is_data(&service) {
        collection(&service)?;
        return method_not_allowed(caller.req().clone()).await;
    }
    let source: Source = source.parse()?;
    let request = CsvImport::from_params(&params, source)?;
    let body = caller.bytes(payload).await?;
    csv_content_type(caller.req())?;
    let imported = caller
        .run(move |p, who| {
            let text = platform_core::api::import::text_of(&body)?;
            p.data().import_csv(who, &key, text, &request)
        })
        .await?;
    Ok(json(imported.to_json()))
}

/// Refuses a body sent as anything but `text/csv` in UTF-8: a JSON body (or one without a
/// type, JSON by the interface's default) is a write of data through the data service, which
/// it does not have (405, as the decisions give any such write); another type or charset is
/// 415. Each names what to send instead.
fn csv_content_type(req: &HttpRequest) -> Result<(), ApiError> {
    let sent = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let mut parts = sent.split(';').map(|p| p.trim().to_ascii_lowercase());
    let essence = parts.next().unwrap_or_default();
    let charset = parts.find_map(|p| {
        p.strip_prefix("charset=")
            .map(|c| c.trim_matches('"').to_string())
    });
    let utf8 = charset.is_none_or(|c| matches!(c.as_str(), "utf-8" | "utf8" | "us-ascii"));
    if essence == "text/csv" && utf8 {
        return Ok(());
    }
    let json = essence.is_empty()
        || essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"));
    if json {
        return Err(ApiError::http(
            HttpCode::MethodNotAllowed,
            "the data service does not save JSON: write data by saving its object (POST \
             /object/v1); a POST here imports CSV, sent with Content-Type: text/csv",
        ));
    }
    Err(ApiError::http(
        HttpCode::UnsupportedMediaType,
        format!(
            "a data import reads CSV in UTF-8: send the body with Content-Type: text/csv, not \
             \"{sent}\""
        ),
    ))
}

async fn delete_with(
    caller: Caller,
    params: Params,
    (service, source, key): (String, String, String),
    target: DeleteTarget,
) -> Reply {
    let coll = collection(&service)?;
    let source: Source = source.parse()?;
    let reason = params.get("_reason").map(str::to_string);
    let out = caller
        .run_write(move |p, who| {
            p.objects()
                .delete(who, coll, source, &key, &target, reason.as_deref())
        })
        .await?;
    Ok(json(out))
}

async fn delete_latest(
    caller: Caller,
    path: web::Path<(String, String, String)>,
    Query(params): Query,
) -> Reply {
    let (service, source, key) = path.into_inner();
    if service == "extension" && source == "private" {
        return crate::extensions::uninstall(caller, key).await;
    }
    let path = (service, source, key);
    delete_with(caller, params, path, DeleteTarget::Latest).await
}

async fn delete_version(
    caller: Caller,
    path: web::Path<(String, String, String, String)>,
    Query(params): Query,
) -> Reply {
    let (service, source, key, version) = path.into_inner();
    let target = if version == "*" {
        DeleteTarget::All
    } else {
        DeleteTarget::Version(version.parse()?)
    };
    delete_with(caller, params, (service, source, key), target).await
}

async fn list_data(caller: Caller, source: String, params: Params) -> Reply {
    let source: Source = source.parse()?;
    let output = Output::choose_data(caller.req(), &params)?;
    let query = DataQuery::from_params(&params)?;
    let request = ListRequest::from_params(&params)?;
    let out = output.clone();
    let (body, total) = caller
        .run(move |p, who| {
            let page = p.data().list(who, source, &request, &query)?;
            Ok((
                out.body(p, who, &Value::Array(page.items), true)?,
                (page.total, page.estimated),
            ))
        })
        .await?;
    Ok(output.respond(body, Some(total)))
}
