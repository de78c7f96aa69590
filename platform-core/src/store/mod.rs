//! The repository seam: what the platform needs from storage, shaped by the domain.
//!
//! A [`Store`] hands out transactions. A [`ReadTx`] sees one consistent snapshot; a [`WriteTx`]
//! is the unit of work of one call: everything it writes commits together in
//! [`WriteTx::commit`], and a transaction dropped without commit changes nothing. Rules (which
//! version is current, what merges, who may write) live in the services, never here: the store
//! only keeps what it is told.
//!
//! **Invariant:** only `store::sqlite` names `rusqlite`.

#[cfg(feature = "sqlite")]
pub mod sqlite;

use crate::auth::Role;
use crate::error::Result;
use crate::ids::Scope;
use crate::query::{Filter, ListQuery};
use serde_json::{Map, Value};

/// A family of versioned documents sharing the same rules (objects, types, scripts...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    /// Master-data objects.
    Object,
    /// Type definitions.
    Type,
    /// Scripts: rhai libraries and programs, mustache templates.
    Script,
    /// Extensions: drafts, the public catalogue, and installed copies.
    Extension,
    /// Validation configurations (private; ids are data ids).
    ValidationConfig,
}

impl Collection {
    /// The stored name of the collection (and the service it belongs to).
    pub fn as_str(self) -> &'static str {
        match self {
            Collection::Object => "object",
            Collection::Type => "type",
            Collection::Script => "script",
            Collection::Extension => "extension",
            Collection::ValidationConfig => "validationconfig",
        }
    }
}

/// One stored version of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredVersion {
    /// The document id (`_oid`).
    pub id: String,
    /// The version number, from 1.
    pub version: u32,
    /// The document's own fields, `_id` and `_type` included, system fields excluded.
    pub body: Map<String, Value>,
    /// When this version was written (RFC 3339).
    pub timestamp: String,
    /// Who wrote it.
    pub user: String,
    /// The `_reason` given when it was written.
    pub reason: Option<String>,
    /// Tags this version carries, sorted (filled on reads; ignored on writes).
    pub tags: Vec<String>,
}

impl StoredVersion {
    /// The `_type` of the document ("" when absent).
    pub fn type_name(&self) -> &str {
        self.body.get("_type").and_then(Value::as_str).unwrap_or("")
    }
}

/// A page of results with the total count before paging.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items of the page.
    pub items: Vec<T>,
    /// How many items matched in all.
    pub total: u64,
}

/// A stored chunk of validation records (see `validation::records`).
#[derive(Debug, Clone, PartialEq)]
pub struct RecordChunkRow {
    /// The data id.
    pub target: String,
    /// The bucket (start key).
    pub seq: i64,
    /// The first and last key held.
    pub first: i64,
    /// See `first`.
    pub last: i64,
    /// Records held.
    pub count: u64,
    /// A bit per record status present (1 << code).
    pub statuses: u64,
    /// The encoded chunk.
    pub body: Vec<u8>,
}

/// A token as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRecord {
    /// The tenant of the token's user.
    pub tenant: String,
    /// The token's user.
    pub user: String,
    /// The user's role.
    pub role: Role,
    /// Whether the token was revoked.
    pub revoked: bool,
}

/// A background worker serving the database (a server's job worker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerRow {
    /// A random id the worker chose at start.
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// When it started (RFC 3339).
    pub started: String,
    /// When it was last seen (RFC 3339).
    pub seen: String,
}

/// A token as listed: who it is for and its state, never the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenListing {
    /// The first 12 hex digits of the token's hash: tells tokens apart.
    pub id: String,
    /// The tenant of the token's user.
    pub tenant: String,
    /// The token's user.
    pub user: String,
    /// The user's role.
    pub role: Role,
    /// When it was created (RFC 3339).
    pub created: String,
    /// When it was revoked, if it was.
    pub revoked: Option<String>,
}

/// Which tokens to revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSelector {
    /// The token with this hash.
    Hash(String),
    /// Every token of a user.
    User {
        /// Tenant.
        tenant: String,
        /// User.
        user: String,
    },
}

/// A line of the audit trail of deletions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// The document id.
    pub id: String,
    /// `rollback`, `delete-version` or `delete-all`.
    pub action: String,
    /// The versions removed.
    pub versions: Vec<u32>,
    /// Who did it.
    pub user: String,
    /// When (RFC 3339).
    pub timestamp: String,
    /// The `_reason` given.
    pub reason: Option<String>,
}

/// A data property of an object (a time series or a curve).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DataKey {
    /// Where the owning object lives.
    pub scope: Scope,
    /// The owning object's id.
    pub object: String,
    /// The property name (the data name).
    pub prop: String,
}

/// A stored chunk of observations of a series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Time of the first observation (UTC ms).
    pub start: i64,
    /// Time of the last observation (UTC ms).
    pub stop: i64,
    /// Number of observations.
    pub count: u32,
    /// The encoded observations (`data::codec`).
    pub payload: Vec<u8>,
}

/// The size and bounds of a data item: observations of a series, or ondates of a curve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent<T> {
    /// How many.
    pub count: u64,
    /// The first and the last (`None` when there are none).
    pub bounds: Option<(T, T)>,
}

/// A stored secret: metadata in clear, the value sealed.
#[derive(Debug, Clone, PartialEq)]
pub struct SecretRow {
    /// The secret id.
    pub id: String,
    /// Every field but the value.
    pub meta: serde_json::Map<String, Value>,
    /// The sealing nonce.
    pub nonce: Vec<u8>,
    /// The sealed value.
    pub ciphertext: Vec<u8>,
    /// When it was last written (RFC 3339).
    pub updated: String,
    /// Who wrote it last.
    pub user: String,
}

/// One event on its way to one automation (the outbox of events: written with the change
/// that raised it).
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryRow {
    /// Order of creation (0 for a row not stored yet).
    pub seq: i64,
    /// The scope of the automation.
    pub scope: Scope,
    /// The automation id.
    pub automation: String,
    /// The item the event is about (`service/source/id`): deliveries of one item to one
    /// automation go in order.
    pub item: String,
    /// `pending`, `running`, `success` or `failed`.
    pub status: String,
    /// Attempts made so far.
    pub attempts: u32,
    /// When the next attempt is due (RFC 3339).
    pub next_at: String,
    /// The event.
    pub event: Map<String, Value>,
}

/// Which automation log entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogQuery {
    /// Only this automation.
    pub automation: Option<String>,
    /// Only this status.
    pub status: Option<String>,
    /// Entries at or after this instant (RFC 3339).
    pub from: Option<String>,
    /// Entries at or before this instant (RFC 3339).
    pub to: Option<String>,
    /// Items to skip.
    pub skip: u64,
    /// Most items (all when `None`).
    pub limit: Option<u64>,
}

/// A consistent read-only view of the store.
pub trait ReadTx {
    /// How many tenants exist.
    fn tenant_count(&self) -> Result<u64>;
    /// The background workers last seen at or after `since` (RFC 3339), by id.
    fn workers_seen_since(&self, since: &str) -> Result<Vec<WorkerRow>>;
    /// How many users (of any tenant) hold a role.
    fn users_with_role(&self, role: Role) -> Result<u64>;
    /// The tokens of a tenant (of every tenant when `None`), by tenant, user and creation.
    fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>>;
    /// The environments of a tenant as (name, created), by name.
    fn environments(&self, tenant: &str) -> Result<Vec<(String, String)>>;
    /// Whether the tenant has this environment.
    fn environment_exists(&self, tenant: &str, env: &str) -> Result<bool>;
    /// The token with this hash, if any.
    fn token(&self, hash: &str) -> Result<Option<TokenRecord>>;
    /// Whether the user exists.
    fn user_exists(&self, tenant: &str, user: &str) -> Result<bool>;
    /// The grants of a user as `(kind, name)`, kind `access` or `feature`.
    fn grants(&self, tenant: &str, user: &str) -> Result<Vec<(String, String)>>;
    /// The current version of a document.
    fn current(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<StoredVersion>>;
    /// One version of a document.
    fn version(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<Option<StoredVersion>>;
    /// The version a tag points at.
    fn tagged(&self, coll: Collection, scope: &Scope, id: &str, tag: &str) -> Result<Option<u32>>;
    /// Every version of a document, oldest first.
    fn versions(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<StoredVersion>>;
    /// Current versions in the scopes that match the query, paged, with the total.
    fn list(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
    ) -> Result<Page<StoredVersion>>;
    /// The distinct string values at a dotted path among the matching current documents, sorted.
    fn distinct(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
        path: &str,
    ) -> Result<Vec<String>>;
    /// Auto-complete: matching current documents whose case-folded `_id` or `name` starts with
    /// `prefix` (already folded), as `(id, name)`: id matches first in folded-id order, then
    /// name matches in folded-name order.
    fn complete(
        &self,
        coll: Collection,
        scopes: &[Scope],
        filter: &Filter,
        prefix: &str,
        limit: Option<u64>,
    ) -> Result<Vec<(String, Option<String>)>>;
    /// The JSON kinds (`text`, `integer`, `real`, `true`, `false`, `null`, `object`, `array`)
    /// found at a dotted path among the current documents of the scopes.
    fn field_kinds(&self, coll: Collection, scopes: &[Scope], path: &str) -> Result<Vec<String>>;
    /// Chunks of a series visible at an object version that overlap `[from, to]` (inclusive,
    /// open when `None`), in time order.
    fn chunks(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<i64>,
        to: Option<i64>,
    ) -> Result<Vec<Chunk>>;
    /// The newest chunks of a series visible at a version, newest first, until they hold at least
    /// `points` observations.
    fn last_chunks(&self, key: &DataKey, version: u32, points: u64) -> Result<Vec<Chunk>>;
    /// The last chunk visible at a version that starts at or before `t`.
    fn chunk_before(&self, key: &DataKey, version: u32, t: i64) -> Result<Option<Chunk>>;
    /// How many observations a series holds at a version, and its first and last times.
    fn series_extent(&self, key: &DataKey, version: u32) -> Result<Extent<i64>>;
    /// How many curves (ondates) a curve property holds at a version, and the first and last
    /// ondates.
    fn curve_extent(&self, key: &DataKey, version: u32) -> Result<Extent<String>>;
    /// The stored curve of one ondate visible at a version.
    fn curve(&self, key: &DataKey, version: u32, ondate: &str) -> Result<Option<Vec<u8>>>;
    /// The curves visible at a version with ondates in `[from, to]` (inclusive), by ondate;
    /// `newest` keeps only that many of the latest.
    fn curves(
        &self,
        key: &DataKey,
        version: u32,
        from: Option<&str>,
        to: Option<&str>,
        newest: Option<u64>,
    ) -> Result<Vec<(String, Vec<u8>)>>;
    /// Chunks of validation records of a scope: of some targets (all when None), holding keys
    /// in `keys` (inclusive, any when None) or starting in `buckets` (inclusive).
    fn record_chunks(
        &self,
        scope: &Scope,
        targets: Option<&[String]>,
        keys: Option<(i64, i64)>,
        buckets: Option<(i64, i64)>,
    ) -> Result<Vec<RecordChunkRow>>;
    /// The targets with records whose ids could start with `<target>:` of this id.
    fn record_targets_of(&self, scope: &Scope, id: &str) -> Result<Vec<String>>;
    /// One background job.
    fn job(&self, scope: &Scope, id: &str) -> Result<Option<Map<String, Value>>>;
    /// The background jobs of a scope, newest first.
    fn jobs(&self, scope: &Scope) -> Result<Vec<Map<String, Value>>>;
    /// The oldest job with this status in any scope whose `notBefore` (if any) is at or before
    /// `now` (RFC 3339), with its scope.
    fn next_job(&self, status: &str, now: &str) -> Result<Option<(Scope, Map<String, Value>)>>;
    /// One secret of a scope.
    fn secret(&self, scope: &Scope, id: &str) -> Result<Option<SecretRow>>;
    /// Every secret of a scope, by id.
    fn secrets(&self, scope: &Scope) -> Result<Vec<SecretRow>>;
    /// The audit trail of deletions of one document, oldest first.
    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>>;
    /// One automation of a scope.
    fn automation(&self, scope: &Scope, id: &str) -> Result<Option<Map<String, Value>>>;
    /// The automations of a scope, by id.
    fn automations(&self, scope: &Scope) -> Result<Vec<Map<String, Value>>>;
    /// The automations of every scope, with their scopes (for events on public items).
    fn all_automations(&self) -> Result<Vec<(Scope, Map<String, Value>)>>;
    /// The oldest delivery with status `pending` due at `now` (RFC 3339) whose item has no
    /// earlier unfinished delivery to the same automation.
    fn next_delivery(&self, now: &str) -> Result<Option<DeliveryRow>>;
    /// The deliveries with a status (any scope), oldest first.
    fn deliveries(&self, status: &str) -> Result<Vec<DeliveryRow>>;
    /// Automation log entries of a scope, newest first, with the total before paging.
    fn automation_log(&self, scope: &Scope, query: &LogQuery) -> Result<Page<Map<String, Value>>>;
    /// Emails kept in the mail outbox of a scope, newest first, with the total before paging.
    fn mails(
        &self,
        scope: &Scope,
        skip: u64,
        limit: Option<u64>,
    ) -> Result<Page<Map<String, Value>>>;
}

/// A unit of work; nothing is visible to others until [`WriteTx::commit`].
pub trait WriteTx: ReadTx {
    /// Stores a new version (replacing a row of the same number, for unversioned types).
    fn put_version(
        &mut self,
        coll: Collection,
        scope: &Scope,
        version: &StoredVersion,
    ) -> Result<()>;
    /// Removes one version and its tags.
    fn delete_version(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: u32,
    ) -> Result<()>;
    /// Makes a version current, or marks the document absent with `None`.
    fn set_current(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        version: Option<u32>,
    ) -> Result<()>;
    /// Points a tag at a version, taking it from any other version of the document.
    fn set_tag(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        tag: &str,
        version: u32,
    ) -> Result<()>;
    /// Appends to the audit trail.
    fn append_audit(&mut self, coll: Collection, scope: &Scope, entry: &AuditEntry) -> Result<()>;
    /// Creates a tenant (with its `production` environment) unless it exists.
    fn ensure_tenant(&mut self, tenant: &str, now: &str) -> Result<()>;
    /// Creates an environment; false when it already existed.
    fn create_environment(&mut self, tenant: &str, env: &str, now: &str) -> Result<bool>;
    /// Creates a user or changes its role.
    fn upsert_user(&mut self, tenant: &str, user: &str, role: Role, now: &str) -> Result<()>;
    /// Adds (`on`) or removes a grant; returns whether anything changed.
    fn set_grant(
        &mut self,
        tenant: &str,
        user: &str,
        kind: &str,
        name: &str,
        on: bool,
    ) -> Result<bool>;
    /// Creates or overwrites a chunk of validation records (deletes it when it holds none).
    fn put_record_chunk(&mut self, scope: &Scope, row: &RecordChunkRow) -> Result<()>;
    /// Creates or overwrites a background job (`_id` and `status` are read from it).
    fn put_job(&mut self, scope: &Scope, job: &Map<String, Value>) -> Result<()>;
    /// Creates or overwrites a secret.
    fn put_secret(&mut self, scope: &Scope, row: &SecretRow) -> Result<()>;
    /// Deletes a secret; returns whether it existed.
    fn delete_secret(&mut self, scope: &Scope, id: &str) -> Result<bool>;
    /// Stores a token hash for a user.
    fn insert_token(&mut self, hash: &str, tenant: &str, user: &str, now: &str) -> Result<()>;
    /// Records that a worker is alive (inserting it when new).
    fn worker_seen(&mut self, worker: &WorkerRow) -> Result<()>;
    /// Removes a worker that stopped.
    fn worker_gone(&mut self, id: &str) -> Result<()>;
    /// Revokes tokens; returns how many were active.
    fn revoke_tokens(&mut self, which: &TokenSelector, now: &str) -> Result<u64>;
    /// Replaces current chunks of a series at a new object version: the current rows starting at
    /// `old_starts` stop being current (closed at `version`, or deleted when `keep_history` is
    /// false), and `new` chunks become current from `version`.
    fn replace_chunks(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        old_starts: &[i64],
        new: &[Chunk],
    ) -> Result<()>;
    /// Replaces the current curve of an ondate (or removes it with `None`) at a version.
    fn put_curve(
        &mut self,
        key: &DataKey,
        version: u32,
        keep_history: bool,
        ondate: &str,
        payload: Option<&[u8]>,
    ) -> Result<()>;
    /// Ends every current chunk and curve of a data property at a version (the property was
    /// removed from its object).
    fn end_data(&mut self, key: &DataKey, version: u32, keep_history: bool) -> Result<()>;
    /// After versions of an object were deleted: drops data rows no remaining version can see,
    /// and makes current again the rows that were current at the highest remaining version.
    fn prune_data(&mut self, scope: &Scope, object: &str, remaining: &[u32]) -> Result<()>;
    /// Creates or overwrites an automation (`_id` is read from it).
    fn put_automation(&mut self, scope: &Scope, doc: &Map<String, Value>) -> Result<()>;
    /// Deletes an automation; returns whether it existed.
    fn delete_automation(&mut self, scope: &Scope, id: &str) -> Result<bool>;
    /// Stores a new delivery (`seq` 0) or updates one.
    fn put_delivery(&mut self, row: &DeliveryRow) -> Result<()>;
    /// Removes a finished delivery (the automation log keeps its history).
    fn delete_delivery(&mut self, seq: i64) -> Result<()>;
    /// Appends an entry to the automation log of a scope (`automation`, `status` and
    /// `timestamp` are read from it).
    fn append_log(&mut self, scope: &Scope, entry: &Map<String, Value>) -> Result<()>;
    /// Keeps an email in the mail outbox of a scope.
    fn append_mail(&mut self, scope: &Scope, mail: &Map<String, Value>) -> Result<()>;
    /// Makes every write of this transaction durable and visible.
    fn commit(self: Box<Self>) -> Result<()>;
}

/// A storage backend.
pub trait Store: Send + Sync {
    /// Starts a read-only transaction.
    fn read(&self) -> Result<Box<dyn ReadTx + '_>>;
    /// Starts a write transaction (one writer at a time).
    fn write(&self) -> Result<Box<dyn WriteTx + '_>>;
    /// Flushes and closes what can be closed (checkpoint); the store stays usable.
    fn close(&self) -> Result<()> {
        Ok(())
    }
}
