//! The read of one item (`GET /{service}/v1/{source}/{key}` without `_function`): its output
//! and what it reads, from the request; the read, in the request's snapshot when it has one;
//! and the response.

use crate::error::ApiError;
use crate::negotiate::Output;
use actix_web::{HttpRequest, HttpResponse};
use platform_core::api::data::DataQuery;
use platform_core::api::Collection;
use platform_core::api::Principal;
use platform_core::api::{Params, Projection};
use platform_core::api::{Source, VersionRef};
use platform_core::{Platform, Snapshot};
use serde_json::Value;

/// What a read of one item needs: which item, its output, and what of it (a data query, a
/// profile, a version as of a time, a projection).
pub(super) struct ItemRead {
    data: bool,
    coll: Collection,
    source: Source,
    key: String,
    profile: Option<String>,
    query: Option<DataQuery>,
    as_of: Option<VersionRef>,
    project: Option<Projection>,
    out: Output,
}

impl ItemRead {
    /// A document by id, or the last few observations of a series, costs little and may run
    /// without a trip to the blocking pool; other reads may be long.
    /// (In JSON or Arrow: a chart or a template is drawn on the pool.)
    pub(super) fn is_short(&self) -> bool {
        (self.out.is_json() || self.out.is_arrow())
            && match &self.query {
                None => true,
                Some(q) => self.data && q.is_short(),
            }
    }
}

/// The output of a read of one item and what it reads, from the request and its parameters.
pub(super) fn plan_read(
    req: &HttpRequest,
    data: bool,
    coll: Collection,
    source: Source,
    key: String,
    params: &Params,
) -> Result<(Output, ItemRead), ApiError> {
    // A data read, or an object's data through `_profile`, can be answered with its chart.
    let output = if data || params.get("_profile").is_some() {
        Output::choose_data(req, params)?
    } else {
        Output::choose(req, params)?
    };
    let project = Projection::from_params(params)?;
    let profile = params.get("_profile").map(str::to_string);
    let query = if data || profile.is_some() {
        Some(DataQuery::from_params(params)?)
    } else {
        None
    };
    // `_asof` reads the version current then (data reads take it in their query).
    let as_of = match params.get("_asof") {
        Some(t) if !data && profile.is_none() => Some(VersionRef::as_of(t)?),
        _ => None,
    };
    let read = ItemRead {
        data,
        coll,
        source,
        key,
        profile,
        query,
        as_of,
        project,
        out: output.clone(),
    };
    Ok((output, read))
}

/// The answer of a read of one item, and for a document in JSON its `_timestamp` (for
/// `Last-Modified`, which then need not be read back out of the answer).
/// (Reads are made in the request's snapshot when it has one: see `Caller::run_short`.)
pub(super) fn read_item(
    p: &Platform,
    who: &Principal,
    snapshot: Option<&Snapshot<'_>>,
    r: &ItemRead,
) -> platform_core::Result<(Made, Option<String>)> {
    let (data_item, coll, source, key, out) = (r.data, r.coll, r.source, r.key.as_str(), &r.out);
    let (as_of, project) = (r.as_of.as_ref(), r.project.as_ref());
    // The services whose one-item reads are made in the request's snapshot, where it has one.
    let (objects, data) = match snapshot {
        Some(s) => (s.objects(), s.data()),
        None => (p.objects(), p.data()),
    };
    let item = match (data_item, &r.profile, &r.query) {
        // JSON of a data item: written straight from the points.
        (true, _, Some(q)) if out.is_json() => {
            let answer = data.read_json_bytes(who, source, key, q)?;
            return Ok((Made::Bytes(answer.bytes), answer.timestamp));
        }
        // Arrow of a data item: a series' columns built from the points, sent as they are.
        (true, _, Some(q)) if out.is_arrow() => {
            let stream = data.read_arrow_stream(who, source, key, q)?;
            return Ok((Made::Arrow(stream), None));
        }
        // CSV of a data item: as the core writes it (the curves of a range a contract a row).
        (true, _, Some(q)) if out.is_csv() => {
            let csv = p.data().read_csv(who, source, key, q)?;
            return Ok((Made::Bytes(csv.into_bytes()), None));
        }
        (true, _, Some(q)) => p.data().read(who, source, key, q)?,
        // Arrow of an object's data item: as the data read of that item answers it.
        (false, Some(name), Some(q)) if coll == Collection::Object && out.is_arrow() => {
            let id = format!("{key}:{name}");
            let stream = p.data().read_arrow_stream(who, source, &id, q)?;
            return Ok((Made::Arrow(stream), None));
        }
        (false, Some(name), Some(q)) if coll == Collection::Object => {
            p.data().read(who, source, &format!("{key}:{name}"), q)?
        }
        // JSON of a current document: printed from the body as stored where it can be.
        (false, None, None) if out.is_json() && as_of.is_none() && project.is_none() => {
            match objects.get_printed(who, coll, source, key)? {
                Some((bytes, timestamp)) => return Ok((Made::Bytes(bytes), Some(timestamp))),
                None => objects.get(who, coll, source, key, None, None)?,
            }
        }
        _ => objects.get(who, coll, source, key, as_of, project)?,
    };
    let modified = match item.get("_timestamp") {
        Some(Value::String(t)) if out.is_json() && item.is_object() => Some(t.clone()),
        _ => None,
    };
    Ok((Made::Bytes(out.body(p, who, &item, false)?), modified))
}

/// The response to a read of one item: its body, and `Last-Modified` when it has a time.
pub(super) fn respond_item(output: &Output, body: Made, modified: Option<String>) -> HttpResponse {
    let mut res = match body {
        Made::Bytes(body) => output.respond(body, None),
        Made::Arrow(stream) => output.respond_stream(stream),
    };
    if let Some(date) = modified.as_deref().and_then(crate::ops::http_date) {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&date) {
            res.headers_mut()
                .insert(actix_web::http::header::LAST_MODIFIED, v);
        }
    }
    res
}

/// An answer as made: its bytes, or an Arrow stream in its pieces.
pub(super) enum Made {
    Bytes(Vec<u8>),
    Arrow(platform_core::api::formats::ArrowStream),
}
