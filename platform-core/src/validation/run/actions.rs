//! `override`, `removeOverride` and `comment` on records by id: each record's transition, its
//! events, and the quality status where the configuration writes it, in one transaction.

use super::layout::chunk_row;
use super::MAX_IDS;
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::store::{Collection, DocumentRead, Hold, WriteTx};
use crate::validation::config::{Config, Kind};
use crate::validation::events::Wants;
use crate::validation::records::{self, status_name, Chunk, Context, Record};
use crate::validation::shared::strings;
use crate::validation::Validation;
use serde_json::{json, Value};

impl Validation<'_> {
    /// `override`, `removeOverride` or `comment` on records by id.
    pub fn records_action(&self, p: &Principal, function: &str, body: &Value) -> Result<Value> {
        p.require(
            crate::auth::Role::Writer,
            &format!("{function} on validation records"),
        )?;
        let ids = strings(body.get("ids"), "ids")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "ids is missing"))?;
        if ids.len() > MAX_IDS {
            return Err(Error::invalid_parameter(format!(
                "at most {MAX_IDS} ids; {} were given",
                ids.len()
            )));
        }
        let text = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let reason = text("reason");
        let message = text("message");
        match function {
            "override" if reason.is_none() => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "override needs a reason",
                ))
            }
            "comment" if message.is_none() => {
                return Err(Error::new(
                    ErrorCode::MissingParameter,
                    "comment needs a message",
                ))
            }
            _ => {}
        }
        let mut action = Action {
            function,
            reason,
            message,
            ctx: Context {
                user: p.user.clone(),
                origin: "manual".into(),
                now: self.platform.now(),
            },
            scope: p.private_scope(),
            wants: Vec::new(),
            status_writes: Vec::new(),
        };
        let results = self.platform.write(|tx| {
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                out.push(action.apply(self, tx, p, id)?);
            }
            // The quality status follows overrides where the configuration writes it, in the
            // same transaction as the records.
            action.write_statuses(self, tx, p)?;
            Ok(out)
        })?;
        Ok(Value::Array(results))
    }
}

impl Validation<'_> {
    /// Whether the configuration of `target` writes the quality status of its points.
    fn writes_status(&self, tx: &dyn DocumentRead, scope: &Scope, target: &str) -> Result<bool> {
        Ok(tx
            .current(Collection::ValidationConfig, scope, target)?
            .and_then(|d| Config::from_doc(d.body).ok())
            .is_some_and(|c| c.options.write_status))
    }
}

/// A records action under way: what it does, who does it, and what it found to follow up.
struct Action<'a> {
    function: &'a str,
    reason: Option<String>,
    message: Option<String>,
    ctx: Context,
    /// The caller's records.
    scope: Scope,
    /// What the automations want of each target met so far.
    wants: Vec<(String, Wants)>,
    /// The quality statuses to write: the target, its kind, and the point and its status.
    status_writes: Vec<(String, Kind, Value)>,
}

impl Action<'_> {
    /// The action on the record with this id, stored, with its events: the id's answer.
    fn apply(
        &mut self,
        platform: &Validation<'_>,
        tx: &mut dyn WriteTx,
        p: &Principal,
        id: &str,
    ) -> Result<Value> {
        self.hold_targets(tx, p, id)?;
        let Some((mut chunk, i)) = platform.locate_record(&*tx, &self.scope, id)? else {
            return Ok(json!({"id": id, "ok": false, "message": "no such record"}));
        };
        let before = chunk.records[i].status;
        let m = match self.transition(&mut chunk.records[i]) {
            Ok(m) => m,
            Err(m) => return Ok(json!({"id": id, "ok": false, "message": m})),
        };
        let status = status_name(chunk.records[i].status);
        if self.function != "comment" {
            let kind = if chunk.kind == "curve" {
                Kind::Curve
            } else {
                Kind::TimeSeries
            };
            self.status_writes.push((
                chunk.target.clone(),
                kind,
                json!({"point": chunk.texts(&chunk.records[i]).0, "status": status}),
            ));
        }
        let answer = json!({"id": id, "ok": true, "message": m, "status": status});
        if self.function != "comment" {
            self.raise_events(tx, p, &mut chunk, i, before)?;
        }
        tx.put_record_chunk(&self.scope, &chunk_row(&mut chunk))?;
        Ok(answer)
    }

    /// Holds the records of every target the record `id` may belong to, and (but for a
    /// comment, which changes no status) the object of each, whose data the action raises
    /// events about and may write the quality status to, before any of it is read (all at
    /// once, in the one order every transaction takes holds in).
    fn hold_targets(&self, tx: &mut dyn WriteTx, p: &Principal, id: &str) -> Result<()> {
        let targets = tx.record_targets_of(&self.scope, id)?;
        let mut objects: Vec<(Scope, String)> = Vec::new();
        if self.function != "comment" {
            for target in &targets {
                let object = crate::data::read::DataId::parse(target)?.object;
                objects.push((Scope::for_source(Source::of_id(&object), p), object));
            }
        }
        let mut holds: Vec<Hold<'_>> = targets
            .iter()
            .map(|t| Hold::Records(&self.scope, t))
            .collect();
        holds.extend(
            objects
                .iter()
                .map(|(scope, o)| Hold::Document(Collection::Object, scope, o)),
        );
        tx.hold(&holds)
    }

    /// The record's transition: what the answer says, or why it does not apply.
    fn transition(&self, rec: &mut Record) -> Result<String, String> {
        let ctx = &self.ctx;
        match self.function {
            "override" => {
                records::apply_override(rec, self.reason.as_deref().unwrap_or_default(), ctx)
                    .map(|_| "overridden".to_string())
            }
            "removeOverride" => {
                records::remove_override(rec, ctx).map(|s| format!("override removed; status {s}"))
            }
            _ => {
                records::comment(rec, self.message.as_deref().unwrap_or_default(), ctx);
                Ok("comment added".to_string())
            }
        }
    }

    /// The events of an override or its removal on record `i` (`before`: its status before),
    /// when the target's automations want them.
    fn raise_events(
        &mut self,
        tx: &mut dyn WriteTx,
        p: &Principal,
        chunk: &mut Chunk,
        i: usize,
        before: u8,
    ) -> Result<()> {
        let w = match self.wants.iter().find(|(t, _)| *t == chunk.target) {
            Some((_, w)) => *w,
            None => {
                let w = crate::validation::events::wants(&*tx, &self.scope, &chunk.target)?;
                self.wants.push((chunk.target.clone(), w));
                w
            }
        };
        if w.any() {
            let mut marked = chunk.records[i].clone();
            crate::validation::events::after_action(
                tx,
                p,
                w,
                chunk,
                &mut marked,
                before,
                &self.ctx,
            )?;
            chunk.records[i] = marked;
        }
        Ok(())
    }

    /// Writes the quality statuses of the targets whose configuration writes them.
    fn write_statuses(
        &mut self,
        platform: &Validation<'_>,
        tx: &mut dyn WriteTx,
        p: &Principal,
    ) -> Result<()> {
        let mut wanted: Vec<(String, Kind, Vec<Value>)> = Vec::new();
        for (target, kind, item) in std::mem::take(&mut self.status_writes) {
            if !platform.writes_status(&*tx, &self.scope, &target)? {
                continue;
            }
            match wanted.iter_mut().find(|(t, ..)| *t == target) {
                Some((_, _, items)) => items.push(item),
                None => wanted.push((target, kind, vec![item])),
            }
        }
        for (target, kind, items) in wanted {
            platform.write_status(tx, p, &target, kind, &items)?;
        }
        Ok(())
    }
}
