//! The automation service: [`Automations`].

use crate::auth::Principal;
use crate::error::Result;
use crate::events::automations::LogQuery;
use crate::ids::Source;
use crate::query::Paging;
use crate::store::{LogEntry, MailEntry, Page};
use crate::Platform;
use serde_json::Value;

/// Automations: conditions on events (data saved, data invalid, records failed...) and the
/// targets they call (validation, webhook, email, script), owned by the caller's tenant and
/// environment; their delivery log and the mail outbox. Deliveries run through
/// [`Platform::deliveries`]. From [`Platform::automations`].
///
/// ```
/// use platform_core::api::Paging;
/// let platform = platform_core::Platform::in_memory()?;
/// let admin = platform.tenancy().local_principal("default", "admin")?;
/// let paging = Paging { skip: 0, limit: None };
/// let targets = platform.automations().targets(&admin, &paging)?;
/// assert!(targets.items.iter().any(|t| t["_id"] == "platform.webhook"));
/// assert_eq!(platform.automations().list(&admin, &paging)?.total, 0);
/// # Ok::<(), platform_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Automations<'p> {
    pub(super) platform: &'p Platform,
}

impl Automations<'_> {
    /// Creates an automation (the platform assigns `_id`) or updates the one whose `_id` is
    /// sent. The caller becomes its owner. Returns the stored automation.
    pub fn save(&self, p: &Principal, body: Value) -> Result<Value> {
        self.platform.save_automation(p, body)
    }

    /// One automation of the caller's tenant and environment.
    pub fn get(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.automation(p, id)
    }

    /// The caller's automations, by id.
    pub fn list(&self, p: &Principal, paging: &Paging) -> Result<Page<Value>> {
        self.platform.automation_page(p, paging)
    }

    /// Deletes an automation; its pending deliveries are skipped.
    pub fn delete(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.delete_automation(p, id)
    }

    /// Enables or disables an automation; a disabled one receives no events.
    pub fn set_enabled(&self, p: &Principal, id: &str, on: bool) -> Result<Value> {
        self.platform.set_automation_enabled(p, id, on)
    }

    /// Enables or disables an automation from a body `{"enabled": bool}` (`active`, the name
    /// an automation definition uses, is read the same).
    pub fn switch(&self, p: &Principal, id: &str, body: &Value) -> Result<Value> {
        self.platform.switch_automation(p, id, body)
    }

    /// Test-fires an automation: queues one delivery of a test event shaped by its first
    /// condition (`data: {"_test": true}`), due after `delay` milliseconds (at most 60,000).
    /// The worker delivers it like any other.
    pub fn test(&self, p: &Principal, id: &str, delay: Option<&str>) -> Result<Value> {
        self.platform.test_automation(p, id, delay)
    }

    /// The targets automations can call (the same for every caller), one page of them.
    pub fn targets(&self, p: &Principal, paging: &Paging) -> Result<Page<Value>> {
        self.platform.automation_targets(p, paging)
    }

    /// One target.
    pub fn target(&self, p: &Principal, id: &str) -> Result<Value> {
        self.platform.automation_target(p, id)
    }

    /// The automation templates that fit an item of a service (`listAutomations`); the item
    /// must exist and be readable by the caller.
    pub fn templates(
        &self,
        p: &Principal,
        service: &str,
        source: Source,
        key: &str,
    ) -> Result<Vec<Value>> {
        self.platform.list_automations(p, service, source, key)
    }

    /// Typed: the automation log of the caller's tenant and environment, newest first (see
    /// [`LogQuery`] for its filters), as its entries.
    pub fn log_entries(&self, p: &Principal, query: &LogQuery) -> Result<Page<LogEntry>> {
        self.platform.automation_log_entries(p, query)
    }

    /// JSON: the automation log of the caller's tenant and environment, newest first (see
    /// [`LogQuery`] for its filters).
    pub fn log(&self, p: &Principal, query: &LogQuery) -> Result<Page<Value>> {
        self.platform.automation_log(p, query)
    }

    /// Typed: the mail outbox of the caller's tenant and environment, newest first, as its
    /// mails.
    pub fn mails(&self, p: &Principal, skip: u64, limit: Option<u64>) -> Result<Page<MailEntry>> {
        self.platform.mail_entries(p, skip, limit)
    }

    /// JSON: the mail outbox of the caller's tenant and environment, newest first.
    pub fn mail_outbox(&self, p: &Principal, skip: u64, limit: Option<u64>) -> Result<Page<Value>> {
        self.platform.mail_outbox(p, skip, limit)
    }
}

#[cfg(test)]
mod tests {
    use crate::api::{Collection, LogQuery, LogStatus};
    use crate::Platform;
    use serde_json::json;

    /// An automation that mails on an object's update: after the worker delivers, the typed
    /// log holds the one entry the JSON log answers, and its filters are the JSON log's.
    #[test]
    fn the_typed_automation_log_is_the_json_log_as_entries() {
        let platform = Platform::in_memory().unwrap();
        let me = platform.tenancy().local_principal("acme", "ann").unwrap();
        let automation = platform
            .automations()
            .save(
                &me,
                json!({"name": "alert", "target": "platform.email",
                       "properties": {"to": "ops@acme.example", "subject": "changed"},
                       "conditions": [{"service": "object", "id": "PLANT1", "action": "update"}]}),
            )
            .unwrap()["_id"]
            .as_str()
            .unwrap()
            .to_string();
        let save = |capacity: u32| {
            platform
                .objects()
                .save(
                    &me,
                    Collection::Object,
                    json!({"_id": "PLANT1", "capacity": capacity}),
                    &Default::default(),
                )
                .unwrap();
        };
        save(1);
        save(2);
        while platform.deliveries().run_next().unwrap() {}
        let automations = platform.automations();
        let all = LogQuery::default();
        let typed = automations.log_entries(&me, &all).unwrap();
        let json = automations.log(&me, &all).unwrap();
        assert_eq!((typed.total, json.total), (1, 1));
        let entry = &typed.items[0];
        assert_eq!(entry.automation, automation);
        assert_eq!(
            (entry.service.as_str(), entry.key.as_str()),
            ("object", "PLANT1")
        );
        assert_eq!(
            (entry.action.as_str(), entry.status),
            ("update", LogStatus::Success)
        );
        assert_eq!(serde_json::Value::Object(entry.to_json()), json.items[0]);
        let failed = LogQuery {
            status: Some("failed".into()),
            ..LogQuery::default()
        };
        assert_eq!(automations.log_entries(&me, &failed).unwrap().total, 0);
        let bad = LogQuery {
            status: Some("lost".into()),
            ..LogQuery::default()
        };
        let e = automations.log_entries(&me, &bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            automations.log(&me, &bad).unwrap_err().to_string()
        );
    }
}
