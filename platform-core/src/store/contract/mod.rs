//! The contract of a storage backend: tests generic over the [`Store`], which every backend
//! passes.
//!
//! [`store_contract!`](crate::store_contract) instantiates each test of the suite for one
//! backend, in the module where it is invoked:
//!
//! ```text
//! fn open() -> (std::sync::Arc<dyn Store>, impl Sized) {
//!     // A fresh, empty store, and whatever must live as long as it (a temporary directory).
//! }
//! platform_core::store_contract!(open());
//! ```
//!
//! The suite covers every operation of each capability, the transactions (a dropped write
//! changes nothing, a reader sees one snapshot while a writer commits, writers of one document
//! serialise with contiguous versions), the pruning of data rows after a rollback, claims of
//! jobs and deliveries (two claimers never get the same row), and the property that a filter
//! means in the store what it means in memory (`PROPTEST_CASES` cases, 64 by default).
//!
//! Times given to the store carry milliseconds at most: that is the precision every backend
//! keeps.

use crate::auth::{Grant, Role};
use crate::clock::parse_instant;
use crate::ids::Scope;
use crate::query::{Cursor, Filter, ListQuery, Paging, SortSpec};
use crate::store::{
    AuditEntry, Automation, Chunk, Collection, DataKey, Delivery, DeliveryStatus, Extent,
    FieldKind, Hold, Job, JobStatus, LogEntry, LogFilter, LogStatus, MailAttachment, MailEntry,
    ReadTx, RecordChunkRow, SecretRow, Store, StoredBody, StoredVersion, TokenSelector, Worker,
    WriteTx,
};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Instantiates every test of the contract suite for one backend: `$open` is an expression,
/// evaluated once per test, giving a fresh empty store as `(Arc<dyn Store>, guard)`; the guard
/// (a temporary directory, say) lives until the test ends. With `optional`, `$open` gives an
/// `Option` of that pair, and each test passes without running when it is `None` (a backend
/// whose server the environment does not name).
#[macro_export]
macro_rules! store_contract {
    (optional $open:expr) => {
        $crate::store_contract!(@list optional $open);
    };
    ($open:expr) => {
        $crate::store_contract!(@list required $open);
    };
    (@list $how:ident $open:expr) => {
        $crate::store_contract!(@each $how $open;
            documents_keep_versions_heads_and_tags,
            a_document_read_alone_is_its_current_version,
            a_version_written_current_at_once_is_written_then_made_current,
            a_raw_current_version_is_the_current_version,
            a_current_version_read_in_part_is_its_fields_read_whole,
            lists_filter_sort_page_and_count,
            long_lists_estimate_their_totals_past_a_threshold,
            keyset_pages_follow_the_sort_exactly,
            per_type_indexes_change_no_answer,
            distinct_values_completion_and_field_kinds,
            the_audit_trail_keeps_deletions_in_order,
            series_chunks_are_versioned_with_their_object,
            curves_are_versioned_with_their_object,
            rollback_prunes_data_rows_and_reopens_the_current_ones,
            validation_record_chunks_are_kept_by_target_and_bucket,
            jobs_are_kept_and_claimed_oldest_due_first,
            workers_record_their_heartbeats,
            automations_are_kept_by_scope,
            deliveries_fall_due_in_order_and_are_claimed_once,
            the_log_and_the_mail_outbox_page_newest_first,
            tenants_environments_users_grants_and_tokens,
            the_auth_epoch_rises_with_every_change_to_authentication,
            secrets_are_kept_by_scope,
            a_dropped_write_changes_nothing,
            a_reader_sees_one_snapshot_while_a_writer_commits,
            writers_of_one_document_serialise_with_contiguous_versions,
            writers_of_different_documents_do_not_wait_for_each_other,
            writes_of_what_is_not_held_fail,
            two_claimers_never_take_the_same_job,
            two_claimers_never_take_the_same_delivery,
            filters_mean_in_the_store_what_they_mean_in_memory,
            number_comparisons_at_the_edges_are_exact,
        );
    };
    (@each required $open:expr; $($test:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let (store, _guard) = $open;
                $crate::store::contract::$test(store);
            }
        )*
    };
    (@each optional $open:expr; $($test:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                let Some((store, _guard)) = $open else {
                    return;
                };
                $crate::store::contract::$test(store);
            }
        )*
    };
}

mod data;
mod documents;
mod filters;
mod jobs;
mod tenancy;
mod transactions;

pub use data::*;
pub use documents::*;
pub use filters::*;
pub use jobs::*;
pub use tenancy::*;
pub use transactions::*;

fn at(text: &str) -> DateTime<Utc> {
    parse_instant(text).unwrap()
}

/// Runs `f` in a write transaction and commits it.
fn write<R>(store: &dyn Store, f: impl FnOnce(&mut dyn WriteTx) -> R) -> R {
    let mut tx = store.write().unwrap();
    let out = f(tx.as_mut());
    tx.commit().unwrap();
    out
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn acme() -> Scope {
    Scope::private("acme", "production")
}

fn acme_test() -> Scope {
    Scope::private("acme", "test")
}

fn version(id: &str, n: u32, body: Value) -> StoredVersion {
    let mut body = object(body);
    body.insert("_id".into(), json!(id));
    StoredVersion {
        id: id.to_string(),
        version: n,
        body,
        timestamp: at("2024-01-01T00:00:00.000Z") + TimeDelta::milliseconds(i64::from(n) * 1001),
        user: format!("user{n}"),
        reason: (n & 1 == 0).then(|| format!("reason {n}")),
        tags: Vec::new(),
    }
}

/// Stores a version and makes it current.
fn save(tx: &mut dyn WriteTx, coll: Collection, scope: &Scope, v: &StoredVersion) {
    hold_doc(tx, coll, scope, &v.id);
    tx.put_version(coll, scope, v).unwrap();
    tx.set_current(coll, scope, &v.id, Some(v.version)).unwrap();
}

/// Adds a pending delivery; answers the `seq` it was given (the largest of the pending ones).
fn add_delivery(tx: &mut dyn WriteTx, d: &Delivery) -> i64 {
    tx.add_delivery(d).unwrap();
    tx.deliveries(DeliveryStatus::Pending)
        .unwrap()
        .iter()
        .map(|d| d.seq)
        .max()
        .unwrap()
}

/// Holds a document before a write of it (as the core does).
fn hold_doc(tx: &mut dyn WriteTx, coll: Collection, scope: &Scope, id: &str) {
    tx.hold(&[Hold::Document(coll, scope, id)]).unwrap();
}

/// Holds the object of a data key before a write of its data.
fn hold_data(tx: &mut dyn WriteTx, key: &DataKey) {
    hold_doc(tx, Collection::Object, &key.scope, &key.object);
}

/// Holds the records of a target before a write of them.
fn hold_records(tx: &mut dyn WriteTx, scope: &Scope, target: &str) {
    tx.hold(&[Hold::Records(scope, target)]).unwrap();
}

/// Holds an automation before a write of it.
fn hold_automation(tx: &mut dyn WriteTx, scope: &Scope, id: &str) {
    tx.hold(&[Hold::Automation(scope, id)]).unwrap();
}

/// Holds a secret before a write of it.
fn hold_secret(tx: &mut dyn WriteTx, scope: &Scope, id: &str) {
    tx.hold(&[Hold::Secret(scope, id)]).unwrap();
}

fn ids<T>(items: &[T], id: impl Fn(&T) -> &str) -> Vec<String> {
    items.iter().map(|i| id(i).to_string()).collect()
}

fn query(filter: Filter, sort: &str, skip: u64, limit: Option<u64>) -> ListQuery {
    ListQuery {
        total: crate::query::Total::Exact,
        filter,
        sort: if sort.is_empty() {
            SortSpec::default()
        } else {
            SortSpec::parse(sort).unwrap()
        },
        paging: Paging { skip, limit },
    }
}

fn key(prop: &str) -> DataKey {
    DataKey {
        scope: acme(),
        object: "A".into(),
        prop: prop.into(),
    }
}

fn chunk(start: i64, stop: i64, count: u32, tag: u8) -> Chunk {
    Chunk {
        start,
        stop,
        count,
        payload: vec![tag; 3],
    }
}

fn tags(chunks: &[Chunk]) -> Vec<u8> {
    chunks.iter().map(|c| c.payload[0]).collect()
}

fn record_chunk(target: &str, seq: i64, first: i64, last: i64, count: u64) -> RecordChunkRow {
    RecordChunkRow {
        target: target.into(),
        seq,
        first,
        last,
        count,
        statuses: 1 << (seq % 5),
        body: vec![seq as u8, count as u8],
    }
}

fn job(id: &str, created: &str, not_before: Option<&str>) -> Job {
    Job {
        id: id.into(),
        kind: "run".into(),
        status: JobStatus::Queued,
        progress: 0,
        created: at(created),
        started: None,
        finished: None,
        message: "queued".into(),
        user: "ann".into(),
        role: Role::Writer,
        access: vec!["ops".into()],
        features: vec![],
        payload: json!({"request": {"target": id}}),
        not_before: not_before.map(at),
        result: None,
    }
}

fn automation(id: &str, enabled: bool) -> Automation {
    Automation::from_body(object(json!({
        "_id": id, "_type": "VarAutomation", "target": "platform.webhook", "enabled": enabled,
        "owner": "ann", "conditions": [{"service": "object", "id": "*", "action": "*"}],
        "properties": {"url": "https://example.com/hook"},
    })))
    .unwrap()
}

fn delivery(automation: &str, item: &str, next_at: &str) -> Delivery {
    Delivery {
        seq: 0,
        scope: acme(),
        automation: automation.into(),
        item: item.into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_at: at(next_at),
        event: object(json!({"service": "object", "id": item, "timestamp": next_at})),
    }
}

fn log_entry(automation: &str, status: LogStatus, second: u32) -> LogEntry {
    LogEntry {
        automation: automation.into(),
        target: "platform.webhook".into(),
        owner: "ann".into(),
        source: "private".into(),
        service: "object".into(),
        key: "GB".into(),
        action: "update".into(),
        user: "bob".into(),
        event_timestamp: at("2024-01-01T00:00:00Z"),
        delivery: i64::from(second),
        attempt: 1,
        status,
        message: format!("attempt at {second}"),
        timestamp: at(&format!("2024-01-01T00:00:{second:02}.000Z")),
    }
}
