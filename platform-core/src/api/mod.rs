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
//! Each service has two kinds of calls:
//!
//! - **typed calls** for a program: objects and their lists, versions, tags and deletions
//!   ([`Object`], [`ObjectVersion`], [`Deletion`]); series and curves as typed points and
//!   data items ([`Point`], [`Contract`], [`DataItem`]); validation configurations
//!   ([`ValidationConfig`] with its [`Check`]s); validation runs, batches, records,
//!   statistics, suggestions and tunings ([`ValidationRequest`] → [`ValidationResult`],
//!   [`ValidationRecord`], [`ValidationStats`]); automations, their targets, log and outbox
//!   ([`Automation`], [`AutomationTarget`], [`LogEntry`]); extensions, published, installed
//!   and uninstalled ([`Extension`], [`InstalledExtension`]); secrets ([`Secret`]); jobs
//!   ([`JobInfo`]);
//! - **JSON calls**, the entry points the HTTP server and the CLI translate requests into (a
//!   body in, the answer's body out), where the interface itself is JSON.
//!
//! Both kinds run the same rules: a typed call is the JSON call's code path with typed values
//! on either side. Errors are [`crate::Error`] in both.
//!
//! ```
//! use platform_core::api::{Object, Point};
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

mod data;
mod data_typed;
#[doc = include_str!("embedding.md")]
pub mod embedding {}
pub mod formats;
pub mod import;
pub mod interface;
pub mod limits;
mod objects;
mod objects_typed;
mod shape;
pub mod stores;
pub mod time;
mod validation;
mod validation_config;
mod validation_typed;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod validation_config_tests;
#[cfg(test)]
mod validation_typed_tests;

pub use crate::save::csv_import::{CsvImport, CsvImported};
// The names the services' requests and answers use, defined where their rules are.
pub use crate::auth::{Credentials, Grant, Grants, Principal, Role};
pub use crate::data::read::{DataId, DataJson, DataQuery, Nearest};
pub use crate::data::DataKind;
pub use crate::documents::{
    DeleteTarget, Deletion, ListRequest, ObjectVersion, SaveOptions, TaggedVersion,
};
pub use crate::events::automations::LogQuery;
pub use crate::events::deliver::{DeliverySettings, Mail, Outbound};
pub use crate::ids::{Source, VersionRef};
pub use crate::query::{Paging, Params, Projection};
pub use crate::realtime::{Channel, Realtime};
pub use crate::store::{Collection, Page};
// What a program builds a platform with (see `Platform::new` and its `with_*` settings).
pub use crate::calendars::{BlockCalendar, BlockHours, Calendars, Holiday};
pub use crate::clock::{Clock, FixedClock, SystemClock};
pub use crate::data::calendar::Calendar;
pub use crate::data::continuation::{Adjust, Continuation, Roll};
pub use crate::data::conversion::Conversion;
pub use crate::data::scale::{Block, Observed, Scaling, Target as ScaleTarget};
pub use crate::data::series::Window;
pub use crate::data::shape::{Ignored, QuoteMiss, ShapeQuery, ShapedMonth, Weights};
pub use crate::data::zone::ReadZone;
pub use crate::data::Data;
pub use crate::documents::Objects;
pub use crate::events::automations::AutomationSync;
pub use crate::events::automations::Automations;
pub use crate::events::automations::{
    automation::Automation, AutomationEvent, AutomationOwner, AutomationTarget, AutomationTemplate,
    Condition, ConditionSource, DeletedAutomation, StoredAutomation, TargetInput, TestFiring,
};
pub use crate::events::deliver::Deliveries;
pub use crate::extensions::Extensions;
pub use crate::extensions::{
    Acceptance, Extension, ExtensionResources, ExtensionView, InstalledExtension, Lifecycle,
    LifecycleRun, Permission, ResourceIds, StoredExtension, UninstalledExtension,
};
pub use crate::holidays::HolidayCalendar;
pub use crate::observations::columns::{Columns, Extra};
pub use crate::observations::model::{PointValue, Status as PointStatus};
pub use crate::query::grammar::GrammarError;
pub use crate::query::range::RangeExpr;
pub use crate::realtime::Subscription;
pub use crate::script::ScriptLimits;
pub use crate::seal::SecretKey;
pub use crate::secrets::{DeletedSecret, Secret, Secrets, StoredSecret};
pub use crate::store::rows::{AuditEntry, MailAttachment, TokenListing};
pub use crate::store::ReplicaStatus;
pub use crate::store::{DatabaseStatus, PoolStatus};
pub use crate::store::{JobStatus, LogEntry, LogStatus, MailEntry, Worker};
pub use crate::templates::Scripts;
pub use crate::tenancy::RoleChange;
pub use crate::tenancy::Tenancy;
pub use crate::validation::counts::{
    StatusCounts, ValidationCounts, ValidationKind, ValidationStatus,
};
pub use crate::validation::engine::{CheckScope, Severity};
pub use crate::validation::jobs::Backlog;
pub use crate::validation::jobs::QueuedRun;
pub use crate::validation::jobs::{JobInfo, Jobs};
pub use crate::validation::records::{RecordCheck, TenorCheck, TenorResult};
pub use crate::validation::records::{
    RecordOverride, Resolution, ResolvedIssue, TimelineEvent, ValidationRecord,
};
pub use crate::validation::run::{
    BatchItemResult, PointResult, RunOutcome, RunTimings, ValidationBatch, ValidationBatchResult,
    ValidationRequest, ValidationResult, When,
};
pub use crate::validation::run::{RecordOutcome, RecordsAction};
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
/// Arrow's record batch (arrow-array 60), the answer of [`Data::read_record_batch`].
pub use arrow_array::RecordBatch;
pub use data::{
    Contract, Curve, CurveContract, CurveQuery, Partial, Point, ReadRange, Series, SeriesQuery,
    WriteOptions,
};
pub use data_typed::{DataEntry, DataItem};
pub use objects::Object;
pub use shape::ShapedCurve;
pub use validation_config::{Check, ValidationConfig, ValidationOptions};
pub use validation_typed::JobResult;

/// List requests as types: the filters, order, page and cursor a [`ListRequest`] carries (its
/// `query`), which [`ListRequest::from_params`] reads from the interface's list parameters.
pub mod lists {
    pub use crate::query::cursor::Cursor;
    pub use crate::query::filter::{Bound, CmpOp, Filter, SearchTerm, MAX_FILTER_TERMS};
    pub use crate::query::paging::Total;
    pub use crate::query::sort::{SortKey, SortSpec};
    pub use crate::query::ListQuery;
}

use crate::{Platform, Snapshot};

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
