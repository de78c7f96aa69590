//! The statements of gathered rows when there is one row to write (a single save, the
//! commonest write): the same rows as the statements over arrays write, with scalar
//! parameters. PostgreSQL plans a statement over arrays from a guess of their length, and a
//! connection keeps the generic plan it made first: made while a table was small, that plan
//! read the whole table (a save's statement of current rows cost more with every row saved,
//! about 1.5 ms at 4,000), or, where it guessed long arrays, it was planned again at every
//! save (about 0.2 ms). A statement that names one row by its key has one plan, by the key,
//! at any size of the table.

use super::super::pool::{owned, Owned};
use super::{HeadRow, Statement, VersionRow, KEY_OF_PARAMS};

/// The parameters of a document's key: collection, tenant, environment, id (`$1` to `$4`).
fn key_params(key: super::DocKey) -> Vec<Owned> {
    let (coll, tenant, env, id) = key;
    vec![owned(coll.as_str()), owned(tenant), owned(env), owned(id)]
}

/// Writes one row of `versions` (`conflict` as `versions_statement` says it).
pub(super) fn version(v: VersionRow, conflict: &str) -> Statement {
    let sql = format!(
        "INSERT INTO versions (scope, id, version, body, timestamp, \"user\", reason) \
         VALUES ({KEY_OF_PARAMS}, $4, $5, $6, $7, $8, $9){conflict}"
    );
    let mut params = key_params(v.key);
    params.extend([
        owned(v.version),
        owned(v.body),
        owned(v.timestamp),
        owned(v.user),
        owned(v.reason),
    ]);
    (sql, params)
}

/// Writes one row of `heads`, as `heads_statement` does.
pub(super) fn head(h: HeadRow) -> Statement {
    let bucket = super::bucket_of("$4");
    let sql = format!(
        "INSERT INTO heads (scope, id, version, type, body, search, id_fold, name_fold, bucket) \
         VALUES ({KEY_OF_PARAMS}, $4, $5, $6, $7, $8, $9, $10, {bucket}) ON CONFLICT (scope, id) \
         DO UPDATE SET version = excluded.version, type = excluded.type, body = excluded.body, \
         search = excluded.search, name_fold = excluded.name_fold"
    );
    let mut params = key_params(h.key);
    params.extend([
        owned(h.version),
        owned(h.kind),
        owned(h.body),
        owned(h.search),
        owned(h.id_fold),
        owned(h.name_fold),
    ]);
    (sql, params)
}

/// Writes a version made current at once and its current row in one statement (the
/// commonest save): the version's row, with its body, and the current row. A version of a
/// number already stored is refused by the versions' primary key (`conflict` empty) or
/// rewritten in place (`conflict` as `versions_statement` says it), as its own statement
/// would.
pub(super) fn version_made_current(v: VersionRow, h: HeadRow, conflict: &str) -> Statement {
    let bucket = super::bucket_of("$4");
    let sql = format!(
        "WITH version AS (INSERT INTO versions (scope, id, version, body, timestamp, \"user\", \
         reason) VALUES ({KEY_OF_PARAMS}, $4, $5, $11, $12, $13, $14){conflict}) \
         INSERT INTO heads (scope, id, version, type, body, search, id_fold, name_fold, bucket) \
         VALUES ({KEY_OF_PARAMS}, $4, $5, $6, $7, $8, $9, $10, {bucket}) ON CONFLICT (scope, id) \
         DO UPDATE SET version = excluded.version, type = excluded.type, body = excluded.body, \
         search = excluded.search, name_fold = excluded.name_fold"
    );
    let (_, mut params) = head(h);
    params.extend([
        owned(v.body),
        owned(v.timestamp),
        owned(v.user),
        owned(v.reason),
    ]);
    (sql, params)
}
