//! The built-in automation targets: the action service lists them, and `listAutomations` offers
//! templates of them for an item (their entities are made in `automations::catalogue`).
//!
//! | Target | Name | Inputs (required *) | Events |
//! |---|---|---|---|
//! | `platform.validation` | Run validation checks | none | data `update` |
//! | `platform.email` | Send an email | `to`*, `subject`*, `attachment`, `attachmentName`, `@transformer` | any |
//! | `platform.webhook` | Call a webhook | `url`*, `secret`, `@transformer` | any |
//! | `platform.script` | Run a script | `script`* | any |
//!
//! The bare code (`email`) is accepted for each.

use super::EVENT_SERVICES;

/// One input of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Input {
    /// The property name.
    pub name: &'static str,
    /// What it is for.
    pub description: &'static str,
    /// `string`, `boolean`, `script`, `secret`, `email` or `url`.
    pub kind: &'static str,
    /// Whether an automation must give it.
    pub required: bool,
}

/// A built-in target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// `platform.<code>`.
    pub id: &'static str,
    /// The bare code.
    pub code: &'static str,
    /// Display name.
    pub name: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Icon name.
    pub icon: &'static str,
    /// Sentence with bracketed input names.
    pub template: &'static str,
    /// Its inputs.
    pub inputs: &'static [Input],
    /// Services it accepts (`*` any).
    pub services: &'static [&'static str],
    /// Actions it accepts (`*` any).
    pub actions: &'static [&'static str],
    /// Whether `@transformer` applies.
    pub transform: bool,
    /// Catalogue tags.
    pub tags: &'static [&'static str],
}

const TRANSFORMER: Input = Input {
    name: "@transformer",
    description: "A script (rhai, or a mustache template) that turns the event into what is sent",
    kind: "script",
    required: false,
};

/// Every built-in target.
pub const TARGETS: &[Target] = &[
    Target {
        id: "platform.validation",
        code: "validation",
        name: "Run validation checks",
        description: "Runs the validation checks of the data item on the data that was saved",
        icon: "check2-square",
        template: "run the validation checks",
        inputs: &[],
        services: &["data"],
        actions: &["update"],
        transform: false,
        tags: &["Quality"],
    },
    Target {
        id: "platform.email",
        code: "email",
        name: "Send an email",
        description: "Sends an email (through the configured SMTP server, or to the mail outbox)",
        icon: "envelope-paper",
        template: "send an email to [to] with subject [subject]",
        inputs: &[
            Input {
                name: "to",
                description: "Recipients, separated by comma, semicolon or space",
                kind: "email",
                required: true,
            },
            Input {
                name: "subject",
                description: "The subject line",
                kind: "string",
                required: true,
            },
            Input {
                name: "attachment",
                description: "Attach the event data as a JSON file",
                kind: "boolean",
                required: false,
            },
            Input {
                name: "attachmentName",
                description: "File name of the attachment (default data.json)",
                kind: "string",
                required: false,
            },
            TRANSFORMER,
        ],
        services: &["*"],
        actions: &["*"],
        transform: true,
        tags: &["Communication"],
    },
    Target {
        id: "platform.webhook",
        code: "webhook",
        name: "Call a webhook",
        description:
            "POSTs the event as JSON to a URL, signed with HMAC-SHA256 when a secret is given",
        icon: "broadcast",
        template: "post it to [url]",
        inputs: &[
            Input {
                name: "url",
                description: "The http or https URL to POST to",
                kind: "url",
                required: true,
            },
            Input {
                name: "secret",
                description: "Id of a secret whose value keys the x-platform-signature header",
                kind: "secret",
                required: false,
            },
            TRANSFORMER,
        ],
        services: &["*"],
        actions: &["*"],
        transform: true,
        tags: &["Integration"],
    },
    Target {
        id: "platform.script",
        code: "script",
        name: "Run a script",
        description:
            "Runs a rhai script with the event in scope (variables event, data, properties)",
        icon: "code-slash",
        template: "run the script [script]",
        inputs: &[Input {
            name: "script",
            description: "Id of a rhai script",
            kind: "script",
            required: true,
        }],
        services: &["*"],
        actions: &["*"],
        transform: false,
        tags: &["Scripting"],
    },
];

/// A target by id or bare code.
pub fn find(id: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.id == id || t.code == id)
}

/// The script category of transformers, which the `@transformer` input lists.
pub const TRANSFORMER_CATEGORY: &str = "automation";

impl Target {
    /// Whether the target takes events of a service and action.
    pub fn accepts(&self, service: &str, action: &str) -> bool {
        (self.services.contains(&"*") || self.services.contains(&service))
            && (self.actions.contains(&"*") || self.actions.contains(&action))
    }
}

/// Whether a service raises events.
pub fn is_event_service(service: &str) -> bool {
    EVENT_SERVICES.iter().any(|(s, _)| *s == service)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_by_id_or_code() {
        assert_eq!(find("email").unwrap().id, "platform.email");
        assert_eq!(find("platform.webhook").unwrap().code, "webhook");
        assert!(find("platform.fax").is_none());
    }
}
