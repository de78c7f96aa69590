//! The interface's JSON record, built on read from a record and its chunk.

use super::chunk::{CheckMeta, Chunk, RunInfo};
use super::record::{CheckResult, Event, Record};
use super::status::{failing, status_name, NONE, WARNING};
use crate::clock::format_instant;
use serde_json::{json, Map, Value};

/// A time in milliseconds as an RFC 3339 text (null when out of range).
fn ts(ms: i64) -> Value {
    crate::data::calendar::instant(ms).map_or(Value::Null, |at| Value::String(format_instant(at)))
}

impl Chunk {
    /// The JSON record of the interface.
    pub fn materialize(&self, r: &Record) -> Map<String, Value> {
        let run = self.runs.get(r.last_run as usize);
        let mut m = Map::with_capacity(28);
        let (point, point_date) = self.texts(r);
        m.insert(
            "_id".into(),
            Value::String(format!("{}:{point}", self.target)),
        );
        m.insert("target".into(), Value::String(self.target.clone()));
        for (k, v) in [
            ("name", run.map(|x| &x.name)),
            ("group", run.map(|x| &x.group)),
            ("tags", run.map(|x| &x.tags)),
        ] {
            m.insert(k.into(), v.cloned().unwrap_or(Value::Null));
        }
        m.insert("kind".into(), Value::String(self.kind.clone()));
        m.insert("point".into(), Value::String(point));
        m.insert("pointDate".into(), Value::String(point_date));
        if let Some(v) = &r.value {
            m.insert("value".into(), v.to_json());
        }
        m.insert("status".into(), json!(status_name(r.status)));
        m.insert("checkedStatus".into(), json!(status_name(r.checked)));
        m.insert("message".into(), Value::String(r.message.text()));
        let empty = Vec::new();
        let set = self.sets.get(r.set as usize).unwrap_or(&empty);
        let checks: Vec<Value> = r
            .checks
            .iter()
            .enumerate()
            .map(|(i, c)| check_json(set.get(i), c, run.and_then(|x| x.ms.get(i)).copied()))
            .collect();
        m.insert("checks".into(), Value::Array(checks));
        if let Some(extra) = &r.extra {
            for (k, v) in extra.iter() {
                m.insert(k.clone(), v.clone());
            }
        }
        self.insert_history(&mut m, r, run);
        let timeline: Vec<Value> = r.timeline.iter().map(|e| self.event_json(e)).collect();
        m.insert("timeline".into(), Value::Array(timeline));
        m
    }

    /// The override, the runs, and the opening and resolution.
    fn insert_history(&self, m: &mut Map<String, Value>, r: &Record, run: Option<&RunInfo>) {
        if let Some(o) = &r.overridden {
            m.insert(
                "override".into(),
                json!({"reason": o.reason, "user": o.user, "timestamp": ts(o.at), "status": status_name(o.status)}),
            );
        }
        m.insert("runs".into(), json!(r.runs));
        m.insert("firstRun".into(), ts(r.first_run));
        m.insert("lastRun".into(), run.map_or(Value::Null, |x| ts(x.at)));
        m.insert(
            "lastRunBy".into(),
            run.map_or(Value::Null, |x| json!(x.user)),
        );
        m.insert(
            "lastOrigin".into(),
            run.map_or(Value::Null, |x| json!(x.origin)),
        );
        if let Some(t) = r.open_since {
            m.insert("openSince".into(), ts(t));
        }
        if let Some(res) = &r.resolved {
            m.insert("resolvedAt".into(), ts(res.at));
            m.insert(
                "resolution".into(),
                json!(if res.by_override { "override" } else { "rerun" }),
            );
            m.insert(
                "resolveMinutes".into(),
                res.minutes.map_or(Value::Null, |x| json!(x)),
            );
        }
    }

    /// A timeline entry (a run's time, user and origin are the chunk's run).
    fn event_json(&self, e: &Event) -> Value {
        let status_or_null = |c: u8| {
            if c == NONE {
                Value::Null
            } else {
                json!(status_name(c))
            }
        };
        match e {
            Event::Run {
                run,
                status,
                previous,
                message,
            } => {
                let info = self.runs.get(*run as usize);
                json!({
                    "timestamp": info.map_or(Value::Null, |x| ts(x.at)),
                    "action": "run",
                    "user": info.map_or(Value::Null, |x| json!(x.user)),
                    "origin": info.map_or(Value::Null, |x| json!(x.origin)),
                    "status": status_name(*status),
                    "previous": status_or_null(*previous),
                    "message": message.text(),
                })
            }
            Event::Other {
                at,
                action,
                user,
                origin,
                status,
                previous,
                message,
            } => json!({
                "timestamp": ts(*at),
                "action": action,
                "user": user,
                "origin": origin,
                "status": status_name(*status),
                "previous": status_or_null(*previous),
                "message": message,
            }),
        }
    }
}

/// A check's result as the record shows it, with the check as its list has it (`meta`) and the
/// milliseconds it took per point in the last run.
fn check_json(meta: Option<&CheckMeta>, c: &CheckResult, ms: Option<f64>) -> Value {
    let text = |f: fn(&CheckMeta) -> &String| meta.map_or(String::new(), |m| f(m).clone());
    let failures = c
        .tenors_failed
        .unwrap_or(u32::from(failing(c.status) || c.status == WARNING));
    let mut j = Map::with_capacity(10);
    j.insert("id".into(), Value::String(text(|m| &m.id)));
    j.insert("name".into(), Value::String(text(|m| &m.name)));
    j.insert("scope".into(), Value::String(text(|m| &m.scope)));
    j.insert("severity".into(), Value::String(text(|m| &m.severity)));
    j.insert("status".into(), json!(status_name(c.status)));
    j.insert("message".into(), Value::String(c.message.to_string()));
    j.insert("failures".into(), json!(failures));
    j.insert(
        "log".into(),
        if c.message.is_empty() {
            json!([])
        } else {
            json!([&*c.message])
        },
    );
    let ms = ms.unwrap_or(0.0);
    j.insert("ms".into(), json!((ms * 100.0).round() / 100.0));
    if let Some(n) = c.tenors_failed {
        j.insert("tenorsFailed".into(), json!(n));
    }
    Value::Object(j)
}
