//! Record reads: one record by id and record lists (filters the chunks can answer first, then
//! the filter, sort and paging over the JSON records), answering whole records
//! ([`ValidationRecord`]) or the values a projection or `_distinct` picks.

use crate::auth::Principal;
use crate::data::calendar::parse_time;
use crate::documents::ListRequest;
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::query::{Filter, SortSpec};
use crate::store::{Page, ReadTx, RecordChunkRow};
use crate::validation::records::{self, status_code, status_name, Chunk, Record, ValidationRecord};
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
    pub(crate) fn chunks_of(
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

    /// One record, by id (`<data id>:<point>`).
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let e = platform.validation().record(&me, "NBP:SPOT:2024-01-01").unwrap_err();
    /// assert_eq!(e.to_string(), "validation record \"NBP:SPOT:2024-01-01\" not found");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    ///
    /// (See [`Validation::records`] for one found.)
    pub fn record(&self, p: &Principal, id: &str) -> Result<ValidationRecord> {
        let tx = self.platform.read()?;
        match self.locate_record(tx.as_ref(), &p.private_scope(), id)? {
            Some((chunk, i)) => chunk.record(&chunk.records[i]),
            None => Err(Error::not_found(format!(
                "validation record \"{id}\" not found"
            ))),
        }
    }

    /// Records matching a list request: filters over the record fields (`status=failing`
    /// stands for every failing status), `_id`s, sort and paging. A projection or `_distinct`,
    /// which do not answer whole records, is refused: [`Validation::record_values`] answers
    /// them.
    ///
    /// ```
    /// use platform_core::api::{Collection, ListRequest, Params, data::Point, validation::ValidationRequest, validation::ValidationStatus};
    /// use chrono::{TimeZone, Utc};
    /// use serde_json::json;
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let at = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// platform.data().write_series(&me, "NBP:SPOT", &[Point::new(at, -3.0)], &Default::default())?;
    /// platform.objects().save(&me, Collection::ValidationConfig, json!({
    ///     "_id": "NBP:SPOT", "kind": "timeseries",
    ///     "checks": [{"name": "positive", "expression": "value > 0"}]
    /// }), &Default::default())?;
    /// let _checked = platform.validation().run(&me, &ValidationRequest::new("NBP:SPOT").at([at]))?;
    /// let failing = ListRequest::from_params(&Params::from_slice(&[("status", "failing")]))?;
    /// let page = platform.validation().records(&me, &failing)?;
    /// let record = &page.items[0];
    /// assert_eq!((page.total, record.status), (1, ValidationStatus::Failed));
    /// assert_eq!(record.checks[0].name, "positive");
    /// assert_eq!(platform.validation().record(&me, &record.id)?, *record);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn records(&self, p: &Principal, req: &ListRequest) -> Result<Page<ValidationRecord>> {
        for (given, name) in [
            (req.project.is_some(), "_project"),
            (req.distinct.is_some(), "_distinct"),
        ] {
            if given {
                return Err(Error::invalid_parameter(format!(
                    "{name} does not answer whole records: ask record_values"
                )));
            }
        }
        let listing = self.listing(p, req)?;
        let (skip, limit) = listing.window();
        if listing.fast() {
            // Every record, in id order: count from the rows, build only the page.
            return Ok(Page {
                total: listing.total(),
                items: listing
                    .every()
                    .skip(skip)
                    .take(limit)
                    .map(|(chunk, r)| chunk.record(r))
                    .collect::<Result<_>>()?,
                estimated: false,
            });
        }
        let matched = listing.matched();
        Ok(Page {
            total: matched.len() as u64,
            items: matched
                .iter()
                .skip(skip)
                .take(limit)
                .map(|m| listing.chunk(m).record(listing.rec(m)))
                .collect::<Result<_>>()?,
            estimated: false,
        })
    }

    /// The values of the records a list request selects (as [`Validation::records`] selects
    /// them) that a projection keeps (`_project`: each record's fields named, with its `_id`),
    /// or the distinct values of a field (`_distinct`), as JSON; a request with neither is
    /// refused.
    ///
    /// ```
    /// use platform_core::api::{ListRequest, Params};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let statuses = ListRequest::from_params(&Params::from_slice(&[("_distinct", "status")]))?;
    /// assert_eq!(platform.validation().record_values(&me, &statuses)?.total, 0);
    /// let e = platform.validation().record_values(&me, &ListRequest::default()).unwrap_err();
    /// assert_eq!(e.code(), platform_core::ErrorCode::InvalidParameter);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn record_values(&self, p: &Principal, req: &ListRequest) -> Result<Page<Value>> {
        if req.project.is_none() && req.distinct.is_none() {
            return Err(Error::invalid_parameter(
                "record_values answers a _project or a _distinct: list whole records with records",
            ));
        }
        let listing = self.listing(p, req)?;
        let req = &listing.req;
        let project = |r: Map<String, Value>| match &req.project {
            Some(pr) => Value::Object(pr.apply(&r, true)),
            None => Value::Object(r),
        };
        let (skip, limit) = listing.window();
        if listing.fast() {
            return Ok(Page {
                total: listing.total(),
                items: listing
                    .every()
                    .skip(skip)
                    .take(limit)
                    .map(|(chunk, r)| project(chunk.materialize(r)))
                    .collect(),
                estimated: false,
            });
        }
        let matched = listing.matched();
        if let Some(field) = &req.distinct {
            let maps: Vec<Map<String, Value>> = matched.into_iter().map(|m| m.json).collect();
            let values = crate::query::distinct_strings(&maps, field);
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
            .map(|m| project(m.json))
            .collect();
        Ok(Page {
            total,
            items,
            estimated: false,
        })
    }

    /// The chunks a list request reads (those of the targets and statuses its filter pins,
    /// in id order), with the request (`status=failing` written out).
    fn listing(&self, p: &Principal, req: &ListRequest) -> Result<Listing> {
        refuse_document_options(req)?;
        let mut expanded = req.clone();
        expanded.query.filter = with_failing(&req.query.filter);
        let query = &expanded.query;
        let targets = pinned(&query.filter, "target");
        let statuses: Option<u64> = pinned(&query.filter, "status").map(|s| {
            s.iter()
                .fold(0u64, |m, name| m | (1u64 << status_code(name)))
        });
        let mut chunks = self.chunks_of(p, targets.as_deref())?;
        chunks.retain(|(row, _)| statuses.is_none_or(|s| row.statuses & s != 0));
        // Ids sort as `<target>:<point>`.
        chunks.sort_by(|a, b| {
            (a.0.target.clone() + ":")
                .cmp(&(b.0.target.clone() + ":"))
                .then(a.0.first.cmp(&b.0.first))
        });
        Ok(Listing {
            chunks,
            statuses,
            req: expanded,
        })
    }
}

/// The chunks a list request reads, and the request.
struct Listing {
    chunks: Vec<(RecordChunkRow, Chunk)>,
    /// The statuses the filter pins (a bit per status).
    statuses: Option<u64>,
    req: ListRequest,
}

/// A record a list request selects: where it is, and its JSON record (what filters, sorts,
/// projections and `_distinct` read).
struct Matched {
    chunk: usize,
    rec: usize,
    json: Map<String, Value>,
}

impl Listing {
    /// Whether the request takes every record in id order (no filter, sort, `_distinct` or
    /// `_id`s), which the rows count without building the records.
    fn fast(&self) -> bool {
        let query = &self.req.query;
        query.filter.is_all()
            && query.sort.0.is_empty()
            && self.req.distinct.is_none()
            && self.req.ids.is_empty()
    }

    /// The records skipped and the most taken.
    fn window(&self) -> (usize, usize) {
        let paging = &self.req.query.paging;
        (
            paging.skip as usize,
            paging.limit.map_or(usize::MAX, |l| l as usize),
        )
    }

    /// Every record of the chunks, in id order, without a filter.
    fn every(&self) -> impl Iterator<Item = (&Chunk, &Record)> + '_ {
        self.chunks
            .iter()
            .flat_map(|(_, chunk)| chunk.records.iter().map(move |r| (chunk, r)))
    }

    /// How many records the chunks hold.
    fn total(&self) -> u64 {
        self.chunks.iter().map(|(row, _)| row.count).sum()
    }

    fn chunk(&self, m: &Matched) -> &Chunk {
        &self.chunks[m.chunk].1
    }

    fn rec(&self, m: &Matched) -> &Record {
        &self.chunks[m.chunk].1.records[m.rec]
    }

    /// The records of the statuses pinned, named by the request's `_id`s if any, that match
    /// its filter, sorted by its sort keys, then by id.
    fn matched(&self) -> Vec<Matched> {
        let req = &self.req;
        let mut matched = Vec::new();
        for (c, (_, chunk)) in self.chunks.iter().enumerate() {
            for (i, r) in chunk.records.iter().enumerate() {
                if self.statuses.is_some_and(|s| s & (1u64 << r.status) == 0) {
                    continue;
                }
                let m = chunk.materialize(r);
                let named = req.ids.is_empty()
                    || m.get("_id")
                        .and_then(Value::as_str)
                        .is_some_and(|id| req.ids.iter().any(|i| i == id));
                if named && req.query.filter.matches(&m) {
                    matched.push(Matched {
                        chunk: c,
                        rec: i,
                        json: m,
                    });
                }
            }
        }
        sort_records(&mut matched, &req.query.sort);
        matched
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

/// Sorts records by the sort keys, then by id.
fn sort_records(records: &mut [Matched], sort: &SortSpec) {
    let id = |m: &Matched| {
        m.json
            .get("_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    records.sort_by(|a, b| {
        for k in &sort.0 {
            let o = order_values(
                crate::query::filter::lookup(&a.json, &k.field),
                crate::query::filter::lookup(&b.json, &k.field),
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
