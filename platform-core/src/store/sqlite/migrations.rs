//! Schema migrations, append-only, tracked by `PRAGMA user_version`.
//!
//! Step N (1-based) takes the schema from version N-1 to N. Never edit a step that shipped; add one.

/// The migration steps, in order.
pub const STEPS: &[&str] = &[
    // 1: tenants, users, tokens, versioned documents, tags and the audit trail.
    r#"
    CREATE TABLE tenants (
        name    TEXT PRIMARY KEY,
        created TEXT NOT NULL
    );
    CREATE TABLE environments (
        tenant  TEXT NOT NULL REFERENCES tenants(name),
        name    TEXT NOT NULL,
        created TEXT NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;
    CREATE TABLE users (
        tenant  TEXT NOT NULL REFERENCES tenants(name),
        name    TEXT NOT NULL,
        role    TEXT NOT NULL,
        created TEXT NOT NULL,
        PRIMARY KEY (tenant, name)
    ) WITHOUT ROWID;
    CREATE TABLE tokens (
        hash    TEXT PRIMARY KEY,
        tenant  TEXT NOT NULL,
        user    TEXT NOT NULL,
        created TEXT NOT NULL,
        revoked TEXT,
        FOREIGN KEY (tenant, user) REFERENCES users(tenant, name)
    ) WITHOUT ROWID;
    CREATE INDEX tokens_user ON tokens(tenant, user);

    -- Every version of every versioned document; tenant = env = '' is the public source.
    CREATE TABLE versions (
        coll      TEXT NOT NULL,
        tenant    TEXT NOT NULL,
        env       TEXT NOT NULL,
        id        TEXT NOT NULL,
        version   INTEGER NOT NULL,
        body      TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        user      TEXT NOT NULL,
        reason    TEXT,
        PRIMARY KEY (coll, tenant, env, id, version)
    ) WITHOUT ROWID;
    -- The current version of each document, with a copy of its body (as JSONB, so filters
    -- read fields without parsing text) for lists and filters.
    CREATE TABLE heads (
        coll    TEXT NOT NULL,
        tenant  TEXT NOT NULL,
        env     TEXT NOT NULL,
        id      TEXT NOT NULL,
        version INTEGER NOT NULL,
        type    TEXT NOT NULL,
        body    BLOB NOT NULL,
        -- Case-folded _id, name, description, classification joined by newlines (_search).
        search  TEXT NOT NULL,
        -- Case-folded name (_searchinfo).
        name_fold TEXT,
        PRIMARY KEY (coll, tenant, env, id)
    ) WITHOUT ROWID;
    CREATE INDEX heads_type ON heads(coll, tenant, env, type, id);
    CREATE INDEX heads_search ON heads(coll, tenant, env, search);
    CREATE INDEX heads_name_fold ON heads(coll, tenant, env, name_fold);
    CREATE TABLE tags (
        coll    TEXT NOT NULL,
        tenant  TEXT NOT NULL,
        env     TEXT NOT NULL,
        id      TEXT NOT NULL,
        tag     TEXT NOT NULL,
        version INTEGER NOT NULL,
        PRIMARY KEY (coll, tenant, env, id, tag)
    ) WITHOUT ROWID;
    CREATE TABLE audit (
        seq       INTEGER PRIMARY KEY,
        coll      TEXT NOT NULL,
        tenant    TEXT NOT NULL,
        env       TEXT NOT NULL,
        id        TEXT NOT NULL,
        action    TEXT NOT NULL,
        versions  TEXT NOT NULL,
        user      TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        reason    TEXT
    );
    CREATE INDEX audit_doc ON audit(coll, tenant, env, id);
    "#,
    // 2: time-series chunks and curves, versioned with their object.
    r#"
    -- A row is visible at object versions vfrom <= v < vto (vto NULL: still current).
    CREATE TABLE series_chunks (
        tenant  TEXT NOT NULL,
        env     TEXT NOT NULL,
        obj     TEXT NOT NULL,
        prop    TEXT NOT NULL,
        start   INTEGER NOT NULL,
        vfrom   INTEGER NOT NULL,
        vto     INTEGER,
        stop    INTEGER NOT NULL,
        n       INTEGER NOT NULL,
        payload BLOB NOT NULL
    );
    CREATE INDEX series_chunks_key ON series_chunks(tenant, env, obj, prop, start, vfrom);
    CREATE INDEX series_chunks_current ON series_chunks(tenant, env, obj, prop, start) WHERE vto IS NULL;
    CREATE TABLE curves (
        tenant  TEXT NOT NULL,
        env     TEXT NOT NULL,
        obj     TEXT NOT NULL,
        prop    TEXT NOT NULL,
        ondate  TEXT NOT NULL,
        vfrom   INTEGER NOT NULL,
        vto     INTEGER,
        payload BLOB NOT NULL
    );
    CREATE INDEX curves_key ON curves(tenant, env, obj, prop, ondate, vfrom);
    CREATE INDEX curves_current ON curves(tenant, env, obj, prop, ondate) WHERE vto IS NULL;
    "#,
    // 3: data-access roles and view features granted to users.
    r#"
    CREATE TABLE grants (
        tenant TEXT NOT NULL,
        user   TEXT NOT NULL,
        kind   TEXT NOT NULL,
        name   TEXT NOT NULL,
        PRIMARY KEY (tenant, user, kind, name),
        FOREIGN KEY (tenant, user) REFERENCES users(tenant, name)
    ) WITHOUT ROWID;
    "#,
    // 4: secrets (values sealed by the core; this table never sees them in clear).
    r#"
    CREATE TABLE secrets (
        tenant     TEXT NOT NULL,
        env        TEXT NOT NULL,
        id         TEXT NOT NULL,
        meta       TEXT NOT NULL,
        nonce      BLOB NOT NULL,
        ciphertext BLOB NOT NULL,
        updated    TEXT NOT NULL,
        user       TEXT NOT NULL,
        PRIMARY KEY (tenant, env, id)
    ) WITHOUT ROWID;
    "#,
    // 5: validation records (one per checked observation or curve ondate) and background jobs.
    r#"
    -- A rowid table: records are a few KB, too big for the rows of a WITHOUT ROWID tree.
    CREATE TABLE vrecords (
        rid    INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        env    TEXT NOT NULL,
        id     TEXT NOT NULL,
        target TEXT NOT NULL,
        doc    BLOB NOT NULL,
        UNIQUE (tenant, env, id)
    );
    CREATE INDEX vrecords_target ON vrecords(tenant, env, target);
    CREATE TABLE jobs (
        seq     INTEGER PRIMARY KEY,
        tenant  TEXT NOT NULL,
        env     TEXT NOT NULL,
        id      TEXT NOT NULL UNIQUE,
        status  TEXT NOT NULL,
        doc     TEXT NOT NULL
    );
    CREATE INDEX jobs_status ON jobs(status, seq);
    "#,
    // 6: validation records in chunks (see validation::records): a record a row cost ~10 us a
    // write, 15 s for a full run of a thousand day-long minute series. Records written by the
    // per-row layout of step 5 (never released) are not carried over.
    r#"
    DROP TABLE vrecords;
    CREATE TABLE vchunks (
        rid      INTEGER PRIMARY KEY,
        tenant   TEXT NOT NULL,
        env      TEXT NOT NULL,
        target   TEXT NOT NULL,
        seq      INTEGER NOT NULL,
        first    INTEGER NOT NULL,
        last     INTEGER NOT NULL,
        count    INTEGER NOT NULL,
        statuses INTEGER NOT NULL,
        body     BLOB NOT NULL,
        UNIQUE (tenant, env, target, seq)
    );
    "#,
    // 7: events and automations: automations, deliveries (the outbox: one row per event and
    // matching automation, written with the change), their log, the mail outbox.
    r#"
    CREATE TABLE automations (
        tenant TEXT NOT NULL,
        env    TEXT NOT NULL,
        id     TEXT NOT NULL,
        doc    TEXT NOT NULL,
        PRIMARY KEY (tenant, env, id)
    ) WITHOUT ROWID;
    CREATE TABLE deliveries (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant     TEXT NOT NULL,
        env        TEXT NOT NULL,
        automation TEXT NOT NULL,
        item       TEXT NOT NULL,
        status     TEXT NOT NULL,
        attempts   INTEGER NOT NULL,
        next_at    TEXT NOT NULL,
        doc        TEXT NOT NULL
    );
    CREATE INDEX deliveries_due ON deliveries(status, next_at, seq);
    CREATE INDEX deliveries_item ON deliveries(tenant, env, automation, item, seq);
    CREATE TABLE automation_log (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant     TEXT NOT NULL,
        env        TEXT NOT NULL,
        automation TEXT NOT NULL,
        status     TEXT NOT NULL,
        timestamp  TEXT NOT NULL,
        doc        TEXT NOT NULL
    );
    CREATE INDEX automation_log_scope ON automation_log(tenant, env, seq);
    CREATE TABLE mail (
        seq    INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL,
        env    TEXT NOT NULL,
        doc    TEXT NOT NULL
    );
    "#,
    // 8: the background workers serving the database (servers), each with when it was last
    // seen, so a queued job can say who will run it.
    r#"
    CREATE TABLE workers (
        id      TEXT PRIMARY KEY,
        host    TEXT NOT NULL,
        pid     INTEGER NOT NULL,
        started TEXT NOT NULL,
        seen    TEXT NOT NULL
    ) WITHOUT ROWID;
    "#,
    // 9: the filterable copy of each current document carries its system fields (`_oid
    // _version _timestamp _user _tag`), so they filter and sort like any field.
    r#"
    UPDATE heads SET body = (
        SELECT jsonb_set(jsonb(v.body), '$._oid', v.id, '$._version', v.version,
            '$._timestamp', v.timestamp, '$._user', v.user, '$._tag',
            json((SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t
                  WHERE t.coll = v.coll AND t.tenant = v.tenant AND t.env = v.env
                  AND t.id = v.id AND t.version = v.version ORDER BY t.tag))))
        FROM versions v WHERE v.coll = heads.coll AND v.tenant = heads.tenant
        AND v.env = heads.env AND v.id = heads.id AND v.version = heads.version);
    "#,
    // 10: when a job may start is a column (the claim of the next job reads it), taken from
    // the `notBefore` of each job's document. The table is rebuilt (SQLite's way of changing
    // one), so the step also holds on a table that has the column already.
    r#"
    CREATE TABLE jobs_10 (
        seq        INTEGER PRIMARY KEY,
        tenant     TEXT NOT NULL,
        env        TEXT NOT NULL,
        id         TEXT NOT NULL UNIQUE,
        status     TEXT NOT NULL,
        not_before TEXT,
        doc        TEXT NOT NULL
    );
    INSERT INTO jobs_10 (seq, tenant, env, id, status, not_before, doc)
        SELECT seq, tenant, env, id, status, json_extract(doc, '$.notBefore'), doc FROM jobs;
    DROP TABLE jobs;
    ALTER TABLE jobs_10 RENAME TO jobs;
    CREATE INDEX jobs_status ON jobs(status, seq);
    "#,
    // 11: the authentication epoch, raised by every change to what authenticates a request
    // (servers keep authenticated tokens while it stays the same). It holds on a database
    // that has it already (as a file whose version was set back).
    r#"
    CREATE TABLE IF NOT EXISTS auth_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
    INSERT OR IGNORE INTO auth_epoch (id, n) VALUES (1, 0);
    CREATE TRIGGER IF NOT EXISTS tenants_auth_insert AFTER INSERT ON tenants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS tenants_auth_update AFTER UPDATE ON tenants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS tenants_auth_delete AFTER DELETE ON tenants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS environments_auth_insert AFTER INSERT ON environments BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS environments_auth_update AFTER UPDATE ON environments BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS environments_auth_delete AFTER DELETE ON environments BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS users_auth_insert AFTER INSERT ON users BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS users_auth_update AFTER UPDATE ON users BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS users_auth_delete AFTER DELETE ON users BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS grants_auth_insert AFTER INSERT ON grants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS grants_auth_update AFTER UPDATE ON grants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS grants_auth_delete AFTER DELETE ON grants BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS tokens_auth_insert AFTER INSERT ON tokens BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS tokens_auth_update AFTER UPDATE ON tokens BEGIN UPDATE auth_epoch SET n = n + 1; END;
    CREATE TRIGGER IF NOT EXISTS tokens_auth_delete AFTER DELETE ON tokens BEGIN UPDATE auth_epoch SET n = n + 1; END;
    "#,
    // 12: each current document's sample bucket (a hash of its id, 0..65535, written by
    // `pf_bucket`), indexed with its scope: the estimated total of a long list counts the
    // matches among the documents of a few buckets, not among all of them.
    r#"
    ALTER TABLE heads ADD COLUMN bucket INTEGER NOT NULL DEFAULT 0;
    UPDATE heads SET bucket = pf_bucket(id);
    CREATE INDEX heads_sample ON heads(coll, tenant, env, bucket, type);
    "#,
    // 13: the current version's reason beside its body in the current row, so a document by id
    // is read from that row alone.
    r#"
    ALTER TABLE heads ADD COLUMN reason TEXT;
    UPDATE heads SET reason = v.reason FROM versions v WHERE v.coll = heads.coll
        AND v.tenant = heads.tenant AND v.env = heads.env AND v.id = heads.id
        AND v.version = heads.version AND v.reason IS NOT NULL;
    "#,
    // 14: the current version's body kept once, in its current row: its version row keeps
    // empty text (a body that would not read back as written keeps its text). The space comes
    // back to the file's free pages (VACUUM returns it to the disk).
    r#"
    UPDATE versions SET body = '' FROM heads h WHERE h.coll = versions.coll
        AND h.tenant = versions.tenant AND h.env = versions.env AND h.id = versions.id
        AND h.version = versions.version
        AND versions.body = json(jsonb_remove(h.body, '$._oid', '$._version', '$._timestamp', '$._user', '$._tag'));
    "#,
    // 15: `_searchinfo` finds ids by their case-folded prefix in an index of the folded id
    // alone, where it ranged over an index of the whole search text (which `_search` reads
    // from the current row in any case): about 80 bytes less for each document. The folded
    // id is kept only where it differs from the id, and the index is of built-in SQL, so any
    // SQLite tool can still write and VACUUM the file.
    r#"
    DROP INDEX heads_search;
    ALTER TABLE heads ADD COLUMN id_fold TEXT;
    UPDATE heads SET id_fold = nullif(pf_fold(id), id);
    CREATE INDEX heads_id_fold ON heads(coll, tenant, env, coalesce(id_fold, id));
    "#,
    // 16: the current row keeps its version's time, author and tags in columns of their own
    // (`_oid` is its id and `_version` its version), no longer in its JSONB copy of the body,
    // and its search text only past the folded id and name (which `id_fold` and `name_fold`
    // hold): about 75 bytes less for each document. Per-type indexes on a system field are
    // made again over its column (`fix_up`).
    r#"
    ALTER TABLE heads ADD COLUMN timestamp TEXT NOT NULL DEFAULT '';
    ALTER TABLE heads ADD COLUMN user TEXT NOT NULL DEFAULT '';
    ALTER TABLE heads ADD COLUMN tags TEXT;
    UPDATE heads SET timestamp = v.timestamp, user = v.user,
        tags = nullif((SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t
            WHERE t.coll = heads.coll AND t.tenant = heads.tenant AND t.env = heads.env
            AND t.id = heads.id AND t.version = heads.version ORDER BY t.tag)), '[]'),
        body = jsonb_remove(heads.body, '$._oid', '$._version', '$._timestamp', '$._user', '$._tag'),
        search = pf_search_rest(json(heads.body))
        FROM versions v WHERE v.coll = heads.coll AND v.tenant = heads.tenant
        AND v.env = heads.env AND v.id = heads.id AND v.version = heads.version;
    "#,
    // 17: series headers stored with `valueType` `number` or `text` (the values' type, as
    // issue 41 read it) say it with `dataType` (`Numeric`, `string`), since `valueType` is the
    // prior art's wire shape of the points (decisions 13): every version of every object, in
    // the current row and in the version rows (`fix_up`, by the store's one rule).
    r#"
    -- (the work is fix_up's)
    "#,
    // 18: the lean document layout (`layout`): a small key for each collection and scope
    // (`scopes`) where every row and index of heads, versions, tags and audit repeated its three
    // texts; times as integer milliseconds where they read back as the same text; the current
    // version kept in its current row alone (`versions` holds the other versions, and the
    // current one only where its text would not read back as written); the folded id only
    // where it differs from SQLite's `lower()`; a small key for each type (`type_keys`) where
    // the current rows and their indexes held its text; per-type indexes of the objects of
    // their type's scope. The tables are rebuilt (SQLite's way of
    // changing one) by `fix_up` (`layout::rebuild`), which reads the per-type indexes before
    // their table goes and makes them again in their new form.
    r#"
    -- (the work is fix_up's)
    "#,
    // 19: a current row keeps its body's leading `_id`, and the `_type` right after it, in its
    // columns only (`lead`, see `layout`): about 25 bytes less for each document. Rows whose
    // text starts with them as written are rewritten; the others keep their body whole.
    r#"
    ALTER TABLE heads ADD COLUMN lead INTEGER;
    UPDATE heads SET lead = 1, body = jsonb_remove(body, '$._id', '$._type')
        FROM type_keys k WHERE k.tk = heads.type AND k.type <> ''
        AND instr(heads.id, '"') = 0 AND instr(k.type, '"') = 0
        AND instr(json(heads.body), '{"_id":"' || heads.id || '","_type":"' || k.type || '",') = 1;
    UPDATE heads SET lead = 0, body = jsonb_remove(body, '$._id')
        WHERE lead IS NULL AND instr(id, '"') = 0
        AND instr(json(body), '{"_id":"' || id || '",') = 1;
    "#,
];

/// What a step needs done beyond its SQL, in its transaction, after its SQL: step 16 makes
/// each per-type index on a system field again, over the field's column; step 17 moves the
/// series' `valueType` of the earlier reading to `dataType`; step 18 makes every per-type
/// index again over the rebuilt current rows.
pub fn fix_up(conn: &rusqlite::Connection, step: usize) -> rusqlite::Result<()> {
    match step {
        16 => system_field_indexes(conn),
        17 => value_type_to_data_type(conn),
        18 => super::layout::rebuild(conn),
        _ => Ok(()),
    }
}

/// Step 17: each object body (current rows and version rows) whose series say the values'
/// type with `valueType` `number` or `text` says it with `dataType`.
fn value_type_to_data_type(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use crate::store::upgrade::{value_type_to_data_type_text, VALUE_TYPE_MARK};
    let heads: Vec<(String, String, String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT tenant, env, id, json(body) FROM heads WHERE coll = 'object' \
             AND instr(body, CAST(?1 AS BLOB)) > 0",
        )?;
        let rows = stmt.query_map([VALUE_TYPE_MARK], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (tenant, env, id, body) in heads {
        if let Some(moved) = value_type_to_data_type_text(&body) {
            conn.execute(
                "UPDATE heads SET body = jsonb(?1) WHERE coll = 'object' AND tenant = ?2 \
                 AND env = ?3 AND id = ?4",
                rusqlite::params![moved, tenant, env, id],
            )?;
        }
    }
    let versions: Vec<(String, String, String, i64, String)> = {
        let mut stmt = conn.prepare(
            "SELECT tenant, env, id, version, body FROM versions WHERE coll = 'object' \
             AND instr(body, ?1) > 0",
        )?;
        let rows = stmt.query_map([VALUE_TYPE_MARK], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (tenant, env, id, version, body) in versions {
        if let Some(moved) = value_type_to_data_type_text(&body) {
            conn.execute(
                "UPDATE versions SET body = ?1 WHERE coll = 'object' AND tenant = ?2 \
                 AND env = ?3 AND id = ?4 AND version = ?5",
                rusqlite::params![moved, tenant, env, id, version],
            )?;
        }
    }
    Ok(())
}

/// Step 16: each per-type index on a system field made again over the field's column.
fn system_field_indexes(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    let indexes: Vec<(String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'heads' \
             AND sql IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (name, sql) in indexes {
        let mut made = sql.clone();
        for root in ["_oid", "_version", "_timestamp", "_user", "_tag"] {
            made = made.replace(
                &format!("(body ->> '$.\"{root}\""),
                &format!(
                    "({} ->> '$.\"{root}\"",
                    super::sql::doc_of(&super::sql::HEADS_BARE, root)
                ),
            );
        }
        if made != sql {
            conn.execute_batch(&format!("DROP INDEX \"{name}\"; {made};"))?;
        }
    }
    Ok(())
}

/// The schema version this build writes.
pub fn current_version() -> u32 {
    STEPS.len() as u32
}
