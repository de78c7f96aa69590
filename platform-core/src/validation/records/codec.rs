//! A chunk's stored bytes: a JSON header (kind, point format, runs, check lists), then the
//! records, each a few varints and bytes (about 40 for a clean record).

use super::chunk::{CheckMeta, Chunk, PointFormat, RunInfo};
use super::record::{CheckResult, CheckedValue, Event, Override, Record, Resolved, Summary};
use super::state::TIMELINE_MAX;
use crate::data::bytes::{put_text, put_varint, Reader};
use crate::data::calendar::{parse_zone, Calendar};
use crate::error::Result;
use serde::{Deserialize, Serialize};

fn calendar_code(c: Calendar) -> u32 {
    match c {
        Calendar::Sparse => 0,
        Calendar::Daily => 1,
        Calendar::Business => 2,
        Calendar::Weekly => 3,
        Calendar::Monthly => 4,
        Calendar::Quarterly => 5,
        Calendar::Yearly => 6,
        Calendar::Intraday(s) => 7 + s,
        // Beyond every step (a day at most): 7 + s never reaches them.
        Calendar::Efa => u32::MAX,
        Calendar::EfaDay => u32::MAX - 1,
    }
}

fn calendar_of(code: u32) -> Calendar {
    match code {
        0 => Calendar::Sparse,
        1 => Calendar::Daily,
        2 => Calendar::Business,
        3 => Calendar::Weekly,
        4 => Calendar::Monthly,
        5 => Calendar::Quarterly,
        6 => Calendar::Yearly,
        u32::MAX => Calendar::Efa,
        0xFFFF_FFFE => Calendar::EfaDay,
        s => Calendar::Intraday(s - 7),
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calendar: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tz: Option<String>,
    runs: Vec<RunInfo>,
    sets: Vec<Vec<CheckMeta>>,
}

/// Flags of a stored record.
const F_POINT: u8 = 1;
const F_VALUE: u8 = 2;
const F_OPEN: u8 = 4;
const F_RESOLVED: u8 = 8;
const F_OVERRIDE: u8 = 16;
const F_HASH: u8 = 32;
const F_EXTRA: u8 = 64;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_summary(out: &mut Vec<u8>, s: &Summary) {
    match s {
        Summary::AllPassed(n) => {
            out.push(0);
            put_varint(out, u64::from(*n));
        }
        Summary::Text(t) => {
            out.push(1);
            put_text(out, t);
        }
        Summary::PassedSkipping { passed, skipped } => {
            out.push(2);
            put_varint(out, u64::from(*passed));
            put_varint(out, u64::from(*skipped));
        }
    }
}

fn read_summary(r: &mut Reader) -> Result<Summary> {
    Ok(match r.byte()? {
        0 => Summary::AllPassed(r.varint()? as u32),
        2 => Summary::PassedSkipping {
            passed: r.varint()? as u32,
            skipped: r.varint()? as u32,
        },
        _ => Summary::Text(r.str()?.into()),
    })
}

impl Chunk {
    /// The stored bytes (runs and check lists no record uses are dropped first).
    pub fn encode(&mut self) -> Vec<u8> {
        self.compact();
        let header = Header {
            kind: self.kind.clone(),
            calendar: self.format.map(|f| calendar_code(f.calendar)),
            tz: self.format.map(|f| f.tz.name().to_string()),
            runs: std::mem::take(&mut self.runs),
            sets: std::mem::take(&mut self.sets),
        };
        let head = serde_json::to_vec(&header).unwrap_or_default();
        self.runs = header.runs;
        self.sets = header.sets;
        let mut out = Vec::with_capacity(head.len() + 16 + self.records.len() * 40);
        put_varint(&mut out, head.len() as u64);
        out.extend_from_slice(&head);
        put_varint(&mut out, self.records.len() as u64);
        let mut prev = self.seq;
        for r in &self.records {
            put_varint(&mut out, zigzag(r.key - prev));
            prev = r.key;
            let last_at = self.runs.get(r.last_run as usize).map_or(0, |x| x.at);
            put_record(&mut out, r, last_at);
        }
        out
    }

    /// A chunk from its stored bytes.
    pub fn decode(target: &str, seq: i64, bytes: &[u8]) -> Result<Chunk> {
        let mut r = Reader::new(bytes, "validation records");
        let head_len = r.varint()? as usize;
        let mut head_bytes = Vec::with_capacity(head_len);
        for _ in 0..head_len {
            head_bytes.push(r.byte()?);
        }
        let header: Header =
            serde_json::from_slice(&head_bytes).map_err(|e| r.corrupt(&e.to_string()))?;
        let format = match (header.calendar, &header.tz) {
            (Some(c), Some(tz)) => Some(PointFormat {
                calendar: calendar_of(c),
                tz: parse_zone(Some(tz))?,
            }),
            _ => None,
        };
        let n = r.varint()? as usize;
        let mut records = Vec::with_capacity(n.min(1 << 16));
        let mut prev = seq;
        for _ in 0..n {
            let key = prev + unzigzag(r.varint()?);
            prev = key;
            records.push(read_record(&mut r, key, &header.runs)?);
        }
        Ok(Chunk {
            target: target.into(),
            seq,
            kind: header.kind,
            format,
            runs: header.runs,
            sets: header.sets,
            records,
        })
    }
}

/// The flags of what a record holds besides its fixed fields.
fn flags_of(r: &Record) -> u8 {
    let mut flags = 0u8;
    if r.explicit.is_some() {
        flags |= F_POINT;
    }
    if r.value.is_some() {
        flags |= F_VALUE;
    }
    if r.open_since.is_some() {
        flags |= F_OPEN;
    }
    if r.resolved.is_some() {
        flags |= F_RESOLVED;
    }
    if r.overridden.is_some() {
        flags |= F_OVERRIDE;
    }
    if r.hash.is_some() {
        flags |= F_HASH;
    }
    if r.extra.is_some() {
        flags |= F_EXTRA;
    }
    flags
}

/// One record after its key (`last_at`: the time of its last run, its first run is stored as
/// the distance before it).
fn put_record(out: &mut Vec<u8>, r: &Record, last_at: i64) {
    out.push(flags_of(r));
    if let Some(texts) = &r.explicit {
        put_text(out, &texts.0);
        put_text(out, &texts.1);
    }
    match &r.value {
        None => {}
        Some(CheckedValue::Null) => out.push(0),
        Some(CheckedValue::Num(x)) => {
            out.push(1);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Some(CheckedValue::Text(t)) => {
            out.push(2);
            put_text(out, t);
        }
    }
    out.push(r.status);
    out.push(r.checked);
    put_varint(out, u64::from(r.set));
    put_checks(out, &r.checks);
    put_summary(out, &r.message);
    put_varint(out, u64::from(r.runs));
    put_varint(out, zigzag(last_at - r.first_run));
    put_varint(out, u64::from(r.last_run));
    put_issue(out, r);
    put_varint(out, r.timeline.len() as u64);
    for e in &r.timeline {
        put_event(out, e);
    }
    if let Some(h) = &r.hash {
        put_text(out, h);
    }
    if let Some(x) = &r.extra {
        put_text(out, &serde_json::to_string(x).unwrap_or_default());
    }
}

/// One status byte per check (with flags for a message and a tenor count), then those.
fn put_checks(out: &mut Vec<u8>, checks: &[CheckResult]) {
    put_varint(out, checks.len() as u64);
    for c in checks {
        let mut b = c.status;
        if !c.message.is_empty() {
            b |= 0x80;
        }
        if c.tenors_failed.is_some() {
            b |= 0x40;
        }
        out.push(b);
        if !c.message.is_empty() {
            put_text(out, &c.message);
        }
        if let Some(n) = c.tenors_failed {
            put_varint(out, u64::from(n));
        }
    }
}

/// Since when a record's issue is open, how it was resolved, and its override.
fn put_issue(out: &mut Vec<u8>, r: &Record) {
    if let Some(t) = r.open_since {
        put_varint(out, zigzag(t));
    }
    if let Some(res) = &r.resolved {
        put_varint(out, zigzag(res.at));
        out.push(u8::from(res.by_override));
        match res.minutes {
            None => out.push(0),
            Some(m) => {
                out.push(1);
                put_varint(out, zigzag(m));
            }
        }
    }
    if let Some(o) = &r.overridden {
        put_text(out, &o.reason);
        put_text(out, &o.user);
        put_varint(out, zigzag(o.at));
        out.push(o.status);
    }
}

fn put_event(out: &mut Vec<u8>, e: &Event) {
    match e {
        Event::Run {
            run,
            status,
            previous,
            message,
        } => {
            out.push(0);
            put_varint(out, u64::from(*run));
            out.push(*status);
            out.push(*previous);
            put_summary(out, message);
        }
        Event::Other {
            at,
            action,
            user,
            origin,
            status,
            previous,
            message,
        } => {
            out.push(1);
            put_varint(out, zigzag(*at));
            put_text(out, action);
            put_text(out, user);
            put_text(out, origin);
            out.push(*status);
            out.push(*previous);
            put_text(out, message);
        }
    }
}

/// One record after its key (`chunk_runs`: the chunk's runs, for the time of its first run).
fn read_record(r: &mut Reader, key: i64, chunk_runs: &[RunInfo]) -> Result<Record> {
    let flags = r.byte()?;
    let explicit = if flags & F_POINT != 0 {
        Some(Box::new((r.text()?, r.text()?)))
    } else {
        None
    };
    let value = if flags & F_VALUE != 0 {
        Some(match r.byte()? {
            0 => CheckedValue::Null,
            1 => CheckedValue::Num(f64::from_le_bytes(r.take::<8>()?)),
            _ => CheckedValue::Text(r.text()?),
        })
    } else {
        None
    };
    let status = r.byte()?;
    let checked = r.byte()?;
    let set = r.varint()? as u32;
    let checks = read_checks(r)?;
    let message = read_summary(r)?;
    let runs = r.varint()? as u32;
    let first_delta = unzigzag(r.varint()?);
    let last_run = r.varint()? as u32;
    let last_at = chunk_runs.get(last_run as usize).map_or(0, |x| x.at);
    let open_since = if flags & F_OPEN != 0 {
        Some(unzigzag(r.varint()?))
    } else {
        None
    };
    let resolved = if flags & F_RESOLVED != 0 {
        Some(read_resolved(r)?)
    } else {
        None
    };
    let overridden = if flags & F_OVERRIDE != 0 {
        Some(Override {
            reason: r.text()?,
            user: r.text()?,
            at: unzigzag(r.varint()?),
            status: r.byte()?,
        })
    } else {
        None
    };
    let events = r.varint()? as usize;
    let mut timeline = Vec::with_capacity(events.min(TIMELINE_MAX));
    for _ in 0..events {
        timeline.push(read_event(r)?);
    }
    let hash = if flags & F_HASH != 0 {
        Some(r.text()?)
    } else {
        None
    };
    let extra = if flags & F_EXTRA != 0 {
        let text = r.str()?;
        Some(Box::new(
            serde_json::from_str(text).map_err(|e| r.corrupt(&e.to_string()))?,
        ))
    } else {
        None
    };
    Ok(Record {
        key,
        explicit,
        value,
        status,
        checked,
        set,
        checks,
        message,
        runs,
        first_run: last_at - first_delta,
        last_run,
        open_since,
        resolved,
        overridden,
        timeline,
        hash,
        extra,
    })
}

fn read_checks(r: &mut Reader) -> Result<Vec<CheckResult>> {
    let count = r.varint()? as usize;
    let mut checks = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let b = r.byte()?;
        let message: Box<str> = if b & 0x80 != 0 {
            r.str()?.into()
        } else {
            "".into()
        };
        let tenors_failed = if b & 0x40 != 0 {
            Some(r.varint()? as u32)
        } else {
            None
        };
        checks.push(CheckResult {
            status: b & 0x3f,
            message,
            tenors_failed,
        });
    }
    Ok(checks)
}

fn read_resolved(r: &mut Reader) -> Result<Resolved> {
    let at = unzigzag(r.varint()?);
    let by_override = r.byte()? != 0;
    let minutes = match r.byte()? {
        0 => None,
        _ => Some(unzigzag(r.varint()?)),
    };
    Ok(Resolved {
        at,
        by_override,
        minutes,
    })
}

fn read_event(r: &mut Reader) -> Result<Event> {
    Ok(match r.byte()? {
        0 => Event::Run {
            run: r.varint()? as u32,
            status: r.byte()?,
            previous: r.byte()?,
            message: read_summary(r)?,
        },
        _ => Event::Other {
            at: unzigzag(r.varint()?),
            action: r.text()?,
            user: r.text()?,
            origin: r.text()?,
            status: r.byte()?,
            previous: r.byte()?,
            message: r.text()?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_calendar_keeps_its_code_and_no_two_share_one() {
        let calendars = [
            Calendar::Sparse,
            Calendar::Daily,
            Calendar::Business,
            Calendar::Weekly,
            Calendar::Monthly,
            Calendar::Quarterly,
            Calendar::Yearly,
            Calendar::Intraday(1),
            Calendar::Intraday(900),
            Calendar::Intraday(86_400),
            Calendar::Efa,
            Calendar::EfaDay,
        ];
        let mut codes = std::collections::HashSet::new();
        for c in calendars {
            assert_eq!(calendar_of(calendar_code(c)), c, "{c:?}");
            assert!(codes.insert(calendar_code(c)), "{c:?} shares a code");
        }
    }
}
