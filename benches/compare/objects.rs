//! The object workload W5: upserts, filtered and searched lists with totals, completion and
//! gets by id; and the rows the platform's saves wrote, written again by plain rusqlite.

use crate::contestants::{open_core, open_sqlite, Core, Sqlite};
use crate::timing::{emit, on_postgres, paired, repeat, time_ms};
use crate::{corpus, runs, Sizes};
use platform_core::documents::{ListRequest, SaveOptions};
use platform_core::ids::Source;
use platform_core::query::Params;
use platform_core::store::Collection;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value};
use std::path::Path;

/// Loads the objects in saves of 1,000 (one transaction each).
pub(crate) fn load_objects(core: &Core, objects: &[Value]) {
    save_objects(core, object_saves(objects));
}

/// The bodies of the saves of `objects`, 1,000 to a save (the platform's save takes its items
/// by value: a caller builds them once, as a server parses a request's).
pub(crate) fn object_saves(objects: &[Value]) -> Vec<Value> {
    objects
        .chunks(1000)
        .map(|chunk| Value::Array(chunk.to_vec()))
        .collect()
}

/// Saves each of `saves` (an array of objects) in a call of its own.
pub(crate) fn save_objects(core: &Core, saves: Vec<Value>) {
    for items in saves {
        core.platform
            .objects()
            .save(
                &core.who,
                Collection::Object,
                items,
                &SaveOptions::default(),
            )
            .unwrap();
    }
}

pub(crate) fn load_sqlite_objects(db: &Sqlite, objects: &[Value]) {
    for chunk in objects.chunks(1000) {
        let tx = db.conn.unchecked_transaction().unwrap();
        {
            let mut up = tx
                .prepare_cached(
                    "INSERT INTO docs VALUES (?1, jsonb(?2)) \
                     ON CONFLICT(id) DO UPDATE SET body = excluded.body",
                )
                .unwrap();
            for o in chunk {
                up.execute((o["_id"].as_str().unwrap(), o.to_string()))
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
}

/// The rows the platform's saves of `objects` wrote, read back from its SQLite file: for each
/// object (in saves of 1,000), its current row and any version rows (a new object has none:
/// its current row is its one version), as stored.
pub(crate) struct SavedRows {
    /// The statements that made the tables (scopes, versions, current rows) and the current
    /// rows' indexes.
    pub(crate) schema: Vec<String>,
    /// The scope rows the objects' keys name.
    pub(crate) scopes: Vec<Vec<rusqlite::types::Value>>,
    /// Per object: its current row, then its version rows.
    pub(crate) rows: Vec<(
        Vec<rusqlite::types::Value>,
        Vec<Vec<rusqlite::types::Value>>,
    )>,
}

impl SavedRows {
    pub(crate) fn read(path: &Path) -> SavedRows {
        let conn = Connection::open(path).unwrap();
        let schema = conn
            .prepare(
                "SELECT sql FROM sqlite_master WHERE tbl_name IN ('scopes', 'versions', 'heads') \
                 AND sql IS NOT NULL ORDER BY type DESC, rowid",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let all = |sql: &str| -> Vec<Vec<rusqlite::types::Value>> {
            let mut stmt = conn.prepare(sql).unwrap();
            let n = stmt.column_count();
            stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let objects = "(SELECT sk FROM scopes WHERE coll = 'object')";
        let scopes = all("SELECT * FROM scopes WHERE coll = 'object'");
        let heads = all(&format!(
            "SELECT * FROM heads WHERE sk IN {objects} ORDER BY sk, id"
        ));
        let mut versions = all(&format!(
            "SELECT * FROM versions WHERE sk IN {objects} ORDER BY sk, id, version"
        ))
        .into_iter()
        .peekable();
        let rows = heads
            .into_iter()
            .map(|head| {
                let mut own = Vec::new();
                while versions.peek().is_some_and(|v| v[..2] == head[..2]) {
                    own.extend(versions.next());
                }
                (head, own)
            })
            .collect();
        assert!(
            versions.next().is_none(),
            "every version row is of a current object"
        );
        SavedRows {
            schema,
            scopes,
            rows,
        }
    }

    /// Writes the rows into a fresh file of the same tables and indexes (and the platform's
    /// settings of the connection) with plain rusqlite, 1,000 objects to a transaction: per
    /// object, a look-up of its current version (an upsert's new version number depends on
    /// it), then its current row and its version rows. The floor under the platform's upsert,
    /// given what it keeps of each object.
    pub(crate) fn write(&self) -> (f64, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("rows.db")).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;",
        )
        .unwrap();
        for sql in &self.schema {
            conn.execute_batch(sql).unwrap();
        }
        let insert = |table: &str, n: usize| {
            let marks = vec!["?"; n].join(", ");
            format!("INSERT INTO {table} VALUES ({marks})")
        };
        for scope in &self.scopes {
            conn.execute(
                &insert("scopes", scope.len()),
                rusqlite::params_from_iter(scope),
            )
            .unwrap();
        }
        let h_sql = insert("heads", self.rows[0].0.len());
        let v_sql = self
            .rows
            .iter()
            .find_map(|(_, v)| v.first())
            .map(|v| insert("versions", v.len()));
        let took = time_ms(|| {
            for chunk in self.rows.chunks(1000) {
                let tx = conn.unchecked_transaction().unwrap();
                {
                    let mut current = tx
                        .prepare_cached("SELECT version FROM heads WHERE sk = ?1 AND id = ?2")
                        .unwrap();
                    let mut h = tx.prepare_cached(&h_sql).unwrap();
                    for (head, versions) in chunk {
                        let had: Option<i64> = current
                            .query_row(rusqlite::params_from_iter(&head[..2]), |r| r.get(0))
                            .optional()
                            .unwrap();
                        assert!(had.is_none());
                        h.execute(rusqlite::params_from_iter(head)).unwrap();
                        for version in versions {
                            let sql = v_sql.as_deref().expect("a version row");
                            tx.prepare_cached(sql)
                                .unwrap()
                                .execute(rusqlite::params_from_iter(version))
                                .unwrap();
                        }
                    }
                }
                tx.commit().unwrap();
            }
        })
        .0;
        (took, dir)
    }
}

pub(crate) fn w5(s: &Sizes) {
    let (core, db) = w5_upsert(s);
    w5_lists(&core, &db);
    w5_get(s, &core, &db);
}

/// W5 upserts: the corpus's objects in saves of 1,000, by the platform, by plain rusqlite and
/// (on SQLite) the rows the platform wrote written again by plain rusqlite; the stores of the
/// last run.
fn w5_upsert(s: &Sizes) -> (Core, Sqlite) {
    let objects = corpus::objects(s.objects as u64, 42);
    let heavy = runs().min(3);
    let (mut ours, mut plain, mut same) = (Vec::new(), Vec::new(), Vec::new());
    let mut kept = None;
    let mut saved = None;
    for _ in 0..heavy {
        let core = open_core();
        // The saves' bodies built before the clock starts, as the peers' input is.
        let saves = object_saves(&objects);
        ours.push(time_ms(|| save_objects(&core, saves)).0);
        let db = open_sqlite();
        plain.push(time_ms(|| load_sqlite_objects(&db, &objects)).0);
        // On SQLite: the same rows written by plain rusqlite, in turn with the other two.
        if !on_postgres() {
            let rows = saved.get_or_insert_with(|| SavedRows::read(&core.path));
            assert_eq!(rows.rows.len(), objects.len());
            same.push(rows.write().0);
        }
        kept = Some((core, db));
    }
    let case = format!("upsert {} objects (saves of 1,000)", s.objects);
    emit("W5", &case, "platform", &ours, json!({}));
    emit("W5", &case, "rusqlite", &plain, json!({}));
    if !same.is_empty() {
        emit("W5", &case, "rusqlite-same-rows", &same, json!({}));
    }
    kept.expect("runs() is at least one")
}

/// Runs of the quick list cases.
const QUICK: usize = 51;

/// W5 lists: a filtered first page with its total, `_search` with its total, `_searchinfo`.
/// Totals are counted exactly, as the peers count them (a list past 10,000 matches would
/// otherwise answer an estimate: W10 measures that).
fn w5_lists(core: &Core, db: &Sqlite) {
    let filter = "body ->> '$.classification' = 'gas' AND json_type(body, '$.capacity') IN \
                  ('integer','real') AND body ->> '$.capacity' > 500";
    let mut f_ours = lister(
        core,
        &[
            ("classification", "gas"),
            ("capacity", "gt(500)"),
            ("_limit", "100"),
            ("_count", "exact"),
        ],
    );
    let mut f_plain = page_and_total(db, filter);
    let (total, rows) = f_plain();
    let page = f_ours();
    assert_eq!((page.total, page.items.len()), (total, rows.len()));
    let (ours, plain) = paired(QUICK, repeat(&mut f_ours), repeat(&mut f_plain));
    let case = "filtered first page with total";
    let extra = json!({"total": total});
    emit("W5", case, "platform", &ours, extra.clone());
    emit("W5", case, "rusqlite", &plain, extra);

    let search = "lower(id || ' ' || ifnull(body ->> '$.name', '') || ' ' || \
                  ifnull(body ->> '$.description', '') || ' ' || \
                  ifnull(body ->> '$.classification', '')) LIKE '%north%' AND \
                  lower(id || ' ' || ifnull(body ->> '$.name', '') || ' ' || \
                  ifnull(body ->> '$.description', '') || ' ' || \
                  ifnull(body ->> '$.classification', '')) LIKE '%gas%'";
    let mut s_ours = lister(
        core,
        &[
            ("_search", "north gas"),
            ("_limit", "100"),
            ("_count", "exact"),
        ],
    );
    let mut s_plain = page_and_total(db, search);
    let (total, _) = s_plain();
    let page = s_ours();
    assert_eq!(page.total, total);
    let (ours, plain) = paired(QUICK, repeat(&mut s_ours), repeat(&mut s_plain));
    let case = "_search, first page with total";
    let extra = json!({"total": total, "query": "_search=north gas"});
    emit("W5", case, "platform", &ours, extra.clone());
    emit("W5", case, "rusqlite", &plain, extra);
    w5_searchinfo(core, db);
}

/// W5 `_searchinfo`: ten completions of a prefix.
fn w5_searchinfo(core: &Core, db: &Sqlite) {
    let mut i_ours = lister(core, &[("_searchinfo", "obj0012"), ("_limit", "10")]);
    let mut stmt = db
        .conn
        .prepare(
            "SELECT id, body ->> '$.name' FROM docs WHERE (id >= 'OBJ0012' AND id < 'OBJ0013') \
             OR lower(body ->> '$.name') LIKE 'obj0012%' ORDER BY id LIMIT 10",
        )
        .unwrap();
    let mut i_plain = || {
        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
    };
    assert_eq!(i_ours().items.len(), i_plain().len());
    let (ours, plain) = paired(QUICK, repeat(&mut i_ours), repeat(&mut i_plain));
    emit("W5", "_searchinfo (10 items)", "platform", &ours, json!({}));
    emit(
        "W5",
        "_searchinfo (10 items)",
        "rusqlite",
        &plain,
        json!({}),
    );
}

/// A list of the platform's private objects with these query parameters.
fn lister<'c>(
    core: &'c Core,
    params: &[(&str, &str)],
) -> impl FnMut() -> platform_core::store::Page<Value> + 'c {
    let req = ListRequest::from_params(&Params::from_slice(params)).unwrap();
    move || {
        core.platform
            .objects()
            .list(&core.who, Collection::Object, Source::Private, &req)
            .unwrap()
    }
}

/// The plain rusqlite list of the documents matching `filter`: its total and its first page of
/// 100 by id.
fn page_and_total<'d>(
    db: &'d Sqlite,
    filter: &str,
) -> impl FnMut() -> (u64, Vec<(String, String)>) + 'd {
    let mut count = db
        .conn
        .prepare(&format!("SELECT count(*) FROM docs WHERE {filter}"))
        .unwrap();
    let mut page = db
        .conn
        .prepare(&format!(
            "SELECT id, json(body) FROM docs WHERE {filter} ORDER BY id LIMIT 100"
        ))
        .unwrap();
    move || {
        let total: u64 = count.query_row([], |r| r.get(0)).unwrap();
        let rows: Vec<(String, String)> = page
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        (total, rows)
    }
}

/// W5 gets by id, of random objects.
fn w5_get(s: &Sizes, core: &Core, db: &Sqlite) {
    let n = s.objects as u64;
    let mut rng = corpus::Rng::new(7);
    let mut rng2 = corpus::Rng::new(7);
    let mut get = db
        .conn
        .prepare("SELECT json(body) FROM docs WHERE id = ?1")
        .unwrap();
    let (ours, plain) = paired(
        1001,
        || {
            let id = format!("OBJ{:06}", rng.below(n));
            time_ms(|| {
                core.platform
                    .objects()
                    .get(
                        &core.who,
                        Collection::Object,
                        Source::Private,
                        &id,
                        None,
                        None,
                    )
                    .unwrap()
            })
            .0
        },
        || {
            let id = format!("OBJ{:06}", rng2.below(n));
            time_ms(|| {
                let text: String = get.query_row([&id], |r| r.get(0)).unwrap();
                serde_json::from_str::<Value>(&text).unwrap()
            })
            .0
        },
    );
    emit("W5", "get by id", "platform", &ours, json!({}));
    emit("W5", "get by id", "rusqlite", &plain, json!({}));
}
