//! The document layout of schema 18 (`layout`): a database of schema 17 migrated in place
//! reads back the same, and its per-type indexes are made again and used; and what migration
//! 18 did undone, for the tests that make a database of an older schema out of a new one.

use super::*;
use crate::query::filter::parse_param;
use crate::query::{Filter, ListQuery, Paging, SortSpec};
use crate::store::{AuditEntry, Hold, StoredVersion, WriteTx};

/// A time of schema 18 (`$t`) as schema 17 kept it (text).
macro_rules! text_17 {
    ($t:literal) => {
        crate::store::sqlite::stored::time_text_of!($t)
    };
}

/// The document tables of schema 18 put back as schema 17 had them.
const UNDO_18_TABLES: &str = concat!(
    "CREATE TABLE heads_17 (coll TEXT NOT NULL, tenant TEXT NOT NULL, env TEXT NOT NULL,
        id TEXT NOT NULL, version INTEGER NOT NULL, type TEXT NOT NULL, body BLOB NOT NULL,
        search TEXT NOT NULL, name_fold TEXT, bucket INTEGER NOT NULL DEFAULT 0, reason TEXT,
        id_fold TEXT, timestamp TEXT NOT NULL DEFAULT '', user TEXT NOT NULL DEFAULT '',
        tags TEXT, PRIMARY KEY (coll, tenant, env, id)) WITHOUT ROWID;
    INSERT INTO heads_17 SELECT s.coll, s.tenant, s.env, h.id, h.version,
        (SELECT k.type FROM type_keys k WHERE k.tk = h.type), h.body,
        h.search, h.name_fold, h.bucket, h.reason,
        nullif(coalesce(h.id_fold, lower(h.id)), h.id), ",
    text_17!("h.timestamp"),
    ", h.user, h.tags FROM heads h JOIN scopes s ON s.sk = h.sk;
    CREATE TABLE versions_17 (coll TEXT NOT NULL, tenant TEXT NOT NULL, env TEXT NOT NULL,
        id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL, timestamp TEXT NOT NULL,
        user TEXT NOT NULL, reason TEXT, PRIMARY KEY (coll, tenant, env, id, version))
        WITHOUT ROWID;
    INSERT INTO versions_17 SELECT s.coll, s.tenant, s.env, v.id, v.version, v.body, ",
    text_17!("v.timestamp"),
    ", v.user, v.reason FROM versions v JOIN scopes s ON s.sk = v.sk;
    INSERT INTO versions_17 SELECT s.coll, s.tenant, s.env, h.id, h.version, '', ",
    text_17!("h.timestamp"),
    ", h.user, h.reason FROM heads h JOIN scopes s ON s.sk = h.sk WHERE NOT EXISTS
        (SELECT 1 FROM versions v WHERE v.sk = h.sk AND v.id = h.id AND v.version = h.version);
    CREATE TABLE tags_17 (coll TEXT NOT NULL, tenant TEXT NOT NULL, env TEXT NOT NULL,
        id TEXT NOT NULL, tag TEXT NOT NULL, version INTEGER NOT NULL,
        PRIMARY KEY (coll, tenant, env, id, tag)) WITHOUT ROWID;
    INSERT INTO tags_17 SELECT s.coll, s.tenant, s.env, t.id, t.tag, t.version
        FROM tags t JOIN scopes s ON s.sk = t.sk;
    CREATE TABLE audit_17 (seq INTEGER PRIMARY KEY, coll TEXT NOT NULL, tenant TEXT NOT NULL,
        env TEXT NOT NULL, id TEXT NOT NULL, action TEXT NOT NULL, versions TEXT NOT NULL,
        user TEXT NOT NULL, timestamp TEXT NOT NULL, reason TEXT);
    INSERT INTO audit_17 SELECT a.seq, s.coll, s.tenant, s.env, a.id, a.action, a.versions,
        a.user, ",
    text_17!("a.timestamp"),
    ", a.reason FROM audit a JOIN scopes s ON s.sk = a.sk;
    DROP TABLE heads; DROP TABLE versions; DROP TABLE tags; DROP TABLE audit; DROP TABLE scopes;
    DROP TABLE type_keys;
    ALTER TABLE heads_17 RENAME TO heads; ALTER TABLE versions_17 RENAME TO versions;
    ALTER TABLE tags_17 RENAME TO tags; ALTER TABLE audit_17 RENAME TO audit;
    CREATE INDEX heads_type ON heads(coll, tenant, env, type, id);
    CREATE INDEX heads_name_fold ON heads(coll, tenant, env, name_fold);
    CREATE INDEX heads_sample ON heads(coll, tenant, env, bucket, type);
    CREATE INDEX heads_id_fold ON heads(coll, tenant, env, coalesce(id_fold, id));
    CREATE INDEX audit_doc ON audit(coll, tenant, env, id);"
);

/// What migration 18 did undone (the per-type indexes in their form of schema 17 too), for
/// tests that make a database of an older schema out of a new one (with no function of the
/// platform's). The caller sets the schema version.
pub(in crate::store::sqlite) fn undo_18(conn: &Connection) {
    undo_19(conn);
    let made: Vec<String> = {
        let mut stmt = conn
            .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'heads_x_%'")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    // The types' keys, before their table goes.
    let types: std::collections::HashMap<String, String> = {
        let mut stmt = conn
            .prepare("SELECT tk, quote(type) FROM type_keys")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?.to_string(), r.get(1)?)))
            .unwrap();
        rows.map(Result::unwrap).collect()
    };
    conn.execute_batch(UNDO_18_TABLES).unwrap();
    let time = sql::doc_of(&sql::HEADS_BARE, "_timestamp");
    for sql in made {
        // `heads(sk, type, <field>, id, version) WHERE sk = <key> AND type = <tk>`, or (a
        // public type's) `... WHERE type = <tk>`, the type by its key.
        let (create, rest) = sql.split_once(" ON heads(sk, type, ").unwrap();
        let (field, cond) = rest.rsplit_once(", id, version) WHERE ").unwrap();
        let ty = &types[cond.split_once("type = ").unwrap().1];
        let field = field.replace(&time, "jsonb_object('_timestamp', timestamp)");
        conn.execute_batch(&format!(
            "{create} ON heads(coll, tenant, env, type, {field}, id, version) \
             WHERE coll = 'object' AND type = {ty}"
        ))
        .unwrap();
    }
}

fn at(text: &str) -> DateTime<Utc> {
    crate::clock::parse_instant(text).unwrap()
}

fn version(id: &str, n: u32, body: serde_json::Value, time: &str) -> StoredVersion {
    let mut body = body.as_object().unwrap().clone();
    body.insert("_id".into(), serde_json::json!(id));
    StoredVersion {
        id: id.into(),
        version: n,
        body,
        timestamp: at(time),
        user: format!("ü{n}"),
        reason: n.is_multiple_of(2).then(|| format!("why {n}")),
        tags: Vec::new(),
    }
}

/// The scopes of the test: the public source, two environments of a tenant, another tenant.
fn scopes() -> [Scope; 4] {
    [
        Scope::public(),
        Scope::private("acme", "production"),
        Scope::private("acme", "test"),
        Scope::private("bärbel", "default"),
    ]
}

const IDS: [&str; 4] = ["A", "Ärger-1", "straße", "ΣΊΣΥΦΟΣ"];

/// Types with indexes, objects in every scope with versions (one deleted), tags, reasons,
/// times before 1970 (kept as text), deleted documents and audit entries.
fn fill(tx: &mut dyn WriteTx) {
    let coll = Collection::Object;
    for scope in scopes() {
        tx.hold(&[Hold::Document(Collection::Type, &scope, "Asset")])
            .unwrap();
        let def = version(
            "Asset",
            1,
            serde_json::json!({"_indexes": ["price", "_timestamp"]}),
            "2023-05-06T07:08:09.010Z",
        );
        tx.put_current(Collection::Type, &scope, &def, None)
            .unwrap();
        tx.set_type_indexes(&scope, "Asset", &["price".into(), "_timestamp".into()])
            .unwrap();
        for (i, id) in IDS.iter().enumerate() {
            tx.hold(&[Hold::Document(coll, &scope, id)]).unwrap();
            let times = [
                "1969-12-31T23:59:59.999Z",
                "2024-01-02T03:04:05.678Z",
                "2024-02-29T00:00:00.000Z",
            ];
            for (n, time) in (1..=3).zip(times) {
                let body = serde_json::json!({"_type": "Asset", "name": format!("Émile {id} {n}"),
                    "description": "Ünïcode Description", "price": (i as u32 * 10 + n)});
                let v = version(id, n, body, time);
                tx.put_version(coll, &scope, &v).unwrap();
                tx.set_current(coll, &scope, id, Some(n)).unwrap();
            }
            tx.set_tag(coll, &scope, id, "live", 3).unwrap();
            tx.set_tag(coll, &scope, id, "first", 1).unwrap();
            // A version deleted, and one saved through the store's one-step save.
            tx.delete_version(coll, &scope, id, 2).unwrap();
            let v4 = version(
                id,
                4,
                serde_json::json!({"_type": "Asset", "price": 1}),
                "0500-01-01T00:00:00.000Z",
            );
            tx.put_current(coll, &scope, &v4, Some(3)).unwrap();
            let entry = AuditEntry {
                id: id.to_string(),
                action: "delete-version".into(),
                versions: vec![2],
                user: "ö".into(),
                timestamp: at("2024-03-04T05:06:07.089Z"),
                reason: Some("gone".into()),
            };
            tx.append_audit(coll, &scope, &entry).unwrap();
        }
        // A deleted document: versions kept, no current one.
        tx.set_current(coll, &scope, IDS[3], None).unwrap();
    }
}

/// Everything the store says of the documents of [`fill`].
fn read_all(store: &SqliteStore) -> Vec<String> {
    let tx = store.read().unwrap();
    let mut out = Vec::new();
    for scope in scopes() {
        for coll in [Collection::Object, Collection::Type] {
            for id in IDS.iter().chain(&["Asset"]) {
                out.push(format!(
                    "{scope:?} {coll:?} {id}: {:?} {:?} {:?} {:?} {:?} {:?}",
                    tx.current(coll, &scope, id).unwrap(),
                    tx.versions(coll, &scope, id).unwrap(),
                    tx.version(coll, &scope, id, 3).unwrap(),
                    tx.tagged(coll, &scope, id, "live").unwrap(),
                    tx.tagged(coll, &scope, id, "first").unwrap(),
                    tx.audit(coll, &scope, id).unwrap(),
                ));
            }
        }
        for q in [
            typed("price", "gt(5)"),
            typed("_timestamp", "gt(1900-01-01)"),
        ] {
            let page = tx
                .list(Collection::Object, std::slice::from_ref(&scope), &q)
                .unwrap();
            out.push(format!("{scope:?} {q:?}: {:?} {}", page.items, page.total));
        }
        let all = tx
            .list(Collection::Object, &scopes(), &typed("_search", "émile"))
            .unwrap();
        out.push(format!("{:?}", all.items));
        let complete = tx
            .complete(Collection::Object, &scopes(), &Filter::all(), "ärg", None)
            .unwrap();
        out.push(format!("{complete:?}"));
    }
    out
}

/// A list of `Asset`s filtered by one parameter, sorted by price.
fn typed(key: &str, value: &str) -> ListQuery {
    ListQuery {
        total: crate::query::Total::Exact,
        filter: Filter::and(vec![
            Filter::TypeIn(vec!["Asset".into()]),
            parse_param(key, value).unwrap(),
        ]),
        sort: SortSpec::parse("price").unwrap(),
        paging: Paging {
            skip: 0,
            limit: Some(10),
        },
    }
}

fn index_sql(path: &std::path::Path) -> Vec<String> {
    let conn = Connection::open(path).unwrap();
    let mut stmt = conn
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'heads_x_%' ORDER BY name")
        .unwrap();
    let rows = stmt.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap)
        .map(|sql| scope_named(&conn, sql))
        .collect()
}

/// A per-type index's statement with the scope's and the type's keys of its WHERE written as
/// the scope and type they stand for (a migration numbers the keys afresh).
pub(in crate::store::sqlite) fn scope_named(conn: &Connection, sql: String) -> String {
    // The type's key, at the end.
    let sql = match sql.rsplit_once("type = ") {
        Some((head, key)) if key.parse::<i64>().is_ok() => {
            let named: String = conn
                .query_row(
                    "SELECT type FROM type_keys WHERE tk = ?1",
                    [key.parse::<i64>().unwrap()],
                    |r| r.get(0),
                )
                .unwrap();
            format!("{head}type = <{named}>")
        }
        _ => sql,
    };
    let Some((head, rest)) = sql.split_once("WHERE sk = ") else {
        return sql;
    };
    let (key, tail) = rest.split_once(' ').unwrap();
    let named: String = conn
        .query_row(
            "SELECT coll || '/' || tenant || '/' || env FROM scopes WHERE sk = ?1",
            [key.parse::<i64>().unwrap()],
            |r| r.get(0),
        )
        .unwrap();
    format!("{head}WHERE sk = <{named}> {tail}")
}

#[test]
fn migration_18_rebuilds_the_document_tables_and_everything_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let store = SqliteStore::open(&path).unwrap();
    let mut tx = store.write().unwrap();
    fill(tx.as_mut());
    tx.commit().unwrap();
    let before = read_all(&store);
    let made = index_sql(&path);
    assert_eq!(made.len(), 8, "{made:?}");
    drop(store);
    // The database as schema 17 had it: three texts a row, times as text, every version a row.
    let conn = Connection::open(&path).unwrap();
    undo_18(&conn);
    conn.execute_batch("PRAGMA user_version = 17;").unwrap();
    let old = index_sql(&path);
    assert!(
        old.iter()
            .all(|s| s.contains("WHERE coll = 'object' AND type = 'Asset'")),
        "{old:?}"
    );
    let rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM versions WHERE coll = 'object'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 4 * 4 * 3, "every version a row");
    drop(conn);

    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(read_all(&store), before);
    assert_eq!(index_sql(&path), made);
    let conn = Connection::open(&path).unwrap();
    // The current versions are their current rows; times are integers but before 1970.
    let (kept, text_times): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM versions v JOIN heads h ON h.sk = v.sk AND h.id = v.id \
             AND h.version = v.version), (SELECT count(*) FROM heads WHERE typeof(timestamp) = 'text') \
             + (SELECT count(*) FROM versions WHERE typeof(timestamp) = 'text')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(kept, 0);
    // Each scope: three current rows of version 4 (the year 500), the first versions (1969)
    // and the deleted document's version 4.
    assert_eq!(text_times, 4 * (3 + 4 + 1));
    // A list of the type searches its index in the new form.
    let sk: i64 = conn
        .query_row(
            "SELECT sk FROM scopes WHERE coll = 'object' AND tenant = 'acme' AND env = 'production'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    sql::register_functions(&conn).unwrap();
    let query = typed("price", "gt(5)");
    let types = keys::stored_type_keys(&conn, &query.filter);
    let statements =
        documents::list_statements(Collection::Object, &[sk], &types, &query, None).unwrap();
    let plan = explain(&conn, &statements.page.0, &statements.page.1);
    let index =
        crate::store::type_index_name(&Scope::private("acme", "production"), "Asset", "price");
    assert!(plan.contains(&format!("INDEX {index} ")), "{plan}");
    // The schema needs no function of the platform's: a plain SQLite connection rebuilds it.
    Connection::open(&path)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
}

/// A scope's key made by a write that rolls back is not remembered: another process may give
/// the number to another scope, and the next write makes the key again. A read of a scope
/// without a key finds nothing and makes none.
#[test]
fn a_key_made_by_a_write_that_rolls_back_is_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys.db");
    let store = SqliteStore::open(&path).unwrap();
    let (mine, other) = (
        Scope::private("mine", "production"),
        Scope::private("other", "production"),
    );
    let v = version(
        "A",
        1,
        serde_json::json!({"n": 1}),
        "2024-01-01T00:00:00.000Z",
    );
    let keys = |conn: &Connection| -> Vec<(i64, String)> {
        let mut stmt = conn
            .prepare("SELECT sk, tenant FROM scopes ORDER BY sk")
            .unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let mut tx = store.write().unwrap();
    tx.hold(&[Hold::Document(Collection::Object, &mine, "A")])
        .unwrap();
    tx.put_current(Collection::Object, &mine, &v, None).unwrap();
    drop(tx);
    // Another process (the command line beside a server) takes the number.
    let conn = Connection::open(&path).unwrap();
    conn.execute(
        "INSERT INTO scopes (coll, tenant, env) VALUES ('object', 'other', 'production')",
        [],
    )
    .unwrap();
    let mut tx = store.write().unwrap();
    tx.hold(&[Hold::Document(Collection::Object, &mine, "A")])
        .unwrap();
    tx.put_current(Collection::Object, &mine, &v, None).unwrap();
    tx.commit().unwrap();
    let tx = store.read().unwrap();
    assert_eq!(tx.current(Collection::Object, &mine, "A").unwrap(), Some(v));
    assert_eq!(tx.current(Collection::Object, &other, "A").unwrap(), None);
    drop(tx);
    let owner: String = conn
        .query_row(
            "SELECT s.tenant FROM heads h JOIN scopes s ON s.sk = h.sk WHERE h.id = 'A'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(owner, "mine");
    // Reads of a scope without a key make none.
    let before = keys(&conn);
    let unknown = Scope::private("nobody", "production");
    let tx = store.read().unwrap();
    assert_eq!(tx.current(Collection::Object, &unknown, "A").unwrap(), None);
    assert!(tx
        .versions(Collection::Object, &unknown, "A")
        .unwrap()
        .is_empty());
    drop(tx);
    assert_eq!(
        store
            .current_document(Collection::Object, &unknown, "A")
            .unwrap(),
        None
    );
    assert_eq!(keys(&conn), before);
}

/// Turns a database of schema 19 back into one of schema 18: each current row's body whole
/// again in its JSONB, and no `lead`.
pub(in crate::store::sqlite) fn undo_19(conn: &Connection) {
    conn.execute_batch(&format!(
        "UPDATE heads AS h SET body = jsonb({}) WHERE h.lead IS NOT NULL; \
         ALTER TABLE heads DROP COLUMN lead; PRAGMA user_version = 18;",
        crate::store::sqlite::documents::head::BODY_OF_HEAD
    ))
    .unwrap();
}
