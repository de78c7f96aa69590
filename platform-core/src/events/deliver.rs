//! Delivering events: the worker's step, the targets' effects, transformers, the
//! automation log and the mail outbox.
//!
//! The change that raised an event stored one `pending` delivery per matching automation
//! (`events::emit`). A worker step claims the next ready delivery (`next_ready`: the oldest
//! due `pending` one whose item has no earlier unfinished delivery to the same automation, so
//! each automation sees an item's events in order), which makes it `running`, runs the target
//! as the automation's owner, and then finishes it (success, skipped, or failed after
//! `max_attempts`) or makes it `pending` again with a backoff (`retry_base` doubled per
//! attempt, at most one hour). Every attempt writes a log entry; a finished delivery is then
//! removed, the log keeping its history. A delivery left `running` by a stopped server is made
//! `pending` again when the worker starts (on a database several servers share, when the lease
//! of its claim ends), so a restart loses nothing (a target may then see the event twice:
//! delivery is at least once).

use super::automations::owner_principal;
use crate::auth::Principal;
use crate::clock::format_instant;
use crate::error::{Error, Result};
use crate::ids::{Scope, Source};
use crate::outbound::split_addresses;
use crate::outbound::webhook::{self, Url};
pub use crate::outbound::{DeliverySettings, Mail, Outbound};
use crate::scripts::source_of;
use crate::store::{
    Automation, Collection, Delivery, DeliveryStatus, LogEntry, LogStatus, MailAttachment,
    MailEntry, OutboxRead,
};
use crate::Platform;
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::Duration;

/// How many automations may feed each other: an event raised by a delivery of an event raised
/// by a delivery ... more than this deep reaches no automation.
pub const MAX_CHAIN: u32 = 8;

thread_local! {
    /// The chain depth of the delivery running on this thread (0: none).
    static CHAIN: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The chain depth events raised on this thread get (0 outside deliveries).
pub(crate) fn chain_depth() -> u32 {
    CHAIN.with(std::cell::Cell::get)
}

/// Longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// The HMAC-SHA256 of `body` keyed by `key`, as `sha256=<hex>` (the `x-platform-signature`
/// header of webhook calls).
pub fn signature(key: &[u8], body: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(body);
    format!("sha256={}", crate::auth::hex(&mac.finalize().into_bytes()))
}

/// What a target did, or why it could not.
enum Outcome {
    Done(String),
    Failed(String),
    Skipped(String),
}

fn text<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or_default()
}

/// How many times the end of a claimed attempt is written while the database cannot be reached
/// (over about 15 s).
const FINISH_TRIES: u32 = 10;

/// A claim of this process, while its work goes on: ended at the store when dropped
/// ([`crate::store::Store::claim_ended`]), however the work ends.
pub(crate) struct ClaimGuard<'a> {
    platform: &'a Platform,
    claim: crate::store::Claim,
}

impl<'a> ClaimGuard<'a> {
    pub(crate) fn new(platform: &'a Platform, claim: crate::store::Claim) -> ClaimGuard<'a> {
        ClaimGuard { platform, claim }
    }
}

impl Drop for ClaimGuard<'_> {
    fn drop(&mut self) {
        self.platform.store.claim_ended(&self.claim);
    }
}

/// How many due deliveries [`next_ready`] reads at a time.
const DUE_PAGE: u64 = 32;

/// The queue of a delivery: its automation's scope, the automation and the item.
type Queue = (Scope, String, String);

fn queue_of(d: &Delivery) -> Queue {
    (d.scope.clone(), d.automation.clone(), d.item.clone())
}

/// The ordering rule of deliveries: each automation receives the events of one item in the
/// order they were raised. A due `pending` delivery is ready when no earlier delivery of its
/// item to its automation is unfinished (`pending`, even if not yet due again, or `running`),
/// that is, when it is the earliest unfinished one; the first ready delivery in the order
/// deliveries fall due (due time, then creation) goes next, passing over the queues in `passed`
/// (those another worker is claiming the head of).
pub(crate) fn next_ready(
    tx: &dyn OutboxRead,
    now: DateTime<Utc>,
    passed: &std::collections::HashSet<Queue>,
) -> Result<Option<Delivery>> {
    // The earliest unfinished delivery of each item and automation met so far: a backlog of one
    // item costs one look-up, not one a delivery.
    let mut earliest: HashMap<(Scope, String, String), Option<i64>> = HashMap::new();
    let mut skip = 0;
    loop {
        let due = tx.due_deliveries(now, skip, DUE_PAGE)?;
        for d in due.iter() {
            let queue = queue_of(d);
            if passed.contains(&queue) {
                continue;
            }
            let first = match earliest.get(&queue) {
                Some(first) => *first,
                None => {
                    let first = tx.earliest_unfinished(&d.scope, &d.automation, &d.item)?;
                    earliest.insert(queue, first);
                    first
                }
            };
            if first == Some(d.seq) {
                return Ok(Some(d.clone()));
            }
        }
        if (due.len() as u64) < DUE_PAGE {
            return Ok(None);
        }
        skip += DUE_PAGE;
    }
}

impl Platform {
    /// The same platform delivering events with these settings.
    pub fn with_delivery(self, settings: DeliverySettings) -> Platform {
        Platform {
            delivery: std::sync::Arc::new(settings),
            ..self
        }
    }

    /// The delivery settings.
    pub fn delivery_settings(&self) -> &DeliverySettings {
        &self.delivery
    }

    /// Whether a network client is set ([`with_outbound`](Self::with_outbound)).
    pub fn has_outbound(&self) -> bool {
        self.outbound.is_some()
    }

    /// The same platform sending webhook calls and emails through `outbound`.
    pub fn with_outbound(self, outbound: std::sync::Arc<dyn Outbound>) -> Platform {
        Platform {
            outbound: Some(outbound),
            ..self
        }
    }

    /// Records the end of a claimed attempt (`write`), trying again for a few seconds while
    /// the database cannot be reached (a lost connection, a restart): the attempt is done and
    /// should not run again for want of its record. Past that the claim is given up, and its
    /// lease runs out for another worker to take it (which may then run it a second time).
    pub(crate) fn write_finish(&self, mut write: impl FnMut() -> Result<()>) -> Result<()> {
        let mut wait = Duration::from_millis(100);
        let mut tries = 0;
        loop {
            tries += 1;
            match write() {
                Err(e) if e.code() == crate::ErrorCode::Unavailable && tries < FINISH_TRIES => {
                    tracing::warn!(error = %e, tries, "cannot record the end of a claimed attempt yet");
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                other => return other,
            }
        }
    }
}

/// The deliveries automations queue (webhook calls, emails, scripts), and the worker steps
/// that attempt them, with retries. A server runs the worker; a program that embeds the
/// platform without a server calls [`Deliveries::run_due`]. How deliveries reach the outside
/// is set with [`Platform::with_delivery`] and [`Platform::with_outbound`]. From
/// [`Platform::deliveries`].
///
/// The service holds the platform it runs on: the store the deliveries and their log are
/// kept in, the clock that says what is due, the delivery settings and the network client.
///
/// ```
/// let platform = platform_core::Platform::in_memory()?;
/// assert_eq!(platform.deliveries().run_due()?, 0); // nothing queued
/// let url = platform.deliveries().check_webhook_url("https://example.com/hook")?;
/// assert_eq!(url.as_str(), "https://example.com/hook");
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Deliveries<'p> {
    platform: &'p Platform,
}

impl<'p> Deliveries<'p> {
    /// The delivery service of `platform`.
    pub(crate) fn of(platform: &'p Platform) -> Self {
        Deliveries { platform }
    }

    fn outbound(&self) -> Result<&dyn Outbound> {
        self.platform.outbound.as_deref().ok_or_else(|| {
            Error::invalid_parameter(
                "this platform has no network client for webhooks and SMTP (embedders supply one with Platform::with_outbound)",
            )
        })
    }

    /// Parses a webhook URL and fails unless the allow-list of the delivery settings allows its
    /// host and, when a network client is set, every address a host name resolves to now; the
    /// parsed URL is what the client calls.
    pub fn check_webhook_url(&self, text: &str) -> Result<Url> {
        let outbound = self.platform.outbound.as_deref();
        let resolve = |host: &str, port| outbound.map_or(Ok(Vec::new()), |o| o.resolve(host, port));
        webhook::check_url(text, &self.platform.delivery.webhook_allow, Some(&resolve))
    }

    /// Makes `pending` again the deliveries a stopped server left `running`; returns how many.
    /// On a database several servers share, a running delivery may be another live server's:
    /// it comes back through the lease of its claim instead, and nothing is requeued here.
    pub fn requeue_interrupted(&self) -> Result<u64> {
        if self.platform.store.shared() {
            return Ok(0);
        }
        self.platform.write(|tx| {
            let running = tx.deliveries(DeliveryStatus::Running)?;
            for mut d in running.iter().cloned() {
                d.status = DeliveryStatus::Pending;
                tx.update_delivery(&d)?;
            }
            Ok(running.len() as u64)
        })
    }

    /// One step of the delivery worker: one attempt of the oldest due delivery. Returns whether
    /// there was anything to do.
    pub fn run_next(&self) -> Result<bool> {
        self.attempt_next()
    }

    /// Runs worker steps until nothing is due; returns how many ran.
    pub fn run_due(&self) -> Result<u64> {
        let mut n = 0;
        while self.run_next()? {
            n += 1;
        }
        Ok(n)
    }

    /// Claims the next ready delivery ([`next_ready`]), in one write transaction.
    fn claim_next_delivery(&self) -> Result<Option<Delivery>> {
        let now = self.platform.now();
        self.platform.write(|tx| {
            let mut skip = std::collections::HashSet::new();
            loop {
                let Some(ready) = next_ready(&*tx, now, &skip)? else {
                    return Ok(None);
                };
                // Another worker claimed it since it was read, or is claiming it now (on a
                // database several servers share, its claim may not have committed yet): its
                // queue waits for that one, so look past it.
                match tx.claim_delivery(ready.seq)? {
                    Some(claimed) => return Ok(Some(claimed)),
                    None => {
                        skip.insert(queue_of(&ready));
                    }
                }
            }
        })
    }

    fn attempt_next(&self) -> Result<bool> {
        let Some(mut d) = self.claim_next_delivery()? else {
            return Ok(false);
        };
        // Until the attempt is recorded (or given up), the claim's lease is renewed.
        let _claim = ClaimGuard::new(self.platform, crate::store::Claim::Delivery(d.seq));
        let automation = self.platform.read()?.automation(&d.scope, &d.automation)?;
        let (target, owner, outcome) = self.attempt(&d, automation.as_ref());
        let finished = self.platform.now();
        let (status, message, retry) = self.settle(&mut d, outcome);
        let ev = &d.event;
        let entry = LogEntry {
            automation: d.automation.clone(),
            target,
            owner,
            source: text(ev, "source").to_string(),
            service: text(ev, "service").to_string(),
            key: text(ev, "id").to_string(),
            action: text(ev, "action").to_string(),
            user: text(ev, "user").to_string(),
            event_timestamp: crate::clock::parse_instant(text(ev, "timestamp")).map_err(|e| {
                Error::caused(format!("the time of the event of delivery {}", d.seq), e)
            })?,
            delivery: d.seq,
            attempt: d.attempts,
            status,
            message,
            timestamp: finished,
        };
        self.platform.write_finish(|| {
            self.platform.write(|tx| {
                if retry {
                    tx.update_delivery(&d)?;
                } else {
                    // Finished: the log keeps its history.
                    tx.delete_delivery(d.seq)?;
                }
                tx.append_log(&d.scope, &entry)
            })
        })?;
        let outcome = match (entry.status, retry) {
            (LogStatus::Success, _) => "delivered",
            (LogStatus::Skipped, _) => "skipped",
            (LogStatus::Failed, true) => "retrying",
            (LogStatus::Failed, false) => "failed",
        };
        metrics::counter!("platform_deliveries_total", "outcome" => outcome).increment(1);
        Ok(true)
    }

    /// One attempt of a claimed delivery to its automation (skipped when the automation is
    /// gone or disabled): the automation's target, who it ran as, and how it went.
    fn attempt(&self, d: &Delivery, automation: Option<&Automation>) -> (String, String, Outcome) {
        let a = match automation {
            None => {
                let skipped = Outcome::Skipped("the automation was deleted".into());
                return (String::new(), String::new(), skipped);
            }
            Some(a) if !a.enabled() => {
                let skipped = Outcome::Skipped("the automation is disabled".into());
                return (a.target().to_string(), a.owner().to_string(), skipped);
            }
            Some(a) => a,
        };
        let who = owner_principal(&d.scope, a.body());
        let depth = d.event.get("chain").and_then(Value::as_u64).unwrap_or(0) as u32;
        let outer = CHAIN.with(|c| c.replace(depth + 1));
        // A target that panics fails its attempt; the worker goes on.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_target(&who, a, d)))
                .unwrap_or_else(|_| Err(Error::Internal("the target panicked".into())));
        CHAIN.with(|c| c.set(outer));
        let outcome = match result {
            Ok(message) => Outcome::Done(message),
            Err(e) => Outcome::Failed(e.public_message()),
        };
        (a.target().to_string(), who.user, outcome)
    }

    /// What an attempt's outcome makes of the delivery: the status and message the log
    /// records, and whether it is tried again (it then stays pending until its new due time,
    /// after a backoff that doubles with each attempt; anything else ends it).
    fn settle(&self, d: &mut Delivery, outcome: Outcome) -> (LogStatus, String, bool) {
        match outcome {
            Outcome::Done(m) => (LogStatus::Success, m, false),
            Outcome::Skipped(m) => (LogStatus::Skipped, m, false),
            Outcome::Failed(m) if d.attempts >= self.platform.delivery.max_attempts => (
                LogStatus::Failed,
                format!("{m} (attempt {}; given up)", d.attempts),
                false,
            ),
            Outcome::Failed(m) => {
                let wait = self
                    .platform
                    .delivery
                    .retry_base
                    .saturating_mul(1u32 << (d.attempts - 1).min(16))
                    .min(MAX_BACKOFF);
                let at = self.platform.now()
                    + chrono::TimeDelta::from_std(wait).unwrap_or(chrono::TimeDelta::MAX);
                d.status = DeliveryStatus::Pending;
                d.next_at = at;
                let message = format!(
                    "{m} (attempt {}; retry at {})",
                    d.attempts,
                    format_instant(d.next_at)
                );
                (LogStatus::Failed, message, true)
            }
        }
    }

    fn run_target(&self, who: &Principal, a: &Automation, d: &Delivery) -> Result<String> {
        let props = a
            .body()
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let envelope = Value::Object(d.event.clone());
        let payload = match props.get("@transformer").and_then(Value::as_str) {
            Some(t) if !t.is_empty() => Some(self.transform(who, t, &d.event)?),
            _ => None,
        };
        match a.target() {
            "platform.validation" => self.target_validation(who, &d.event),
            "platform.email" => self.target_email(who, a, &props, &envelope, payload, d),
            "platform.webhook" => self.target_webhook(who, &props, &envelope, payload, d),
            "platform.script" => {
                let id = props
                    .get("script")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let (source, kind) = self.script_source(who, id)?;
                if kind != "rhai" {
                    return Err(Error::invalid_parameter(format!(
                        "script \"{id}\" is a {kind} script, not rhai"
                    )));
                }
                let inputs = json!({"event": envelope, "data": d.event.get("data").cloned().unwrap_or(Value::Null), "properties": props});
                let channel = format!("automation:{}", a.id());
                let out =
                    crate::scripts::host::run(self.platform, who, &channel, &source, id, inputs)?;
                Ok(format!("script {id} returned {}", short(&out)))
            }
            other => Err(Error::invalid_parameter(format!(
                "target \"{other}\" does not exist"
            ))),
        }
    }

    /// The source and kind of a script as `who` sees it.
    fn script_source(&self, who: &Principal, id: &str) -> Result<(String, String)> {
        let scope = Scope::for_source(Source::of_id(id), who);
        let doc = self
            .platform
            .read()?
            .current(Collection::Script, &scope, id)?
            .ok_or_else(|| Error::not_found(format!("script \"{id}\" does not exist")))?;
        let (source, kind) = source_of(&doc.body);
        Ok((source.to_string(), kind.to_string()))
    }

    /// Applies a transformer: a mustache template renders the event's data (with the whole
    /// event as `_event`) to text; a rhai script gets `event` and `data` and returns any value.
    fn transform(&self, who: &Principal, id: &str, ev: &Map<String, Value>) -> Result<Value> {
        let (source, kind) = self.script_source(who, id)?;
        let data = ev.get("data").cloned().unwrap_or(Value::Null);
        if kind == "mustache" {
            let mut context = match &data {
                Value::Object(m) => m.clone(),
                other => {
                    let mut m = Map::new();
                    m.insert("data".into(), other.clone());
                    m
                }
            };
            context.insert("_event".into(), Value::Object(ev.clone()));
            return self
                .platform
                .scripts()
                .render_template(who, id, &Value::Object(context))
                .map(Value::String);
        }
        let inputs = json!({"event": Value::Object(ev.clone()), "data": data});
        crate::scripts::host::run(
            self.platform,
            who,
            &format!("transformer:{id}"),
            &source,
            id,
            inputs,
        )
    }

    fn target_validation(&self, who: &Principal, ev: &Map<String, Value>) -> Result<String> {
        let target = text(ev, "id");
        let data = ev.get("data").cloned().unwrap_or(Value::Null);
        if data["_reason"] == crate::data::STATUS_REASON {
            // The quality status a run wrote does not itself trigger validation.
            return Ok(format!(
                "not run: the update of {target} only wrote validation statuses"
            ));
        }
        let mut req = json!({"target": target});
        if let Some(ondate) = data.get("ondate").filter(|v| v.is_string()) {
            req["ondate"] = ondate.clone();
        } else if let Some(points) = data.get("points").filter(|v| v.is_array()) {
            req["points"] = points.clone();
        } else if let (Some(from), Some(to)) = (data.get("from"), data.get("to")) {
            req["from"] = from.clone();
            req["to"] = to.clone();
        }
        let outcome = self.platform.validation().run_body(who, &req, "update")?;
        if let Some(queued) = outcome.queued() {
            return Ok(format!("validation of {target} queued: {}", queued.message));
        }
        Ok(format!(
            "validation of {target}: done ({} points)",
            outcome.done().map_or(0, |r| r.points)
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn target_email(
        &self,
        who: &Principal,
        a: &Automation,
        props: &Map<String, Value>,
        envelope: &Value,
        payload: Option<Value>,
        d: &Delivery,
    ) -> Result<String> {
        let to = split_addresses(props.get("to").and_then(Value::as_str).unwrap_or_default());
        let subject = props
            .get("subject")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let (body, content_type) = match payload {
            Some(Value::String(s)) if s.trim_start().starts_with('<') => (s, "text/html"),
            Some(Value::String(s)) => (s, "text/plain"),
            Some(other) => (pretty(&other), "text/plain"),
            None => (pretty(envelope), "text/plain"),
        };
        let attachment =
            (props.get("attachment").and_then(Value::as_bool) == Some(true)).then(|| {
                let name = props
                    .get("attachmentName")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .unwrap_or("data.json")
                    .to_string();
                (name, pretty(envelope.get("data").unwrap_or(&Value::Null)))
            });
        let Some(smtp) = &self.platform.delivery.smtp else {
            let mail = MailEntry {
                id: format!("mail-{}", d.seq),
                from: self.platform.delivery.mail_from.clone(),
                to: to.clone(),
                subject: subject.clone(),
                content_type: content_type.to_string(),
                body,
                attachment: attachment.map(|(name, content)| MailAttachment { name, content }),
                automation: a.id().to_string(),
                owner: who.user.clone(),
                timestamp: self.platform.now(),
            };
            self.platform.write(|tx| tx.append_mail(&d.scope, &mail))?;
            return Ok(format!(
                "email \"{subject}\" to {} kept in the mail outbox (no SMTP server configured)",
                to.join(", ")
            ));
        };
        let mail = Mail {
            from: self.platform.delivery.mail_from.clone(),
            to: to.clone(),
            subject: subject.clone(),
            body,
            content_type: content_type.to_string(),
            attachment,
        };
        self.outbound()?
            .send_mail(smtp, &mail, self.platform.delivery.timeout)
            .map_err(|e| Error::invalid_parameter(format!("SMTP server {smtp}: {e}")))?;
        Ok(format!("sent email \"{subject}\" to {}", to.join(", ")))
    }

    fn target_webhook(
        &self,
        who: &Principal,
        props: &Map<String, Value>,
        envelope: &Value,
        payload: Option<Value>,
        d: &Delivery,
    ) -> Result<String> {
        let url = props.get("url").and_then(Value::as_str).unwrap_or_default();
        // The client checks each address the host resolves to when it connects.
        let parsed = webhook::check_url(
            url,
            &self.platform.delivery.webhook_allow,
            webhook::NO_RESOLVER,
        )?;
        let (body, content_type) = match payload {
            Some(Value::String(s)) if serde_json::from_str::<Value>(&s).is_ok() => {
                (s, "application/json")
            }
            Some(Value::String(s)) => (s, "text/plain; charset=utf-8"),
            Some(other) => (other.to_string(), "application/json"),
            None => (envelope.to_string(), "application/json"),
        };
        let mut headers = vec![
            ("content-type".to_string(), content_type.to_string()),
            (
                "x-platform-event".to_string(),
                format!("{}.{}", text(&d.event, "service"), text(&d.event, "action")),
            ),
            ("x-platform-delivery".to_string(), d.seq.to_string()),
        ];
        if let Some(secret) = props
            .get("secret")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            let key = self.platform.secrets().value(who, secret)?;
            headers.push((
                "x-platform-signature".to_string(),
                signature(key.as_bytes(), body.as_bytes()),
            ));
        }
        match self.outbound()?.post(
            &parsed,
            &self.platform.delivery.webhook_allow,
            &headers,
            body.as_bytes(),
            self.platform.delivery.timeout,
        ) {
            Ok(code) if (200..300).contains(&code) => Ok(format!("POST {url} answered {code}")),
            Ok(code) => Err(Error::invalid_parameter(format!(
                "POST {url} answered {code}"
            ))),
            Err(e) => Err(Error::invalid_parameter(format!("POST {url} failed: {e}"))),
        }
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}...", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_delivery_waits_for_the_unfinished_earlier_ones_of_its_item_and_automation() {
        use crate::ids::Scope;
        use crate::store::{sqlite::SqliteStore, Store};
        let at = |s: &str| crate::clock::parse_instant(s).unwrap();
        let delivery = |automation: &str, item: &str, due: &str| Delivery {
            seq: 0,
            scope: Scope::private("acme", "production"),
            automation: automation.into(),
            item: item.into(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_at: at(due),
            event: Map::new(),
        };
        // Adds a delivery; its seq (the largest pending one).
        let add = |tx: &mut dyn crate::store::WriteTx, d: &Delivery| {
            tx.add_delivery(d).unwrap();
            let pending = tx.deliveries(DeliveryStatus::Pending).unwrap();
            pending.iter().map(|d| d.seq).max().unwrap()
        };
        let store = SqliteStore::open_in_memory().unwrap();
        let mut tx = store.write().unwrap();
        // The first event of X to a1 is retried later; the second, due first, waits for it.
        let x1 = add(&mut *tx, &delivery("a1", "X", "2024-01-01T00:05:00Z"));
        let x2 = add(&mut *tx, &delivery("a1", "X", "2024-01-01T00:00:00Z"));
        let y1 = add(&mut *tx, &delivery("a1", "Y", "2024-01-01T00:01:00Z"));
        let other = add(&mut *tx, &delivery("a2", "X", "2024-01-01T00:02:00Z"));
        let now = at("2024-01-01T00:03:00Z");
        let ready = |tx: &dyn OutboxRead| {
            next_ready(tx, now, &Default::default())
                .unwrap()
                .map(|d| d.seq)
        };
        assert_eq!(ready(&*tx), Some(y1));
        // A running delivery holds back the later ones of its item and automation.
        tx.claim_delivery(y1).unwrap().unwrap();
        let y2 = add(&mut *tx, &delivery("a1", "Y", "2024-01-01T00:00:00Z"));
        assert_eq!(
            ready(&*tx),
            Some(other),
            "another automation is not held back"
        );
        tx.claim_delivery(other).unwrap().unwrap();
        assert_eq!(ready(&*tx), None);
        tx.delete_delivery(y1).unwrap();
        assert_eq!(ready(&*tx), Some(y2));
        // Held-back deliveries more than a page of them do not hide a ready one after them.
        tx.delete_delivery(y2).unwrap();
        for _ in 0..(2 * DUE_PAGE + 3) {
            add(&mut *tx, &delivery("a1", "X", "2024-01-01T00:00:30Z"));
        }
        let z = add(&mut *tx, &delivery("a1", "Z", "2024-01-01T00:02:30Z"));
        assert_eq!(ready(&*tx), Some(z));
        // Once the first event of X is delivered, the second goes.
        tx.delete_delivery(x1).unwrap();
        assert_eq!(ready(&*tx), Some(x2));
    }

    #[test]
    fn signatures_are_hmac_sha256() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature(b"Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
