//! Automations (`automations`), deliveries (`deliveries`: the outbox, with the claim's node and
//! lease), the automation log (`automation_log`) and the mail outbox (`mail`).
//!
//! A running delivery whose lease ran out (its node was killed) counts as pending again: it is
//! due, and claimable, as if it had never been claimed.

use super::gathered::DeliveryRow;
use super::jobs::lease_secs;
use super::tx::Sink;
use super::{get, get_u32, json_map, json_text, Tx};
use crate::error::{Error, Result};
use crate::ids::Scope;
use crate::store::{
    Automation, Delivery, DeliveryStatus, LogEntry, LogFilter, MailEntry, OutboxRead, OutboxWrite,
    Page,
};
use chrono::{DateTime, Utc};
use tokio_postgres::Row;

const DELIVERY_COLUMNS: &str =
    "d.seq, d.tenant, d.env, d.automation, d.item, d.status, d.attempts, d.next_at, d.doc, \
     (d.status = 'running' AND d.lease_until < clock_timestamp())";

/// Whether a delivery may be claimed: pending, or running on a lease that ran out.
const CLAIMABLE: &str =
    "(d.status = 'pending' OR (d.status = 'running' AND d.lease_until < clock_timestamp()))";

fn decode_delivery(r: &Row) -> Result<Delivery> {
    let seq: i64 = get(r, 0)?;
    let tenant: String = get(r, 1)?;
    let env: String = get(r, 2)?;
    let status: String = get(r, 5)?;
    let expired: bool = get(r, 9)?;
    let what = format!("delivery {seq}");
    let status = if expired {
        DeliveryStatus::Pending
    } else {
        DeliveryStatus::parse(&status)
            .ok_or_else(|| Error::Internal(format!("{what} has status \"{status}\"")))?
    };
    let doc: String = get(r, 8)?;
    Ok(Delivery {
        seq,
        scope: Scope::private(&tenant, &env),
        automation: get(r, 3)?,
        item: get(r, 4)?,
        status,
        attempts: get_u32(r, 6)?,
        next_at: get(r, 7)?,
        event: json_map(&doc, &what)?,
    })
}

pub(super) fn decode_automation(r: &Row, i: usize) -> Result<Automation> {
    decode_automation_text(&get::<String>(r, i)?)
}

/// An automation from its stored `doc`.
pub(super) fn decode_automation_text(doc: &str) -> Result<Automation> {
    Automation::from_body(json_map(doc, "an automation")?)
}

impl OutboxRead for Tx<'_> {
    fn automation(&self, scope: &Scope, id: &str) -> Result<Option<Automation>> {
        self.query_opt(
            "SELECT doc FROM automations WHERE tenant = $1 AND env = $2 AND id = $3",
            &[&scope.tenant, &scope.env, &id],
        )?
        .map(|r| decode_automation(&r, 0))
        .transpose()
    }

    fn automations(&self, scope: &Scope) -> Result<Vec<Automation>> {
        let key = (scope.tenant.clone(), scope.env.clone());
        if let Some(kept) = self.cache.borrow().automations.get(&key) {
            return Ok(kept.clone());
        }
        let on_its_way = |sink: &Sink| match sink {
            Sink::Automations(Some(k)) => *k == key,
            Sink::EachDocument { automations, .. } => automations.as_ref() == Some(&key),
            _ => false,
        };
        if self.settle(on_its_way)? {
            if let Some(kept) = self.cache.borrow().automations.get(&key) {
                return Ok(kept.clone());
            }
        }
        let found = self
            .query(
                "SELECT doc FROM automations WHERE tenant = $1 AND env = $2 ORDER BY id",
                &[&scope.tenant, &scope.env],
            )?
            .iter()
            .map(|r| decode_automation(r, 0))
            .collect::<Result<Vec<_>>>()?;
        self.cache
            .borrow_mut()
            .automations
            .insert(key, found.clone());
        Ok(found)
    }

    fn all_automations(&self) -> Result<Vec<(Scope, Automation)>> {
        if let Some(kept) = &self.cache.borrow().all_automations {
            return Ok(kept.clone());
        }
        if self.settle(|sink| matches!(sink, Sink::Automations(None)))? {
            if let Some(kept) = &self.cache.borrow().all_automations {
                return Ok(kept.clone());
            }
        }
        let found = self
            .query(
                "SELECT tenant, env, doc FROM automations ORDER BY tenant, env, id",
                &[],
            )?
            .iter()
            .map(|r| {
                let t: String = get(r, 0)?;
                let e: String = get(r, 1)?;
                Ok((Scope::private(&t, &e), decode_automation(r, 2)?))
            })
            .collect::<Result<Vec<_>>>()?;
        self.cache.borrow_mut().all_automations = Some(found.clone());
        Ok(found)
    }

    fn due_deliveries(&self, now: DateTime<Utc>, skip: u64, limit: u64) -> Result<Vec<Delivery>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let skip = i64::try_from(skip).unwrap_or(i64::MAX);
        self.query(
            &format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE {CLAIMABLE} AND d.next_at <= $1 \
                 ORDER BY d.next_at, d.seq LIMIT $2 OFFSET $3"
            ),
            &[&now, &limit, &skip],
        )?
        .iter()
        .map(decode_delivery)
        .collect()
    }

    fn earliest_unfinished(
        &self,
        scope: &Scope,
        automation: &str,
        item: &str,
    ) -> Result<Option<i64>> {
        get(
            &self.query_one(
                "SELECT min(seq) FROM deliveries WHERE tenant = $1 AND env = $2 AND automation = $3 \
                 AND item = $4 AND status IN ('pending', 'running')",
                &[&scope.tenant, &scope.env, &automation, &item],
            )?,
            0,
        )
    }

    fn deliveries(&self, status: DeliveryStatus) -> Result<Vec<Delivery>> {
        self.query(
            &format!(
                "SELECT {DELIVERY_COLUMNS} FROM deliveries d WHERE d.status = $1 ORDER BY d.seq"
            ),
            &[&status.as_str()],
        )?
        .iter()
        .map(decode_delivery)
        .collect()
    }

    fn automation_log(&self, scope: &Scope, q: &LogFilter) -> Result<Page<LogEntry>> {
        let clause = "tenant = $1 AND env = $2 AND ($3::text IS NULL OR automation = $3) \
                      AND ($4::text IS NULL OR status = $4) AND ($5::timestamptz IS NULL OR timestamp >= $5) \
                      AND ($6::timestamptz IS NULL OR timestamp <= $6)";
        let status = q.status.map(|s| s.as_str());
        let args: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
            &scope.tenant,
            &scope.env,
            &q.automation,
            &status,
            &q.from,
            &q.to,
        ];
        let total: i64 = get(
            &self.query_one(
                &format!("SELECT count(*) FROM automation_log WHERE {clause}"),
                &args,
            )?,
            0,
        )?;
        let limit = q.limit.map_or("ALL".to_string(), |l| l.to_string());
        let items = self
            .query(
                &format!(
                    "SELECT doc FROM automation_log WHERE {clause} ORDER BY seq DESC LIMIT {limit} OFFSET {}",
                    q.skip
                ),
                &args,
            )?
            .iter()
            .map(|r| LogEntry::from_json(&json_map(&get::<String>(r, 0)?, "an automation log entry")?))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            estimated: false,
            items,
            total: total.max(0) as u64,
        })
    }

    fn mails(&self, scope: &Scope, skip: u64, limit: Option<u64>) -> Result<Page<MailEntry>> {
        let total: i64 = get(
            &self.query_one(
                "SELECT count(*) FROM mail WHERE tenant = $1 AND env = $2",
                &[&scope.tenant, &scope.env],
            )?,
            0,
        )?;
        let limit = limit.map_or("ALL".to_string(), |l| l.to_string());
        let items = self
            .query(
                &format!(
                    "SELECT doc FROM mail WHERE tenant = $1 AND env = $2 ORDER BY seq DESC LIMIT {limit} OFFSET {skip}"
                ),
                &[&scope.tenant, &scope.env],
            )?
            .iter()
            .map(|r| MailEntry::from_json(&json_map(&get::<String>(r, 0)?, "a mail")?))
            .collect::<Result<Vec<_>>>()?;
        Ok(Page {
            estimated: false,
            items,
            total: total.max(0) as u64,
        })
    }
}

impl OutboxWrite for Tx<'_> {
    fn put_automation(&mut self, scope: &Scope, automation: &Automation) -> Result<()> {
        self.cache.get_mut().all_automations = None;
        self.holds
            .require(crate::store::Hold::Automation(scope, automation.id()))?;
        self.cache.get_mut().automations.clear();
        let text = json_text(automation.body(), "an automation")?;
        self.defer(
            "INSERT INTO automations (tenant, env, id, doc) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (tenant, env, id) DO UPDATE SET doc = excluded.doc",
            vec![
                Box::new((scope.tenant).to_owned()),
                Box::new((scope.env).to_owned()),
                Box::new((automation.id()).to_owned()),
                Box::new((text).to_owned()),
            ],
        );
        Ok(())
    }

    fn delete_automation(&mut self, scope: &Scope, id: &str) -> Result<bool> {
        self.cache.get_mut().all_automations = None;
        self.holds
            .require(crate::store::Hold::Automation(scope, id))?;
        self.cache.get_mut().automations.clear();
        self.delete_scoped("automations", scope, id)
    }

    fn add_delivery(&mut self, d: &Delivery) -> Result<()> {
        // Deliveries of one item are numbered in the order their transactions commit: the
        // transaction holds the item (an event is raised about what its change holds), so
        // another that raises events about it waits for this one to end before it numbers its
        // own. Gathered with the transaction's other rows, sent before its next statement.
        let row = DeliveryRow {
            tenant: d.scope.tenant.clone(),
            env: d.scope.env.clone(),
            automation: d.automation.clone(),
            item: d.item.clone(),
            status: d.status.as_str().to_string(),
            attempts: i64::from(d.attempts),
            next_at: d.next_at,
            doc: json_text(&d.event, "an event")?,
        };
        self.gather(|g| g.deliveries.push(row));
        Ok(())
    }

    fn update_delivery(&mut self, d: &Delivery) -> Result<()> {
        let text = json_text(&d.event, "an event")?;
        self.defer(
            "UPDATE deliveries SET status = $2, attempts = $3, next_at = $4, doc = $5 WHERE seq = $1",
            vec![Box::new((d.seq).to_owned()), Box::new((d.status.as_str()).to_owned()), Box::new((i64::from(d.attempts)).to_owned()), Box::new((d.next_at).to_owned()), Box::new((text).to_owned())],
        );
        Ok(())
    }

    fn claim_delivery(&mut self, seq: i64) -> Result<Option<Delivery>> {
        let claimed = self.query_opt(
            &format!(
                "UPDATE deliveries d SET status = 'running', attempts = d.attempts + 1, node = $2, \
                 lease_until = clock_timestamp() + make_interval(secs => $3) \
                 FROM (SELECT seq FROM deliveries d WHERE d.seq = $1 AND {CLAIMABLE} \
                 FOR UPDATE SKIP LOCKED) c WHERE d.seq = c.seq RETURNING {DELIVERY_COLUMNS}"
            ),
            &[&seq, &self.shared.node, &lease_secs(self.shared)],
        )?;
        let claimed = claimed.map(|r| decode_delivery(&r)).transpose()?;
        if let Some(d) = &claimed {
            self.claims.push(crate::store::Claim::Delivery(d.seq));
        }
        Ok(claimed)
    }

    fn delete_delivery(&mut self, seq: i64) -> Result<()> {
        self.defer(
            "DELETE FROM deliveries WHERE seq = $1",
            vec![Box::new((seq).to_owned())],
        );
        Ok(())
    }

    fn append_log(&mut self, scope: &Scope, entry: &LogEntry) -> Result<()> {
        let text = json_text(&entry.to_json(), "an automation log entry")?;
        self.defer(
            "INSERT INTO automation_log (tenant, env, automation, status, timestamp, doc) VALUES ($1, $2, $3, $4, $5, $6)",
            vec![Box::new((scope.tenant).to_owned()), Box::new((scope.env).to_owned()), Box::new((entry.automation).to_owned()), Box::new((entry.status.as_str()).to_owned()), Box::new((entry.timestamp).to_owned()), Box::new((text).to_owned())],
        );
        Ok(())
    }

    fn append_mail(&mut self, scope: &Scope, mail: &MailEntry) -> Result<()> {
        let text = json_text(&mail.to_json(), "a mail")?;
        self.defer(
            "INSERT INTO mail (tenant, env, doc) VALUES ($1, $2, $3)",
            vec![
                Box::new((scope.tenant).to_owned()),
                Box::new((scope.env).to_owned()),
                Box::new((text).to_owned()),
            ],
        );
        Ok(())
    }
}
