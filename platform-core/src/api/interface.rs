//! What a front end of the REST interface (the server, the CLI) needs beyond the services'
//! calls: the names of its requests and answers, its formats and content negotiation, how
//! times and tokens are written, how a server opens its store and follows replicas, and the
//! limits the interface states. The server and the CLI name nothing of the core outside
//! [`crate::api`] and the errors (a tidy test holds them to it): what they need of the core is
//! here, by name, and the rest of the core can move without them.

/// Content negotiation and the renderings of answers (CSV, XML, Arrow, HTML templates), and
/// JSON as people send it.
pub mod formats {
    pub use crate::format::arrow::{self, ArrowStream};
    pub use crate::format::{csv, negotiate, xml, Format};
    pub use crate::json::{from_slice, from_str, json_kind};
}

/// Instants and local times as the interface writes them, and the EFA blocks of GB power.
pub mod time {
    pub use crate::clock::{delay_param, format_instant, parse_instant, MAX_DELAY_MS};
    pub use crate::data::calendar::{format_time, utc_text};
    pub use crate::data::efa;
    pub use crate::data::scale::coverage;
    pub use crate::data::zone::local_text;
}

/// The limits and fixed names the interface states.
pub mod limits {
    pub use crate::events::automations::LOG_STATUSES;
    pub use crate::query::paging::MAX_LIMIT;
    pub use crate::query::params::{STANDARD, SYSTEM_FIELDS};
    pub use crate::query::total::EXACT_TOTAL_UP_TO;
    pub use crate::validation::jobs::WORKER_TIMEOUT_SECS;
}

/// Tokens: made, hashed, printed.
pub mod tokens {
    pub use crate::auth::{generate_token, hash_token, hex};
}

/// Opening a store, and the commit positions a server follows its replicas by.
pub mod stores {
    #[cfg(feature = "postgres")]
    pub use crate::store::postgres::{is_url, redact, PgOptions, PgPooler};
    pub use crate::store::sqlite::SqliteStore;
    pub use crate::store::{
        database_lost, format_position, parse_position, take_commit_position, ReplicaReads,
    };
}

/// The services the interface has, and the release.
pub mod services {
    pub use crate::services::*;
}

/// Series and curves as they are sent: payloads, value types, stored points, the CSV reader
/// of imports, and what a failing validation record is.
pub mod series {
    pub use crate::data::import;
    pub use crate::data::model::Point;
    pub use crate::data::series::{sort_payload, OnDuplicate, PayloadNames, Window};
    pub use crate::data::series_settings;
    pub use crate::data::value_type::{check_values, Checked, Sent, Stored, ValueRule};
    pub use crate::data::{CURVE_TYPE, SERIES_TYPE};
    pub use crate::validation::records::is_failing;
}

/// Webhook hosts and the allow-list of where webhooks may go.
pub mod webhooks {
    pub use crate::outbound::webhook::{host_text, Host, Url, WebhookAllow};
}
