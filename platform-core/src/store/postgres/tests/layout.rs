//! Schema step 8, the lean document layout: a database of the layout before it (step 7: each
//! current body twice, as version text and as a filterable `jsonb` copy with the system fields,
//! a GIN over the copies, a B-tree over the search texts, per-type indexes keyed by the scope)
//! migrates in place, and every version, tag, audit entry, reason and time reads back the same.

use super::super::filter::{quote, sort_terms};
use super::super::testing::{admin, Admin, TestSchema};
use crate::auth::Principal;
use crate::documents::{DeleteTarget, SaveOptions};
use crate::ids::{Scope, Source, VersionRef};
use crate::query::filter::parse_param;
use crate::query::{Filter, ListQuery, Paging, SortSpec};
use crate::store::{type_index_name, Collection};
use crate::Platform;
use serde_json::{json, Value};

/// Turns a schema of this build's layout back into the layout of step 7 (recorded as
/// `version`): what the store of step 7 wrote for the same documents.
pub(crate) fn to_step_7(client: &mut Admin, schema: &str, version: u32) {
    let types = client
        .texts(&format!(
            "SELECT concat_ws(E'\\x01', s.tenant, s.env, h.id, v.body) FROM \"{schema}\".heads h \
             JOIN \"{schema}\".scopes s ON s.key = h.scope JOIN \"{schema}\".versions v \
             ON v.scope = h.scope AND v.id = h.id AND v.version = h.version \
             WHERE s.coll = 'type' ORDER BY 1"
        ))
        .unwrap();
    let mut old_indexes = String::new();
    for t in types {
        let parts: Vec<&str> = t.splitn(4, '\u{1}').collect();
        let scope = Scope {
            tenant: parts[0].into(),
            env: parts[1].into(),
        };
        let def: Value = serde_json::from_str(parts[3]).unwrap();
        for field in def["_indexes"].as_array().into_iter().flatten() {
            let field = field.as_str().unwrap();
            let mut path = "body".to_string();
            for seg in field.split('.') {
                path = format!("({path} -> {})", quote(seg));
            }
            let terms: Vec<String> = sort_terms(&path).iter().map(|t| format!("({t})")).collect();
            old_indexes.push_str(&format!(
                "CREATE INDEX \"{}\" ON heads (coll, tenant, env, type, {}, id) \
                 WHERE coll = 'object' AND type = {};\n",
                type_index_name(&scope, parts[2], field),
                terms.join(", "),
                quote(parts[2])
            ));
        }
    }
    let text = "TEXT COLLATE \"C\" NOT NULL";
    let scope = "coll text COLLATE \"C\" NOT NULL, tenant text COLLATE \"C\" NOT NULL, \
                 env text COLLATE \"C\" NOT NULL";
    client
        .batch_execute(&format!(
            "BEGIN; SET LOCAL search_path TO \"{schema}\";
             CREATE TABLE heads7 ({scope}, id {text}, version BIGINT NOT NULL,
                 type TEXT COLLATE \"C\", body JSONB NOT NULL, search {text},
                 name_fold TEXT COLLATE \"C\",
                 CONSTRAINT heads7_pkey PRIMARY KEY (coll, tenant, env, id));
             ALTER TABLE heads7 ADD COLUMN bucket INTEGER NOT NULL
                 GENERATED ALWAYS AS ((hashtextextended(id, 0) & 65535)::integer) STORED;
             CREATE TABLE versions7 ({scope}, id {text}, version BIGINT NOT NULL,
                 body TEXT NOT NULL, timestamp TIMESTAMPTZ NOT NULL, \"user\" TEXT NOT NULL,
                 reason TEXT, CONSTRAINT versions7_pkey PRIMARY KEY (coll, tenant, env, id, version));
             CREATE TABLE tags7 ({scope}, id {text}, tag {text}, version BIGINT NOT NULL,
                 CONSTRAINT tags7_pkey PRIMARY KEY (coll, tenant, env, id, tag));
             INSERT INTO heads7 (coll, tenant, env, id, version, type, body, search, name_fold)
                 SELECT s.coll, s.tenant, s.env, h.id, h.version, h.type,
                 h.body || jsonb_build_object(
                 '_oid', h.id, '_version', h.version,
                 '_timestamp', to_char(v.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),
                 '_user', v.\"user\",
                 '_tag', to_jsonb(ARRAY(SELECT t.tag FROM tags t WHERE t.scope = h.scope
                     AND t.id = h.id AND t.version = h.version ORDER BY t.tag))),
                 h.search, h.name_fold
                 FROM heads h JOIN scopes s ON s.key = h.scope JOIN versions v ON v.scope = h.scope
                 AND v.id = h.id AND v.version = h.version;
             INSERT INTO versions7 SELECT s.coll, s.tenant, s.env, v.id, v.version,
                 v.body, v.timestamp, v.\"user\", v.reason
                 FROM versions v JOIN scopes s ON s.key = v.scope;
             INSERT INTO tags7 SELECT s.coll, s.tenant, s.env, t.id, t.tag, t.version
                 FROM tags t JOIN scopes s ON s.key = t.scope;
             DROP TABLE heads, versions, tags, scopes;
             ALTER TABLE heads7 RENAME TO heads;
             ALTER INDEX heads7_pkey RENAME TO heads_pkey;
             ALTER TABLE versions7 RENAME TO versions;
             ALTER INDEX versions7_pkey RENAME TO versions_pkey;
             ALTER TABLE tags7 RENAME TO tags;
             ALTER INDEX tags7_pkey RENAME TO tags_pkey;
             CREATE INDEX heads_type ON heads(coll, tenant, env, type, id) WHERE type IS NOT NULL;
             CREATE INDEX heads_search ON heads(coll, tenant, env, search) WHERE search IS NOT NULL;
             CREATE INDEX heads_name_fold ON heads(coll, tenant, env, name_fold) WHERE name_fold IS NOT NULL;
             CREATE INDEX heads_sample ON heads(coll, tenant, env, bucket, type) WHERE bucket IS NOT NULL;
             CREATE INDEX heads_body ON heads USING gin (body jsonb_path_ops);
             {old_indexes}
             UPDATE platform_schema SET version = {version};
             COMMIT;"
        ))
        .unwrap();
}

/// Everything the store answers of some documents, in print.
pub(super) fn read_back(platform: &Platform, docs: &[(Collection, Scope, &str)]) -> Vec<String> {
    let tx = platform.read().unwrap();
    docs.iter()
        .map(|(coll, scope, id)| {
            format!(
                "{id}: current {:?}\nversions {:?}\naudit {:?}\ngold {:?}",
                tx.current(*coll, scope, id).unwrap(),
                tx.versions(*coll, scope, id).unwrap(),
                tx.audit(*coll, scope, id).unwrap(),
                tx.tagged(*coll, scope, id, "gold").unwrap(),
            )
        })
        .collect()
}

pub(super) fn list(
    platform: &Platform,
    scope: &Scope,
    more: &[(&str, &str)],
    sort: &str,
) -> Vec<String> {
    let query = ListQuery {
        total: crate::query::Total::Exact,
        filter: Filter::and(
            std::iter::once(Filter::TypeIn(vec!["Plant".into()]))
                .chain(more.iter().map(|(k, v)| parse_param(k, v).unwrap()))
                .collect(),
        ),
        sort: match sort {
            "" => SortSpec::default(),
            sort => SortSpec::parse(sort).unwrap(),
        },
        paging: Paging {
            skip: 0,
            limit: Some(50),
        },
    };
    let tx = platform.read().unwrap();
    let page = tx
        .list_after(
            Collection::Object,
            std::slice::from_ref(scope),
            &query,
            None,
        )
        .unwrap();
    let mut out = vec![format!("total {}", page.total)];
    out.extend(
        page.items
            .iter()
            .map(|v| format!("{} v{}", v.id, v.version)),
    );
    out
}

pub(super) fn save(p: &Platform, who: &Principal, coll: Collection, body: Value) {
    p.objects()
        .save(who, coll, body, &SaveOptions::default())
        .unwrap();
}

/// Checks that the schema was migrated to this build's version.
pub(super) fn assert_current_schema(client: &mut Admin, schema: &str) {
    let sql = format!("SELECT version::text FROM \"{schema}\".platform_schema");
    assert_eq!(
        client.texts(&sql).unwrap(),
        vec![super::super::schema_version().to_string()]
    );
}

/// Deletes an object of the caller's private scope, or some of its versions, with a reason.
pub(super) fn delete(p: &Platform, who: &Principal, id: &str, target: DeleteTarget) {
    p.objects()
        .delete(
            who,
            Collection::Object,
            Source::Private,
            id,
            &target,
            Some("why"),
        )
        .unwrap();
}

#[test]
fn a_database_of_the_layout_before_step_8_migrates_in_place_and_reads_back_the_same() {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let clock: std::sync::Arc<dyn crate::clock::Clock> =
        std::sync::Arc::new(crate::clock::SystemClock);
    let p = Platform::over(std::sync::Arc::new(schema.store()), clock.clone());
    let ann = p.tenancy().local_principal("acme", "ann").unwrap();
    let bob = p.tenancy().local_principal("beta", "bob").unwrap();
    let (acme, beta) = (
        Scope::for_source(Source::Private, &ann),
        Scope::for_source(Source::Private, &bob),
    );
    let public = Scope::public();
    let plant = json!({"_id": "Plant", "_indexes": ["capacity", "country"]});
    save(&p, &ann, Collection::Type, plant.clone());
    save(&p, &bob, Collection::Type, plant);
    for i in 0..40 {
        let country = ["NL", "DE", "FR", "GB"][i % 4];
        for (who, n) in [(&ann, i), (&bob, i + 100)] {
            save(
                &p,
                who,
                Collection::Object,
                json!({"_id": format!("P{i:02}"), "_type": "Plant", "name": format!("Plant {i}"),
                       "country": country, "capacity": (n * 37) % 1000}),
            );
        }
    }
    // Versions, tags, a deleted version, a rollback, a document deleted whole, non-ASCII ids
    // and a double no text of which reads back as it.
    for (i, price) in [1.5, 2.5, 3.5, 4.5].iter().enumerate() {
        let body = json!({"_id": "Zürich-東京", "_type": "Plant", "country": "CH",
                          "capacity": 10 + i, "price": price, "big": 1.2345678901234568e18});
        save(&p, &ann, Collection::Object, body);
    }
    let objects = p.objects();
    let id = "Zürich-東京";
    objects
        .tag(
            &ann,
            Collection::Object,
            Source::Private,
            id,
            &VersionRef::Number(2),
            "gold",
        )
        .unwrap();
    let delete = |id: &str, target: DeleteTarget| delete(&p, &ann, id, target);
    delete(id, DeleteTarget::Version(VersionRef::Number(1)));
    delete(id, DeleteTarget::Latest);
    save(&p, &ann, Collection::Object, json!({"_id": "Gone", "n": 1}));
    save(&p, &ann, Collection::Object, json!({"_id": "Gone", "n": 2}));
    delete("Gone", DeleteTarget::All);
    for n in 1..=2 {
        save(
            &p,
            &ann,
            Collection::Object,
            json!({"_id": "#Ålesund", "n": n}),
        );
    }
    let docs: Vec<(Collection, Scope, &str)> = vec![
        (Collection::Object, acme.clone(), id),
        (Collection::Object, acme.clone(), "Gone"),
        (Collection::Object, acme.clone(), "P07"),
        (Collection::Object, beta.clone(), "P07"),
        (Collection::Object, public.clone(), "#Ålesund"),
        (Collection::Type, acme.clone(), "Plant"),
        (Collection::Type, beta.clone(), "Plant"),
    ];
    let lists = |p: &Platform| {
        let mut out = Vec::new();
        for scope in [&acme, &beta] {
            out.extend(list(p, scope, &[("country", "NL")], "capacity"));
            out.extend(list(p, scope, &[("capacity", "gt(500)")], "-capacity"));
            out.extend(list(p, scope, &[("_search", "plant 1")], ""));
            out.extend(list(p, scope, &[("big", "gt(1e18)")], ""));
            out.extend(list(p, scope, &[("_tag", "gold")], ""));
            let tx = p.read().unwrap();
            for prefix in ["zürich", "#å", "p0", "plant 3"] {
                let found = tx
                    .complete(
                        Collection::Object,
                        std::slice::from_ref(scope),
                        &Filter::all(),
                        prefix,
                        Some(5),
                    )
                    .unwrap();
                out.push(format!("{prefix}: {found:?}"));
            }
        }
        out
    };
    let (before, listed) = (read_back(&p, &docs), lists(&p));
    assert!(
        listed
            .iter()
            .any(|l| l.starts_with("zürich: [(\"Zürich-東京\"")),
        "{listed:?}"
    );
    assert!(before[0].contains("gold Some(2)"), "{}", before[0]);
    assert!(before[1].contains("current None"), "{}", before[1]);
    drop(p);

    let mut client = admin(&schema.url).unwrap();
    to_step_7(&mut client, &schema.schema, 7);
    let s = &schema.schema;
    let gin = format!("SELECT count(*)::text FROM pg_indexes WHERE schemaname = '{s}' AND indexname = 'heads_body'");
    assert_eq!(client.texts(&gin).unwrap(), vec!["1"]);

    let p = Platform::over(std::sync::Arc::new(schema.store()), clock);
    assert_current_schema(&mut client, s);
    assert_eq!(client.texts(&gin).unwrap(), vec!["0"]);
    let after = read_back(&p, &docs);
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b, a);
    }
    assert_eq!(lists(&p), listed);
    // The sample bucket (step 9) is no generated column now: the writes set it, to the same
    // hash of the id the migrated rows kept, one row at a time and in a batch.
    let generated = format!(
        "SELECT attgenerated::text FROM pg_attribute WHERE attrelid = '\"{s}\".heads'::regclass \
         AND attname = 'bucket'"
    );
    assert_eq!(client.texts(&generated).unwrap(), vec![""]);
    save(
        &p,
        &ann,
        Collection::Object,
        json!({"_id": "After", "n": 1}),
    );
    save(
        &p,
        &ann,
        Collection::Object,
        json!({"_id": "After", "n": 2}),
    );
    let batch: Vec<Value> = (0..5)
        .map(|i| json!({"_id": format!("B{i}"), "n": i}))
        .collect();
    save(&p, &bob, Collection::Object, Value::Array(batch));
    let off = format!(
        "SELECT count(*)::text FROM \"{s}\".heads WHERE bucket IS DISTINCT FROM \
         (hashtextextended(id, 0) & 65535)::integer"
    );
    assert_eq!(client.texts(&off).unwrap(), vec!["0"]);
    let written =
        format!("SELECT count(*)::text FROM \"{s}\".heads WHERE id IN ('After', 'B0', 'B4')");
    assert_eq!(client.texts(&written).unwrap(), vec!["3"]);
    // Every version's body is in its row (step 10), the current ones' too.
    let bodies = format!("SELECT count(*) FILTER (WHERE body IS NULL)::text FROM \"{s}\".versions");
    assert_eq!(client.texts(&bodies).unwrap(), vec!["0"]);
    // A typed list searches the per-type index of its scope, remade in the new form.
    client
        .batch_execute(&format!("ANALYZE \"{s}\".heads"))
        .unwrap();
    let query = ListQuery {
        total: crate::query::Total::Exact,
        filter: Filter::and(vec![
            Filter::TypeIn(vec!["Plant".into()]),
            parse_param("capacity", "gt(900)").unwrap(),
        ]),
        sort: SortSpec::parse("capacity").unwrap(),
        paging: Paging::default(),
    };
    let plan = schema
        .store()
        .read_tx()
        .unwrap()
        .explain_list(
            Collection::Object,
            std::slice::from_ref(&beta),
            &query,
            None,
        )
        .unwrap();
    let index = type_index_name(&beta, "Plant", "capacity");
    assert!(plan.contains(&index), "{plan}");
    // Completion ranges over the folded ids, then the folded names, of the scope.
    let plan = schema
        .store()
        .read_tx()
        .unwrap()
        .explain_complete(Collection::Object, &acme, "zürich")
        .unwrap();
    let [by_id, by_name] = plan.as_slice() else {
        panic!("{plan:?}");
    };
    assert!(
        by_id.contains("heads_id_fold") && by_id.contains("Index Cond"),
        "{by_id}"
    );
    assert!(by_name.contains("heads_name_fold"), "{by_name}");
    let def = client
        .texts(&format!(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = '{s}' AND indexname = '{index}'"
        ))
        .unwrap();
    assert!(def[0].contains("WHERE ((scope = "), "{def:?}");
    assert!(!def[0].contains("(scope, "), "{def:?}");
}
