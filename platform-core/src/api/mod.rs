//! The Rust API: the services of a [`Platform`], with typed requests and answers.
//!
//! Every call of the platform is a call of a service: [`Platform::objects`],
//! [`Platform::data`], [`Platform::validation`], [`Platform::automations`],
//! [`Platform::tenancy`], [`Platform::secrets`], [`Platform::extensions`],
//! [`Platform::scripts`], [`Platform::calendars`], [`Platform::jobs`] and
//! [`Platform::deliveries`] build and hand them out. Each service is a type of its own
//! module, with its rules as its methods, holding what it runs on: the platform's store,
//! clock, settings and caches (`Copy`, free to make). The services of [`Platform::snapshot`]
//! ([`crate::Snapshot::objects`], [`crate::Snapshot::data`], [`crate::Snapshot::tenancy`]) are
//! the same types holding the snapshot too, their one-item reads made in it: a fast read is
//! the same call, made through the snapshot's service.
//!
//! The api is grouped by service: each module holds the service's type and the types its
//! calls take and answer: [`objects`] ([`Object`](objects::Object), its versions, tags and
//! deletions), [`data`] (series and curves as [`Point`](data::Point)s and
//! [`Contract`](data::Contract)s, the read grammar as types, [`DataItem`](data::DataItem)s,
//! Arrow record batches), [`validation`] (configurations, runs, records, statistics,
//! suggestions, tunings), [`jobs`], [`automations`], [`extensions`], [`secrets`],
//! [`tenancy`], [`calendars`], [`scripts`] and [`realtime`]. What every service uses is at the
//! top: the caller ([`Principal`]), the [`Source`], the [`Collection`], list requests and
//! pages ([`ListRequest`], [`Page`], with typed filters in [`lists`]), versions
//! ([`VersionRef`]) and clocks. Beside them: [`formats`], [`time`], [`limits`], [`import`]
//! and [`stores`]; [`interface`] holds the few names only the server and the CLI need.
//!
//! Every call answers Rust types, which serialise with serde to the JSON the REST interface
//! answers (the server and the CLI write them so, byte for byte). Where the interface itself
//! is JSON (a document's body, a list with a projection, a read in one of the interface's
//! formats), the service has a call whose doc starts with "JSON:", the entry point the server
//! and the CLI translate requests into. Errors are [`crate::Error`] in both.
//!
//! ```
//! use platform_core::api::{data::Point, objects::Object};
//! use platform_core::Platform;
//! use chrono::{TimeZone, Utc};
//!
//! let platform = Platform::in_memory()?;
//! let me = platform.tenancy().local_principal("default", "me")?;
//!
//! // An object, then an hourly series on it.
//! platform.objects().save_object(&me, &Object::new("NBP").with("name", "UK gas hub"), &Default::default())?;
//! let at = |h| Utc.with_ymd_and_hms(2024, 1, 1, h, 0, 0).unwrap();
//! let points: Vec<Point> = (0..3).map(|h| Point::new(at(h), 60.0 + h as f64)).collect();
//! platform.data().write_series(&me, "NBP:SPOT", &points, &Default::default())?;
//!
//! // Read it back, typed.
//! let read = platform.data().series(&me, "NBP:SPOT", &Default::default())?;
//! assert_eq!(read.points, points);
//! # Ok::<(), platform_core::Error>(())
//! ```

mod data_items;
mod series_and_curves;
#[doc = include_str!("embedding.md")]
pub mod embedding {}
pub mod formats;
pub mod import;
pub mod interface;
mod job_results;
pub mod limits;
mod object;
mod object_lists;
mod shape;
pub mod stores;
pub mod time;
mod validation_automations;
mod validation_config;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validation_config_tests;
#[cfg(test)]
mod validation_tests;

// The names every service uses: who calls, from which source, what collection, lists and
// pages, versions, and the clock a platform is built with.
pub use crate::auth::{Credentials, Grant, Principal, Role};
pub use crate::clock::{Clock, FixedClock, SystemClock};
pub use crate::documents::ListRequest;
pub use crate::ids::{Source, VersionRef};
pub use crate::query::{Paging, Params, Projection};
pub use crate::store::{Collection, DatabaseStatus, Page, PoolStatus, ReplicaStatus};

pub mod objects {
    //! The object service: versioned documents ([`Objects`]), objects as types ([`Object`]), their
    //! versions, tags and deletions.

    pub use super::object::Object;
    pub use crate::documents::{
        DeleteTarget, Deletion, ObjectVersion, Objects, SaveOptions, TaggedVersion,
    };
}

pub mod data {
    //! The data service: time series and forward curves ([`Data`]): points and contracts written
    //! and read as types, the read grammar as types (ranges, scaling, zones, continuations,
    //! conversions, shaping), data items, bulk columns and Arrow record batches.

    pub use super::data_items::{DataEntry, DataItem};
    pub use super::series_and_curves::{
        Contract, Curve, CurveContract, CurveQuery, Partial, Point, ReadRange, Series, SeriesQuery,
        WriteOptions,
    };
    pub use super::shape::ShapedCurve;
    pub use crate::data::calendar::Calendar;
    pub use crate::data::continuation::{Adjust, Continuation, Roll};
    pub use crate::data::conversion::Conversion;
    pub use crate::data::read::{DataId, DataJson, DataQuery, Nearest};
    pub use crate::data::scale::{Block, Observed, Scaling, Target as ScaleTarget};
    pub use crate::data::series::Window;
    pub use crate::data::shape::{Ignored, QuoteMiss, ShapeQuery, ShapedMonth, Weights};
    pub use crate::data::zone::ReadZone;
    pub use crate::data::{Data, DataKind};
    pub use crate::observations::columns::{Columns, Extra};
    pub use crate::observations::model::{PointValue, Status as PointStatus};
    pub use crate::query::grammar::GrammarError;
    pub use crate::query::range::RangeExpr;
    pub use crate::save::csv_import::{CsvImport, CsvImported};
    /// Arrow's record batch (arrow-array 60), the answer of [`Data::read_record_batch`].
    pub use arrow_array::RecordBatch;
}

pub mod validation {
    //! The validation service ([`Validation`]): configurations and their checks, runs and batches,
    //! records and their actions, statistics, suggestions and tunings.

    pub use super::job_results::JobResult;
    pub use super::validation_config::{Check, ValidationConfig, ValidationOptions};
    pub use crate::events::automations::AutomationSync;
    pub use crate::validation::counts::{
        StatusCounts, ValidationCounts, ValidationKind, ValidationStatus,
    };
    pub use crate::validation::engine::{CheckScope, Severity};
    pub use crate::validation::records::{
        RecordCheck, RecordOverride, Resolution, ResolvedIssue, TenorCheck, TenorResult,
        TimelineEvent, ValidationRecord,
    };
    pub use crate::validation::run::{
        BatchItemResult, PointResult, RecordOutcome, RecordsAction, RunOutcome, RunTimings,
        ValidationBatch, ValidationBatchResult, ValidationRequest, ValidationResult, When,
    };
    pub use crate::validation::stats::{
        ActivityEntry, CheckStats, ConfigStats, DayCounts, OpenIssue, ResolvedStats, StatsQuery,
        StatsTotals, TargetStats, ValidationStats,
    };
    pub use crate::validation::suggest::{
        CheckTally, Proposals, SuggestedCheck, SuggestedItem, SuggestionRequest, Suggestions,
        WindowShape, WindowStats,
    };
    pub use crate::validation::tune::{
        TuneWindow, TunedCheck, TunedChecks, TunedItem, TuningItem, TuningRequest, Tunings,
    };
    pub use crate::validation::window::score::FailingPoint;
    pub use crate::validation::Validation;
}

pub mod jobs {
    //! Background jobs ([`Jobs`]): long validation runs, their workers and results.

    pub use crate::store::{JobStatus, Worker};
    pub use crate::validation::jobs::{Backlog, JobInfo, Jobs, QueuedRun};
}

pub mod automations {
    //! The automation service ([`Automations`]): automations, their targets and templates, their
    //! log and mail outbox, and the deliveries ([`Deliveries`]) that send them.

    pub use crate::events::automations::{
        automation::Automation, AutomationEvent, AutomationOwner, AutomationTarget,
        AutomationTemplate, Automations, Condition, ConditionSource, DeletedAutomation, LogQuery,
        StoredAutomation, TargetInput, TestFiring,
    };
    pub use crate::events::deliver::{Deliveries, DeliverySettings, Mail, Outbound};
    pub use crate::store::rows::MailAttachment;
    pub use crate::store::{LogEntry, LogStatus, MailEntry};
}

pub mod extensions {
    //! The extension service ([`Extensions`]): drafts, publishing, installing and uninstalling.

    pub use crate::extensions::{
        Acceptance, Extension, ExtensionResources, ExtensionView, Extensions, InstalledExtension,
        Lifecycle, LifecycleRun, Permission, ResourceIds, StoredExtension, UninstalledExtension,
    };
}

pub mod secrets {
    //! The secret service ([`Secrets`]): sealed values scripts and automations use.

    pub use crate::seal::SecretKey;
    pub use crate::secrets::{DeletedSecret, Secret, Secrets, StoredSecret};
}

pub mod tenancy {
    //! Tenancy ([`Tenancy`]): tenants, users, tokens, grants and their audit.

    pub use crate::auth::Grants;
    pub use crate::store::rows::{AuditEntry, TokenListing};
    pub use crate::tenancy::{RoleChange, Tenancy};
}

pub mod calendars {
    //! Calendars ([`Calendars`]): holiday calendars and the block calendars of power markets.

    pub use crate::calendars::{BlockCalendar, BlockHours, Calendars, Holiday};
    pub use crate::holidays::HolidayCalendar;
}

pub mod scripts {
    //! The script service ([`Scripts`]): templates rendered over data, and their limits.

    pub use crate::script::ScriptLimits;
    pub use crate::templates::Scripts;
}

pub mod realtime {
    //! Realtime notifications ([`Realtime`]): channels and subscriptions to changes.

    pub use crate::realtime::{Channel, Realtime, Subscription};
}

pub mod lists {
    //! List requests as types: the filters, order, page and cursor a [`ListRequest`](super::ListRequest) carries (its
    //! `query`), which [`ListRequest::from_params`](super::ListRequest::from_params) reads from the interface's list parameters.

    pub use crate::query::cursor::Cursor;
    pub use crate::query::filter::{Bound, CmpOp, Filter, SearchTerm, MAX_FILTER_TERMS};
    pub use crate::query::paging::Total;
    pub use crate::query::sort::{SortKey, SortSpec};
    pub use crate::query::ListQuery;
}

use crate::{Platform, Snapshot};
use automations::{Automations, Deliveries};
use calendars::Calendars;
use data::Data;
use extensions::Extensions;
use jobs::Jobs;
use objects::Objects;
use scripts::Scripts;
use secrets::Secrets;
use tenancy::Tenancy;
use validation::Validation;

impl Snapshot<'_> {
    /// The object service, its reads of one document ([`Objects::get`],
    /// [`Objects::get_printed`]) made in this snapshot.
    pub fn objects(&self) -> Objects<'_> {
        Objects::of(self.platform, Some(self))
    }

    /// The data service, its reads of one data item ([`Data::read_json_bytes`],
    /// [`Data::read_arrow_stream`]) made in this snapshot.
    pub fn data(&self) -> Data<'_> {
        Data::of(self.platform, Some(self))
    }

    /// The tenancy service, its authentication ([`Tenancy::authenticate`],
    /// [`Tenancy::read_authenticated`]) made in this snapshot.
    pub fn tenancy(&self) -> Tenancy<'_> {
        Tenancy::of(self.platform, Some(self))
    }
}

impl Platform {
    /// The calendar service's functions: holidays and business days of holiday calendars.
    pub fn calendars(&self) -> Calendars<'_> {
        Calendars::of(self)
    }

    /// The object service: versioned documents (objects, types, scripts, validation
    /// configurations, extension drafts, calendars), their versions, tags, rollbacks and lists.
    pub fn objects(&self) -> Objects<'_> {
        Objects::of(self, None)
    }

    /// The data service: time series and forward curves on objects.
    pub fn data(&self) -> Data<'_> {
        Data::of(self, None)
    }

    /// The validation service: run and test checks, records, suggestions and statistics.
    pub fn validation(&self) -> Validation<'_> {
        Validation::of(self)
    }

    /// The automation service: automations, their targets, log and mail outbox.
    pub fn automations(&self) -> Automations<'_> {
        Automations::of(self)
    }

    /// Tenants, users, tokens, grants and environments, and the principals calls run as.
    pub fn tenancy(&self) -> Tenancy<'_> {
        Tenancy::of(self, None)
    }

    /// The secret service: sealed values scripts and automations use.
    pub fn secrets(&self) -> Secrets<'_> {
        Secrets::of(self)
    }

    /// The extension service: drafts, publishing, installing, views and messages.
    pub fn extensions(&self) -> Extensions<'_> {
        Extensions::of(self)
    }

    /// The script service: mustache templates rendered over data.
    pub fn scripts(&self) -> Scripts<'_> {
        Scripts::of(self)
    }

    /// Background jobs (long validation runs) and the workers that run them.
    pub fn jobs(&self) -> Jobs<'_> {
        Jobs::of(self)
    }

    /// The outbound deliveries of automations (webhooks, emails, scripts) and their worker.
    pub fn deliveries(&self) -> Deliveries<'_> {
        Deliveries::of(self)
    }
}
