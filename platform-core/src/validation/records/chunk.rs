//! Chunks: the records of one data item over a stretch of points, with the runs and check
//! lists they share; how point texts are written, and which chunk a point goes to.

use super::record::{Event, Record};
use crate::data::calendar::{format_time, Calendar};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A run that touched records of a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// When (ms).
    pub at: i64,
    /// Who.
    pub user: String,
    /// How.
    pub origin: String,
    /// The configuration's name.
    #[serde(default)]
    pub name: Value,
    /// The configuration's group.
    #[serde(default)]
    pub group: Value,
    /// The configuration's tags.
    #[serde(default)]
    pub tags: Value,
    /// Milliseconds each check of the run took per point, by check list position.
    #[serde(default)]
    pub ms: Vec<f64>,
}

/// A check as records show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckMeta {
    /// The check's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// `point`, `tenor` or `curve`.
    pub scope: String,
    /// `warning`, `failed` or `severe`.
    pub severity: String,
}

/// How point texts of a time series are written (curves: dates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointFormat {
    /// The calendar.
    pub calendar: Calendar,
    /// The time zone.
    pub tz: chrono_tz::Tz,
}

impl PointFormat {
    /// The point text and date of a key.
    pub fn texts(&self, key: i64) -> (String, String) {
        let point = format_time(key, self.calendar, self.tz);
        let date = crate::data::calendar::instant(key)
            .map(|d| d.with_timezone(&self.tz).date_naive().to_string())
            .unwrap_or_default();
        (point, date)
    }
}

/// The key of a curve's ondate.
pub fn date_key(date: chrono::NaiveDate) -> i64 {
    date.and_hms_opt(0, 0, 0)
        .map_or(0, |d| d.and_utc().timestamp_millis())
}

/// The chunk a point goes to: the start key of its bucket. Minute-like series are kept a day
/// per chunk, hourly ones a month, anything coarser (and curves) about five years.
pub fn bucket_of(key: i64, format: Option<&PointFormat>) -> i64 {
    const DAY: i64 = 86_400_000;
    let width = match format.map(|f| f.calendar) {
        Some(Calendar::Intraday(s)) if s < 3600 => DAY,
        Some(Calendar::Intraday(_)) | Some(Calendar::Sparse) => 32 * DAY,
        _ => 2048 * DAY,
    };
    key.div_euclid(width) * width
}

/// The records of one data item over a stretch of points, with what they share.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The data id.
    pub target: String,
    /// The bucket (start key).
    pub seq: i64,
    /// `timeseries` or `curve`.
    pub kind: String,
    /// Time series: how points are written.
    pub format: Option<PointFormat>,
    /// Runs referred to by records.
    pub runs: Vec<RunInfo>,
    /// Check lists referred to by records.
    pub sets: Vec<Vec<CheckMeta>>,
    /// The records, by key.
    pub records: Vec<Record>,
}

impl Chunk {
    /// An empty chunk.
    pub fn new(target: &str, seq: i64, kind: &str, format: Option<PointFormat>) -> Chunk {
        Chunk {
            target: target.into(),
            seq,
            kind: kind.into(),
            format,
            runs: Vec::new(),
            sets: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Adds a run, returning its index.
    pub fn add_run(&mut self, run: RunInfo) -> u32 {
        self.runs.push(run);
        (self.runs.len() - 1) as u32
    }

    /// The index of a check list, added when new.
    pub fn set_index(&mut self, set: &[CheckMeta]) -> u32 {
        match self.sets.iter().position(|s| s == set) {
            Some(i) => i as u32,
            None => {
                self.sets.push(set.to_vec());
                (self.sets.len() - 1) as u32
            }
        }
    }

    /// The position of the record with this key.
    pub fn find(&self, key: i64) -> std::result::Result<usize, usize> {
        self.records.binary_search_by_key(&key, |r| r.key)
    }

    /// The first and last keys and a bit per status present (bit = 1 << code).
    pub fn summary(&self) -> (i64, i64, u64) {
        let first = self.records.first().map_or(self.seq, |r| r.key);
        let last = self.records.last().map_or(self.seq, |r| r.key);
        let mask = self
            .records
            .iter()
            .fold(0u64, |m, r| m | (1u64 << r.status));
        (first, last, mask)
    }

    /// Drops runs and check lists no record refers to any more.
    pub(super) fn compact(&mut self) {
        let mut run_used = vec![false; self.runs.len()];
        let mut set_used = vec![false; self.sets.len()];
        for r in &self.records {
            if let Some(u) = run_used.get_mut(r.last_run as usize) {
                *u = true;
            }
            if let Some(u) = set_used.get_mut(r.set as usize) {
                *u = true;
            }
            for e in &r.timeline {
                if let Event::Run { run, .. } = e {
                    if let Some(u) = run_used.get_mut(*run as usize) {
                        *u = true;
                    }
                }
            }
        }
        if run_used.iter().all(|u| *u) && set_used.iter().all(|u| *u) {
            return;
        }
        let remap = |used: &[bool]| -> Vec<u32> {
            let mut next = 0;
            used.iter()
                .map(|u| {
                    let i = next;
                    if *u {
                        next += 1;
                    }
                    i
                })
                .collect()
        };
        let (run_map, set_map) = (remap(&run_used), remap(&set_used));
        for r in &mut self.records {
            let at = |map: &[u32], i: u32| map.get(i as usize).copied().unwrap_or(0);
            r.last_run = at(&run_map, r.last_run);
            r.set = at(&set_map, r.set);
            for e in &mut r.timeline {
                if let Event::Run { run, .. } = e {
                    *run = at(&run_map, *run);
                }
            }
        }
        let mut i = 0;
        self.runs.retain(|_| {
            i += 1;
            run_used[i - 1]
        });
        let mut i = 0;
        self.sets.retain(|_| {
            i += 1;
            set_used[i - 1]
        });
    }

    /// The point text and date of a key in this chunk's format.
    pub fn derived_texts(&self, key: i64) -> (String, String) {
        match &self.format {
            Some(f) => f.texts(key),
            None => {
                let d = crate::data::calendar::instant(key)
                    .map(|d| d.date_naive().to_string())
                    .unwrap_or_default();
                (d.clone(), d)
            }
        }
    }

    /// The point text and date of a record.
    pub fn texts(&self, r: &Record) -> (String, String) {
        match &r.explicit {
            Some(t) => (t.0.clone(), t.1.clone()),
            None => self.derived_texts(r.key),
        }
    }

    /// The record id of a record.
    pub fn id_of(&self, r: &Record) -> String {
        format!("{}:{}", self.target, self.texts(r).0)
    }
}
