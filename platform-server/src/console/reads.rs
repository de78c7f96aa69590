//! Every core call the console makes, in one place: the calls the REST routes make, with
//! parameters built as a REST request would send them (so a page shows what the API answers,
//! and refuses what it refuses, with the same messages).

use crate::wire::to_wire;
use platform_core::api::data::DataQuery;
use platform_core::api::objects::ObjectVersion;
use platform_core::api::ListRequest;
use platform_core::api::Principal;
use platform_core::api::{
    automations::LogEntry, automations::LogQuery, automations::MailEntry,
    automations::StoredAutomation,
};
use platform_core::api::{validation::StatsQuery, Paging, Params};
use platform_core::api::{Collection, Page};
use platform_core::api::{Source, VersionRef};
use platform_core::{Platform, Result};
use serde_json::Value;

/// A page of objects (`GET /object/v1/{source}` with these parameters).
pub fn objects(p: &Platform, who: &Principal, source: Source, q: &Params) -> Result<Page<Value>> {
    p.objects().list(
        who,
        Collection::Object,
        source,
        &ListRequest::from_params(q)?,
    )
}

/// An object, current or at a version.
pub fn object(
    p: &Platform,
    who: &Principal,
    source: Source,
    id: &str,
    version: Option<u32>,
) -> Result<Value> {
    let which = version.map(VersionRef::Number);
    p.objects()
        .get(who, Collection::Object, source, id, which.as_ref(), None)
}

/// An object's versions (`GET /object/v1/{source}/{id}/*`).
pub fn versions(
    p: &Platform,
    who: &Principal,
    source: Source,
    id: &str,
) -> Result<Vec<ObjectVersion>> {
    p.objects().versions(who, Collection::Object, source, id)
}

/// A data read (`GET /data/v1/{source}/{id}` with these parameters).
pub fn data(p: &Platform, who: &Principal, source: Source, id: &str, q: &Params) -> Result<Value> {
    p.data().read(who, source, id, &DataQuery::from_params(q)?)
}

/// The validation dashboard (`GET /validation/v1?_function=stats`), as the route writes it.
pub fn stats(p: &Platform, who: &Principal, q: &Params) -> Result<Value> {
    to_wire(&p.validation().stats(who, &StatsQuery::from_params(q)?)?)
}

/// A page of validation records (`GET /validation/v1` with these parameters), as the route
/// writes them.
pub fn records(p: &Platform, who: &Principal, q: &Params) -> Result<Page<Value>> {
    let page = p.validation().records(who, &ListRequest::from_params(q)?)?;
    Ok(Page {
        items: page.items.iter().map(to_wire).collect::<Result<_>>()?,
        total: page.total,
        estimated: page.estimated,
    })
}

/// One validation record, as the route writes it.
pub fn record(p: &Platform, who: &Principal, id: &str) -> Result<Value> {
    to_wire(&p.validation().record(who, id)?)
}

/// A page of automations.
pub fn automations(p: &Platform, who: &Principal, q: &Params) -> Result<Page<StoredAutomation>> {
    p.automations().automations(who, &Paging::from_params(q)?)
}

/// A page of the automation log (newest first, as the service keeps it).
pub fn log(p: &Platform, who: &Principal, q: &Params) -> Result<Page<LogEntry>> {
    let paging = Paging::from_params(q)?;
    let query = LogQuery {
        automation: q.get("automation").map(str::to_string),
        status: q.get("status").map(str::to_string),
        from: None,
        to: None,
        skip: paging.skip,
        limit: paging.limit,
    };
    p.automations().log(who, &query)
}

/// A page of the mail outbox.
pub fn mail(p: &Platform, who: &Principal, q: &Params) -> Result<Page<MailEntry>> {
    let paging = Paging::from_params(q)?;
    p.automations().mails(who, paging.skip, paging.limit)
}
