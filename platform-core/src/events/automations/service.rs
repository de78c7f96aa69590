//! The automation service's calls: [`Automations`].

use crate::auth::{Principal, Role};
use crate::clock::{delay_refused, format_instant, MAX_DELAY_MS};
use crate::error::{Error, Result};
use crate::events::actions_of;
use crate::events::targets::{self};
use crate::ids::{Scope, Source};
use crate::query::Paging;
use crate::store::{
    Automation as AutomationRow, Collection, Delivery, DeliveryStatus, LogEntry, LogFilter,
    LogStatus, MailEntry, Page,
};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{json, Value};
use std::time::Duration;

use super::draft::{check_properties, checked_target, doc};
use super::{
    catalogue, invalid, new_id, sync_owned, Automation, AutomationEvent, AutomationSync,
    AutomationTarget, AutomationTemplate, Automations, ConditionSource, DeletedAutomation,
    LogQuery, StoredAutomation, TestFiring, LOG_STATUSES,
};

impl Automations<'_> {
    /// Refuses a caller who may not save automations (an admin may), as [`Automations::save`]
    /// does first: a front end asks it before it reads a body.
    pub fn may_save(&self, p: &Principal) -> Result<()> {
        p.require(Role::Admin, "saving automations")
    }

    /// Refuses a caller who may not test-fire automations, as [`Automations::test`] does
    /// first: a front end asks it before it reads the delay.
    pub fn may_test(&self, p: &Principal) -> Result<()> {
        p.require(Role::Admin, "test-firing automations")
    }

    /// Creates an automation (`id` `None`: the server assigns one) or updates the stored one
    /// with its `id`; the caller becomes its owner. Refused as a request's body is (no
    /// target, no conditions, a service that raises no events, a webhook URL not allowed, a
    /// secret or script that does not exist...). Returns the stored automation.
    pub fn save(&self, p: &Principal, automation: &Automation) -> Result<StoredAutomation> {
        self.may_save(p)?;
        let target = checked_target(automation)?;
        let scope = p.private_scope();
        let now = format_instant(self.platform.now());
        // A new automation's id, chosen once for every try of the write.
        let new = new_id()?;
        self.platform.write(|tx| {
            check_properties(self.platform, &*tx, p, target, &automation.properties)?;
            let existing = match &automation.id {
                None => None,
                Some(id) => {
                    tx.hold(&[crate::store::Hold::Automation(&scope, id)])?;
                    Some(tx.automation(&scope, id)?.ok_or_else(|| {
                        Error::not_found(format!("automation \"{id}\" not found"))
                    })?)
                }
            };
            let id = match &existing {
                Some(a) => a.id().to_string(),
                None => {
                    tx.hold(&[crate::store::Hold::Automation(&scope, &new)])?;
                    new.clone()
                }
            };
            let existing = existing.as_ref().map(|a| a.body());
            let stored = doc(automation, target, &id, existing, p, &now);
            let row = AutomationRow::from_body(stored)?;
            tx.put_automation(&scope, &row)?;
            StoredAutomation::of_doc(row.body())
        })
    }

    /// The caller's automations, by id, one page of them.
    pub fn automations(&self, p: &Principal, paging: &Paging) -> Result<Page<StoredAutomation>> {
        let rows = self.platform.read()?.automations(&p.private_scope())?;
        let all = rows.iter().map(|a| StoredAutomation::of_doc(a.body()));
        Ok(paging.page(all.collect::<Result<_>>()?))
    }

    /// The targets automations can call (the action service's catalogue, the same for every
    /// caller), one page of them.
    pub fn targets(&self, _p: &Principal, paging: &Paging) -> Result<Page<AutomationTarget>> {
        Ok(paging.page(targets::TARGETS.iter().map(AutomationTarget::of).collect()))
    }

    /// One target of the action service, by id or bare code.
    pub fn target(&self, _p: &Principal, id: &str) -> Result<AutomationTarget> {
        targets::find(id)
            .map(AutomationTarget::of)
            .ok_or_else(|| Error::not_found(format!("target \"{id}\" not found")))
    }

    /// Whether a request's body (`PUT automation/v1/{id}`: `{"enabled": bool}`, or `active`,
    /// the name an automation definition uses) enables or disables an automation.
    pub fn enabled_from_body(body: &Value) -> Result<bool> {
        match body.get("enabled").or_else(|| body.get("active")) {
            Some(Value::Bool(on)) => Ok(*on),
            _ => Err(Error::invalid_body(
                "PUT automation/v1/{id} takes {\"enabled\": true or false}",
            )),
        }
    }

    /// One automation of the caller's tenant and environment.
    pub fn automation(&self, p: &Principal, id: &str) -> Result<StoredAutomation> {
        let row = self.platform.read()?.automation(&p.private_scope(), id)?;
        let row = row.ok_or_else(|| Error::not_found(format!("automation \"{id}\" not found")))?;
        StoredAutomation::of_doc(row.body())
    }

    /// Deletes an automation; its pending deliveries are skipped.
    pub fn delete(&self, p: &Principal, id: &str) -> Result<DeletedAutomation> {
        p.require(Role::Admin, "deleting automations")?;
        let scope = p.private_scope();
        if !self.platform.write(|tx| {
            tx.hold(&[crate::store::Hold::Automation(&scope, id)])?;
            tx.delete_automation(&scope, id)
        })? {
            return Err(Error::not_found(format!("automation \"{id}\" not found")));
        }
        Ok(DeletedAutomation {
            id: id.to_string(),
            deleted: true,
        })
    }

    /// Enables (`on`) or disables an automation; a disabled one receives no events. Returns
    /// it as stored.
    pub fn set_enabled(&self, p: &Principal, id: &str, on: bool) -> Result<StoredAutomation> {
        p.require(Role::Admin, "enabling or disabling automations")?;
        let scope = p.private_scope();
        let now = format_instant(self.platform.now());
        self.platform.write(|tx| {
            tx.hold(&[crate::store::Hold::Automation(&scope, id)])?;
            let mut doc = tx
                .automation(&scope, id)?
                .ok_or_else(|| Error::not_found(format!("automation \"{id}\" not found")))?
                .into_body();
            doc.insert("enabled".into(), json!(on));
            doc.insert("updated".into(), json!(now));
            let row = AutomationRow::from_body(doc)?;
            tx.put_automation(&scope, &row)?;
            StoredAutomation::of_doc(row.body())
        })
    }

    /// Test-fires an automation (`GET automation/v1/{id}?_run=true`): queues one delivery of a
    /// test event shaped by its first condition (`data: {"_test": true}`), due after `delay`
    /// (whole milliseconds; at most 60 seconds), or now. The worker delivers it like any other.
    pub fn test(&self, p: &Principal, id: &str, delay: Option<Duration>) -> Result<TestFiring> {
        self.may_test(p)?;
        let delay = match delay.map(|d| d.as_millis()) {
            Some(ms) if ms > u128::from(MAX_DELAY_MS) => {
                return Err(delay_refused(&ms.to_string()))
            }
            ms => ms.map(|ms| TimeDelta::milliseconds(ms as i64)),
        };
        let scope = p.private_scope();
        let now = self.platform.now();
        let due = delay.map_or(now, |d| now + d);
        self.platform.write(|tx| {
            let doc = tx
                .automation(&scope, id)?
                .ok_or_else(|| Error::not_found(format!("automation \"{id}\" not found")))?;
            let event = test_event(p, &scope, doc.body(), now);
            tx.add_delivery(&Delivery {
                seq: 0,
                scope: scope.clone(),
                automation: id.to_string(),
                item: crate::events::item_of(&event.1),
                status: DeliveryStatus::Pending,
                attempts: 0,
                next_at: due,
                event: event.1,
            })?;
            Ok(TestFiring {
                id: id.to_string(),
                queued: true,
                due,
                event: event.0,
            })
        })
    }

    /// The automation log of the caller's tenant and environment, newest first; `status` is one
    /// of [`LOG_STATUSES`].
    /// `from` and `to` take a date or a date-time (UTC unless it says otherwise); both are
    /// inclusive, a date alone covering its whole day.
    pub fn log(&self, p: &Principal, query: &LogQuery) -> Result<Page<LogEntry>> {
        // A date alone starts (`from`) or ends (`to`) with its whole day.
        let bound = |v: &Option<String>, name: &str| -> Result<Option<DateTime<Utc>>> {
            v.as_deref()
                .map(|text| {
                    let day_end = if name == "to" && text.len() == 10 {
                        86_400_000 - 1
                    } else {
                        0
                    };
                    crate::data::calendar::parse_time(text, chrono_tz::UTC)
                        .ok()
                        .and_then(|ms| crate::data::calendar::instant(ms + day_end).ok())
                        .ok_or_else(|| {
                            invalid(format!(
                                "{name} must be a date or an RFC 3339 time, not \"{text}\""
                            ))
                        })
                })
                .transpose()
        };
        let status = query
            .status
            .as_deref()
            .map(|s| {
                LogStatus::parse(s).ok_or_else(|| {
                    invalid(format!(
                        "status must be one of {}, not \"{s}\"",
                        LOG_STATUSES.join(", ")
                    ))
                })
            })
            .transpose()?;
        let filter = LogFilter {
            automation: query.automation.clone(),
            status,
            from: bound(&query.from, "from")?,
            to: bound(&query.to, "to")?,
            skip: query.skip,
            limit: query.limit,
        };
        let page = self
            .platform
            .read()?
            .automation_log(&p.private_scope(), &filter)?;
        Ok(Page {
            estimated: false,
            total: page.total,
            items: page.items,
        })
    }

    /// The mail outbox of the caller's tenant and environment, newest first.
    pub fn mails(&self, p: &Principal, skip: u64, limit: Option<u64>) -> Result<Page<MailEntry>> {
        let page = self
            .platform
            .read()?
            .mails(&p.private_scope(), skip, limit)?;
        Ok(Page {
            estimated: false,
            total: page.total,
            items: page.items,
        })
    }

    /// The automation templates that fit item `key` of `service` in `source`
    /// (`_function=listAutomations`); the item must exist and be readable by the caller.
    ///
    /// ```
    /// use platform_core::api::{Collection, Source};
    /// use serde_json::{json, Map};
    /// let platform = platform_core::Platform::in_memory()?;
    /// let admin = platform.tenancy().local_principal("default", "admin")?;
    /// platform.objects().save(&admin, Collection::Object, json!({"_id": "PLANT1"}), &Default::default())?;
    /// let automations = platform.automations();
    /// let offered = automations.templates(&admin, "object", Source::Private, "PLANT1")?;
    /// let mail = offered.iter().find(|t| t.code == "email" && t.conditions[0].action == "update").unwrap();
    /// assert_eq!(mail.conditions[0].id, "PLANT1");
    /// let mut values = Map::new();
    /// values.insert("to".into(), json!("ops@acme.example"));
    /// values.insert("subject".into(), json!("PLANT1 changed"));
    /// let saved = automations.save(&admin, &mail.automation(values))?;
    /// assert_eq!(saved.automation.conditions, mail.conditions);
    /// assert_eq!(saved.automation.target.as_deref(), Some("platform.email"));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn templates(
        &self,
        p: &Principal,
        service: &str,
        source: Source,
        key: &str,
    ) -> Result<Vec<AutomationTemplate>> {
        if !targets::is_event_service(service) {
            return Err(invalid(format!(
                "the {service} service raises no events, so no automation fits its items"
            )));
        }
        let source = if source == Source::All {
            Source::of_id(key)
        } else {
            source
        };
        match service {
            "data" => {
                let id = crate::data::read::DataId::parse(key)?;
                let obj = self.platform.objects().get(
                    p,
                    Collection::Object,
                    source,
                    &id.object,
                    None,
                    None,
                )?;
                let prop = obj
                    .get(&id.prop)
                    .filter(|v| crate::data::DataKind::of(v).is_some());
                if prop.is_none() {
                    return Err(Error::not_found(format!(
                        "data \"{key}\" not found in the {source} source"
                    )));
                }
            }
            "object" | "type" | "script" | "extension" | "calendar" => {
                let coll = match service {
                    "object" => Collection::Object,
                    "type" => Collection::Type,
                    "script" => Collection::Script,
                    "calendar" => Collection::Calendar,
                    _ => Collection::Extension,
                };
                self.platform
                    .objects()
                    .get(p, coll, source, key, None, None)?;
            }
            "validationconfig" => {
                self.platform.objects().get(
                    p,
                    Collection::ValidationConfig,
                    Source::Private,
                    key,
                    None,
                    None,
                )?;
            }
            "secret" => {
                self.platform
                    .read()?
                    .secret(&p.private_scope(), key)?
                    .ok_or_else(|| Error::not_found(format!("secret \"{key}\" not found")))?;
            }
            _ => {
                self.platform.validation().record(p, key)?;
            }
        }
        let source = match source {
            Source::Public => ConditionSource::Public,
            _ => ConditionSource::Private,
        };
        Ok(catalogue::templates(source, service, key))
    }

    /// Recreates the missing automations of the caller's enabled `runOnUpdate` configurations
    /// (`_function=automations`).
    pub(crate) fn sync_validation(&self, p: &Principal) -> Result<AutomationSync> {
        p.require(Role::Writer, "recreating validation automations")?;
        let scope = p.private_scope();
        let now = format_instant(self.platform.now());
        self.platform.write(|tx| {
            let mut query = crate::query::ListQuery::default();
            query.paging.limit = None;
            let configs = tx.list(
                Collection::ValidationConfig,
                std::slice::from_ref(&scope),
                &query,
            )?;
            let (mut created, mut ids) = (0u64, Vec::new());
            for c in &configs.items {
                if let Some((id, new)) = sync_owned(tx, p, &c.id, Some(&c.body), &now)? {
                    created += u64::from(new);
                    ids.push(id);
                }
            }
            Ok(AutomationSync {
                checked: configs.items.len() as u64,
                created,
                automations: ids,
            })
        })
    }
}

/// The test event of the automation stored as `doc`, shaped by its first condition: as the
/// answer gives it, and as its delivery keeps it (the event every delivery gets, marked
/// `test`).
fn test_event(
    p: &Principal,
    scope: &Scope,
    doc: &serde_json::Map<String, Value>,
    now: DateTime<Utc>,
) -> (AutomationEvent, serde_json::Map<String, Value>) {
    let first = doc
        .get("conditions")
        .and_then(Value::as_array)
        .and_then(|c| c.first());
    let field = |k: &str| {
        first
            .and_then(|c| c.get(k))
            .and_then(Value::as_str)
            .unwrap_or("*")
            .to_string()
    };
    let service = field("service");
    let action = match field("action").as_str() {
        "*" => actions_of(&service)
            .and_then(|a| a.first())
            .map_or("update".to_string(), |a| (*a).to_string()),
        a => a.to_string(),
    };
    let item = match field("id").as_str() {
        "*" => "test".to_string(),
        i => i.to_string(),
    };
    let source = match field("source").as_str() {
        "public" => Scope::public(),
        _ => scope.clone(),
    };
    let data = json!({"_test": true});
    let stamp = format_instant(now);
    let mut stored =
        crate::events::event(p, &source, &service, &item, &action, &stamp, data.clone());
    stored.insert("test".into(), json!(true));
    let event = AutomationEvent {
        service,
        source: if source.is_public() {
            "public"
        } else {
            "private"
        }
        .into(),
        id: item,
        action,
        timestamp: now,
        user: p.user.clone(),
        tenant: p.tenant.clone(),
        environment: p.environment.clone(),
        data,
        chain: crate::events::chain(),
        test: true,
    };
    (event, stored)
}
