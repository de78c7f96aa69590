//! The platform engine: versioned master data, tenants and tokens, and every rule of the
//! services, over a storage-agnostic repository (SQLite or PostgreSQL). [`api::embedding`] shows
//! how a program embeds it.
//!
//! A [`Platform`] is the one entry point. The HTTP server and the CLI are thin faces over it; a
//! Rust program can embed it directly, calling each service through its handle ([`api`]:
//! `platform.objects()`, `.data()`, `.validation()`, `.automations()`, `.tenancy()`...):
//!
//! ```
//! use platform_core::{api::objects::Object, Platform};
//!
//! let platform = Platform::in_memory()?;
//! let admin = platform.tenancy().local_principal("default", "admin")?;
//! platform.objects().save_object(&admin, &Object::new("GB").with("name", "Britain"), &Default::default())?;
//! let gb = platform.objects().object(&admin, "GB")?;
//! assert_eq!((gb.version, gb.properties["name"].as_str()), (Some(1), Some("Britain")));
//! # Ok::<(), platform_core::Error>(())
//! ```
//!
//! `examples/embed.rs` at the root of the repository is a whole embedding program.
#![deny(missing_docs)]
// Every type a public signature reaches can be named by the program that calls it.
#![deny(unnameable_types)]

/// Methods public for the project's own tests, benches and fuzz targets (the `internals`
/// feature) and private to the crate otherwise: a method of a type `api` names whose arguments
/// or answer are the engine's own types, which a program cannot name.
macro_rules! internal {
    ($(#[$meta:meta])* fn $($rest:tt)*) => {
        #[cfg(feature = "internals")]
        $(#[$meta])*
        pub fn $($rest)*
        #[cfg(not(feature = "internals"))]
        $(#[$meta])*
        #[allow(dead_code)]
        pub(crate) fn $($rest)*
    };
}

pub mod api;
// The modules of the engine: private to the crate, so that a program names only `api` and the
// errors. The `internals` feature makes them public for the project's own tests, benches and
// fuzz targets, which test rules below the API. Each is declared twice, in plain sight (not by
// a macro, where rustfmt would not see them).
#[cfg(feature = "internals")]
pub mod auth;
#[cfg(not(feature = "internals"))]
mod auth;
#[cfg(feature = "internals")]
pub mod calendars;
#[cfg(not(feature = "internals"))]
mod calendars;
#[cfg(feature = "internals")]
pub mod clock;
#[cfg(not(feature = "internals"))]
mod clock;
#[cfg(feature = "internals")]
pub mod convert;
#[cfg(not(feature = "internals"))]
mod convert;
#[cfg(feature = "internals")]
pub mod data;
#[cfg(not(feature = "internals"))]
mod data;
#[cfg(feature = "internals")]
pub mod documents;
#[cfg(not(feature = "internals"))]
mod documents;
#[cfg(feature = "internals")]
pub mod error;
#[cfg(not(feature = "internals"))]
mod error;
#[cfg(feature = "internals")]
pub mod events;
#[cfg(not(feature = "internals"))]
mod events;
#[cfg(feature = "internals")]
pub mod extensions;
#[cfg(not(feature = "internals"))]
mod extensions;
#[cfg(feature = "internals")]
pub mod format;
#[cfg(not(feature = "internals"))]
mod format;
#[cfg(feature = "internals")]
pub mod hash;
#[cfg(not(feature = "internals"))]
mod hash;
#[cfg(feature = "internals")]
pub mod holidays;
#[cfg(not(feature = "internals"))]
mod holidays;
#[cfg(feature = "internals")]
pub mod ids;
#[cfg(not(feature = "internals"))]
mod ids;
#[cfg(feature = "internals")]
pub mod json;
#[cfg(not(feature = "internals"))]
mod json;
#[cfg(feature = "internals")]
pub mod observations;
#[cfg(not(feature = "internals"))]
mod observations;
#[cfg(feature = "internals")]
pub mod outbound;
#[cfg(not(feature = "internals"))]
mod outbound;
#[cfg(feature = "internals")]
pub mod query;
#[cfg(not(feature = "internals"))]
mod query;
#[cfg(feature = "internals")]
pub mod realtime;
#[cfg(not(feature = "internals"))]
mod realtime;
#[cfg(feature = "internals")]
pub mod save;
#[cfg(not(feature = "internals"))]
mod save;
#[cfg(feature = "internals")]
pub mod script;
#[cfg(not(feature = "internals"))]
mod script;
#[cfg(feature = "internals")]
pub mod scripts;
#[cfg(not(feature = "internals"))]
mod scripts;
#[cfg(feature = "internals")]
pub mod seal;
#[cfg(not(feature = "internals"))]
mod seal;
#[cfg(feature = "internals")]
pub mod secrets;
#[cfg(not(feature = "internals"))]
mod secrets;
#[cfg(feature = "internals")]
pub mod services;
#[cfg(not(feature = "internals"))]
mod services;
#[cfg(feature = "internals")]
pub mod store;
#[cfg(not(feature = "internals"))]
mod store;
#[cfg(feature = "internals")]
pub mod templates;
#[cfg(not(feature = "internals"))]
mod templates;
#[cfg(feature = "internals")]
pub mod tenancy;
#[cfg(not(feature = "internals"))]
mod tenancy;
#[cfg(feature = "internals")]
pub mod types;
#[cfg(not(feature = "internals"))]
mod types;
#[cfg(feature = "internals")]
pub mod validation;
#[cfg(not(feature = "internals"))]
mod validation;

pub use error::{Error, ErrorCode, Result};

/// The Rust block of the README ("Embedding in a Rust program") runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

use clock::{Clock, SystemClock};
use std::sync::Arc;
use store::{ReadTx, Store, WriteTx};

/// The engine. Cheap to clone; every clone shares the store and the clock.
#[derive(Clone)]
pub struct Platform {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    secret_key: Option<Arc<seal::SecretKey>>,
    realtime: Option<Arc<dyn realtime::Realtime>>,
    delivery: Arc<outbound::DeliverySettings>,
    outbound: Option<Arc<dyn outbound::Outbound>>,
    script_limits: script::ScriptLimits,
    /// Authenticated tokens (see [`auth::TokenCache`]).
    tokens: Arc<auth::TokenCache>,
}

/// A read transaction a call was given, or one it began itself ([`Platform::read_in`]).
pub(crate) enum ReadIn<'a> {
    Given(&'a dyn ReadTx),
    Own(Box<dyn ReadTx + 'a>),
}

impl<'a> std::ops::Deref for ReadIn<'a> {
    type Target = dyn ReadTx + 'a;
    fn deref(&self) -> &Self::Target {
        match self {
            ReadIn::Given(tx) => *tx,
            ReadIn::Own(tx) => tx.as_ref(),
        }
    }
}

/// A read transaction for the reads of one request (see [`Platform::snapshot`]).
pub struct Snapshot<'a> {
    platform: &'a Platform,
    tx: Box<dyn ReadTx + 'a>,
}

impl Snapshot<'_> {
    pub(crate) fn tx(&self) -> &dyn ReadTx {
        self.tx.as_ref()
    }
}

impl std::fmt::Debug for Snapshot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform").finish_non_exhaustive()
    }
}

impl Platform {
    /// A platform over a store of the engine's own, reading time from a clock, sealing secrets
    /// with a fresh random key (see [`Platform::with_secret_key`] to keep secrets readable
    /// across restarts). For the project's own tests of stores; a program opens a platform
    /// with [`Platform::open`], [`Platform::in_memory`] or `Platform::open_postgres`.
    #[cfg(feature = "internals")]
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Platform {
        Platform::over(store, clock)
    }

    /// A platform over `store`, reading time from `clock` (see [`Platform::new`]).
    pub(crate) fn over(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Platform {
        // Without randomness no key can be made; such a platform refuses every secret call.
        let key = seal::SecretKey::generate().ok();
        let platform = Platform {
            store,
            clock,
            secret_key: key.map(Arc::new),
            realtime: None,
            delivery: Arc::new(outbound::DeliverySettings::default()),
            outbound: None,
            script_limits: script::ScriptLimits::default(),
            tokens: Arc::default(),
        };
        if let Err(e) = platform.seed_builtins() {
            tracing::warn!(error = %e, "cannot store the built-in scripts");
        }
        if let Err(e) = platform.seed_calendars() {
            tracing::warn!(error = %e, "cannot store the built-in holiday calendars");
        }
        platform
    }

    /// The same platform reading the time from `clock` from now on (a [`api::FixedClock`] in a
    /// test makes every timestamp, expiry and `today` rule answer the same on every run). What
    /// was stored before keeps its times: the built-in scripts and holiday calendars an open
    /// stores carry the time of the open.
    ///
    /// ```
    /// use platform_core::{api::FixedClock, Platform};
    /// use chrono::{TimeZone, Utc};
    /// let at = Utc.with_ymd_and_hms(2024, 10, 27, 0, 0, 0).unwrap();
    /// let platform = Platform::in_memory()?.with_clock(std::sync::Arc::new(FixedClock::new(at)));
    /// assert_eq!(platform.now(), at);
    /// # Ok::<(), platform_core::Error>(())
    /// ```
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Platform {
        Platform { clock, ..self }
    }

    /// The same platform publishing realtime messages to `sink`.
    /// On a database several processes serve, the sink reaches the subscribers of all of them
    /// (each process attaches its own).
    pub fn with_realtime(self, sink: Arc<dyn realtime::Realtime>) -> Platform {
        Platform {
            realtime: Some(self.store.realtime_across(sink)),
            ..self
        }
    }

    /// The same platform giving each script call these budgets (writes and time).
    pub fn with_script_limits(self, limits: script::ScriptLimits) -> Platform {
        Platform {
            script_limits: limits,
            ..self
        }
    }

    /// The budgets of one script call.
    pub fn script_limits(&self) -> script::ScriptLimits {
        self.script_limits
    }

    /// The same platform sealing secrets with `key`.
    pub fn with_secret_key(self, key: seal::SecretKey) -> Platform {
        Platform {
            secret_key: Some(Arc::new(key)),
            ..self
        }
    }

    /// The fingerprint of the key that seals secrets ([`seal::SecretKey::fingerprint`]), when
    /// the platform has one: it names the key in messages without telling it.
    pub fn key_fingerprint(&self) -> Option<String> {
        self.secret_key.as_ref().map(|k| k.fingerprint())
    }

    /// A platform on the SQLite database file at `path` (created if absent), sealing secrets
    /// with the key in the file `<path>.key` (created with mode 0600 if absent).
    #[cfg(feature = "sqlite")]
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Platform> {
        let path = path.as_ref();
        let mut key_path = path.as_os_str().to_owned();
        key_path.push(".key");
        let key = seal::SecretKey::load_or_create(std::path::Path::new(&key_path))?;
        let store = store::sqlite::SqliteStore::open(path)?;
        Ok(Platform::over(Arc::new(store), Arc::new(SystemClock)).with_secret_key(key))
    }

    /// A platform on the SQLite database file at `path`, which must exist (`NOT_FOUND`
    /// otherwise, and nothing is created): for tools that read a database rather than make one.
    #[cfg(feature = "sqlite")]
    pub fn open_existing(path: impl AsRef<std::path::Path>) -> Result<Platform> {
        let path = path.as_ref();
        Platform::check_existing(path)?;
        Platform::open(path)
    }

    /// Fails unless `path` is an existing file.
    #[cfg(feature = "sqlite")]
    fn check_existing(path: &std::path::Path) -> Result<()> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(_) => Err(Error::invalid_parameter(format!(
                "{} is not a database file",
                path.display()
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::not_found(format!(
                "database file {} does not exist",
                path.display()
            ))),
            Err(e) => Err(Error::invalid_parameter(format!(
                "cannot read {}: {e}",
                path.display()
            ))),
        }
    }

    /// A platform on a PostgreSQL database (`postgres://user@host:port/database`), sealing
    /// secrets with the key in `key_file`: every server of one database must use the same key
    /// file. The database records the fingerprint of the first key it is opened with, and an
    /// open with another key is refused ([`ErrorCode::Conflict`], naming both fingerprints); a
    /// missing key file is refused too, unless the open initialises the database
    /// (`PgOptions::init`, as `platform init` does), which makes it (mode 0600). An
    /// unreachable database is [`Error::Unavailable`] naming it.
    /// Claims of jobs and deliveries last `lease` unless renewed (a killed server's claims are
    /// taken over by the others after it; `store::postgres::DEFAULT_LEASE` by default).
    #[cfg(feature = "postgres")]
    pub fn open_postgres(
        url: &str,
        key_file: impl AsRef<std::path::Path>,
        lease: std::time::Duration,
    ) -> Result<Platform> {
        let options = store::postgres::PgOptions {
            lease,
            ..Default::default()
        };
        Platform::open_postgres_with(url, key_file, &options)
    }

    /// [`Platform::open_postgres`] as `options` say (its schema, claim lease and read
    /// replicas).
    #[cfg(feature = "postgres")]
    pub fn open_postgres_with(
        url: &str,
        key_file: impl AsRef<std::path::Path>,
        options: &store::postgres::PgOptions,
    ) -> Result<Platform> {
        let key_file = key_file.as_ref();
        // The key file first: without one, nothing of the database is made or changed.
        let found = seal::SecretKey::load(key_file)?;
        if found.is_none() && !options.init {
            return Err(Error::invalid_parameter(format!(
                "no key file {}: the secret key of a PostgreSQL database is made once, by \
                 `platform init --db {} --key-file FILE`, and that file is given to every \
                 server and command that opens the database (--key-file)",
                key_file.display(),
                store::postgres::redact(url)
            )));
        }
        let store = store::postgres::PgStore::open_with(url, options).map_err(|e| match e {
            Error::Unavailable(cause) => {
                // The whole chain: the client's own message rarely says why.
                let mut why = cause.to_string();
                let mut next = cause.source();
                while let Some(e) = next {
                    why.push_str(&format!(": {e}"));
                    next = e.source();
                }
                Error::Unavailable(
                    format!(
                        "cannot reach the PostgreSQL database {}: {why}",
                        store::postgres::redact(url)
                    )
                    .into(),
                )
            }
            other => other,
        })?;
        let key = database_key(&store, url, key_file, found)?;
        Ok(Platform::over(Arc::new(store), Arc::new(SystemClock)).with_secret_key(key))
    }

    /// A platform on `db`: a PostgreSQL URL ([`Platform::open_postgres`], with `key_file` or
    /// `platform.key` in the working directory, and claims lasting `lease` or the default), or
    /// a SQLite database file, created when `create` and absent (else it must exist), its key
    /// in `key_file` or beside it.
    #[cfg(all(feature = "sqlite", feature = "postgres"))]
    pub fn open_database(
        db: &str,
        key_file: Option<&std::path::Path>,
        create: bool,
        lease: Option<std::time::Duration>,
    ) -> Result<Platform> {
        let options = store::postgres::PgOptions {
            lease: lease.unwrap_or(store::postgres::DEFAULT_LEASE),
            ..Default::default()
        };
        Platform::open_database_with(db, key_file, create, &options)
    }

    /// [`Platform::open_database`], a PostgreSQL database opened as `options` say (read
    /// replicas are an error with a SQLite file).
    #[cfg(all(feature = "sqlite", feature = "postgres"))]
    pub fn open_database_with(
        db: &str,
        key_file: Option<&std::path::Path>,
        create: bool,
        options: &store::postgres::PgOptions,
    ) -> Result<Platform> {
        if store::postgres::is_url(db) {
            let key = key_file.unwrap_or(std::path::Path::new("platform.key"));
            let options = store::postgres::PgOptions {
                create: create && options.create,
                ..options.clone()
            };
            return Platform::open_postgres_with(db, key, &options);
        }
        if !options.read_replicas.is_empty() {
            return Err(Error::invalid_parameter(
                "read replicas serve a PostgreSQL database: give --db a postgres:// URL",
            ));
        }
        if options.pooler != store::postgres::PgPooler::None || options.listen_url.is_some() {
            return Err(Error::invalid_parameter(
                "--pg-pooler and --pg-listen-db are for a PostgreSQL database: give --db a \
                 postgres:// URL",
            ));
        }
        let path = std::path::Path::new(db);
        if !create {
            // Refuses a missing file before anything is created.
            Platform::check_existing(path)?;
        }
        match key_file {
            None => Platform::open(path),
            Some(key_file) => {
                let key = seal::SecretKey::load_or_create(key_file)?;
                let store = store::sqlite::SqliteStore::open(path)?;
                Ok(Platform::over(Arc::new(store), Arc::new(SystemClock)).with_secret_key(key))
            }
        }
    }

    /// A platform on a fresh in-memory SQLite database.
    #[cfg(feature = "sqlite")]
    pub fn in_memory() -> Result<Platform> {
        Ok(Platform::over(
            Arc::new(store::sqlite::SqliteStore::open_in_memory()?),
            Arc::new(SystemClock),
        ))
    }

    /// The current instant by the platform's clock.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// The read replicas of the database and how each is doing (none for a database without).
    pub fn replicas(&self) -> Vec<store::ReplicaStatus> {
        self.store.replicas()
    }

    /// Whether the database answered at the last check and how its pool of connections is
    /// doing (`None` for an embedded file).
    pub fn database_status(&self) -> Option<store::DatabaseStatus> {
        self.store.status()
    }

    /// Whether the database answers: one read transaction and one query (a readiness probe).
    pub fn ping(&self) -> Result<()> {
        self.read()?.tenant_count().map(|_| ())
    }

    /// Writes a consistent copy of the database to the new file `to` (mode 0600) while writers
    /// go on: the copy holds every transaction committed before it began. A PostgreSQL
    /// database is backed up with PostgreSQL's own tools (this refuses). The secret key file
    /// is the caller's to copy beside it.
    pub fn backup(&self, to: &std::path::Path) -> Result<()> {
        self.store.backup(to)
    }

    /// Flushes the store (call on shutdown).
    pub fn close(&self) -> Result<()> {
        self.store.close()
    }

    /// Runs `f` on this thread if it can run without waiting for the database: the store
    /// lives in this process, and a connection is free at once for each read `f` makes (a
    /// write is refused). `None` when it could not run so, with nothing read or written; the
    /// caller then runs it where waiting is fine. For short reads on a thread that must stay
    /// responsive (an async server's event loop).
    pub fn try_without_waiting<T>(
        &self,
        f: impl FnOnce(&Platform) -> Result<T>,
    ) -> Option<Result<T>> {
        if !self.store.in_process() {
            return None;
        }
        let _no_wait = store::NoWait::enter();
        match f(self) {
            Err(e) if e.is_would_wait() => None,
            out => Some(out),
        }
    }

    pub(crate) fn read(&self) -> Result<Box<dyn ReadTx + '_>> {
        self.store.read()
    }

    /// `tx` when given, else a read transaction of its own.
    pub(crate) fn read_in<'a>(&'a self, tx: Option<&'a dyn ReadTx>) -> Result<ReadIn<'a>> {
        Ok(match tx {
            Some(tx) => ReadIn::Given(tx),
            None => ReadIn::Own(self.store.read()?),
        })
    }

    /// One consistent view of the store for the few short reads of one request, made through
    /// its handles ([`Snapshot::tenancy`], [`Snapshot::objects`], [`Snapshot::data`]): its
    /// authentication and what it asks for (a document,
    /// the last observations of a series). Every read through it sees the same committed
    /// state, and an embedded database takes its read lock once for all of them, not once per
    /// read. Keep it for one request only: a writer cannot reclaim the log behind it while it
    /// lives, and on an in-memory database (one connection for reads and writes) a write on
    /// the thread that holds it would wait for it forever.
    pub fn snapshot(&self) -> Result<Snapshot<'_>> {
        Ok(Snapshot {
            platform: self,
            tx: self.store.read()?,
        })
    }

    /// Runs `f` in one write transaction, committing when it succeeds and rolling back otherwise.
    ///
    /// A transaction that meets a concurrent one it cannot be ordered with (on a database
    /// several servers write: a deadlock, a version another writer stored first; see
    /// [`Error::is_write_conflict`]) changed nothing, and `f` runs again in a new one, up to
    /// [`WRITE_TRIES`] times, after a short random pause; past them the call fails with
    /// [`Error::Unavailable`], nothing changed. So `f` must do the same work on every run: it
    /// reads what it needs through the transaction, and keeps what it was given.
    pub(crate) fn write<R>(&self, mut f: impl FnMut(&mut dyn WriteTx) -> Result<R>) -> Result<R> {
        let mut tries = 0;
        loop {
            tries += 1;
            let outcome = self.store.write().and_then(|mut tx| {
                // A caller authenticated from the token cache alone: the epoch read with the
                // transaction's first reads, and found unchanged before it commits.
                let expected = store::expected_epoch::pending();
                if expected.is_some() {
                    tx.read_ahead(&[store::Ahead::AuthEpoch])?;
                }
                let out = f(tx.as_mut())?;
                if let Some(epoch) = expected {
                    store::expected_epoch::verify(tx.auth_epoch()?, epoch)?;
                }
                tx.commit()?;
                if expected.is_some() {
                    store::expected_epoch::confirm();
                }
                Ok(out)
            });
            match outcome {
                Err(e) if e.is_write_conflict() => {
                    metrics::counter!("platform_write_conflicts_total").increment(1);
                    if tries >= WRITE_TRIES {
                        return Err(Error::Unavailable(
                            format!(
                                "the write met concurrent writes {tries} times and gave up; nothing was changed ({e})"
                            )
                            .into(),
                        ));
                    }
                    tracing::debug!(error = %e, tries, "a write met a concurrent one; running it again");
                    std::thread::sleep(retry_pause(tries));
                }
                other => return other,
            }
        }
    }
}

/// A value a write needs whole on each of its tries ([`Platform::write`]): the first try takes
/// it, and a later one a copy made beforehand, only where writes can be tried again (a store
/// several servers write), so a store of one writer never copies it.
pub(crate) struct EachTry<T> {
    first: Option<T>,
    copy: Option<T>,
}

impl<T: Clone> EachTry<T> {
    pub(crate) fn new(platform: &Platform, value: T) -> EachTry<T> {
        EachTry {
            copy: platform.store.shared().then(|| value.clone()),
            first: Some(value),
        }
    }

    /// The value, for this try.
    pub(crate) fn get(&mut self) -> Result<T> {
        match self.first.take() {
            Some(v) => Ok(v),
            None => self.copy.clone().ok_or_else(|| {
                Error::Internal("a write was tried again on a store of one writer".into())
            }),
        }
    }
}

/// How many times a write transaction runs that keeps meeting concurrent ones before the call
/// gives up with [`Error::Unavailable`].
pub const WRITE_TRIES: u32 = 8;

/// The pause before try `tries + 1` of a write: about 1 ms doubled per try (at most 64 ms),
/// times a random factor between 0.5 and 1.5, so that writers that met do not meet again.
fn retry_pause(tries: u32) -> std::time::Duration {
    let base = 1u64 << tries.clamp(1, 7).saturating_sub(1);
    let mut seed = [0u8; 2];
    let jitter = match getrandom::getrandom(&mut seed) {
        Ok(()) => u64::from(u16::from_le_bytes(seed)),
        Err(_) => 32_768,
    };
    // base ms * (0.5 + jitter / 65536), in microseconds.
    std::time::Duration::from_micros(base * 500 + base * 1000 * jitter / 65_536)
}

/// The secret key of a PostgreSQL database: `found` in `key_file`, or else (an open that
/// initialises it) made there, mode 0600, when the database has no admin yet; checked against
/// the fingerprint the database recorded (recorded when it has none), so that no node starts
/// with another key.
#[cfg(feature = "postgres")]
fn database_key(
    store: &store::postgres::PgStore,
    url: &str,
    key_file: &std::path::Path,
    found: Option<seal::SecretKey>,
) -> Result<seal::SecretKey> {
    use store::postgres::KeyRecord;
    let shown = store::postgres::redact(url);
    let file = key_file.display();
    let (key, made) = match found {
        Some(key) => (key, false),
        None => {
            if store.read()?.users_with_role(auth::Role::Platform)? > 0 {
                return Err(Error::invalid_parameter(format!(
                    "no key file {file}: {shown} is initialised already, and its key is the \
                     file its servers use; copy that file here"
                )));
            }
            let key = seal::SecretKey::generate()?;
            match key.write_new(key_file) {
                Ok(()) => (key, true),
                // Made by another init at the same moment: that one is the key.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    (seal::SecretKey::load_or_create(key_file)?, false)
                }
                Err(e) => {
                    return Err(Error::invalid_parameter(format!(
                        "cannot write the key file {file}: {e}"
                    )))
                }
            }
        }
    };
    let fingerprint = key.fingerprint();
    let checked = store.check_key(&fingerprint);
    if made && !matches!(checked, Ok(KeyRecord::Recorded)) {
        // Not this database's key after all: the file made for it goes.
        let _ = std::fs::remove_file(key_file);
    }
    match checked? {
        KeyRecord::Recorded => {
            tracing::info!(%fingerprint, file = %file, "the database records this key as its own");
            Ok(key)
        }
        KeyRecord::Matches => Ok(key),
        KeyRecord::Differs(theirs) => Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "the key in {file} (fingerprint {fingerprint}) is not the key of {shown} \
                 (fingerprint {theirs}){}: start every server and command of this database with \
                 the key file `platform init` made for it",
                if made {
                    "; the key file made now was removed"
                } else {
                    ""
                }
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::SaveOptions;
    use crate::ids::Source;
    use crate::store::Collection;
    use serde_json::json;

    #[test]
    fn a_read_runs_without_waiting_and_a_write_is_left_for_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let platform = Platform::open(dir.path().join("p.db")).unwrap();
        let who = platform.tenancy().local_principal("t", "u").unwrap();
        let objects = platform.objects();
        let save = |id: &str| {
            objects.save(
                &who,
                Collection::Object,
                json!({"_id": id}),
                &SaveOptions::default(),
            )
        };
        save("A").unwrap();
        let got = platform
            .try_without_waiting(|p| {
                p.objects()
                    .get(&who, Collection::Object, Source::Private, "A", None, None)
            })
            .expect("a free reader")
            .unwrap();
        assert_eq!(got["_id"], "A");
        // Other errors are answers.
        let missing = platform
            .try_without_waiting(|p| {
                p.objects()
                    .get(&who, Collection::Object, Source::Private, "B", None, None)
            })
            .expect("ran");
        assert_eq!(missing.unwrap_err().code(), ErrorCode::NotFound);
        // A write would wait: not run, nothing written; it runs where waiting is fine.
        assert!(platform
            .try_without_waiting(|p| p.objects().save(
                &who,
                Collection::Object,
                json!({"_id": "B"}),
                &SaveOptions::default()
            ))
            .is_none());
        assert!(objects
            .get(&who, Collection::Object, Source::Private, "B", None, None)
            .is_err());
        save("B").unwrap();
    }
}
