//! What only a front end of the REST interface (the server, the CLI) needs beyond
//! [`crate::api`]: the catalogue of the interface's services, the commit positions a server
//! follows its read replicas by, whether the database was lost, the tokens it keys requests
//! and workers by, the allow-list webhooks are checked against, and which validation statuses
//! count as failing. Fourteen names (five of them the catalogue's); everything else a front end uses is the api a program
//! uses (its services, [`formats`](super::formats), [`time`](super::time),
//! [`limits`](super::limits), [`import`](super::import), [`stores`](super::stores)). A tidy
//! test holds the server and the CLI to naming nothing of the core outside `api` and the
//! errors, and this module to its size.

/// The services the interface has, and the release.
pub mod services {
    pub use crate::services::{build_info, find, ServiceInfo, RELEASE, SERVICES};
}
pub use crate::auth::hash_token;
pub use crate::outbound::webhook::{host_text, WebhookAllow};
pub use crate::store::{
    database_lost, format_position, parse_position, take_commit_position, ReplicaReads,
};
pub use crate::validation::records::is_failing;
