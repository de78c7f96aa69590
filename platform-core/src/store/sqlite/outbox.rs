//! Automations (`automations`: the body as JSON text), deliveries (`deliveries`: the event as
//! JSON text), the automation log (`automation_log`) and the mail outbox (`mail`), the last two
//! keeping each entry's JSON form.

use super::{json_map, json_text, stored_time, time_text, Db, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{
    Automation, Delivery, DeliveryStatus, LogEntry, LogFilter, MailEntry, OutboxRead, OutboxWrite,
    Page,
};
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

const DELIVERY_COLUMNS: &str =
    "d.seq, d.tenant, d.env, d.automation, d.item, d.status, d.attempts, d.next_at, d.doc";

/// A delivery row as read, before its event and time are decoded.
struct RawDelivery {
    seq: i64,
    tenant: String,
    env: String,
    automation: String,
    item: String,
    status: String,
    attempts: u32,
    next_at: String,
    doc: String,
}

fn raw_delivery(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawDelivery> {
    Ok(RawDelivery {
        seq: r.get(0)?,
        tenant: r.get(1)?,
        env: r.get(2)?,
        automation: r.get(3)?,
        item: r.get(4)?,
        status: r.get(5)?,
        attempts: r.get(6)?,
        next_at: r.get(7)?,
        doc: r.get(8)?,
    })
}

fn decode_delivery(raw: RawDelivery) -> Result<Delivery> {
    let what = format!("delivery {}", raw.seq);
    let status = DeliveryStatus::parse(&raw.status)
        .ok_or_else(|| Error::Internal(format!("{what} has status \"{}\"", raw.status)))?;
    Ok(Delivery {
        seq: raw.seq,
        scope: Scope::private(&raw.tenant, &raw.env),
        automation: raw.automation,
        item: raw.item,
        status,
        attempts: raw.attempts,
        next_at: stored_time(&raw.next_at, &what)?,
        event: json_map(&raw.doc, &what)?,
    })
}

fn decode_automation(doc: &str) -> Result<Automation> {
    Automation::from_body(json_map(doc, "an automation")?)
}

impl OutboxRead for Tx<'_> {
    fn automation(&self, scope: &Scope, id: &str) -> Result<Option<Automation>> {
        let text: Option<String> = self
            .conn
            .prepare_cached(
                "SELECT doc FROM automations WHERE tenant = ?1 AND env = ?2 AND id = ?3",
            )
            .db()?
            .query_row(params![scope.tenant, scope.env, id], |r| r.get(0))
            .optional()
            .db()?;
        text.map(|t| decode_automation(&t)).transpose()
    }

    fn automations(&self, scope: &Scope) -> Result<Vec<Automation>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT doc FROM automations WHERE tenant = ?1 AND env = ?2 ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        rows.map(|r| r.db().and_then(|t| decode_automation(&t)))
            .collect()
    }

    fn all_automations(&self) -> Result<Vec<(Scope, Automation)>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT tenant, env, doc FROM automations ORDER BY tenant, env, id")
            .db()?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .db()?;
        rows.map(|r| {
            let (t, e, d) = r.db()?;
            Ok((Scope::private(&t, &e), decode_automation(&d)?))
        })
        .collect()
    }

    fn due_deliveries(&self, now: DateTime<Utc>, skip: u64, limit: u64) -> Result<Vec<Delivery>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.status = 'pending' AND d.next_at <= ?1 \
                 ORDER BY d.next_at, d.seq LIMIT ?2 OFFSET ?3"
            ))
            .db()?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let skip = i64::try_from(skip).unwrap_or(i64::MAX);
        let rows = stmt
            .query_map(params![time_text(now), limit, skip], raw_delivery)
            .db()?;
        rows.map(|r| r.db().and_then(decode_delivery)).collect()
    }

    fn earliest_unfinished(
        &self,
        scope: &Scope,
        automation: &str,
        item: &str,
    ) -> Result<Option<i64>> {
        self.conn
            .prepare_cached(
                "SELECT min(seq) FROM deliveries WHERE tenant = ?1 AND env = ?2 AND automation = ?3 \
                 AND item = ?4 AND status IN ('pending', 'running')",
            )
            .db()?
            .query_row(params![scope.tenant, scope.env, automation, item], |r| {
                r.get(0)
            })
            .db()
    }

    fn deliveries(&self, status: DeliveryStatus) -> Result<Vec<Delivery>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.status = ?1 ORDER BY d.seq"
            ))
            .db()?;
        let rows = stmt
            .query_map(params![status.as_str()], raw_delivery)
            .db()?;
        rows.map(|r| r.db().and_then(decode_delivery)).collect()
    }

    fn automation_log(&self, scope: &Scope, q: &LogFilter) -> Result<Page<LogEntry>> {
        let clause = "tenant = ?1 AND env = ?2 AND (?3 IS NULL OR automation = ?3) \
                      AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR timestamp >= ?5) \
                      AND (?6 IS NULL OR timestamp <= ?6)";
        let args = params![
            scope.tenant,
            scope.env,
            q.automation,
            q.status.map(|s| s.as_str()),
            q.from.map(time_text),
            q.to.map(time_text)
        ];
        let total: i64 = self
            .conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM automation_log WHERE {clause}"
            ))
            .db()?
            .query_row(args, |r| r.get(0))
            .db()?;
        let limit = q.limit.map_or(-1, |l| l as i64);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT doc FROM automation_log WHERE {clause} ORDER BY seq DESC LIMIT {limit} OFFSET {}",
                q.skip
            ))
            .db()?;
        let rows = stmt.query_map(args, |r| r.get::<_, String>(0)).db()?;
        let items = rows
            .map(|r| {
                r.db()
                    .and_then(|t| LogEntry::from_json(&json_map(&t, "an automation log entry")?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            estimated: false,
            items,
            total: total as u64,
        })
    }

    fn mails(&self, scope: &Scope, skip: u64, limit: Option<u64>) -> Result<Page<MailEntry>> {
        let total: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM mail WHERE tenant = ?1 AND env = ?2")
            .db()?
            .query_row(params![scope.tenant, scope.env], |r| r.get(0))
            .db()?;
        let limit = limit.map_or(-1, |l| l as i64);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT doc FROM mail WHERE tenant = ?1 AND env = ?2 ORDER BY seq DESC LIMIT {limit} OFFSET {skip}"
            ))
            .db()?;
        let rows = stmt
            .query_map(params![scope.tenant, scope.env], |r| r.get::<_, String>(0))
            .db()?;
        let items = rows
            .map(|r| {
                r.db()
                    .and_then(|t| MailEntry::from_json(&json_map(&t, "a mail")?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            estimated: false,
            items,
            total: total as u64,
        })
    }
}

impl OutboxWrite for Tx<'_> {
    fn put_automation(&mut self, scope: &Scope, automation: &Automation) -> Result<()> {
        self.holds
            .require(crate::store::Hold::Automation(scope, automation.id()))?;
        let text = json_text(automation.body(), "an automation")?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO automations (tenant, env, id, doc) VALUES (?1, ?2, ?3, ?4)",
            )
            .db()?
            .execute(params![scope.tenant, scope.env, automation.id(), text])
            .db()?;
        Ok(())
    }

    fn delete_automation(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.holds
            .require(crate::store::Hold::Automation(scope, id))?;
        self.delete_scoped("automations", scope, id)
    }

    fn add_delivery(&mut self, d: &Delivery) -> Result<()> {
        let text = json_text(&d.event, "an event")?;
        self.conn
            .prepare_cached(
                "INSERT INTO deliveries (tenant, env, automation, item, status, attempts, next_at, doc) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .db()?
            .execute(params![
                d.scope.tenant,
                d.scope.env,
                d.automation,
                d.item,
                d.status.as_str(),
                d.attempts,
                time_text(d.next_at),
                text
            ])
            .db()?;
        Ok(())
    }

    fn update_delivery(&mut self, d: &Delivery) -> Result<()> {
        let text = json_text(&d.event, "an event")?;
        self.conn
            .prepare_cached(
                "UPDATE deliveries SET status = ?2, attempts = ?3, next_at = ?4, doc = ?5 WHERE seq = ?1",
            )
            .db()?
            .execute(params![
                d.seq,
                d.status.as_str(),
                d.attempts,
                time_text(d.next_at),
                text
            ])
            .db()?;
        Ok(())
    }

    fn claim_delivery(&mut self, seq: i64) -> Result<Option<Delivery>> {
        self.conn
            .prepare_cached(
                "UPDATE deliveries SET status = 'running', attempts = attempts + 1 \
                 WHERE seq = ?1 AND status = 'pending' \
                 RETURNING seq, tenant, env, automation, item, status, attempts, next_at, doc",
            )
            .db()?
            .query_row(params![seq], raw_delivery)
            .optional()
            .db()?
            .map(decode_delivery)
            .transpose()
    }

    fn delete_delivery(&mut self, seq: i64) -> Result<()> {
        self.conn
            .prepare_cached("DELETE FROM deliveries WHERE seq = ?1")
            .db()?
            .execute(params![seq])
            .db()?;
        Ok(())
    }

    fn append_log(&mut self, scope: &Scope, entry: &LogEntry) -> Result<()> {
        let text = json_text(&entry.to_json(), "an automation log entry")?;
        self.conn
            .prepare_cached(
                "INSERT INTO automation_log (tenant, env, automation, status, timestamp, doc) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .db()?
            .execute(params![
                scope.tenant,
                scope.env,
                entry.automation,
                entry.status.as_str(),
                time_text(entry.timestamp),
                text
            ])
            .db()?;
        Ok(())
    }

    fn append_mail(&mut self, scope: &Scope, mail: &MailEntry) -> Result<()> {
        let text = json_text(&mail.to_json(), "a mail")?;
        self.conn
            .prepare_cached("INSERT INTO mail (tenant, env, doc) VALUES (?1, ?2, ?3)")
            .db()?
            .execute(params![scope.tenant, scope.env, text])
            .db()?;
        Ok(())
    }
}
