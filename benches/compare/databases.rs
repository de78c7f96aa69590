//! Databases for the HTTP workloads (`serve-db`) and for W10, cost as the collection grows
//! (`w10-db`).

use crate::contestants::{header, points, Core};
use crate::objects::load_objects;
use crate::seeded::w1_values;
use crate::{corpus, sizes};
use platform_core::documents::SaveOptions;
use platform_core::store::Collection;
use platform_core::Platform;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

pub(crate) fn serve_db(path: &Path, key_file: Option<&Path>) {
    let s = sizes();
    let text = path.to_string_lossy();
    let platform = if platform_core::store::postgres::is_url(&text) {
        let key = key_file.expect("serve-db URL KEY_FILE: a PostgreSQL database needs a key file");
        // A new database: this open initialises it, making its key for the servers.
        let options = platform_core::store::postgres::PgOptions {
            init: true,
            ..Default::default()
        };
        Platform::open_postgres_with(&text, key, &options).unwrap()
    } else {
        Platform::open(path).unwrap()
    };
    let who = platform
        .tenancy()
        .local_principal("bench", "bench")
        .unwrap();
    platform
        .data()
        .save_series(
            &who,
            "BIG",
            "price",
            header(),
            points(0, &w1_values(&s)),
            &SaveOptions::default(),
        )
        .unwrap();
    let core = Core {
        platform,
        who,
        path: path.to_path_buf(),
        _dir: tempfile::tempdir().unwrap(),
        _pg: None,
    };
    load_objects(&core, &corpus::objects(s.objects as u64, 42));
    core.platform.close().unwrap();
    eprintln!("serve database written to {}", path.display());
}

/// The type of the W10 objects and the fields its definition indexes (what W10's filters and
/// sort use).
pub(crate) const W10_TYPE: &str = "Asset";
pub(crate) const W10_INDEXES: [&str; 3] = ["classification", "capacity", "name"];

pub(crate) fn w10_db(path: &Path, n: u64) {
    let started = Instant::now();
    let open = || {
        let platform = Platform::open(path).unwrap();
        let who = platform
            .tenancy()
            .local_principal("bench", "bench")
            .unwrap();
        Core {
            platform,
            who,
            path: path.to_path_buf(),
            _dir: tempfile::tempdir().unwrap(),
            _pg: None,
        }
    };
    let core = open();
    // The corpus object by object (a million at once would take gigabytes as `Value`s), saved
    // as W5 saves them: 1,000 to a save.
    let mut rng = corpus::Rng::new(42);
    let (mut json_bytes, mut chunk) = (0u64, Vec::with_capacity(1000));
    for i in 0..n {
        let mut object = corpus::object(i, &mut rng);
        object["_type"] = json!(W10_TYPE);
        json_bytes += object.to_string().len() as u64;
        chunk.push(object);
        if chunk.len() == 1000 || i + 1 == n {
            load_objects(&core, &std::mem::take(&mut chunk));
        }
    }
    let rows = core.file_size();
    let loaded = started.elapsed().as_secs_f64();
    let core = open();
    core.platform
        .objects()
        .save(
            &core.who,
            Collection::Type,
            json!({"_id": W10_TYPE, "_indexes": W10_INDEXES}),
            &SaveOptions::default(),
        )
        .unwrap();
    let indexed = core.file_size();
    let per = |bytes: u64| bytes as f64 / n.max(1) as f64;
    let line = json!({
        "workload": "W10", "case": "database size per object", "contestant": "platform",
        "objects": n, "json_bytes_per_object": per(json_bytes),
        "bytes_per_object": per(rows), "bytes_per_object_indexed": per(indexed),
        "indexes": W10_INDEXES, "load_s": loaded,
        "index_s": started.elapsed().as_secs_f64() - loaded,
    });
    println!("{line}");
    eprintln!(
        "W10 database of {n} objects written to {} in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
}
