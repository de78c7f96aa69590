//! The layout of the document tables (schema 18): what each column and index of `heads`,
//! `versions`, `tags` and `audit` holds, the SQL expressions that read the columns kept in a
//! compact form, and the step that rebuilds the tables of schema 17 in it.
//!
//! - `scopes` gives each collection, tenant and environment a small integer key (`sk`), which
//!   every row and index of the four tables carries instead of the three texts. A key is made
//!   by the write that first needs it (in its transaction) and never changes.
//! - `type_keys` gives each value of a current row's type (`_type`, `''` for none) a small
//!   integer key alike, which `heads.type` holds, and with it every index that has the type
//!   in its key (`heads_type`, `heads_sample`, the per-type indexes).
//! - Times (`timestamp`) are integer milliseconds since 1970 where they read back as the same
//!   text (`time_text`), text otherwise (`stored::TIME_TEXT` gives the text of either).
//! - `versions` holds the versions that are not current; the current one is its current row in
//!   `heads`, and has a row of `versions` only where its text would not read back as written
//!   from the row's JSONB.
//! - `heads.id_fold` holds the folded id only where SQLite's `lower()` (ASCII only) does not
//!   give it (`stored::ID_FOLD`): the index is of built-in SQL, so any SQLite tool can still write
//!   and VACUUM the file. The folded name is kept whole (`name_fold`, NULL where the name is
//!   not text): `_search` reads it in every row it looks at, where reading the name from the
//!   JSONB and folding it made a search of 100,000 documents half again as slow.
//! - `heads.lead` (schema 19) says which of a body's leading fields the row keeps in its
//!   columns only: 0 the `_id` it starts with (the row's `id`), 1 that and the `_type` right
//!   after it (the type `type` names). NULL where the JSONB holds the whole body (a text that
//!   does not start so, or whose id or type would need an escape in JSON). About 25 bytes a
//!   small object; what prints a body (`documents::head::body_of_head`, `read_head`) and what
//!   filters on `_id` or `_type` (`sql::doc_of`) put them back.

use super::sql;
use crate::ids::Scope;
use crate::store::{type_index_prefix, Collection};
use rusqlite::params;

/// A time of schema 17 (`$t`, text) as schema 18 keeps it: milliseconds where they read back
/// as the same text, else the text.
macro_rules! time_18 {
    ($t:literal) => {
        concat!(
            "(SELECT CASE WHEN m >= 0 AND ",
            $crate::store::sqlite::stored::time_text_of!("m"),
            " = ",
            $t,
            " THEN m ELSE ",
            $t,
            " END FROM (SELECT unixepoch(",
            $t,
            ") * 1000 + CAST(substr(",
            $t,
            ", 21, 3) AS INTEGER) AS m))"
        )
    };
}

/// The tables of the document layout and their indexes (made after the data is in).
macro_rules! tables {
    ($suffix:literal) => {
        concat!(
            "CREATE TABLE heads",
            $suffix,
            " (
        sk        INTEGER NOT NULL,
        id        TEXT NOT NULL,
        version   INTEGER NOT NULL,
        type      INTEGER NOT NULL,
        bucket    INTEGER NOT NULL,
        timestamp NOT NULL,
        user      TEXT NOT NULL,
        reason    TEXT,
        tags      TEXT,
        id_fold   TEXT,
        name_fold TEXT,
        search    TEXT NOT NULL,
        body      BLOB NOT NULL,
        PRIMARY KEY (sk, id)
    ) WITHOUT ROWID;
    CREATE TABLE versions",
            $suffix,
            " (
        sk        INTEGER NOT NULL,
        id        TEXT NOT NULL,
        version   INTEGER NOT NULL,
        timestamp NOT NULL,
        user      TEXT NOT NULL,
        reason    TEXT,
        body      TEXT NOT NULL,
        PRIMARY KEY (sk, id, version)
    ) WITHOUT ROWID;
    CREATE TABLE tags",
            $suffix,
            " (
        sk      INTEGER NOT NULL,
        id      TEXT NOT NULL,
        tag     TEXT NOT NULL,
        version INTEGER NOT NULL,
        PRIMARY KEY (sk, id, tag)
    ) WITHOUT ROWID;
    CREATE TABLE audit",
            $suffix,
            " (
        seq       INTEGER PRIMARY KEY,
        sk        INTEGER NOT NULL,
        id        TEXT NOT NULL,
        action    TEXT NOT NULL,
        versions  TEXT NOT NULL,
        user      TEXT NOT NULL,
        timestamp NOT NULL,
        reason    TEXT
    );"
        )
    };
}

/// The indexes of the document tables (beside the per-type ones).
const INDEXES: &str = "
    CREATE INDEX heads_type ON heads(sk, type, id);
    CREATE INDEX heads_sample ON heads(sk, bucket, type);
    CREATE INDEX heads_id_fold ON heads(sk, coalesce(id_fold, lower(id)));
    CREATE INDEX heads_name_fold ON heads(sk, name_fold);
    CREATE INDEX audit_doc ON audit(sk, id);";

/// Schema 17's document tables copied into schema 18's, then put in their place.
const COPY: &str = concat!(
    "CREATE TABLE scopes (
        sk     INTEGER PRIMARY KEY,
        coll   TEXT NOT NULL,
        tenant TEXT NOT NULL,
        env    TEXT NOT NULL,
        UNIQUE (coll, tenant, env)
    );
    INSERT INTO scopes (coll, tenant, env)
        SELECT coll, tenant, env FROM heads UNION SELECT coll, tenant, env FROM versions
        UNION SELECT coll, tenant, env FROM tags UNION SELECT coll, tenant, env FROM audit
        ORDER BY 1, 2, 3;
    CREATE TABLE type_keys (
        tk   INTEGER PRIMARY KEY,
        type TEXT NOT NULL UNIQUE
    );
    INSERT INTO type_keys (type) SELECT DISTINCT type FROM heads ORDER BY 1;
    ",
    tables!("_18"),
    "
    INSERT INTO heads_18 (sk, id, version, type, bucket, timestamp, user, reason, tags, id_fold,
        name_fold, search, body)
        SELECT s.sk, h.id, h.version, (SELECT tk FROM type_keys k WHERE k.type = h.type),
            h.bucket, ",
    time_18!("h.timestamp"),
    ", h.user, h.reason, h.tags,
            nullif(coalesce(h.id_fold, h.id), lower(h.id)), h.name_fold, h.search, h.body
        FROM heads h JOIN scopes s ON s.coll = h.coll AND s.tenant = h.tenant AND s.env = h.env;
    INSERT INTO versions_18 (sk, id, version, timestamp, user, reason, body)
        SELECT s.sk, v.id, v.version, ",
    time_18!("v.timestamp"),
    ", v.user, v.reason, v.body
        FROM versions v JOIN scopes s ON s.coll = v.coll AND s.tenant = v.tenant AND s.env = v.env
        WHERE v.body <> '';
    INSERT INTO tags_18 (sk, id, tag, version)
        SELECT s.sk, t.id, t.tag, t.version
        FROM tags t JOIN scopes s ON s.coll = t.coll AND s.tenant = t.tenant AND s.env = t.env;
    INSERT INTO audit_18 (seq, sk, id, action, versions, user, timestamp, reason)
        SELECT a.seq, s.sk, a.id, a.action, a.versions, a.user, ",
    time_18!("a.timestamp"),
    ", a.reason
        FROM audit a JOIN scopes s ON s.coll = a.coll AND s.tenant = a.tenant AND s.env = a.env;
    DROP TABLE heads;
    DROP TABLE versions;
    DROP TABLE tags;
    DROP TABLE audit;
    ALTER TABLE heads_18 RENAME TO heads;
    ALTER TABLE versions_18 RENAME TO versions;
    ALTER TABLE tags_18 RENAME TO tags;
    ALTER TABLE audit_18 RENAME TO audit;"
);

/// Step 18: the document tables rebuilt in this layout, and each per-type index of schema 17
/// (`heads(coll, tenant, env, type, <field>, id, version) WHERE coll = 'object' AND type =
/// '<T>'`, which held the objects of that type name in every scope) made again under its name
/// in the form of [`type_index_sql`], for the objects of its type's scope.
pub fn rebuild(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    // The scope of each index, by the start of its name (`type_index_prefix`).
    let types: Vec<(String, Scope)> = {
        let mut stmt = conn.prepare("SELECT tenant, env, id FROM heads WHERE coll = 'type'")?;
        let rows = stmt.query_map([], |r| {
            let scope = Scope::private(&r.get::<_, String>(0)?, &r.get::<_, String>(1)?);
            Ok((type_index_prefix(&scope, &r.get::<_, String>(2)?), scope))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let old: Vec<(String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'heads' \
             AND name LIKE 'heads\\_x\\_%' ESCAPE '\\' AND sql IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut remade = Vec::with_capacity(old.len());
    for (name, sql) in old {
        let parts = type_index_17(&sql).ok_or_else(|| {
            rusqlite::Error::UserFunctionError(
                format!("a per-type index of another form: {sql}").into(),
            )
        })?;
        let scope = types
            .iter()
            .find(|(prefix, _)| name.starts_with(prefix.as_str()))
            .map(|(_, scope)| scope.clone());
        remade.push((name, parts, scope));
    }
    conn.execute_batch(COPY)?;
    conn.execute_batch(INDEXES)?;
    for (name, (field, ty), scope) in remade {
        // The type's key (made for a type no object has yet).
        conn.execute_batch(&format!(
            "INSERT OR IGNORE INTO type_keys (type) VALUES ({ty})"
        ))?;
        let tk: i64 = conn.query_row(
            &format!("SELECT tk FROM type_keys WHERE type = {ty}"),
            [],
            |r| r.get(0),
        )?;
        // (An index whose type has no definition, which no write leaves, serves every scope.)
        let sk = match scope.filter(|s| !s.is_public()) {
            None => None,
            Some(scope) => {
                let named = params![Collection::Object.as_str(), scope.tenant, scope.env];
                conn.execute(
                    "INSERT OR IGNORE INTO scopes (coll, tenant, env) VALUES (?1, ?2, ?3)",
                    named,
                )?;
                Some(conn.query_row(
                    "SELECT sk FROM scopes WHERE coll = ?1 AND tenant = ?2 AND env = ?3",
                    named,
                    |r| r.get(0),
                )?)
            }
        };
        conn.execute_batch(&type_index_sql(&name, &field, tk, sk))?;
    }
    Ok(())
}

/// The field expression (in schema 18's form) and the type literal of a per-type index of
/// schema 17, from its statement.
fn type_index_17(sql: &str) -> Option<(String, String)> {
    let head = "ON heads(coll, tenant, env, type, ";
    let tail = ", id, version) WHERE coll = 'object' AND type = ";
    let start = sql.find(head)? + head.len();
    let end = sql.rfind(tail)?;
    let ty = &sql[end + tail.len()..];
    let field = sql.get(start..end)?.replace(
        "jsonb_object('_timestamp', timestamp)",
        &sql::doc_of(&sql::HEADS_BARE, "_timestamp"),
    );
    Some((field, ty.to_string()))
}

/// The statement of a per-type index: `field` the expression a list sorts the field by, `tk`
/// the type's key (`type_keys`), `sk` the key of the objects of a private type's scope. A
/// private type's index holds the objects of its scope (`WHERE sk = <key> AND type = <tk>`,
/// which a list's statement says in the same words); a public type's those of every scope.
/// The scope's key and the type's lead either way (the scope's costs nothing: an entry ends
/// with the primary key, `sk, id`, in any case; the type's a byte or two), so that the
/// planner, which has no statistics, sees the index narrow a scope's rows by more terms than
/// the primary key (`sk`) does: without them it reads a list of the type's rows with
/// `field = ...` through the primary key.
pub(crate) fn type_index_sql(name: &str, field: &str, tk: i64, sk: Option<i64>) -> String {
    let scope = sk.map_or(String::new(), |sk| format!("sk = {sk} AND "));
    format!(
        "CREATE INDEX \"{name}\" ON heads(sk, type, {field}, id, version) WHERE {scope}type = {tk}"
    )
}
