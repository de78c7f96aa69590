//! Outbound deliveries of automations: [`Deliveries`].

use crate::error::Result;
use crate::outbound::webhook::Url;
use crate::Platform;

/// The deliveries automations queue (webhook calls, emails, scripts), and the worker steps
/// that attempt them, with retries. A server runs the worker; a program that embeds the
/// platform without a server calls [`Deliveries::run_due`]. How deliveries reach the outside
/// is set with [`Platform::with_delivery`] and [`Platform::with_outbound`]. From
/// [`Platform::deliveries`].
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
    pub(super) platform: &'p Platform,
}

impl Deliveries<'_> {
    /// One step of the delivery worker: one attempt of the oldest due delivery. Returns
    /// whether there was anything to do.
    pub fn run_next(&self) -> Result<bool> {
        self.platform.deliver_next()
    }

    /// Runs worker steps until nothing is due; returns how many ran.
    pub fn run_due(&self) -> Result<u64> {
        self.platform.deliver_due()
    }

    /// Makes `pending` again the deliveries a stopped server left `running`; returns how many.
    pub fn requeue_interrupted(&self) -> Result<u64> {
        self.platform.requeue_interrupted_deliveries()
    }

    /// Parses a webhook URL and fails unless the allow-list of the delivery settings, if any,
    /// allows its host; the parsed URL is what the client calls.
    pub fn check_webhook_url(&self, text: &str) -> Result<Url> {
        self.platform.check_webhook_url(text)
    }
}
