//! The catalogue of services: which exist, which release they speak, and their build information.

use serde_json::{json, Value};

/// The only release of every service.
pub const RELEASE: &str = "v1";

/// A service of the interface (plus the platform's own `type` and `script` services).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceInfo {
    /// Path name, e.g. `object`.
    pub name: &'static str,
    /// What it holds.
    pub description: &'static str,
    /// Whether this build serves its endpoints yet.
    pub available: bool,
}

/// Every service, in the interface's order.
pub const SERVICES: &[ServiceInfo] = &[
    ServiceInfo {
        name: "object",
        description: "Master-data objects with version history",
        available: true,
    },
    ServiceInfo {
        name: "data",
        description: "Time series and curves attached to objects (read-only)",
        available: true,
    },
    ServiceInfo {
        name: "secret",
        description: "Encrypted company secrets",
        available: true,
    },
    ServiceInfo {
        name: "extension",
        description: "Publishable, installable extensions",
        available: true,
    },
    ServiceInfo {
        name: "validationconfig",
        description: "Validation configurations per data item",
        available: true,
    },
    ServiceInfo {
        name: "validation",
        description: "Validation records and check runs",
        available: true,
    },
    ServiceInfo {
        name: "automation",
        description: "Automations reacting to events",
        available: true,
    },
    ServiceInfo {
        name: "action",
        description: "Automation targets",
        available: true,
    },
    ServiceInfo {
        name: "type",
        description: "Object type definitions and their hierarchy",
        available: true,
    },
    ServiceInfo {
        name: "script",
        description: "Scripts: rhai programs and libraries, mustache templates",
        available: true,
    },
    ServiceInfo {
        name: "calendar",
        description:
            "Holiday, expiry and block calendars: holidays, business days, contract expiry",
        available: true,
    },
];

/// Looks a service up by path name.
pub fn find(name: &str) -> Option<&'static ServiceInfo> {
    SERVICES.iter().find(|s| s.name == name)
}

/// The body of `GET /{service}`.
pub fn build_info(service: &ServiceInfo) -> Value {
    json!({
        "service": service.name,
        "description": service.description,
        "product": "platform",
        "version": env!("CARGO_PKG_VERSION"),
        "releases": [RELEASE],
        "status": if service.available { "available" } else { "planned" },
    })
}
