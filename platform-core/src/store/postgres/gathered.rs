//! Rows of multi-row writes: versions, current rows and deliveries a transaction writes are
//! gathered, and sent as one statement per table over arrays (`UNNEST`), before the
//! transaction's next statement.

use super::pool::{owned, Owned};
use crate::store::Collection;

mod one_row;
use std::collections::HashSet;

/// A document's key: collection, tenant, environment, id (in a transaction's cache and in
/// the rows it gathers).
pub(crate) type DocKey = (Collection, String, String, String);

/// A scope of documents by name: collection, tenant, environment.
pub(crate) type ScopeName = (Collection, String, String);

/// The statement that makes the keys of scopes where they have none (parameters: arrays of
/// collections, tenants and environments): `store::postgres::scopes`.
const MAKE_SCOPES: &str = "INSERT INTO scopes (coll, tenant, env) SELECT u.c, u.t, u.e \
     FROM unnest($1::text[], $2::text[], $3::text[]) AS u(c, t, e) WHERE NOT EXISTS \
     (SELECT 1 FROM scopes s WHERE s.coll = u.c AND s.tenant = u.t AND s.env = u.e) \
     ORDER BY 1, 2, 3 ON CONFLICT DO NOTHING";

/// The key of a scope as a subquery over parameters `$1` (collection), `$2`, `$3`.
pub(super) const KEY_OF_PARAMS: &str =
    "(SELECT key FROM scopes WHERE coll = $1 AND tenant = $2 AND env = $3)";

/// The sample bucket of a current row (`heads.bucket`, schema steps 3 and 9) from its id, the
/// SQL expression `id`: a hash of it, 0 to 65535.
pub(super) fn bucket_of(id: &str) -> String {
    format!("(hashtextextended({id}, 0) & 65535)::integer")
}

/// A statement held back: its text and its parameters.
pub(crate) type Statement = (String, Vec<Owned>);

/// A row of `versions` to write.
pub(crate) struct VersionRow {
    pub(crate) key: DocKey,
    pub(crate) version: i64,
    /// Its body's text, as answers print it (the current version's too: its current row keeps
    /// only the filterable form).
    pub(crate) body: String,
    pub(crate) timestamp: chrono::DateTime<chrono::Utc>,
    pub(crate) user: String,
    pub(crate) reason: Option<String>,
}

/// A row of `heads` to write.
pub(crate) struct HeadRow {
    pub(crate) key: DocKey,
    pub(crate) version: i64,
    pub(crate) kind: Option<String>,
    /// The filterable form of the body (`filter::filter_copy`).
    pub(crate) body: serde_json::Value,
    pub(crate) search: String,
    /// The folded id, where it is not the id.
    pub(crate) id_fold: Option<String>,
    pub(crate) name_fold: Option<String>,
}

/// A row of `deliveries` to write.
pub(crate) struct DeliveryRow {
    pub(crate) tenant: String,
    pub(crate) env: String,
    pub(crate) automation: String,
    pub(crate) item: String,
    pub(crate) status: String,
    pub(crate) attempts: i64,
    pub(crate) next_at: chrono::DateTime<chrono::Utc>,
    pub(crate) doc: String,
}

/// Rows gathered for multi-row writes (`Tx::gather`).
#[derive(Default)]
pub(crate) struct Gathered {
    /// Versions of new numbers (a row of the number already there is a write conflict).
    pub(crate) new_versions: Vec<VersionRow>,
    /// Versions rewritten in place (unversioned types).
    pub(crate) versions_in_place: Vec<VersionRow>,
    /// Current rows, the last of each key kept.
    pub(crate) heads: Vec<HeadRow>,
    /// Deliveries, in the order they were added.
    pub(crate) deliveries: Vec<DeliveryRow>,
    /// Scopes whose keys the rows need, made where they have none (before any row).
    pub(crate) scopes: Vec<ScopeName>,
}

impl Gathered {
    pub(crate) fn is_empty(&self) -> bool {
        self.new_versions.is_empty()
            && self.versions_in_place.is_empty()
            && self.heads.is_empty()
            && self.deliveries.is_empty()
            && self.scopes.is_empty()
    }

    /// How many rows of documents (versions and current rows) are gathered.
    pub(crate) fn document_rows(&self) -> usize {
        self.new_versions.len() + self.versions_in_place.len() + self.heads.len()
    }

    /// The statements that write the gathered rows: new versions, versions in place, current
    /// rows, deliveries (each table apart, in this order).
    pub(crate) fn into_statements(mut self) -> Vec<Statement> {
        let heads = std::mem::take(&mut self.heads);
        let mut out = Vec::with_capacity(5);
        out.extend(scopes_statement(std::mem::take(&mut self.scopes)));
        let mut heads = last_of_each(heads, |h| h.key.clone());
        if let Some(one) = self.one_version_made_current(&mut heads) {
            out.push(one);
            out.extend(deliveries_statement(self.deliveries));
            return out;
        }
        out.extend(versions_statement(self.new_versions, false));
        out.extend(versions_statement(self.versions_in_place, true));
        out.extend(heads_statement(heads));
        out.extend(deliveries_statement(self.deliveries));
        out
    }
}

impl Gathered {
    /// The one statement of a single save: one version, new or rewritten in place, made
    /// current at once, and its current row, the only one.
    fn one_version_made_current(&mut self, heads: &mut Vec<HeadRow>) -> Option<Statement> {
        let (versions, conflict) = match (self.new_versions.len(), self.versions_in_place.len()) {
            (1, 0) => (&mut self.new_versions, ""),
            (0, 1) => (&mut self.versions_in_place, IN_PLACE),
            _ => return None,
        };
        match (&versions[..], &heads[..]) {
            ([v], [h]) if v.key == h.key && v.version == h.version => {}
            _ => return None,
        }
        let (v, h) = (versions.pop()?, heads.pop()?);
        Some(one_row::version_made_current(v, h, conflict))
    }
}

/// What a version rewritten in place changes in its row.
const IN_PLACE: &str = " ON CONFLICT (scope, id, version) DO UPDATE SET body = excluded.body, \
     timestamp = excluded.timestamp, \"user\" = excluded.\"user\", reason = excluded.reason";

/// Makes the keys of scopes where they have none.
fn scopes_statement(scopes: Vec<ScopeName>) -> Option<Statement> {
    if scopes.is_empty() {
        return None;
    }
    let (mut coll, mut tenant, mut env) = (vec![], vec![], vec![]);
    for (c, t, e) in scopes {
        coll.push(c.as_str().to_string());
        tenant.push(t);
        env.push(e);
    }
    let params = vec![owned(coll), owned(tenant), owned(env)];
    Some((MAKE_SCOPES.into(), params))
}

/// Writes rows of `versions`: new numbers, or (`in_place`) versions rewritten where they are,
/// the last row of each version kept.
fn versions_statement(versions: Vec<VersionRow>, in_place: bool) -> Option<Statement> {
    if versions.is_empty() {
        return None;
    }
    let versions = if in_place {
        last_of_each(versions, |v| (v.key.clone(), v.version))
    } else {
        versions
    };
    let conflict = if in_place { IN_PLACE } else { "" };
    let mut versions = versions;
    if versions.len() == 1 {
        return versions.pop().map(|v| one_row::version(v, conflict));
    }
    let sql = format!(
        "INSERT INTO versions (scope, id, version, body, timestamp, \"user\", reason) \
         SELECT s.key, u.id, u.version, u.body, u.timestamp, u.usr, u.reason \
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], \
         $6::text[], $7::timestamptz[], $8::text[], $9::text[]) WITH ORDINALITY \
         AS u(coll, tenant, env, id, version, body, timestamp, usr, reason, o) \
         JOIN scopes s ON s.coll = u.coll AND s.tenant = u.tenant AND s.env = u.env \
         ORDER BY u.o{conflict}"
    );
    let mut c = Columns9::default();
    for v in versions {
        c.0.push(v.key.0.as_str().to_string());
        c.1.push(v.key.1);
        c.2.push(v.key.2);
        c.3.push(v.key.3);
        c.4.push(v.version);
        c.5.push(v.body);
        c.6.push(v.timestamp);
        c.7.push(v.user);
        c.8.push(v.reason);
    }
    Some((sql, c.params()))
}

/// Writes rows of `heads`, the last of each key kept, in one statement.
fn heads_statement(heads: Vec<HeadRow>) -> Option<Statement> {
    if heads.is_empty() {
        return None;
    }
    let mut heads = last_of_each(heads, |h| h.key.clone());
    if heads.len() == 1 {
        return heads.pop().map(one_row::head);
    }
    let (mut coll, mut tenant, mut env, mut id) = (vec![], vec![], vec![], vec![]);
    let (mut version, mut kind, mut body) = (vec![], vec![], vec![]);
    let (mut search, mut id_fold, mut name_fold) = (vec![], vec![], vec![]);
    for h in heads {
        coll.push(h.key.0.as_str().to_string());
        tenant.push(h.key.1);
        env.push(h.key.2);
        id.push(h.key.3);
        version.push(h.version);
        kind.push(h.kind);
        body.push(h.body);
        search.push(h.search);
        id_fold.push(h.id_fold);
        name_fold.push(h.name_fold);
    }
    let sql = format!(
        "INSERT INTO heads (scope, id, version, type, body, search, id_fold, name_fold, bucket) \
         SELECT s.key, u.id, u.version, u.type, u.body, u.search, u.id_fold, u.name_fold, {} \
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], \
         $7::jsonb[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY \
         AS u(coll, tenant, env, id, version, type, body, search, id_fold, name_fold, o) \
         JOIN scopes s ON s.coll = u.coll AND s.tenant = u.tenant AND s.env = u.env \
         ORDER BY u.o ON CONFLICT (scope, id) \
         DO UPDATE SET version = excluded.version, type = excluded.type, body = excluded.body, \
         search = excluded.search, name_fold = excluded.name_fold",
        bucket_of("u.id")
    );
    let params = vec![
        owned(coll),
        owned(tenant),
        owned(env),
        owned(id),
        owned(version),
        owned(kind),
        owned(body),
        owned(search),
        owned(id_fold),
        owned(name_fold),
    ];
    Some((sql, params))
}

/// Writes rows of `deliveries`, numbered in the order they were added (`seq` is given row by
/// row, in this order).
fn deliveries_statement(deliveries: Vec<DeliveryRow>) -> Option<Statement> {
    if deliveries.is_empty() {
        return None;
    }
    let mut c: [Vec<String>; 5] = Default::default();
    let (mut attempts, mut next_at, mut doc) = (vec![], vec![], vec![]);
    for d in deliveries {
        c[0].push(d.tenant);
        c[1].push(d.env);
        c[2].push(d.automation);
        c[3].push(d.item);
        c[4].push(d.status);
        attempts.push(d.attempts);
        next_at.push(d.next_at);
        doc.push(d.doc);
    }
    let [tenant, env, automation, item, status] = c;
    let sql =
        "INSERT INTO deliveries (tenant, env, automation, item, status, attempts, next_at, doc) \
         SELECT t, e, a, i, s, n, at, d FROM unnest($1::text[], $2::text[], $3::text[], \
         $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::text[]) \
         WITH ORDINALITY AS u(t, e, a, i, s, n, at, d, o) ORDER BY o";
    let params = vec![
        owned(tenant),
        owned(env),
        owned(automation),
        owned(item),
        owned(status),
        owned(attempts),
        owned(next_at),
        owned(doc),
    ];
    Some((sql.into(), params))
}

/// Ten columns of version rows (nine, in order).
#[derive(Default)]
struct Columns9(
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<i64>,
    Vec<String>,
    Vec<chrono::DateTime<chrono::Utc>>,
    Vec<String>,
    Vec<Option<String>>,
);

impl Columns9 {
    fn params(self) -> Vec<Owned> {
        vec![
            owned(self.0),
            owned(self.1),
            owned(self.2),
            owned(self.3),
            owned(self.4),
            owned(self.5),
            owned(self.6),
            owned(self.7),
            owned(self.8),
        ]
    }
}

/// The last row of each key, in the order of those last rows.
fn last_of_each<T, K: std::hash::Hash + Eq>(rows: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = HashSet::new();
    let mut out: Vec<T> = rows
        .into_iter()
        .rev()
        .filter(|r| seen.insert(key(r)))
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: &str) -> DocKey {
        (Collection::Object, "t".into(), "e".into(), id.into())
    }

    fn version(id: &str, n: i64) -> VersionRow {
        VersionRow {
            key: key(id),
            version: n,
            body: format!("{{\"_id\":\"{id}\"}}"),
            timestamp: chrono::Utc::now(),
            user: "u".into(),
            reason: None,
        }
    }

    fn head(id: &str, n: i64) -> HeadRow {
        HeadRow {
            key: key(id),
            version: n,
            kind: None,
            body: serde_json::json!({"_id": id}),
            search: id.into(),
            id_fold: None,
            name_fold: None,
        }
    }

    fn statements(g: Gathered) -> Vec<String> {
        g.into_statements()
            .into_iter()
            .map(|(sql, _)| sql)
            .collect()
    }

    #[test]
    fn a_single_save_is_one_statement_of_both_rows() {
        for in_place in [false, true] {
            let mut g = Gathered::default();
            match in_place {
                false => g.new_versions.push(version("a", 2)),
                true => g.versions_in_place.push(version("a", 2)),
            }
            g.heads.push(head("a", 2));
            let sql = statements(g);
            assert_eq!(sql.len(), 1, "{sql:?}");
            assert!(
                sql[0].contains("INSERT INTO versions") && sql[0].contains("INSERT INTO heads")
            );
            assert_eq!(
                sql[0].contains("DO UPDATE SET body"),
                in_place,
                "{}",
                sql[0]
            );
        }
    }

    #[test]
    fn other_writes_keep_a_statement_per_table() {
        // Two documents.
        let mut g = Gathered::default();
        g.new_versions.push(version("a", 1));
        g.new_versions.push(version("b", 1));
        g.heads.push(head("a", 1));
        g.heads.push(head("b", 1));
        assert_eq!(statements(g).len(), 2);
        // A version of another document than the current row's.
        let mut g = Gathered::default();
        g.new_versions.push(version("a", 1));
        g.heads.push(head("b", 1));
        assert_eq!(statements(g).len(), 2);
        // A version of one number and the current row of another.
        let mut g = Gathered::default();
        g.new_versions.push(version("a", 3));
        g.heads.push(head("a", 2));
        assert_eq!(statements(g).len(), 2);
    }
}
