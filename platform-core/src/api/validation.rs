//! The validation service's automations call: the missing automations of `runOnUpdate`
//! configurations recreated.

use crate::auth::Principal;
use crate::error::Result;
use crate::validation::Validation;
use serde_json::Value;

impl Validation<'_> {
    /// JSON: recreates the missing automations of the caller's enabled `runOnUpdate`
    /// configurations; returns `{checked, created, automations}`.
    pub fn sync_automations(&self, p: &Principal) -> Result<Value> {
        self.platform.automations().sync_validation(p)
    }
}
