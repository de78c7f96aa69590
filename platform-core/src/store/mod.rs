//! The repository seam: what the platform needs from storage, shaped by the domain.
//!
//! A [`Store`] hands out transactions. A [`ReadTx`] sees one consistent snapshot; a [`WriteTx`]
//! is the unit of work of one call: everything it writes commits together in
//! [`WriteTx::commit`], and a transaction dropped without commit changes nothing. Rules (which
//! version is current, what merges, who may write, which delivery goes next) live in the
//! services, never here: the store only keeps what it is told and answers what it is asked.
//!
//! The operations come in capabilities, each a pair of traits (reads, and writes that may also
//! read), named for what they keep:
//!
//! | Capability | Reads | Writes |
//! |---|---|---|
//! | versioned documents | [`DocumentRead`] | [`DocumentWrite`] |
//! | the audit trail of deletions | [`AuditRead`] | [`AuditWrite`] |
//! | series chunks and curves | [`DataRead`] | [`DataWrite`] |
//! | validation records | [`RecordRead`] | [`RecordWrite`] |
//! | background jobs and workers | [`JobRead`] | [`JobWrite`] |
//! | automations, deliveries, their log, the mail outbox | [`OutboxRead`] | [`OutboxWrite`] |
//! | tenants, environments, users, grants, tokens | [`TenancyRead`] | [`TenancyWrite`] |
//! | secrets | [`SecretRead`] | [`SecretWrite`] |
//!
//! A backend implements them all on its transactions: [`ReadTx`] is every read capability,
//! [`WriteTx`] every capability plus `commit`. A service asks for the narrowest one it uses
//! (`&dyn DocumentRead`, `&mut dyn OutboxWrite`...); a transaction coerces to any of them.
//!
//! Every backend passes the contract suite (`store::contract`, compiled for tests and with the
//! `contract-tests` feature).
//!
//! **Invariant:** only `store::sqlite` names `rusqlite`, and only `store::postgres` names the
//! `postgres` crate.

#[cfg(feature = "sqlite")]
pub mod sqlite;

#[cfg(feature = "postgres")]
pub mod postgres;

mod ahead;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
mod holds;
mod replica;
pub mod rows;
mod status;
mod upgrade;

pub use ahead::{Ahead, ReadAhead};
pub(crate) mod expected_epoch;
pub use holds::{Hold, Holds};
#[cfg(feature = "postgres")]
pub(crate) use replica::set_commit_position;
pub use replica::{
    format_position, parse_position, take_commit_position, ReplicaReads, ReplicaStatus,
};

pub use rows::{
    AuditEntry, Automation, Chunk, DataKey, Delivery, DeliveryStatus, Environment, Extent,
    FieldKind, Job, JobStatus, LogEntry, LogFilter, LogStatus, MailAttachment, MailEntry,
    RecordChunkRow, SecretRow, StoredVersion, TokenListing, TokenRecord, TokenSelector, Worker,
};
#[cfg(feature = "postgres")]
pub(crate) use status::set_lost;
// (A pool's status is a PostgreSQL store's only: a SQLite-only build names it nowhere.)
#[cfg_attr(not(feature = "postgres"), allow(unused_imports))]
pub use status::{database_lost, DatabaseStatus, PoolStatus};

use crate::auth::{Grant, Role};
use crate::error::Result;
use crate::ids::Scope;
pub use crate::query::Page;
use crate::query::{Cursor, Filter, ListQuery};
use chrono::{DateTime, Utc};
use std::cell::Cell;

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
    /// Calendars: holiday, expiry and block calendars.
    Calendar,
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
            Collection::Calendar => "calendar",
        }
    }
}

/// A stored body in the form its backend keeps it.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredBody {
    /// SQLite's binary JSON, as stored (read with [`crate::json::jsonb`]).
    Jsonb(Vec<u8>),
    /// A JSON object.
    Map(serde_json::Map<String, serde_json::Value>),
}

/// A current version as [`DocumentRead::current_raw`] reads it: its body as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RawVersion {
    /// The body, as the backend keeps it.
    pub body: StoredBody,
    /// The document id (`_oid`).
    pub id: String,
    /// The version number.
    pub version: u32,
    /// When it was written.
    pub timestamp: DateTime<Utc>,
    /// Who wrote it.
    pub user: String,
    /// Why, where given.
    pub reason: Option<String>,
    /// The tags on it.
    pub tags: Vec<String>,
}

impl From<StoredVersion> for RawVersion {
    fn from(v: StoredVersion) -> RawVersion {
        RawVersion {
            body: StoredBody::Map(v.body),
            id: v.id,
            version: v.version,
            timestamp: v.timestamp,
            user: v.user,
            reason: v.reason,
            tags: v.tags,
        }
    }
}

/// Versioned documents: every version of each, which one is current, and tags.
pub trait DocumentRead {
    /// The current version of a document.
    fn current(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<StoredVersion>>;
    /// The current version of a document, its body holding only the top-level fields named
    /// in `fields` (as [`current`](Self::current) reads them): a backend that can read a few
    /// fields of a stored body without reading the rest does so.
    fn current_fields(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        fields: &[&str],
    ) -> Result<Option<StoredVersion>> {
        let mut current = self.current(coll, scope, id)?;
        if let Some(v) = &mut current {
            v.body.retain(|k, _| fields.contains(&k.as_str()));
        }
        Ok(current)
    }
    /// The current version of a document with its body as the backend keeps it (SQLite's
    /// JSONB bytes), for a caller that reads or prints it without building it whole; a backend
    /// that keeps bodies as JSON values answers [`current`](Self::current)'s. What of it a
    /// caller may see, and how it prints, is decided above this seam
    /// (`documents::printed`).
    fn current_raw(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Option<RawVersion>> {
        Ok(self.current(coll, scope, id)?.map(RawVersion::from))
    }
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
    /// Current versions in the scopes that match the query, paged, with the total. Filters and
    /// sorts read the body with the version's system fields (`_oid _version _timestamp _user
    /// _tag`) added, and mean what `Filter::matches` means.
    fn list(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
    ) -> Result<Page<StoredVersion>> {
        self.list_after(coll, scopes, query, None)
    }
    /// [`list`](DocumentRead::list), starting after a cursor when one is given: the page holds
    /// the matching documents that sort after the cursor's keys and id (`query.paging.skip`
    /// still applies after it), and the total counts every matching document, before the
    /// cursor as well.
    fn list_after(
        &self,
        coll: Collection,
        scopes: &[Scope],
        query: &ListQuery,
        after: Option<&Cursor>,
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
    /// The kinds of the values found at a dotted path among the current documents of the
    /// scopes, each once, in [`FieldKind`] order.
    fn field_kinds(&self, coll: Collection, scopes: &[Scope], path: &str)
        -> Result<Vec<FieldKind>>;
}

/// Writes of versioned documents.
pub trait DocumentWrite: DocumentRead {
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
    /// Stores a new version and makes it current: [`put_version`](Self::put_version), then
    /// [`set_current`](Self::set_current) of its number (a backend may do both in fewer
    /// statements, with the same outcome). `replaces` is the number of the version current
    /// until now, as read in this transaction (`None`: the document has no current version),
    /// so a backend need not look for it again.
    fn put_current(
        &mut self,
        coll: Collection,
        scope: &Scope,
        version: &StoredVersion,
        replaces: Option<u32>,
    ) -> Result<()> {
        let _ = replaces;
        self.put_version(coll, scope, version)?;
        self.set_current(coll, scope, &version.id, Some(version.version))
    }
    /// Makes the indexes of the objects of a type defined in `scope` those of `fields` (dotted
    /// paths the core checked): each field's index serves exact filters, ranges and sorts on it
    /// in lists of objects of exactly that `_type`, and is built here over the objects already
    /// stored; indexes of fields no longer named are dropped (all of them for no fields).
    fn set_type_indexes(&mut self, scope: &Scope, type_name: &str, fields: &[String])
        -> Result<()>;
    /// Points a tag at a version, taking it from any other version of the document.
    fn set_tag(
        &mut self,
        coll: Collection,
        scope: &Scope,
        id: &str,
        tag: &str,
        version: u32,
    ) -> Result<()>;
}

/// The names of per-type indexes ([`DocumentWrite::set_type_indexes`]): `heads_x_`, a hash of
/// the type's scope and name, `_`, a hash of the field (FNV-1a, 64 bits, in hex). Every index
/// of a type starts with [`type_index_prefix`].
pub fn type_index_name(scope: &Scope, type_name: &str, field: &str) -> String {
    format!(
        "{}{:016x}",
        type_index_prefix(scope, type_name),
        crate::hash::fnv1a(field.as_bytes())
    )
}

/// The start of the names of the per-type indexes of a type.
pub fn type_index_prefix(scope: &Scope, type_name: &str) -> String {
    let key = [
        scope.tenant.as_bytes(),
        scope.env.as_bytes(),
        type_name.as_bytes(),
    ]
    .join(&0u8);
    format!("heads_x_{:016x}_", crate::hash::fnv1a(&key))
}

/// The audit trail of deletions of documents.
pub trait AuditRead {
    /// The audit trail of one document, oldest first.
    fn audit(&self, coll: Collection, scope: &Scope, id: &str) -> Result<Vec<AuditEntry>>;
}

/// Appends to the audit trail.
pub trait AuditWrite: AuditRead {
    /// Appends an entry to the audit trail of a document.
    fn append_audit(&mut self, coll: Collection, scope: &Scope, entry: &AuditEntry) -> Result<()>;
}

/// Time series (chunks of observations) and curves (one per ondate) of objects' data
/// properties. A row is visible at the object versions it was written for, until a later
/// version replaced it.
pub trait DataRead {
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
    /// The ondates nearest `ondate` that have a curve visible at a version: the latest before
    /// it and the earliest after it (neither is `ondate` itself).
    fn nearest_ondates(
        &self,
        key: &DataKey,
        version: u32,
        ondate: &str,
    ) -> Result<(Option<String>, Option<String>)>;
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
}

/// Writes of series and curves.
pub trait DataWrite: DataRead {
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
}

/// Validation records, kept in chunks (see `validation::records`).
pub trait RecordRead {
    /// Chunks of validation records of a scope: of some targets (all when None), holding keys
    /// in `keys` (inclusive, any when None) or starting in `buckets` (inclusive), by target
    /// and bucket.
    fn record_chunks(
        &self,
        scope: &Scope,
        targets: Option<&[String]>,
        keys: Option<(i64, i64)>,
        buckets: Option<(i64, i64)>,
    ) -> Result<Vec<RecordChunkRow>>;
    /// The targets with records whose ids could start with `<target>:` of this id.
    fn record_targets_of(&self, scope: &Scope, id: &str) -> Result<Vec<String>>;
}

/// Writes of validation records.
pub trait RecordWrite: RecordRead {
    /// Creates or overwrites a chunk of validation records (deletes it when it holds none).
    fn put_record_chunk(&mut self, scope: &Scope, row: &RecordChunkRow) -> Result<()>;
}

/// Background jobs, and the workers that run them.
pub trait JobRead {
    /// One background job (the contract suite reads it).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    fn job(&self, scope: &Scope, id: &str) -> Result<Option<Job>>;
    /// The background jobs of a scope, newest first.
    fn jobs(&self, scope: &Scope) -> Result<Vec<Job>>;
    /// The jobs with a status in every scope, oldest first, with their scopes.
    fn jobs_with_status(&self, status: JobStatus) -> Result<Vec<(Scope, Job)>>;
    /// The background workers last seen at or after `since`, by id.
    fn workers_seen_since(&self, since: DateTime<Utc>) -> Result<Vec<Worker>>;
}

/// Writes of jobs, the claim of the next one, and workers' heartbeats.
pub trait JobWrite: JobRead {
    /// Creates or overwrites a background job (its id is unique across scopes).
    fn put_job(&mut self, scope: &Scope, job: &Job) -> Result<()>;
    /// Claims the oldest `queued` job of any scope whose `not_before` (if any) is at or before
    /// `now`: it becomes `running`, started at `now`, and is answered with its scope. Two
    /// transactions never claim the same job.
    fn claim_job(&mut self, now: DateTime<Utc>) -> Result<Option<(Scope, Job)>>;
    /// Records that a worker is alive (inserting it when new, else updating `seen` only).
    fn worker_seen(&mut self, worker: &Worker) -> Result<()>;
    /// Removes a worker that stopped.
    fn worker_gone(&mut self, id: &str) -> Result<()>;
}

/// Automations, the deliveries of events to them (the outbox), the automation log and the
/// mail outbox.
pub trait OutboxRead {
    /// One automation of a scope.
    fn automation(&self, scope: &Scope, id: &str) -> Result<Option<Automation>>;
    /// The automations of a scope, by id.
    fn automations(&self, scope: &Scope) -> Result<Vec<Automation>>;
    /// The automations of every scope, with their scopes, by scope and id (for events on
    /// public items).
    fn all_automations(&self) -> Result<Vec<(Scope, Automation)>>;
    /// The `pending` deliveries due at `now` (`next_at <= now`), in the order they fell due
    /// (`next_at`, then `seq`), skipping `skip` and answering at most `limit`.
    fn due_deliveries(&self, now: DateTime<Utc>, skip: u64, limit: u64) -> Result<Vec<Delivery>>;
    /// The `seq` of the earliest unfinished (`pending` or `running`) delivery of an item to an
    /// automation.
    fn earliest_unfinished(
        &self,
        scope: &Scope,
        automation: &str,
        item: &str,
    ) -> Result<Option<i64>>;
    /// The deliveries with a status (any scope), oldest first.
    fn deliveries(&self, status: DeliveryStatus) -> Result<Vec<Delivery>>;
    /// Automation log entries of a scope, newest first, with the total before paging.
    fn automation_log(&self, scope: &Scope, filter: &LogFilter) -> Result<Page<LogEntry>>;
    /// Emails kept in the mail outbox of a scope, newest first, with the total before paging.
    fn mails(&self, scope: &Scope, skip: u64, limit: Option<u64>) -> Result<Page<MailEntry>>;
}

/// Writes of automations, deliveries, the log and the mail outbox.
pub trait OutboxWrite: OutboxRead {
    /// Creates or overwrites an automation.
    fn put_automation(&mut self, scope: &Scope, automation: &Automation) -> Result<()>;
    /// Deletes an automation; returns whether it existed.
    fn delete_automation(&mut self, scope: &Scope, id: &str) -> Result<bool>;
    /// Stores a new delivery (its `seq` is ignored): it is given a `seq` larger than that of
    /// every delivery committed before it (and of every earlier one of its transaction).
    fn add_delivery(&mut self, delivery: &Delivery) -> Result<()>;
    /// Updates the status, attempts, due time and event of a stored delivery.
    fn update_delivery(&mut self, delivery: &Delivery) -> Result<()>;
    /// Claims a `pending` delivery: it becomes `running` with one more attempt, and is
    /// answered; `None` when it is not `pending` (any more). Two transactions never both claim
    /// one delivery.
    fn claim_delivery(&mut self, seq: i64) -> Result<Option<Delivery>>;
    /// Removes a finished delivery (the automation log keeps its history).
    fn delete_delivery(&mut self, seq: i64) -> Result<()>;
    /// Appends an entry to the automation log of a scope.
    fn append_log(&mut self, scope: &Scope, entry: &LogEntry) -> Result<()>;
    /// Keeps an email in the mail outbox of a scope.
    fn append_mail(&mut self, scope: &Scope, mail: &MailEntry) -> Result<()>;
}

/// Tenants, their environments, users, grants and tokens.
pub trait TenancyRead {
    /// How many tenants exist.
    fn tenant_count(&self) -> Result<u64>;
    /// How many users (of any tenant) hold a role.
    fn users_with_role(&self, role: Role) -> Result<u64>;
    /// The tokens of a tenant (of every tenant when `None`), by tenant, user and creation.
    fn tokens(&self, tenant: Option<&str>) -> Result<Vec<TokenListing>>;
    /// The environments of a tenant, by name.
    fn environments(&self, tenant: &str) -> Result<Vec<Environment>>;
    /// Whether the tenant has this environment.
    fn environment_exists(&self, tenant: &str, env: &str) -> Result<bool>;
    /// The token with this hash, if any.
    fn token(&self, hash: &str) -> Result<Option<TokenRecord>>;
    /// Whether the user exists.
    fn user_exists(&self, tenant: &str, user: &str) -> Result<bool>;
    /// The grants of a user, data-access roles first, each kind by name.
    fn grants(&self, tenant: &str, user: &str) -> Result<Vec<Grant>>;
    /// The authentication epoch: a counter raised in the transaction of every change to
    /// tenants, environments, users, grants or tokens (by the schema's triggers).
    fn auth_epoch(&self) -> Result<u64>;
}

/// Writes of tenants, environments, users, grants and tokens.
pub trait TenancyWrite: TenancyRead {
    /// Creates a tenant (with its `production` environment) unless it exists.
    fn ensure_tenant(&mut self, tenant: &str, now: DateTime<Utc>) -> Result<()>;
    /// Creates an environment; false when it already existed.
    fn create_environment(&mut self, tenant: &str, env: &str, now: DateTime<Utc>) -> Result<bool>;
    /// Creates a user or changes its role.
    fn upsert_user(
        &mut self,
        tenant: &str,
        user: &str,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<()>;
    /// Adds (`on`) or removes a grant of an existing user; returns whether anything changed.
    fn set_grant(&mut self, tenant: &str, user: &str, grant: &Grant, on: bool) -> Result<bool>;
    /// Stores a token hash for an existing user.
    fn insert_token(
        &mut self,
        hash: &str,
        tenant: &str,
        user: &str,
        now: DateTime<Utc>,
    ) -> Result<()>;
    /// Revokes tokens; returns how many were active.
    fn revoke_tokens(&mut self, which: &TokenSelector, now: DateTime<Utc>) -> Result<u64>;
}

/// Secrets: metadata in clear, values sealed by the core.
pub trait SecretRead {
    /// One secret of a scope.
    fn secret(&self, scope: &Scope, id: &str) -> Result<Option<SecretRow>>;
    /// Every secret of a scope, by id.
    fn secrets(&self, scope: &Scope) -> Result<Vec<SecretRow>>;
}

/// Writes of secrets.
pub trait SecretWrite: SecretRead {
    /// Creates or overwrites a secret.
    fn put_secret(&mut self, scope: &Scope, row: &SecretRow) -> Result<()>;
    /// Deletes a secret; returns whether it existed.
    fn delete_secret(&mut self, scope: &Scope, id: &str) -> Result<bool>;
}

/// A consistent read-only view of the store: every read capability, on one snapshot.
pub trait ReadTx:
    DocumentRead
    + AuditRead
    + DataRead
    + RecordRead
    + JobRead
    + OutboxRead
    + TenancyRead
    + SecretRead
    + ReadAhead
{
}

impl<T> ReadTx for T where
    T: DocumentRead
        + AuditRead
        + DataRead
        + RecordRead
        + JobRead
        + OutboxRead
        + TenancyRead
        + SecretRead
        + ReadAhead
        + ?Sized
{
}

/// A unit of work over every capability; nothing is visible to others until
/// [`WriteTx::commit`], and dropping it uncommitted changes nothing. Write transactions
/// serialise on what they hold ([`WriteTx::hold`]): two that each hold a document, read its
/// current version and store the next one never store the same number (the second waits for
/// the first and sees its commit). Transactions that hold nothing in common run side by side.
pub trait WriteTx:
    ReadTx
    + DocumentWrite
    + AuditWrite
    + DataWrite
    + RecordWrite
    + JobWrite
    + OutboxWrite
    + TenancyWrite
    + SecretWrite
{
    /// Holds `what` until this transaction ends (see [`Hold`]), waiting while another write
    /// transaction holds any of it. Writes of documents, data, records, automations and
    /// secrets fail unless what they change is held. A backend whose write transactions run
    /// one at a time has nothing to wait for, but still keeps what is held.
    fn hold(&mut self, what: &[Hold<'_>]) -> Result<()>;
    /// Makes every write of this transaction durable and visible.
    fn commit(self: Box<Self>) -> Result<()>;
}

/// A job or delivery a worker of this process claimed ([`JobWrite::claim_job`],
/// [`OutboxWrite::claim_delivery`]), for [`Store::claim_ended`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Claim {
    /// A job, by id.
    Job(String),
    /// A delivery, by `seq`.
    Delivery(i64),
}

/// A storage backend.
pub trait Store: Send + Sync {
    /// Starts a read-only transaction.
    fn read(&self) -> Result<Box<dyn ReadTx + '_>>;
    /// Starts a write transaction.
    fn write(&self) -> Result<Box<dyn WriteTx + '_>>;
    /// The authentication epoch (`TenancyRead::auth_epoch`) as of now, read as cheaply as the
    /// store can (each authenticated request reads it).
    fn auth_epoch(&self) -> Result<u64> {
        self.read()?.auth_epoch()
    }
    /// The current version of a document (`DocumentRead::current`) read on its own, as
    /// cheaply as the store can (a read of a document by id is the most common request).
    fn current_document(
        &self,
        coll: Collection,
        scope: &Scope,
        id: &str,
    ) -> Result<Option<StoredVersion>> {
        self.read()?.current(coll, scope, id)
    }
    /// Flushes and closes what can be closed (checkpoint); the store stays usable.
    fn close(&self) -> Result<()> {
        Ok(())
    }
    /// Whether the database lives in this process (an embedded file): a read then waits on
    /// nothing but the memory and disk of this machine, and a short one may run on a thread that
    /// must not wait (see `NoWait`).
    fn in_process(&self) -> bool {
        false
    }
    /// Whether other processes may serve the same database at once (several servers over one
    /// PostgreSQL). Then work a stopped process left running comes back through the store's
    /// leases on its claims, never through a requeue when a process starts (which would take
    /// work from a live one).
    fn shared(&self) -> bool {
        false
    }

    /// The read replicas this store sends reads to ([`ReplicaReads`]), and how each is doing;
    /// none for a store without.
    fn replicas(&self) -> Vec<ReplicaStatus> {
        Vec::new()
    }

    /// Whether the database answered at the last check and how the pool of connections to it
    /// is doing; `None` for a store in this process (an embedded file).
    fn status(&self) -> Option<DatabaseStatus> {
        None
    }

    /// This process's work on a claim it made ended (finished, failed, or given up). A store
    /// whose claims carry a lease renews the lease of a claim from its commit until then, and
    /// no longer: were the end itself not recorded (the database lost meanwhile), the lease
    /// runs out and another worker takes the claim again (at least once). Nothing to do for a
    /// store of one process, whose interrupted claims are queued again at start.
    fn claim_ended(&self, claim: &Claim) {
        let _ = claim;
    }

    /// A realtime sink reaching the live subscribers of every process serving this database,
    /// each through its own `local` sink. A store only one process serves answers `local`.
    fn realtime_across(
        &self,
        local: std::sync::Arc<dyn crate::realtime::Realtime>,
    ) -> std::sync::Arc<dyn crate::realtime::Realtime> {
        local
    }

    /// Writes a consistent copy of the whole database to the new file `to` (mode 0600) while
    /// writers go on: the copy holds every transaction committed before it began. A backend
    /// kept elsewhere (a database server) is backed up with that server's own tools.
    fn backup(&self, to: &std::path::Path) -> Result<()> {
        let _ = to;
        Err(crate::error::Error::invalid_parameter(
            "this database is backed up with its own tools, not by the platform",
        ))
    }
}

thread_local! {
    static NO_WAIT: Cell<bool> = const { Cell::new(false) };
}

/// While alive, this thread's store calls must not wait: a read takes a connection only if one
/// is free at once, and a write is refused; either way the call fails with an error that
/// [`crate::Error::is_would_wait`] recognises, and nothing was read or written. An async server
/// runs a short read on its event loop this way, and on a blocking thread when it would wait.
pub struct NoWait {
    before: bool,
}

impl NoWait {
    /// Marks this thread until the value is dropped.
    pub fn enter() -> NoWait {
        NoWait {
            before: NO_WAIT.with(|w| w.replace(true)),
        }
    }

    /// Whether this thread must not wait now.
    pub fn active() -> bool {
        NO_WAIT.with(Cell::get)
    }
}

impl Drop for NoWait {
    fn drop(&mut self) {
        NO_WAIT.with(|w| w.set(self.before));
    }
}
