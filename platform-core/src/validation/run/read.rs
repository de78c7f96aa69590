//! Record reads: one record by id, every record of the caller, and record lists (filters
//! the chunks can answer first, then sort and paging over the JSON records).

use crate::auth::Principal;
use crate::data::calendar::parse_time;
use crate::documents::ListRequest;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::{Filter, SortSpec};
use crate::store::{Page, ReadTx, RecordChunkRow};
use crate::validation::records::{self, status_code, status_name, Chunk};
use crate::validation::Validation;
use chrono::NaiveDate;
use serde_json::{Map, Value};

/// Parts of a record filter the chunks can answer before records are built: the targets and
/// the statuses it is limited to.
fn pinned(filter: &Filter, field: &str) -> Option<Vec<String>> {
    match filter {
        Filter::TextIn { path, texts } if path == field => Some(texts.clone()),
        Filter::Eq {
            path,
            value: Value::String(s),
        } if path == field => Some(vec![s.clone()]),
        Filter::And(parts) => parts.iter().find_map(|p| pinned(p, field)),
        _ => None,
    }
}

/// The status value that stands for every failing status: `failed`, `severe` and `error`, what
/// `--fail-on failed` counts (`status=failed` is that status alone).
pub const FAILING: &str = "failing";

/// `filter` with `status=failing` (alone or among the texts of an `in()`) written out as the
/// failing statuses.
fn with_failing(filter: &Filter) -> Filter {
    let failing = || ["failed", "severe", "error"].map(String::from);
    match filter {
        Filter::Eq {
            path,
            value: Value::String(s),
        } if path == "status" && s == FAILING => Filter::TextIn {
            path: path.clone(),
            texts: failing().to_vec(),
        },
        Filter::TextIn { path, texts }
            if path == "status" && texts.iter().any(|t| t == FAILING) =>
        {
            let mut all: Vec<String> = texts.iter().filter(|t| *t != FAILING).cloned().collect();
            all.extend(failing().into_iter().filter(|f| !texts.contains(f)));
            Filter::TextIn {
                path: path.clone(),
                texts: all,
            }
        }
        Filter::And(parts) => Filter::And(parts.iter().map(with_failing).collect()),
        Filter::Or(parts) => Filter::Or(parts.iter().map(with_failing).collect()),
        Filter::Not(part) => Filter::Not(Box::new(with_failing(part))),
        other => other.clone(),
    }
}

/// SQL-like order of two JSON values: absent and null first, then numbers, then text, then
/// anything else by its JSON text.
fn order_values(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: Option<&Value>) -> u8 {
        match v {
            None | Some(Value::Null) => 0,
            Some(Value::Number(_)) | Some(Value::Bool(_)) => 1,
            Some(Value::String(_)) => 2,
            _ => 3,
        }
    }
    let num = |v: &Value| match v {
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => other.as_f64().unwrap_or(0.0),
    };
    match rank(a).cmp(&rank(b)) {
        Ordering::Equal => match (a, b) {
            (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
            (Some(x), Some(y)) if rank(a) == 1 => num(x).total_cmp(&num(y)),
            (Some(x), Some(y)) => x.to_string().cmp(&y.to_string()),
            _ => Ordering::Equal,
        },
        other => other,
    }
}

impl Validation<'_> {
    /// Decoded chunks of the caller's records (of some targets, or all).
    fn chunks_of(
        &self,
        p: &Principal,
        targets: Option<&[String]>,
    ) -> Result<Vec<(RecordChunkRow, Chunk)>> {
        let rows = self
            .platform
            .read()?
            .record_chunks(&p.private_scope(), targets, None, None)?;
        rows.into_iter()
            .map(|row| {
                let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
                Ok((row, chunk))
            })
            .collect()
    }

    /// Where the record with this id is: (row, chunk, position).
    pub(super) fn locate_record(
        &self,
        tx: &dyn ReadTx,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<(Chunk, usize)>> {
        for target in tx.record_targets_of(scope, id)? {
            let suffix = &id[target.len() + 1..];
            let rows = tx.record_chunks(scope, Some(std::slice::from_ref(&target)), None, None)?;
            // The key of the point, when the text reads as one of the target's points.
            let newest = match rows.last() {
                Some(row) => Chunk::decode(&row.target, row.seq, &row.body)?,
                None => continue,
            };
            let key = match &newest.format {
                Some(f) => parse_time(suffix, f.tz).ok(),
                None => NaiveDate::parse_from_str(suffix, "%Y-%m-%d")
                    .ok()
                    .map(records::date_key),
            };
            for row in &rows {
                if key.is_some_and(|k| k < row.first || k > row.last) {
                    continue;
                }
                let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
                let found = match key {
                    Some(k) => chunk
                        .find(k)
                        .ok()
                        .filter(|&i| chunk.texts(&chunk.records[i]).0 == suffix),
                    None => None,
                }
                .or_else(|| {
                    chunk
                        .records
                        .iter()
                        .position(|r| chunk.texts(r).0 == suffix)
                });
                if let Some(i) = found {
                    return Ok(Some((chunk, i)));
                }
            }
        }
        Ok(None)
    }

    /// One record.
    pub fn record(&self, p: &Principal, id: &str) -> Result<Value> {
        let tx = self.platform.read()?;
        self.locate_record(tx.as_ref(), &p.private_scope(), id)?
            .map(|(chunk, i)| Value::Object(chunk.materialize(&chunk.records[i])))
            .ok_or_else(|| Error::not_found(format!("validation record \"{id}\" not found")))
    }

    /// Every record of the caller (of some targets), as JSON, in id order.
    pub(crate) fn all_records(
        &self,
        p: &Principal,
        targets: Option<&[String]>,
    ) -> Result<Vec<Map<String, Value>>> {
        let mut out = Vec::new();
        for (_, chunk) in self.chunks_of(p, targets)? {
            out.extend(chunk.records.iter().map(|r| chunk.materialize(r)));
        }
        Ok(out)
    }

    /// Records matching a list request (filters over the record fields, sort, paging).
    pub fn records(&self, p: &Principal, req: &ListRequest) -> Result<Page<Value>> {
        refuse_document_options(req)?;
        let mut expanded = req.clone();
        expanded.query.filter = with_failing(&req.query.filter);
        let req = &expanded;
        let query = &req.query;
        let targets = pinned(&query.filter, "target");
        let statuses: Option<u64> = pinned(&query.filter, "status").map(|s| {
            s.iter()
                .fold(0u64, |m, name| m | (1u64 << status_code(name)))
        });
        let project = |r: Map<String, Value>| match &req.project {
            Some(pr) => Value::Object(pr.apply(&r, true)),
            None => Value::Object(r),
        };
        let mut chunks = self.chunks_of(p, targets.as_deref())?;
        chunks.retain(|(row, _)| statuses.is_none_or(|s| row.statuses & s != 0));
        // Ids sort as `<target>:<point>`.
        chunks.sort_by(|a, b| {
            (a.0.target.clone() + ":")
                .cmp(&(b.0.target.clone() + ":"))
                .then(a.0.first.cmp(&b.0.first))
        });
        let skip = query.paging.skip as usize;
        let limit = query.paging.limit.map_or(usize::MAX, |l| l as usize);
        let fast = query.filter.is_all()
            && query.sort.0.is_empty()
            && req.distinct.is_none()
            && req.ids.is_empty();
        if fast {
            // Every record, in id order: count from the rows, build only the page.
            let total: u64 = chunks.iter().map(|(row, _)| row.count).sum();
            let items = chunks
                .iter()
                .flat_map(|(_, chunk)| chunk.records.iter().map(move |r| (chunk, r)))
                .skip(skip)
                .take(limit)
                .map(|(chunk, r)| project(chunk.materialize(r)))
                .collect();
            return Ok(Page {
                total,
                items,
                estimated: false,
            });
        }
        let mut matched = matching(&chunks, statuses, req);
        sort_records(&mut matched, &query.sort);
        if let Some(field) = &req.distinct {
            let values = crate::query::distinct_strings(&matched, field);
            return Ok(Page {
                estimated: false,
                total: values.len() as u64,
                items: values,
            });
        }
        let total = matched.len() as u64;
        let items = matched
            .into_iter()
            .skip(skip)
            .take(limit)
            .map(project)
            .collect();
        Ok(Page {
            total,
            items,
            estimated: false,
        })
    }
}

/// Refuses the options of a list request that apply to documents, not to records.
fn refuse_document_options(req: &ListRequest) -> Result<()> {
    for (given, name) in [
        (req.as_of.is_some(), "_asof"),
        (req.after.is_some(), "_after"),
        (req.searchinfo.is_some(), "_searchinfo"),
        (req.type_tree.is_some(), "#type"),
    ] {
        if given {
            return Err(Error::invalid_parameter(format!(
                "{name} does not apply to validation records: filter them by their fields \
                 (target, status, point...), _id, _sort and _skip/_limit"
            )));
        }
    }
    Ok(())
}

/// The records of `chunks` of the statuses asked (`statuses`, a bit per status), named by the
/// request's `_id`s if any, that match its filter, as JSON.
fn matching(
    chunks: &[(RecordChunkRow, Chunk)],
    statuses: Option<u64>,
    req: &ListRequest,
) -> Vec<Map<String, Value>> {
    let mut matched = Vec::new();
    for (_, chunk) in chunks {
        for r in &chunk.records {
            if statuses.is_some_and(|s| s & (1u64 << r.status) == 0) {
                continue;
            }
            let m = chunk.materialize(r);
            let named = req.ids.is_empty()
                || m.get("_id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| req.ids.iter().any(|i| i == id));
            if named && req.query.filter.matches(&m) {
                matched.push(m);
            }
        }
    }
    matched
}

/// Sorts records by the sort keys, then by id.
fn sort_records(records: &mut [Map<String, Value>], sort: &SortSpec) {
    let id = |m: &Map<String, Value>| {
        m.get("_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    records.sort_by(|a, b| {
        for k in &sort.0 {
            let o = order_values(
                crate::query::filter::lookup(a, &k.field),
                crate::query::filter::lookup(b, &k.field),
            );
            let o = if k.descending { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal {
                return o;
            }
        }
        id(a).cmp(&id(b))
    });
}

/// The status of each stored record of a data item, by point text.
pub(crate) fn record_statuses(
    tx: &dyn ReadTx,
    scope: &Scope,
    target: &str,
) -> Result<std::collections::HashMap<String, &'static str>> {
    let mut out = std::collections::HashMap::new();
    for row in tx.record_chunks(scope, Some(&[target.to_string()]), None, None)? {
        let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
        for r in &chunk.records {
            out.insert(chunk.texts(r).0, status_name(r.status));
        }
    }
    Ok(out)
}
