//! A run's results laid into the record chunks they go to: each record's transition applied,
//! the run and check list added to each chunk it touches, the events it raises noted, and
//! the answer's per-point items built. A run checked ([`Checked`]) carries what it was laid
//! into until it is stored.

use super::answer::{point_result, PointResult as Answer};
use super::MAX_LISTED;
use crate::error::Result;
use crate::ids::Scope;
use crate::store::{ReadTx, RecordChunkRow};
use crate::validation::config::Config;
use crate::validation::records::{
    self, CheckMeta, Chunk, Context, PointFormat, PointResult, Record, RunInfo,
};
use serde_json::Value;

/// A run checked but not stored yet.
pub(crate) struct Checked {
    pub(super) target: String,
    pub(super) config: Config,
    pub(super) results: Vec<PointResult>,
    /// The checks of the results, as records show them.
    pub(super) set: Vec<CheckMeta>,
    /// Milliseconds per point of each check.
    pub(super) check_ms: Vec<f64>,
    pub(super) format: Option<PointFormat>,
    pub(super) truncated: bool,
    pub(super) test: bool,
    /// Only some checks or tenors ran (such runs raise no data events).
    pub(super) partial: bool,
    pub(super) origin: String,
    pub(super) timings: (f64, f64, f64),
    /// The records laid into their chunks on the checking thread (see `commit_run`); the
    /// results are then in them (and `results` is empty).
    pub(super) built: Option<Built>,
    /// The keys the results span and the buckets they fall in.
    pub(super) span: ((i64, i64), (i64, i64)),
}

/// The records of a run laid into their chunks, ready to store.
pub(crate) struct Built {
    /// The stored chunks they were laid on: (bucket, bytes).
    pub(super) seen: Vec<(i64, Vec<u8>)>,
    /// The chunks to write.
    pub(super) rows: Vec<RecordChunkRow>,
    /// Per point: the status.
    pub(super) statuses: Vec<u8>,
    /// Record id and point of the first points (every point when detailed or the quality
    /// status is written).
    pub(super) listed: Vec<(String, String)>,
    /// Curves: the failed tenors of each point.
    pub(super) failed_tenors: Vec<String>,
    /// The per-point answers, when detailed.
    pub(super) answers: Option<Vec<Answer>>,
    /// Whether the answers were built.
    pub(super) detail: bool,
    /// The events the run raises (not for a test).
    pub(super) events: Option<crate::validation::events::RunEvents>,
}

/// The results a run laid into chunks: the records its run touched, as fresh results.
pub(super) fn results_of(built: &Built) -> Result<Vec<PointResult>> {
    let mut out = Vec::with_capacity(built.statuses.len());
    for row in &built.rows {
        let chunk = Chunk::decode(&row.target, row.seq, &row.body)?;
        // The run was added to each chunk it touched, last.
        let run = chunk.runs.len().saturating_sub(1) as u32;
        for r in chunk.records.into_iter().filter(|r| r.last_run == run) {
            out.push(PointResult {
                key: r.key,
                explicit: r.explicit,
                value: r.value,
                status: r.checked,
                set: 0,
                checks: r.checks,
                message: r.message,
                hash: r.hash,
                extra: records::result_extra(r.extra),
            });
        }
    }
    out.sort_by_key(|r| r.key);
    Ok(out)
}

/// The keys a run's results span and the buckets they fall in.
pub(super) fn run_span(c: &Checked) -> ((i64, i64), (i64, i64)) {
    let lo = c.results.iter().map(|r| r.key).min().unwrap_or(0);
    let hi = c.results.iter().map(|r| r.key).max().unwrap_or(0);
    let f = c.format.as_ref();
    (
        (lo, hi),
        (records::bucket_of(lo, f), records::bucket_of(hi, f)),
    )
}

/// The stored chunks a run's records go to.
pub(super) fn chunk_rows(
    tx: &dyn ReadTx,
    scope: &Scope,
    c: &Checked,
) -> Result<Vec<RecordChunkRow>> {
    let (keys, buckets) = c.span;
    tx.record_chunks(
        scope,
        Some(std::slice::from_ref(&c.target)),
        Some(keys),
        Some(buckets),
    )
}

pub(super) fn seen_rows(
    tx: &dyn ReadTx,
    scope: &Scope,
    c: &Checked,
) -> Result<Vec<(i64, Vec<u8>)>> {
    Ok(chunk_rows(tx, scope, c)?
        .into_iter()
        .map(|row| (row.seq, row.body))
        .collect())
}

/// Lays the results of a run into the chunks stored in `tx` (a test, without `tx`: into a
/// fresh chunk, stored nowhere).
pub(super) fn build(
    tx: Option<&dyn ReadTx>,
    scope: &Scope,
    c: &Checked,
    results: Vec<PointResult>,
    ctx: &Context,
    detail: bool,
) -> Result<Built> {
    let run_info = RunInfo {
        at: ctx.now.timestamp_millis(),
        user: ctx.user.clone(),
        origin: ctx.origin.clone(),
        name: c.config.doc.get("name").cloned().unwrap_or(Value::Null),
        group: c.config.doc.get("group").cloned().unwrap_or(Value::Null),
        tags: c.config.doc.get("tags").cloned().unwrap_or(Value::Null),
        ms: c.check_ms.clone(),
    };
    let list_all = detail || c.config.options.write_status;
    let expected = results.len();
    let mut built = Built {
        seen: Vec::new(),
        rows: Vec::new(),
        statuses: Vec::with_capacity(expected),
        listed: Vec::new(),
        failed_tenors: Vec::new(),
        answers: detail.then(Vec::new),
        detail,
        events: None,
    };
    let Some(tx) = tx else {
        let mut chunk = Chunk::new(&c.target, 0, c.config.kind.as_str(), c.format);
        let run = chunk.add_run(run_info);
        chunk.set_index(&c.set);
        for r in results {
            let (rec, t) = records::apply_run(None, r, run, ctx);
            built.note(&chunk, &rec, &t, list_all)?;
        }
        return Ok(built);
    };
    let wants = crate::validation::events::wants(tx, scope, &c.target)?;
    let mut events = crate::validation::events::RunEvents::new(wants, &c.target, c.partial, ctx);
    let stored = chunk_rows(tx, scope, c)?;
    let chunks: Vec<Chunk> = stored
        .iter()
        .map(|row| Chunk::decode(&row.target, row.seq, &row.body))
        .collect::<Result<_>>()?;
    let seen: Vec<(i64, Vec<u8>)> = stored.into_iter().map(|row| (row.seq, row.body)).collect();
    let mut laying = Laying::new(chunks);
    for r in results {
        let i = laying.chunk_for(c, r.key, expected);
        let (j, t) = laying.lay(i, r, c, &run_info, ctx);
        let chunk = &mut laying.chunks[i];
        if events.active() {
            let mut marked = chunk.records[j].clone();
            events.record(chunk, &mut marked, &t);
            chunk.records[j] = marked;
        }
        built.note(chunk, &chunk.records[j], &t, list_all)?;
    }
    built.events = Some(events);
    built.seen = seen;
    built.rows = laying.rows();
    Ok(built)
}

impl Built {
    /// Notes a record the run laid out: its id and point (the first ones, or all when
    /// `list_all`), its answer when detailed, its failed tenors and its status.
    fn note(
        &mut self,
        chunk: &Chunk,
        rec: &Record,
        t: &records::Transition,
        list_all: bool,
    ) -> Result<()> {
        if list_all || self.listed.len() < MAX_LISTED {
            let (point, _) = chunk.texts(rec);
            self.listed
                .push((format!("{}:{point}", chunk.target), point));
        }
        if let Some(a) = &mut self.answers {
            a.push(point_result(chunk, rec, t)?);
        }
        self.failed_tenors.extend(tenors_of(rec));
        self.statuses.push(rec.status);
        Ok(())
    }
}

/// The chunks a run lays its records into: which it touched, and the index of its run and of
/// its check list in each.
struct Laying {
    chunks: Vec<Chunk>,
    touched: Vec<bool>,
    runs: Vec<Option<u32>>,
    sets: Vec<Option<u32>>,
}

impl Laying {
    fn new(chunks: Vec<Chunk>) -> Laying {
        let n = chunks.len();
        Laying {
            chunks,
            touched: vec![false; n],
            runs: vec![None; n],
            sets: vec![None; n],
        }
    }

    /// The chunk holding the record with this key, else the one of its bucket (a new one when
    /// there is none).
    fn chunk_for(&mut self, c: &Checked, key: i64, expected: usize) -> usize {
        let format = c.format;
        let bucket = records::bucket_of(key, format.as_ref());
        // The chunk holding the record, else the one of its bucket.
        let at = self
            .chunks
            .iter()
            .position(|ch| ch.find(key).is_ok())
            .or_else(|| self.chunks.iter().position(|ch| ch.seq == bucket));
        match at {
            Some(i) => i,
            None => {
                let mut fresh = Chunk::new(&c.target, bucket, c.config.kind.as_str(), format);
                fresh.records.reserve(expected.min(4096));
                self.chunks.push(fresh);
                self.touched.push(false);
                self.runs.push(None);
                self.sets.push(None);
                self.chunks.len() - 1
            }
        }
    }

    /// Lays one result into chunk `i` (adding the run and check list to it once) and applies
    /// its transition: the record's position and the transition.
    fn lay(
        &mut self,
        i: usize,
        mut r: PointResult,
        c: &Checked,
        run_info: &RunInfo,
        ctx: &Context,
    ) -> (usize, records::Transition) {
        let format = c.format;
        let chunk = &mut self.chunks[i];
        self.touched[i] = true;
        let run = *self.runs[i].get_or_insert_with(|| chunk.add_run(run_info.clone()));
        r.set = *self.sets[i].get_or_insert_with(|| chunk.set_index(&c.set));
        if chunk.format != format && r.explicit.is_none() {
            // The chunk writes points another way (the calendar or time zone changed): keep
            // this one's texts as they are now.
            let texts = match &format {
                Some(f) => f.texts(r.key),
                None => chunk.derived_texts(r.key),
            };
            r.explicit = Some(Box::new(texts));
        }
        match chunk.find(r.key) {
            Ok(j) => {
                let old = chunk.records[j].clone();
                let (rec, t) = records::apply_run(Some(old), r, run, ctx);
                chunk.records[j] = rec;
                (j, t)
            }
            Err(j) => {
                let (rec, t) = records::apply_run(None, r, run, ctx);
                chunk.records.insert(j, rec);
                (j, t)
            }
        }
    }

    /// The rows of the chunks the run touched.
    fn rows(mut self) -> Vec<RecordChunkRow> {
        self.chunks
            .iter_mut()
            .zip(&self.touched)
            .filter(|(_, t)| **t)
            .map(|(chunk, _)| chunk_row(chunk))
            .collect()
    }
}

/// The failed tenors of a curve record.
pub(super) fn tenors_of(rec: &Record) -> Vec<String> {
    rec.extra
        .as_ref()
        .and_then(|x| x.get("failedTenors"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The stored row of a chunk.
pub(super) fn chunk_row(chunk: &mut Chunk) -> RecordChunkRow {
    let (first, last, statuses) = chunk.summary();
    RecordChunkRow {
        target: chunk.target.clone(),
        seq: chunk.seq,
        first,
        last,
        count: chunk.records.len() as u64,
        statuses,
        body: chunk.encode(),
    }
}
