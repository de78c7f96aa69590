//! The list of the data items of a source (`GET /data/v1/{source}`): catalogue entries, or
//! each item with its data read; and `_profile` over a list of objects.

use super::answer::{Answer, Bound, Entry, ItemName, Listing};
use super::read_item::item_header;
use super::read_query::{DataId, DataQuery};
use super::{series_settings, DataKind};
use crate::auth::Principal;
use crate::data::Data;
use crate::error::{Error, Result};
use crate::ids::{Scope, Source, VersionRef};
use crate::store::{Collection, DataKey, Page, ReadTx, StoredVersion};
use serde_json::{Map, Value};

impl Data<'_> {
    /// JSON: the data items of a source, filtered, sorted and paged like objects. Without
    /// `_range` (or `tenor`, `listTenors`) each item is a catalogue entry (its header with
    /// `_count`, `_first` and `_last`); with them each item carries its data read by `q`, and
    /// a curve with `_range` gives each of its curves in the range (paging counts data items).
    pub fn list(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        q: &DataQuery,
    ) -> Result<Page<Value>> {
        Ok(match self.listing(p, source, req, q)? {
            Listing::Distinct(values) => values,
            Listing::ById(answers) => {
                let items: Vec<Value> = answers.into_iter().flat_map(|a| a.into_list(q)).collect();
                Page {
                    estimated: false,
                    total: items.len() as u64,
                    items,
                }
            }
            Listing::Listed { items, total } => Page {
                items: items
                    .into_iter()
                    .flat_map(|a| a.into_list(q))
                    .map(|item| match &req.project {
                        Some(pr) => {
                            Value::Object(pr.apply(item.as_object().unwrap_or(&Map::new()), true))
                        }
                        None => item,
                    })
                    .collect(),
                total,
                estimated: false,
            },
        })
    }

    /// What [`Data::list`] answers, before it is written.
    pub(crate) fn listing(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        q: &DataQuery,
    ) -> Result<Listing> {
        if req.after.is_some() {
            return Err(Error::invalid_parameter(
                "_after pages object lists: the data list pages with _skip",
            ));
        }
        if q.shape.is_some() {
            return Err(Error::invalid_parameter(
                "_shape=MONTHLY shapes one curve: read it by its id (OBJ:PROP or OBJ:PROP:ONDATE)",
            ));
        }
        if !req.ids.is_empty() {
            // `_id` parameters fetch data items by id, each from its own source: only through
            // `all`.
            if source != Source::All {
                return Err(Error::invalid_parameter(format!(
                    "_id parameters fetch by id from the all source, not from {source}"
                )));
            }
            let ids: Vec<&str> = req.ids.iter().map(String::as_str).collect();
            return Ok(Listing::ById(self.read_many(p, &ids, q)?));
        }
        let tx = self.platform.read()?;
        let mut items = matching_items(tx.as_ref(), p, source, req)?;
        if let Some(field) = &req.distinct {
            let values = crate::query::distinct_strings(items.iter().map(|(_, _, d)| d), field);
            return Ok(Listing::Distinct(Page {
                estimated: false,
                total: values.len() as u64,
                items: values,
            }));
        }
        sort_docs(&mut items, &req.query.sort);
        let total = items.len() as u64;
        let skip = usize::try_from(req.query.paging.skip)
            .unwrap_or(usize::MAX)
            .min(items.len());
        let take = req.query.paging.limit.map_or(usize::MAX, |l| l as usize);
        let mut out = Vec::new();
        // Without `_range` (or a tenor) a list is a catalogue: headers and extents, no data.
        let catalogue =
            q.range.is_none() && q.tenor.is_none() && !q.list_tenors && q.continuation.is_none();
        // A list holds current items (`_version` filtered them above, it does not read back),
        // or with `_asof` the items as they were then.
        let q = &DataQuery {
            version: req.as_of.map(VersionRef::AsOf),
            ..q.clone()
        };
        for (scope, id, doc) in items.into_iter().skip(skip).take(take) {
            let text = format!("{}:{}", id.object, id.prop);
            out.push(if catalogue {
                Answer::Entry(catalogue_entry(tx.as_ref(), scope, id, doc, q)?)
            } else {
                self.data_answer(p, tx.as_ref(), &scope, &id, &text, q)?
            });
        }
        Ok(Listing::Listed { items: out, total })
    }
}

/// A listed data item: the scope of its object, its id, and its header with system fields.
type Listed = (Scope, DataId, Map<String, Value>);

/// The data items of a source that `p` may read and the request's filter keeps, unsorted.
fn matching_items(
    tx: &dyn ReadTx,
    p: &Principal,
    source: Source,
    req: &crate::documents::ListRequest,
) -> Result<Vec<Listed>> {
    let everything = crate::query::ListQuery {
        paging: crate::query::Paging {
            skip: 0,
            limit: None,
        },
        ..Default::default()
    };
    let mut items: Vec<Listed> = Vec::new();
    for scope in Scope::read_scopes(source, p) {
        let current = tx.list(
            Collection::Object,
            std::slice::from_ref(&scope),
            &everything,
        )?;
        for (object, is_current) in &objects_at(tx, &scope, current.items, req.as_of)? {
            for (prop, header) in &object.body {
                let Some(h) = header.as_object() else {
                    continue;
                };
                if DataKind::of(header).is_none()
                    || !p.grants.may_read(h.get("_access").and_then(Value::as_str))
                {
                    continue;
                }
                let doc = item_header(object, prop, h, *is_current);
                if req.query.filter.matches(&doc) {
                    let id = DataId {
                        object: object.id.clone(),
                        prop: prop.clone(),
                        ondate: None,
                    };
                    items.push((scope.clone(), id, doc));
                }
            }
        }
    }
    Ok(items)
}

/// The current objects of a scope, each marked current; with `_asof`, each object as it was
/// then (objects that did not exist then are left out), marked not current.
fn objects_at(
    tx: &dyn ReadTx,
    scope: &Scope,
    current: Vec<StoredVersion>,
    as_of: Option<chrono::DateTime<chrono::Utc>>,
) -> Result<Vec<(StoredVersion, bool)>> {
    let Some(at) = as_of else {
        return Ok(current.into_iter().map(|v| (v, true)).collect());
    };
    let mut then = Vec::new();
    for v in &current {
        if let Some(found) =
            crate::documents::read::version_at(tx, Collection::Object, scope, &v.id, at)?
        {
            then.push(found);
        }
    }
    Ok(then)
}

/// A data item's header with its extent: how many observations (a series) or ondates (a
/// curve), the first and the last (a series' times printed as the series prints them, in
/// `_timezone` when `q` names one).
fn catalogue_entry(
    tx: &dyn ReadTx,
    scope: Scope,
    id: DataId,
    doc: Map<String, Value>,
    q: &DataQuery,
) -> Result<Entry> {
    let key = DataKey {
        scope,
        object: id.object,
        prop: id.prop,
    };
    let version = doc.get("_version").and_then(Value::as_u64).unwrap_or(0) as u32;
    let kind = DataKind::of_header(&doc);
    let (count, bounds) = match kind {
        Some(DataKind::Curve) => {
            let e = tx.curve_extent(&key, version)?;
            let bounds = e.bounds.map(|(a, b)| (Bound::Ondate(a), Bound::Ondate(b)));
            (e.count, bounds)
        }
        _ => {
            let (calendar, tz, _) = series_settings(&key.prop, &doc)?;
            let e = tx.series_extent(&key, version)?;
            let print = q.print_zone(tz);
            let time = |t| Bound::Time {
                t,
                calendar,
                tz,
                print,
            };
            (e.count, e.bounds.map(|(a, b)| (time(a), time(b))))
        }
    };
    Ok(Entry {
        name: ItemName {
            object: key.object,
            prop: key.prop,
            version,
        },
        kind: kind.unwrap_or(DataKind::Series),
        doc,
        count,
        bounds,
    })
}

/// Sorts documents by a sort spec (then by `_id`), comparing values as the store does: numbers
/// before strings, numbers numerically, strings by code point.
fn sort_docs(items: &mut [(Scope, DataId, Map<String, Value>)], sort: &crate::query::SortSpec) {
    use std::cmp::Ordering;
    fn rank(v: Option<&Value>) -> (u8, f64, String) {
        match v {
            None | Some(Value::Null) => (0, 0.0, String::new()),
            Some(Value::Bool(b)) => (1, f64::from(u8::from(*b)), String::new()),
            Some(Value::Number(n)) => (1, n.as_f64().unwrap_or(0.0), String::new()),
            Some(Value::String(s)) => (2, 0.0, s.clone()),
            Some(other) => (3, 0.0, other.to_string()),
        }
    }
    items.sort_by(|a, b| {
        for key in &sort.0 {
            let (x, y) = (
                rank(crate::query::filter::lookup(&a.2, &key.field)),
                rank(crate::query::filter::lookup(&b.2, &key.field)),
            );
            let ord =
                x.0.cmp(&y.0)
                    .then(x.1.partial_cmp(&y.1).unwrap_or(Ordering::Equal))
                    .then(x.2.cmp(&y.2));
            let ord = if key.descending { ord.reverse() } else { ord };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        let id = |d: &Map<String, Value>| {
            d.get("_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        id(&a.2).cmp(&id(&b.2))
    });
}

impl Data<'_> {
    /// JSON: `_profile=NAME` on an object list: the data items `NAME` of the matching objects
    /// (objects without it, or whose data the caller may not read, are left out); paging
    /// counts objects.
    pub fn list_profile(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        name: &str,
        q: &DataQuery,
    ) -> Result<Page<Value>> {
        let page = self.profile_answers(p, source, req, name, q)?;
        Ok(Page {
            estimated: page.estimated,
            items: page
                .items
                .into_iter()
                .flat_map(|a| a.into_list(q))
                .collect(),
            total: page.total,
        })
    }

    /// What [`Data::list_profile`] answers, before it is written.
    pub(crate) fn profile_answers(
        &self,
        p: &Principal,
        source: Source,
        req: &crate::documents::ListRequest,
        name: &str,
        q: &DataQuery,
    ) -> Result<Page<Answer>> {
        let req = crate::documents::ListRequest {
            project: None,
            distinct: None,
            searchinfo: None,
            ..req.clone()
        };
        let objects = self
            .platform
            .objects()
            .list(p, Collection::Object, source, &req)?;
        let ids: Vec<String> = objects
            .items
            .iter()
            .filter_map(|o| {
                // An older version (a list `_asof`) is shown at its address; `_oid` is its id.
                o.get("_oid")
                    .or_else(|| o.get("_id"))
                    .and_then(Value::as_str)
                    .map(|id| format!("{id}:{name}"))
            })
            .collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        Ok(Page {
            estimated: objects.estimated,
            items: self.read_many(p, &ids, q)?,
            total: objects.total,
        })
    }
}
