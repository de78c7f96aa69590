//! `override`, `removeOverride` and `comment` on records by id ([`RecordsAction`], each
//! answering a [`RecordOutcome`] per id): each record's transition, its events, and the
//! quality status where the configuration writes it, in one transaction.

use super::layout::chunk_row;
use super::MAX_IDS;
use crate::auth::Principal;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{Scope, Source};
use crate::store::{Collection, DocumentRead, Hold, WriteTx};
use crate::validation::config::{Config, Kind};
use crate::validation::counts::ValidationStatus;
use crate::validation::events::Wants;
use crate::validation::records::{self, status_name, Chunk, Context, Record};
use crate::validation::shared::strings;
use crate::validation::Validation;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What a records action did to one record: whether it applied, and why not. Its serde form
/// is an item of the action's answer.
///
/// (See [`Validation::comment_records`] for an example.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordOutcome {
    /// The record id asked for.
    pub id: String,
    /// Whether it applied.
    pub ok: bool,
    /// What it did, or why it did not apply (`no such record`, `already overridden`...).
    pub message: String,
    /// The record's status after it (when it applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ValidationStatus>,
}

impl RecordOutcome {
    /// An action that did not apply to record `id`, and why.
    fn refused(id: &str, message: impl Into<String>) -> RecordOutcome {
        RecordOutcome {
            id: id.into(),
            ok: false,
            message: message.into(),
            status: None,
        }
    }
}

/// A records action as the body of `POST validation/v1?_function=override` (or
/// `removeOverride`, `comment`) asks it: the record ids, and an override's reason or a
/// comment's message.
///
/// ```
/// use platform_core::api::validation::RecordsAction;
/// let body = serde_json::json!({"ids": ["NBP:SPOT:2024-01-01"], "reason": " outage "});
/// let action = RecordsAction::from_body("override", &body)?;
/// assert_eq!(action, RecordsAction::Override {
///     ids: vec!["NBP:SPOT:2024-01-01".into()], reason: " outage ".into() });
/// let e = RecordsAction::from_body("comment", &serde_json::json!({"message": "x"})).unwrap_err();
/// assert_eq!(e.to_string(), "ids is missing");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordsAction {
    /// Override failing records ([`Validation::override_records`]).
    Override {
        /// The records.
        ids: Vec<String>,
        /// Why.
        reason: String,
    },
    /// Take overrides back ([`Validation::remove_overrides`]).
    RemoveOverride {
        /// The records.
        ids: Vec<String>,
    },
    /// Comment on records ([`Validation::comment_records`]).
    Comment {
        /// The records.
        ids: Vec<String>,
        /// The comment.
        message: String,
    },
}

impl RecordsAction {
    /// The action `function` (`override`, `removeOverride` or `comment`) a body asks: its
    /// `ids` (required, an array of strings) and its `reason` or `message` (a text, else none:
    /// the action refuses a missing one after it has counted the ids, as the service does).
    pub fn from_body(function: &str, body: &Value) -> Result<RecordsAction> {
        let ids = strings(body.get("ids"), "ids")?
            .ok_or_else(|| Error::new(ErrorCode::MissingParameter, "ids is missing"))?;
        let text = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        match function {
            "override" => Ok(RecordsAction::Override {
                ids,
                reason: text("reason"),
            }),
            "removeOverride" => Ok(RecordsAction::RemoveOverride { ids }),
            "comment" => Ok(RecordsAction::Comment {
                ids,
                message: text("message"),
            }),
            other => Err(Error::invalid_parameter(format!(
                "no records action \"{other}\": override, removeOverride or comment"
            ))),
        }
    }
}

impl Validation<'_> {
    /// Refuses a caller who may not act on records (`function`: `override`, `removeOverride`
    /// or `comment`, as the refusal names it; a writer may), as the actions do first: a front
    /// end asks it before it reads a body, so a caller who may not act is told so whatever
    /// the body holds.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// platform.validation().may_act_on_records(&me, "override")?;
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn may_act_on_records(&self, p: &Principal, function: &str) -> Result<()> {
        p.require(
            crate::auth::Role::Writer,
            &format!("{function} on validation records"),
        )
    }

    /// Overrides failing records (role `writer`); the reason is required (trimmed). A record
    /// that is not failing, or not found, is reported in its outcome. At most 500 ids.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let outcomes = platform.validation().override_records(&me, &["NBP:SPOT:2024-01-01"], "outage")?;
    /// assert_eq!((outcomes[0].ok, outcomes[0].message.as_str()), (false, "no such record"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    ///
    /// (See [`Validation::comment_records`] for the refusals.)
    pub fn override_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
        reason: &str,
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "override", ids, Some(reason))
    }

    /// Removes the overrides of records (role `writer`), which take their last checked
    /// status again.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let outcomes = platform.validation().remove_overrides(&me, &["NBP:SPOT:2024-01-01"])?;
    /// assert!(!outcomes[0].ok && outcomes[0].status.is_none());
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn remove_overrides<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "removeOverride", ids, None)
    }

    /// Adds a comment to the timeline of records (role `writer`); the message is required.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let said = platform.validation().comment_records(&me, &["NBP:SPOT:2024-01-01"], "seen")?;
    /// assert!(!said[0].ok);
    /// assert_eq!(said[0].message, "no such record");
    /// let undone = platform.validation().remove_overrides(&me, &["NBP:SPOT:2024-01-01"])?;
    /// assert_eq!(undone, said);
    /// let e = platform.validation().override_records(&me, &["NBP:SPOT:2024-01-01"], " ").unwrap_err();
    /// assert_eq!(e.to_string(), "override needs a reason");
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn comment_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        ids: &[S],
        message: &str,
    ) -> Result<Vec<RecordOutcome>> {
        self.act_on_records(p, "comment", ids, Some(message))
    }

    /// `override`, `removeOverride` or `comment` (`function`) on records by id, with the
    /// reason or message (`text`).
    fn act_on_records<S: AsRef<str>>(
        &self,
        p: &Principal,
        function: &str,
        ids: &[S],
        text: Option<&str>,
    ) -> Result<Vec<RecordOutcome>> {
        self.may_act_on_records(p, function)?;
        if ids.len() > MAX_IDS {
            return Err(Error::invalid_parameter(format!(
                "at most {MAX_IDS} ids; {} were given",
                ids.len()
            )));
        }
        let text = text
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let needs = match function {
            "override" => Some("override needs a reason"),
            "comment" => Some("comment needs a message"),
            _ => None,
        };
        if let (Some(refusal), None) = (needs, &text) {
            return Err(Error::new(ErrorCode::MissingParameter, refusal));
        }
        let mut action = Action {
            function,
            text,
            ctx: Context {
                user: p.user.clone(),
                origin: "manual".into(),
                now: self.platform.now(),
            },
            scope: p.private_scope(),
            wants: Vec::new(),
            status_writes: Vec::new(),
        };
        self.platform.write(|tx| {
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                out.push(action.apply(self, tx, p, id.as_ref())?);
            }
            // The quality status follows overrides where the configuration writes it, in the
            // same transaction as the records.
            action.write_statuses(self, tx, p)?;
            Ok(out)
        })
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
    /// The reason of an override, the message of a comment.
    text: Option<String>,
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
    ) -> Result<RecordOutcome> {
        self.hold_targets(tx, p, id)?;
        let Some((mut chunk, i)) = platform.locate_record(&*tx, &self.scope, id)? else {
            return Ok(RecordOutcome::refused(id, "no such record"));
        };
        let before = chunk.records[i].status;
        let m = match self.transition(&mut chunk.records[i]) {
            Ok(m) => m,
            Err(m) => return Ok(RecordOutcome::refused(id, m)),
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
        let answer = RecordOutcome {
            id: id.into(),
            ok: true,
            message: m,
            status: Some(ValidationStatus::of_code(chunk.records[i].status)),
        };
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
                records::apply_override(rec, self.text.as_deref().unwrap_or_default(), ctx)
                    .map(|_| "overridden".to_string())
            }
            "removeOverride" => {
                records::remove_override(rec, ctx).map(|s| format!("override removed; status {s}"))
            }
            _ => {
                records::comment(rec, self.text.as_deref().unwrap_or_default(), ctx);
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
