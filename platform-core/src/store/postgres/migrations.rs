//! Schema migrations, append-only, numbered like SQLite's and recorded in `platform_schema`.
//!
//! Step N (1-based) takes the schema from version N-1 to N. Never edit a step that shipped; add
//! one. Missing steps run at open in one transaction, under an advisory lock so that servers
//! starting together migrate once.

use super::pool::Conn;
use super::{get, LOCK_CLASS, MIGRATION_LOCK};
use crate::error::{Error, Result};
use crate::store::Collection;

/// The migration steps, in order.
pub const STEPS: &[&str] = &[
    // 1: every table of the platform (the SQLite schema at its version 10, in PostgreSQL's
    // types: times as timestamptz, JSON kept as written in text, the filterable copy of a
    // current document as jsonb, payloads as bytea). Text keys compare byte by byte ("C").
    r#"
    CREATE TABLE tenants (
        name    TEXT COLLATE "C" PRIMARY KEY,
        created TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE environments (
        tenant  TEXT COLLATE "C" NOT NULL REFERENCES tenants(name),
        name    TEXT COLLATE "C" NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (tenant, name)
    );
    CREATE TABLE users (
        tenant  TEXT COLLATE "C" NOT NULL REFERENCES tenants(name),
        name    TEXT COLLATE "C" NOT NULL,
        role    TEXT NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (tenant, name)
    );
    CREATE TABLE tokens (
        hash    TEXT COLLATE "C" PRIMARY KEY,
        tenant  TEXT COLLATE "C" NOT NULL,
        "user"  TEXT COLLATE "C" NOT NULL,
        created TIMESTAMPTZ NOT NULL,
        revoked TIMESTAMPTZ,
        FOREIGN KEY (tenant, "user") REFERENCES users(tenant, name)
    );
    CREATE INDEX tokens_user ON tokens(tenant, "user");
    CREATE TABLE grants (
        tenant TEXT COLLATE "C" NOT NULL,
        "user" TEXT COLLATE "C" NOT NULL,
        kind   TEXT COLLATE "C" NOT NULL,
        name   TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (tenant, "user", kind, name),
        FOREIGN KEY (tenant, "user") REFERENCES users(tenant, name)
    );

    CREATE TABLE versions (
        coll      TEXT COLLATE "C" NOT NULL,
        tenant    TEXT COLLATE "C" NOT NULL,
        env       TEXT COLLATE "C" NOT NULL,
        id        TEXT COLLATE "C" NOT NULL,
        version   BIGINT NOT NULL,
        body      TEXT NOT NULL,
        timestamp TIMESTAMPTZ NOT NULL,
        "user"    TEXT NOT NULL,
        reason    TEXT,
        PRIMARY KEY (coll, tenant, env, id, version)
    );
    CREATE TABLE heads (
        coll      TEXT COLLATE "C" NOT NULL,
        tenant    TEXT COLLATE "C" NOT NULL,
        env       TEXT COLLATE "C" NOT NULL,
        id        TEXT COLLATE "C" NOT NULL,
        version   BIGINT NOT NULL,
        type      TEXT COLLATE "C",
        body      JSONB NOT NULL,
        search    TEXT COLLATE "C" NOT NULL,
        name_fold TEXT COLLATE "C",
        PRIMARY KEY (coll, tenant, env, id)
    );
    CREATE INDEX heads_type ON heads(coll, tenant, env, type, id);
    CREATE INDEX heads_search ON heads(coll, tenant, env, search);
    CREATE INDEX heads_name_fold ON heads(coll, tenant, env, name_fold);
    CREATE INDEX heads_body ON heads USING gin (body jsonb_path_ops);
    CREATE TABLE tags (
        coll    TEXT COLLATE "C" NOT NULL,
        tenant  TEXT COLLATE "C" NOT NULL,
        env     TEXT COLLATE "C" NOT NULL,
        id      TEXT COLLATE "C" NOT NULL,
        tag     TEXT COLLATE "C" NOT NULL,
        version BIGINT NOT NULL,
        PRIMARY KEY (coll, tenant, env, id, tag)
    );
    CREATE TABLE audit (
        seq       BIGSERIAL PRIMARY KEY,
        coll      TEXT COLLATE "C" NOT NULL,
        tenant    TEXT COLLATE "C" NOT NULL,
        env       TEXT COLLATE "C" NOT NULL,
        id        TEXT COLLATE "C" NOT NULL,
        action    TEXT NOT NULL,
        versions  TEXT NOT NULL,
        "user"    TEXT NOT NULL,
        timestamp TIMESTAMPTZ NOT NULL,
        reason    TEXT
    );
    CREATE INDEX audit_doc ON audit(coll, tenant, env, id);

    CREATE TABLE series_chunks (
        tenant  TEXT COLLATE "C" NOT NULL,
        env     TEXT COLLATE "C" NOT NULL,
        obj     TEXT COLLATE "C" NOT NULL,
        prop    TEXT COLLATE "C" NOT NULL,
        start   BIGINT NOT NULL,
        vfrom   BIGINT NOT NULL,
        vto     BIGINT,
        stop    BIGINT NOT NULL,
        n       BIGINT NOT NULL,
        payload BYTEA NOT NULL
    );
    CREATE INDEX series_chunks_key ON series_chunks(tenant, env, obj, prop, start, vfrom);
    CREATE INDEX series_chunks_current ON series_chunks(tenant, env, obj, prop, start) WHERE vto IS NULL;
    CREATE TABLE curves (
        tenant  TEXT COLLATE "C" NOT NULL,
        env     TEXT COLLATE "C" NOT NULL,
        obj     TEXT COLLATE "C" NOT NULL,
        prop    TEXT COLLATE "C" NOT NULL,
        ondate  TEXT COLLATE "C" NOT NULL,
        vfrom   BIGINT NOT NULL,
        vto     BIGINT,
        payload BYTEA NOT NULL
    );
    CREATE INDEX curves_key ON curves(tenant, env, obj, prop, ondate, vfrom);
    CREATE INDEX curves_current ON curves(tenant, env, obj, prop, ondate) WHERE vto IS NULL;

    CREATE TABLE secrets (
        tenant     TEXT COLLATE "C" NOT NULL,
        env        TEXT COLLATE "C" NOT NULL,
        id         TEXT COLLATE "C" NOT NULL,
        meta       TEXT NOT NULL,
        nonce      BYTEA NOT NULL,
        ciphertext BYTEA NOT NULL,
        updated    TIMESTAMPTZ NOT NULL,
        "user"     TEXT NOT NULL,
        PRIMARY KEY (tenant, env, id)
    );

    CREATE TABLE vchunks (
        tenant   TEXT COLLATE "C" NOT NULL,
        env      TEXT COLLATE "C" NOT NULL,
        target   TEXT COLLATE "C" NOT NULL,
        seq      BIGINT NOT NULL,
        first    BIGINT NOT NULL,
        last     BIGINT NOT NULL,
        count    BIGINT NOT NULL,
        statuses BIGINT NOT NULL,
        body     BYTEA NOT NULL,
        PRIMARY KEY (tenant, env, target, seq)
    );

    -- Jobs: a claim names its node and lasts until lease_until (renewed while the node lives).
    CREATE TABLE jobs (
        seq         BIGSERIAL PRIMARY KEY,
        tenant      TEXT COLLATE "C" NOT NULL,
        env         TEXT COLLATE "C" NOT NULL,
        id          TEXT COLLATE "C" NOT NULL UNIQUE,
        status      TEXT NOT NULL,
        not_before  TIMESTAMPTZ,
        doc         TEXT NOT NULL,
        node        TEXT,
        lease_until TIMESTAMPTZ
    );
    CREATE INDEX jobs_status ON jobs(status, seq);
    CREATE TABLE workers (
        id      TEXT COLLATE "C" PRIMARY KEY,
        host    TEXT NOT NULL,
        pid     BIGINT NOT NULL,
        started TIMESTAMPTZ NOT NULL,
        seen    TIMESTAMPTZ NOT NULL
    );

    CREATE TABLE automations (
        tenant TEXT COLLATE "C" NOT NULL,
        env    TEXT COLLATE "C" NOT NULL,
        id     TEXT COLLATE "C" NOT NULL,
        doc    TEXT NOT NULL,
        PRIMARY KEY (tenant, env, id)
    );
    -- Deliveries: the outbox. A claim names its node and lasts until lease_until.
    CREATE TABLE deliveries (
        seq         BIGSERIAL PRIMARY KEY,
        tenant      TEXT COLLATE "C" NOT NULL,
        env         TEXT COLLATE "C" NOT NULL,
        automation  TEXT COLLATE "C" NOT NULL,
        item        TEXT COLLATE "C" NOT NULL,
        status      TEXT NOT NULL,
        attempts    BIGINT NOT NULL,
        next_at     TIMESTAMPTZ NOT NULL,
        doc         TEXT NOT NULL,
        node        TEXT,
        lease_until TIMESTAMPTZ
    );
    CREATE INDEX deliveries_due ON deliveries(status, next_at, seq);
    CREATE INDEX deliveries_item ON deliveries(tenant, env, automation, item, seq);
    CREATE TABLE automation_log (
        seq        BIGSERIAL PRIMARY KEY,
        tenant     TEXT COLLATE "C" NOT NULL,
        env        TEXT COLLATE "C" NOT NULL,
        automation TEXT COLLATE "C" NOT NULL,
        status     TEXT NOT NULL,
        timestamp  TIMESTAMPTZ NOT NULL,
        doc        TEXT NOT NULL
    );
    CREATE INDEX automation_log_scope ON automation_log(tenant, env, seq);
    CREATE TABLE mail (
        seq    BIGSERIAL PRIMARY KEY,
        tenant TEXT COLLATE "C" NOT NULL,
        env    TEXT COLLATE "C" NOT NULL,
        doc    TEXT NOT NULL
    );
    "#,
    // 2: the authentication epoch, raised by every change to what authenticates a request
    // (servers keep authenticated tokens while it stays the same). The function keeps the
    // search path it was made with (the platform's schema).
    r#"
    CREATE TABLE auth_epoch (id INT PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
    INSERT INTO auth_epoch (id, n) VALUES (1, 0);
    CREATE FUNCTION auth_epoch_raise() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
        UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
        RETURN NULL;
    END
    $$;
    CREATE TRIGGER tenants_auth AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenants FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_raise();
    CREATE TRIGGER environments_auth AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON environments FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_raise();
    CREATE TRIGGER users_auth AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_raise();
    CREATE TRIGGER grants_auth AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON grants FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_raise();
    CREATE TRIGGER tokens_auth AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tokens FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_raise();
    "#,
    // 3: each current document's sample bucket (a hash of its id, 0..65535), indexed with its
    // scope: the estimated total of a long list counts the matches among the documents of a
    // few buckets, not among all of them.
    r#"
    ALTER TABLE heads ADD COLUMN bucket INTEGER NOT NULL
        GENERATED ALWAYS AS ((hashtextextended(id, 0) & 65535)::integer) STORED;
    CREATE INDEX heads_sample ON heads(coll, tenant, env, bucket, type);
    "#,
    // 4: what write transactions hold that has no row of its own to lock while it is absent
    // (the validation records of a target, an automation, a secret; `WriteTx::hold`): a row
    // per key, made at its first hold, locked `FOR UPDATE` by every hold. Documents are held
    // by their `heads` row.
    r#"
    CREATE TABLE holds (key TEXT COLLATE "C" PRIMARY KEY);
    "#,
    // 5: the secondary indexes of `heads` that start with the scope made partial, each on a
    // condition every query it serves implies (a comparison of its column), so a look-up of
    // one document by its key can use the primary key only. On a table without statistics
    // yet (a new database, a bulk load in one transaction) the planner took the scope's
    // equalities for selective and read one of them with the id as a filter: every look-up
    // read the scope's whole range.
    r#"
    DROP INDEX heads_type;
    CREATE INDEX heads_type ON heads(coll, tenant, env, type, id) WHERE type IS NOT NULL;
    DROP INDEX heads_search;
    CREATE INDEX heads_search ON heads(coll, tenant, env, search) WHERE search IS NOT NULL;
    DROP INDEX heads_name_fold;
    CREATE INDEX heads_name_fold ON heads(coll, tenant, env, name_fold) WHERE name_fold IS NOT NULL;
    DROP INDEX heads_sample;
    CREATE INDEX heads_sample ON heads(coll, tenant, env, bucket, type) WHERE bucket IS NOT NULL;
    "#,
    // 6: series headers stored with `valueType` `number` or `text` (the values' type, as
    // issue 41 read it) say it with `dataType` (`Numeric`, `string`), since `valueType` is the
    // prior art's wire shape of the points (decisions 13): every version of every object, in
    // its text and in the current row's filterable copy (`fix_up`, by the store's one rule).
    r#"
    -- (the work is fix_up's)
    "#,
    // 7: the fingerprint of the database's secret key, recorded by the first server or
    // command that opens it with a key (`platform init` on a new database), so that a node
    // started with another key refuses to start instead of sealing secrets no other node opens
    // (`store::postgres::key`).
    r#"
    CREATE TABLE platform_key (
        id          SMALLINT PRIMARY KEY CHECK (id = 1),
        fingerprint TEXT NOT NULL,
        recorded    TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    "#,
    // 8: the lean document layout. A scope of documents (collection, tenant, environment) is
    // a small integer key (`scopes`, made by the first write into it), so keys and indexes
    // hold four bytes instead of three texts. A document's current body is kept in its
    // current row only: its text as written (`heads.text`, what answers print) and its
    // filterable `jsonb` form (`heads.body`, `filter::filter_copy`, without the system fields,
    // which filters read from the columns); a version row keeps its body only while it is not
    // current. No index over whole bodies (the GIN) or whole search texts: `_search` reads the
    // folded text of the scope's rows; completion by id ranges over the folded id
    // (`heads_id_fold` over `coalesce(id_fold, id)`, the folded id stored only where it is not
    // the id: by `fix_up`, folded as a write folds it). A type's declared indexes are keyed by the field's sort terms and the id alone,
    // partial on the type and its scope (remade by `fix_up` from the stored type definitions).
    // The tables are written anew, compact; every version, tag, audit entry, reason and time
    // is kept.
    r#"
    CREATE TABLE scopes (
        key    INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        coll   TEXT COLLATE "C" NOT NULL,
        tenant TEXT COLLATE "C" NOT NULL,
        env    TEXT COLLATE "C" NOT NULL,
        UNIQUE (coll, tenant, env)
    );
    INSERT INTO scopes (coll, tenant, env)
    SELECT coll, tenant, env FROM heads UNION SELECT coll, tenant, env FROM versions
    UNION SELECT coll, tenant, env FROM tags ORDER BY 1, 2, 3;
    CREATE TABLE heads_lean (
        scope     INTEGER NOT NULL,
        id        TEXT COLLATE "C" NOT NULL,
        version   BIGINT NOT NULL,
        type      TEXT COLLATE "C",
        body      JSONB NOT NULL,
        text      TEXT NOT NULL,
        search    TEXT COLLATE "C" NOT NULL,
        id_fold   TEXT COLLATE "C",
        name_fold TEXT COLLATE "C",
        bucket    INTEGER NOT NULL
            GENERATED ALWAYS AS ((hashtextextended(id, 0) & 65535)::integer) STORED,
        CONSTRAINT heads_lean_pkey PRIMARY KEY (scope, id)
    );
    INSERT INTO heads_lean (scope, id, version, type, body, text, search, id_fold, name_fold)
    SELECT s.key, h.id, h.version, h.type,
        h.body - '{_oid,_version,_timestamp,_user,_tag}'::text[], coalesce(v.body, h.body::text),
        h.search, NULL, h.name_fold
    FROM heads h JOIN scopes s ON s.coll = h.coll AND s.tenant = h.tenant AND s.env = h.env
    LEFT JOIN versions v ON v.coll = h.coll AND v.tenant = h.tenant
        AND v.env = h.env AND v.id = h.id AND v.version = h.version
    ORDER BY s.key, h.id;
    CREATE TABLE versions_lean (
        scope     INTEGER NOT NULL,
        id        TEXT COLLATE "C" NOT NULL,
        version   BIGINT NOT NULL,
        body      TEXT,
        timestamp TIMESTAMPTZ NOT NULL,
        "user"    TEXT NOT NULL,
        reason    TEXT,
        CONSTRAINT versions_lean_pkey PRIMARY KEY (scope, id, version)
    );
    INSERT INTO versions_lean (scope, id, version, body, timestamp, "user", reason)
    SELECT s.key, v.id, v.version, CASE WHEN h.id IS NULL THEN v.body END,
        v.timestamp, v."user", v.reason
    FROM versions v JOIN scopes s ON s.coll = v.coll AND s.tenant = v.tenant AND s.env = v.env
    LEFT JOIN heads_lean h ON h.scope = s.key AND h.id = v.id AND h.version = v.version
    ORDER BY s.key, v.id, v.version;
    CREATE TABLE tags_lean (
        scope   INTEGER NOT NULL,
        id      TEXT COLLATE "C" NOT NULL,
        tag     TEXT COLLATE "C" NOT NULL,
        version BIGINT NOT NULL,
        CONSTRAINT tags_lean_pkey PRIMARY KEY (scope, id, tag)
    );
    INSERT INTO tags_lean (scope, id, tag, version)
    SELECT s.key, t.id, t.tag, t.version
    FROM tags t JOIN scopes s ON s.coll = t.coll AND s.tenant = t.tenant AND s.env = t.env;
    DROP TABLE heads;
    DROP TABLE versions;
    DROP TABLE tags;
    ALTER TABLE heads_lean RENAME TO heads;
    ALTER INDEX heads_lean_pkey RENAME TO heads_pkey;
    ALTER TABLE versions_lean RENAME TO versions;
    ALTER INDEX versions_lean_pkey RENAME TO versions_pkey;
    ALTER TABLE tags_lean RENAME TO tags;
    ALTER INDEX tags_lean_pkey RENAME TO tags_pkey;
    CREATE INDEX heads_type ON heads(scope, type, id) WHERE type IS NOT NULL;
    CREATE INDEX heads_id_fold ON heads(scope, coalesce(id_fold, id));
    CREATE INDEX heads_name_fold ON heads(scope, name_fold) WHERE name_fold IS NOT NULL;
    CREATE INDEX heads_sample ON heads(scope, bucket, type) WHERE bucket IS NOT NULL;
    "#,
    // 9: the sample bucket written by the statements that insert a current row (the same hash
    // of the id, `gathered::bucket_of`) instead of generated by the table: PostgreSQL set up a
    // stored generated column's expression anew, read back from the catalogue's text, at
    // every insert and every update of the row (about 3% of its CPU per save). The values
    // stay as they are.
    r#"
    ALTER TABLE heads ALTER COLUMN bucket DROP EXPRESSION;
    "#,
    // 10: every version's body in its row of `versions`, the current version's too, and
    // `heads` without it (its filterable `jsonb` form stays there). A save inserts its
    // version's row, body and all, and upserts the current row: the current body no longer
    // moves back to the row of the version it replaces, an update of `versions` that left
    // its page (a new entry in its primary key) and wrote the body a second time. The space of
    // the dropped column is reused as rows are rewritten (`VACUUM FULL` takes it back at once).
    r#"
    UPDATE versions v SET body = h.text FROM heads h
    WHERE v.scope = h.scope AND v.id = h.id AND v.version = h.version AND v.body IS NULL;
    ALTER TABLE heads DROP COLUMN text;
    ALTER TABLE versions ALTER COLUMN body SET NOT NULL;
    "#,
];

/// What a step needs done beyond its SQL, in its transaction, after its SQL: step 6 moves the
/// series' `valueType` of the earlier reading to `dataType`; step 8 stores the folded ids and
/// makes the per-type indexes of the stored type definitions.
fn fix_up(conn: &mut Conn<'_>, step: usize) -> Result<()> {
    match step {
        6 => value_type_to_data_type(conn),
        8 => {
            id_folds(conn)?;
            type_indexes(conn)
        }
        _ => Ok(()),
    }
}

/// The folded ids of the current rows whose ids are not their own folding (`fold`, as a write
/// stores them), read among the ids with a character other than printable ASCII but `A`-`Z`.
fn id_folds(conn: &mut Conn<'_>) -> Result<()> {
    let rows = conn.query("SELECT scope, id FROM heads WHERE id ~ '[^ -@[-~]'", &[])?;
    let (mut scopes, mut ids, mut folds) = (Vec::<i32>::new(), Vec::new(), Vec::new());
    for row in &rows {
        let id: String = get(row, 1)?;
        let folded = crate::query::filter::fold(&id);
        if folded != id {
            scopes.push(get(row, 0)?);
            ids.push(id);
            folds.push(folded);
        }
    }
    if !ids.is_empty() {
        conn.query(
            "UPDATE heads h SET id_fold = u.f FROM unnest($1::integer[], $2::text[], $3::text[]) \
             AS u(s, i, f) WHERE h.scope = u.s AND h.id = u.i",
            &[&scopes, &ids, &folds],
        )?;
    }
    Ok(())
}

/// The per-type indexes of every current type definition (its `_indexes`, checked when it was
/// saved), in the form of `documents::type_index_statement`.
fn type_indexes(conn: &mut Conn<'_>) -> Result<()> {
    let types = conn.query(
        "SELECT s.tenant, s.env, h.id, h.text FROM heads h JOIN scopes s ON s.key = h.scope \
         WHERE s.coll = 'type' ORDER BY s.tenant, s.env, h.id",
        &[],
    )?;
    for row in &types {
        let (tenant, env, id, body): (String, String, String, String) =
            (get(row, 0)?, get(row, 1)?, get(row, 2)?, get(row, 3)?);
        let def: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| Error::caused(format!("stored body of type {id}"), e))?;
        let fields = def.get("_indexes").and_then(|v| v.as_array());
        let scope = crate::ids::Scope { tenant, env };
        let key = match scope.tenant.is_empty() && scope.env.is_empty() {
            true => None,
            false => Some(super::scopes::make_key(conn, Collection::Object, &scope)?),
        };
        for field in fields.into_iter().flatten().filter_map(|f| f.as_str()) {
            let name = crate::store::type_index_name(&scope, &id, field);
            if let Some(sql) = super::documents::type_index_statement(&name, key, &id, field) {
                conn.batch(&sql)?;
            }
        }
    }
    Ok(())
}

/// Step 6: the series' `valueType` of the earlier reading moved to `dataType`.
fn value_type_to_data_type(conn: &mut Conn<'_>) -> Result<()> {
    use crate::store::upgrade::{value_type_to_data_type_text, VALUE_TYPE_MARK};
    let mark = format!("%{VALUE_TYPE_MARK}%");
    let heads = conn.query(
        "SELECT tenant, env, id, body::text FROM heads WHERE coll = 'object' \
         AND body::text LIKE $1",
        &[&mark],
    )?;
    for row in &heads {
        let (tenant, env, id, body): (String, String, String, String) =
            (get(row, 0)?, get(row, 1)?, get(row, 2)?, get(row, 3)?);
        if let Some(moved) = value_type_to_data_type_text(&body) {
            conn.execute(
                "UPDATE heads SET body = CAST($1::text AS jsonb) WHERE coll = 'object' \
                 AND tenant = $2 AND env = $3 AND id = $4",
                &[&moved, &tenant, &env, &id],
            )?;
        }
    }
    let versions = conn.query(
        "SELECT tenant, env, id, version, body FROM versions WHERE coll = 'object' \
         AND body LIKE $1",
        &[&mark],
    )?;
    for row in &versions {
        let (tenant, env, id, version, body): (String, String, String, i64, String) = (
            get(row, 0)?,
            get(row, 1)?,
            get(row, 2)?,
            get(row, 3)?,
            get(row, 4)?,
        );
        if let Some(moved) = value_type_to_data_type_text(&body) {
            conn.execute(
                "UPDATE versions SET body = $1 WHERE coll = 'object' AND tenant = $2 \
                 AND env = $3 AND id = $4 AND version = $5",
                &[&moved, &tenant, &env, &id, &version],
            )?;
        }
    }
    Ok(())
}

/// The schema version this build writes.
pub fn current_version() -> u32 {
    STEPS.len() as u32
}

/// Whether the schema holds the platform's tables (a recorded schema version), read without
/// creating anything.
pub(crate) fn made(conn: &mut Conn<'_>, schema: &str) -> Result<bool> {
    let table = format!("\"{schema}\".platform_schema");
    let rows = conn.query("SELECT to_regclass($1) IS NOT NULL", &[&table])?;
    match rows.first() {
        Some(row) => get(row, 0),
        None => Ok(false),
    }
}

/// Creates the schema if needed and applies the steps it lacks; refuses a newer schema.
pub(crate) fn migrate(conn: &mut Conn<'_>, schema: &str) -> Result<()> {
    conn.batch(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
        .or_else(|e| {
            // Two servers creating the schema at once: one of them loses the race.
            let exists = conn.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", &[&schema])?;
            if exists.is_empty() {
                Err(e)
            } else {
                Ok(())
            }
        })?;
    // The transaction opened with its first statement (behind a pooler, with the settings).
    conn.begin_with_first(format!(
        "BEGIN; SELECT pg_advisory_xact_lock({}, hashtext('{schema}') + {MIGRATION_LOCK})",
        LOCK_CLASS
    ));
    conn.batch("CREATE TABLE IF NOT EXISTS platform_schema (version BIGINT NOT NULL); COMMIT")?;
    let outcome = apply(conn, schema);
    if outcome.is_err() {
        let _ = conn.batch("ROLLBACK");
    }
    outcome
}

fn apply(conn: &mut Conn<'_>, schema: &str) -> Result<()> {
    conn.begin_with_first(format!(
        "BEGIN; SELECT pg_advisory_xact_lock({}, hashtext('{schema}') + {MIGRATION_LOCK})",
        LOCK_CLASS
    ));
    let rows = conn.query("SELECT max(version) FROM platform_schema", &[])?;
    let have: Option<i64> = match rows.first() {
        Some(row) => get(row, 0)?,
        None => None,
    };
    let have = have.unwrap_or(0);
    let want = i64::from(current_version());
    if have > want {
        return Err(Error::Internal(format!(
            "the database has schema version {have}, newer than this build's {want}; use a newer platform"
        )));
    }
    for (i, step) in STEPS.iter().enumerate().skip(have as usize) {
        let to = i + 1;
        conn.batch(step)
            .and_then(|()| fix_up(conn, to))
            .map_err(|e| match e {
                Error::Unavailable(_) => e,
                e => Error::caused(format!("migration to schema version {to} failed"), e),
            })?;
        conn.batch(&format!(
            "DELETE FROM platform_schema; INSERT INTO platform_schema (version) VALUES ({to})"
        ))?;
    }
    conn.batch("COMMIT")
}
