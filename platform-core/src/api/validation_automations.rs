//! The validation service's automations call: the missing automations of `runOnUpdate`
//! configurations recreated.

use crate::auth::Principal;
use crate::error::Result;
use crate::events::automations::AutomationSync;
use crate::validation::Validation;

impl Validation<'_> {
    /// Recreates the missing automations of the caller's enabled `runOnUpdate`
    /// configurations (role `writer`), those that run their checks when their data changes.
    ///
    /// ```
    /// let platform = platform_core::Platform::in_memory()?;
    /// let me = platform.tenancy().local_principal("default", "me")?;
    /// let sync = platform.validation().recreate_automations(&me)?;
    /// assert_eq!((sync.checked, sync.created), (0, 0));
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn recreate_automations(&self, p: &Principal) -> Result<AutomationSync> {
        self.platform.automations().sync_validation(p)
    }
}
