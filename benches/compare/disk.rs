//! W13, what an object costs on disk: a collection of small objects (about 160 B of JSON, one
//! type with three declared indexes, saved before them) loaded through the core, on SQLite (the
//! file after a checkpoint) or on PostgreSQL (`pg_database_size` after VACUUM, less the size of
//! the same database initialised and empty).

use crate::contestants::open_core;
use crate::corpus;
use crate::objects::load_objects;
use crate::timing::on_postgres;
use platform_core::documents::SaveOptions;
use platform_core::store::Collection;
use serde_json::{json, Value};
use std::time::Instant;

/// The type of the small objects and the fields its definition indexes.
const SMALL_TYPE: &str = "Meter";
const SMALL_INDEXES: [&str; 3] = ["classification", "capacity", "name"];

/// Small object `i`: eight short fields, about 160 B of JSON.
fn small_object(i: u64, rng: &mut corpus::Rng) -> Value {
    let pick = |rng: &mut corpus::Rng, options: &[&'static str]| {
        options[rng.below(options.len() as u64) as usize]
    };
    json!({
        "_id": format!("M{i:07}"),
        "_type": SMALL_TYPE,
        "name": format!("meter {i} {}", pick(rng, &["north", "south", "east", "west"])),
        "classification": pick(rng, &["gas", "power", "oil", "coal"]),
        "capacity": rng.below(1000),
        "country": pick(rng, &["GB", "NL", "DE", "FR", "BE", "IT"]),
        "units": pick(rng, &["MWh", "therm", "MMBtu"]),
        "region": format!("R{}", rng.below(50)),
        "active": rng.below(10) > 1,
    })
}

/// The database's size after a VACUUM (PostgreSQL).
fn pg_size(url: &str) -> u64 {
    let mut admin = platform_core::store::postgres::testing::admin(url).unwrap();
    admin.batch_execute("VACUUM").unwrap();
    admin
        .texts("SELECT pg_database_size(current_database())::text")
        .unwrap()[0]
        .parse()
        .unwrap()
}

/// The largest relations of the database (PostgreSQL), each with its bytes per object, and the
/// average size of each column of `heads` and `versions`: where the bytes of an object go.
fn pg_relations(url: &str, n: u64) -> Value {
    let mut admin = platform_core::store::postgres::testing::admin(url).unwrap();
    let rows = admin
        .texts(
            "SELECT c.relname || '=' || pg_total_relation_size(c.oid)::text FROM pg_class c \
             JOIN pg_namespace s ON s.oid = c.relnamespace \
             WHERE c.relkind IN ('r', 'i', 'm') AND s.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') \
             ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 12",
        )
        .unwrap();
    let mut out = serde_json::Map::new();
    for row in rows {
        let (name, bytes) = row.split_once('=').unwrap();
        let bytes: f64 = bytes.parse().unwrap();
        out.insert(name.to_string(), json!((bytes / n.max(1) as f64).round()));
    }
    let columns = admin
        .texts(
            "SELECT string_agg(c.column_name || '=' || c.table_name, ',') FROM information_schema.columns c \
             WHERE c.table_schema = 'public' AND c.table_name IN ('heads', 'versions')",
        )
        .unwrap();
    let mut sizes = serde_json::Map::new();
    for pair in columns[0].split(',') {
        let (column, table) = pair.split_once('=').unwrap();
        let sql = format!(
            "SELECT coalesce(round(avg(pg_column_size(\"{column}\"))), 0)::text FROM {table}"
        );
        sizes.insert(
            format!("{table}.{column}"),
            json!(admin.texts(&sql).unwrap()[0].parse::<f64>().unwrap()),
        );
    }
    out.insert("average column sizes".into(), Value::Object(sizes));
    Value::Object(out)
}

/// Loads `n` small objects into a new database of the backend the run measures and prints
/// one JSON line: bytes per object next to the object's JSON size.
pub(crate) fn w13(n: u64) {
    let started = Instant::now();
    let core = open_core();
    let pg_url = core._pg.as_ref().map(|db| db.url.clone());
    let empty = pg_url.as_deref().map_or(0, pg_size);
    core.platform
        .objects()
        .save(
            &core.who,
            Collection::Type,
            json!({"_id": SMALL_TYPE, "_indexes": SMALL_INDEXES}),
            &SaveOptions::default(),
        )
        .unwrap();
    let mut rng = corpus::Rng::new(13);
    let (mut json_bytes, mut chunk) = (0u64, Vec::with_capacity(1000));
    for i in 0..n {
        let object = small_object(i, &mut rng);
        json_bytes += object.to_string().len() as u64;
        chunk.push(object);
        if chunk.len() == 1000 || i + 1 == n {
            load_objects(&core, &std::mem::take(&mut chunk));
        }
    }
    let loaded = started.elapsed().as_secs_f64();
    let bytes = match &pg_url {
        Some(url) => pg_size(url) - empty,
        None => core.file_size(),
    };
    let per = |b: u64| b as f64 / n.max(1) as f64;
    let relations = pg_url.as_deref().map(|url| pg_relations(url, n));
    let line = json!({
        "workload": "W13", "case": "bytes per small object",
        "contestant": if on_postgres() { "platform-pg" } else { "platform" },
        "objects": n, "json_bytes_per_object": per(json_bytes), "bytes_per_object": per(bytes),
        "empty_database_bytes": empty, "indexes": SMALL_INDEXES, "load_s": loaded,
        "relations_bytes_per_object": relations,
    });
    println!("{line}");
}
