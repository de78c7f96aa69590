//! `override`, `removeOverride` and `comment` on records by id: each record's transition, its
//! events, and the quality status where the configuration writes it, in one transaction.

use super::layout::chunk_row;
use super::MAX_IDS;
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::store::Collection;
use crate::validation::config::{Config, Kind};
use crate::validation::records::{self, status_name, Context};
use crate::validation::shared::strings;
use crate::Platform;
use serde_json::{json, Value};

impl Platform {
    /// `override`, `removeOverride` or `comment` on records by id.
    pub fn validation_records_action(
        &self,
        p: &Principal,
        function: &str,
        body: &Value,
    ) -> Result<Value> {
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
        let ctx = Context {
            user: p.user.clone(),
            origin: "manual".into(),
            now: self.now(),
        };
        let scope = p.private_scope();
        let mut status_writes: Vec<(String, Kind, Value)> = Vec::new();
        let results = self.write(|tx| {
            let mut out = Vec::with_capacity(ids.len());
            let mut wants: Vec<(String, crate::events::rules::Wants)> = Vec::new();
            for id in &ids {
                let Some((mut chunk, i)) = self.locate_record(&*tx, &scope, id)? else {
                    out.push(json!({"id": id, "ok": false, "message": "no such record"}));
                    continue;
                };
                let before = chunk.records[i].status;
                let rec = &mut chunk.records[i];
                let outcome = match function {
                    "override" => {
                        records::apply_override(rec, reason.as_deref().unwrap_or_default(), &ctx)
                            .map(|_| "overridden".to_string())
                    }
                    "removeOverride" => records::remove_override(rec, &ctx)
                        .map(|s| format!("override removed; status {s}")),
                    _ => {
                        records::comment(rec, message.as_deref().unwrap_or_default(), &ctx);
                        Ok("comment added".to_string())
                    }
                };
                match outcome {
                    Ok(m) => {
                        let status = status_name(chunk.records[i].status);
                        if function != "comment" {
                            let kind = if chunk.kind == "curve" {
                                Kind::Curve
                            } else {
                                Kind::TimeSeries
                            };
                            status_writes.push((
                                chunk.target.clone(),
                                kind,
                                json!({"point": chunk.texts(&chunk.records[i]).0, "status": status}),
                            ));
                        }
                        out.push(json!({"id": id, "ok": true, "message": m, "status": status}));
                        if function != "comment" {
                            let w = match wants.iter().find(|(t, _)| *t == chunk.target) {
                                Some((_, w)) => *w,
                                None => {
                                    let w = crate::events::rules::wants(&*tx, &scope, &chunk.target)?;
                                    wants.push((chunk.target.clone(), w));
                                    w
                                }
                            };
                            if w.any() {
                                let mut marked = chunk.records[i].clone();
                                crate::events::rules::after_action(
                                    &mut *tx,
                                    p,
                                    w,
                                    &chunk,
                                    &mut marked,
                                    before,
                                    &ctx,
                                )?;
                                chunk.records[i] = marked;
                            }
                        }
                        tx.put_record_chunk(&scope, &chunk_row(&mut chunk))?;
                    }
                    Err(m) => out.push(json!({"id": id, "ok": false, "message": m})),
                }
            }
            // The quality status follows overrides where the configuration writes it, in the
            // same transaction as the records.
            let mut wanted: Vec<(String, Kind, Vec<Value>)> = Vec::new();
            for (target, kind, item) in std::mem::take(&mut status_writes) {
                let writes = tx
                    .current(Collection::ValidationConfig, &scope, &target)?
                    .and_then(|d| Config::from_doc(d.body).ok())
                    .is_some_and(|c| c.options.write_status);
                if !writes {
                    continue;
                }
                match wanted.iter_mut().find(|(t, ..)| *t == target) {
                    Some((_, _, items)) => items.push(item),
                    None => wanted.push((target, kind, vec![item])),
                }
            }
            for (target, kind, items) in wanted {
                self.write_status(tx, p, &target, kind, &items)?;
            }
            Ok(out)
        })?;
        Ok(Value::Array(results))
    }
}
