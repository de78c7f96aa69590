//! Reading a document's current row (`heads`) and its versions: the columns a version is read
//! from, decoded into a [`StoredVersion`], its fields or its printed text.

use super::super::{stored_time_value, Db};
use crate::error::{Error, Result};
use crate::store::{RawVersion, StoredBody, StoredVersion};
use chrono::{DateTime, Utc};
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

/// The filterable copy of a version's body in `heads`: the body as JSONB. The version's
/// system fields are columns beside it (`version`, `timestamp`, `user`, `tags`, and `id` for
/// `_oid`), which filters and sorts read as `sql::doc_of` says. Reads `v`, a row of
/// `versions`.
pub(crate) const HEAD_BODY: &str = "jsonb(v.body)";

/// The type of a version's body as its key is made for (`type_keys.type`), from its text:
/// [`type_column`] in SQL. Reads `v`, a row of `versions`.
pub(crate) const TYPE_OF_VERSION: &str = "coalesce(json_extract(v.body, '$._type'), '')";

/// The type of a current row as its key is made for (`type_keys.type`), as
/// `coalesce(json_extract(body, '$._type'), '')` gives it from the body's text (a save checks
/// that `_type` is text; other values as SQLite would store them in the text column).
pub(crate) fn type_column(body: &Map<String, Value>) -> String {
    match body.get("_type") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(t)) => t.clone(),
        Some(Value::Bool(b)) => u8::from(*b).to_string(),
        Some(other) => other.to_string(),
    }
}

/// The tags of the version of `row` (a row with `sk id version`) as a JSON array in tag
/// order.
macro_rules! tags_at {
    ($row:literal) => {
        concat!(
            "(SELECT json_group_array(tag) FROM (SELECT t.tag FROM tags t WHERE t.sk = ",
            $row,
            ".sk AND t.id = ",
            $row,
            ".id AND t.version = ",
            $row,
            ".version ORDER BY t.tag))"
        )
    };
}

/// [`tags_at`], NULL for none: the `tags` of a current row.
macro_rules! tags_of {
    ($row:literal) => {
        concat!(
            "nullif(",
            $crate::store::sqlite::documents::head::tags_at!($row),
            ", '[]')"
        )
    };
}
pub(crate) use {tags_at, tags_of};

/// The body of a current row's version as text, with the leading `_id` (and `_type`) that the
/// row keeps in its columns put back (`lead`, see `layout`): they were kept out only where
/// they need no escape and something follows them. Reads `h`, a row of `heads`.
macro_rules! body_of_head {
    () => {
        "CASE WHEN h.lead IS NULL THEN json(h.body) ELSE '{\"_id\":\"' || h.id || '\"' || \
         CASE h.lead WHEN 1 THEN ',\"_type\":\"' || (SELECT k.type FROM type_keys k \
         WHERE k.tk = h.type) || '\"' ELSE '' END || ',' || substr(json(h.body), 2) END"
    };
}
pub(crate) const BODY_OF_HEAD: &str = body_of_head!();
pub(crate) use body_of_head;

/// A body's text as its current row keeps it, and the row's `lead`: without the `_id` it
/// starts with where that is the document's id, nor the `_type` right after it where that is
/// the type the row's key names (`lead` 1; 0 for the `_id` alone), since the row's columns
/// give them back ([`body_of_head`], `read_head`). Something follows what is kept apart (a
/// `_type` that ends the body stays in it), and neither text may need an escape in JSON;
/// otherwise the body is kept whole (`lead` NULL).
pub(crate) fn lead_kept_apart<'t>(
    text: &'t str,
    id: &str,
    kind: &str,
) -> (std::borrow::Cow<'t, str>, Option<i64>) {
    let plain = |s: &str| !s.chars().any(|c| c == '"' || c == '\\' || c < ' ');
    let whole = (std::borrow::Cow::Borrowed(text), None);
    if !plain(id) {
        return whole;
    }
    let Some(rest) = text
        .strip_prefix("{\"_id\":\"")
        .and_then(|t| t.strip_prefix(id))
        .and_then(|t| t.strip_prefix('"'))
    else {
        return whole;
    };
    let typed = (!kind.is_empty() && plain(kind))
        .then(|| {
            rest.strip_prefix(",\"_type\":\"")
                .and_then(|t| t.strip_prefix(kind))
                .and_then(|t| t.strip_prefix("\","))
        })
        .flatten();
    let kept = |fields: &str, lead| (std::borrow::Cow::Owned(format!("{{{fields}")), Some(lead));
    match (typed, rest.strip_prefix(',')) {
        (Some(fields), _) => kept(fields, 1),
        (None, Some(fields)) => kept(fields, 0),
        (None, None) => whole,
    }
}

/// The current version's columns as [`row_to_version`] reads them, from its current row `h`:
/// its text from its row of `versions` where it has one (a text that would not read back as
/// written from the JSONB), else printed from the JSONB.
pub(crate) const HEAD_VERSION_COLUMNS: &str = concat!(
    "h.id, h.version, coalesce((SELECT v.body FROM versions v WHERE v.sk = h.sk AND v.id = h.id \
     AND v.version = h.version), ",
    body_of_head!(),
    "), h.timestamp, h.user, h.reason, coalesce(h.tags, '[]')"
);

/// Every version of a document (`?1` its scope key, `?2` its id, and `{and}` a condition on
/// `version`): the rows of `versions`, and the current row where the current version has none.
macro_rules! all_versions {
    ($and:literal) => {
        concat!(
            "SELECT * FROM (SELECT v.id, v.version, v.body, v.timestamp, v.user, v.reason, ",
            $crate::store::sqlite::documents::head::tags_at!("v"),
            " FROM versions v WHERE v.sk = ?1 AND v.id = ?2 ",
            $and,
            " UNION ALL SELECT h.id, h.version, ",
            $crate::store::sqlite::documents::head::body_of_head!(),
            ", h.timestamp, h.user, h.reason, coalesce(h.tags, '[]') FROM heads h \
             WHERE h.sk = ?1 AND h.id = ?2 ",
            $and,
            " AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.sk = h.sk AND v.id = h.id \
             AND v.version = h.version)) ORDER BY 2"
        )
    };
}
pub(crate) use all_versions;

/// A version row as read, before its JSON is decoded.
pub(crate) struct VersionRow {
    id: String,
    version: u32,
    body: String,
    timestamp: SqlValue,
    user: String,
    reason: Option<String>,
    tags: String,
}

pub(crate) fn row_to_version(row: &rusqlite::Row<'_>) -> rusqlite::Result<VersionRow> {
    Ok(VersionRow {
        id: row.get(0)?,
        version: row.get(1)?,
        body: row.get(2)?,
        timestamp: row.get(3)?,
        user: row.get(4)?,
        reason: row.get(5)?,
        tags: row.get(6)?,
    })
}

/// The current version of a document from its current row alone: the row keeps the body as
/// JSONB, and the version's time, author, tags and reason beside it. One statement (one b-tree
/// descent), on a connection outside a transaction or in a read transaction; `sk` is the key
/// of the collection and scope.
pub(crate) fn current_from_head(
    conn: &rusqlite::Connection,
    sk: i64,
    id: &str,
) -> Result<Option<StoredVersion>> {
    current_fields_from_head(conn, sk, id, None)
}

/// [`current_from_head`], the body's fields only those named in `fields` where given.
pub(crate) fn current_fields_from_head(
    conn: &rusqlite::Connection,
    sk: i64,
    id: &str,
    fields: Option<&[&str]>,
) -> Result<Option<StoredVersion>> {
    // The body is read from its JSONB (`crate::json::jsonb`); a form that reader leaves alone comes
    // back as bytes for SQLite's `json()` to print.
    let read = |blob: &[u8]| match fields {
        None => crate::json::jsonb::to_map(blob),
        Some(fields) => crate::json::jsonb::to_map_fields(blob, fields),
    };
    let Some(row) = read_head(conn, sk, id, read)? else {
        return Ok(None);
    };
    let version = row.version;
    let what = || format!("the current row of {id} (v{version})");
    let (timestamp, tags) = row.meta(id)?;
    let body: Map<String, Value> = match row.body {
        Ok(map) => map,
        Err(stored) => {
            let text: String = conn
                .prepare_cached("SELECT json(?1)")
                .db()?
                .query_row([stored], |r| r.get(0))
                .db()?;
            let mut body: Map<String, Value> = serde_json::from_str(&text)
                .map_err(|e| Error::caused(format!("{} is not a JSON object", what()), e))?;
            if let Some(fields) = fields {
                body.retain(|k, _| fields.contains(&k.as_str()));
            }
            body
        }
    };
    Ok(Some(StoredVersion {
        timestamp,
        id: id.to_string(),
        version,
        body,
        user: row.user,
        reason: row.reason,
        tags,
    }))
}

/// [`DocumentRead::current_raw`] from a current row: its JSONB as stored. A body that is no
/// blob is read as [`current_from_head`] reads it.
pub(crate) fn raw_from_head(
    conn: &rusqlite::Connection,
    sk: i64,
    id: &str,
) -> Result<Option<RawVersion>> {
    let Some(row) = read_head(conn, sk, id, |blob| Some(blob.to_vec()))? else {
        return Ok(None);
    };
    let (timestamp, tags) = row.meta(id)?;
    let Ok(blob) = row.body else {
        return Ok(current_from_head(conn, sk, id)?.map(RawVersion::from));
    };
    Ok(Some(RawVersion {
        body: StoredBody::Jsonb(blob),
        id: id.to_string(),
        version: row.version,
        timestamp,
        user: row.user,
        reason: row.reason,
        tags,
    }))
}

/// The current row of a document, its body as `body` makes it of the JSONB (or its bytes,
/// where `body` leaves it or it is no blob). (Midway through a write, a current row whose
/// version was just deleted is gone with it, until `set_current` makes another.)
pub(crate) fn read_head<B>(
    conn: &rusqlite::Connection,
    sk: i64,
    id: &str,
    body: impl Fn(&[u8]) -> Option<B>,
) -> Result<Option<HeadRow<B>>> {
    conn.prepare_cached(
        "SELECT h.version, h.body, h.reason, h.timestamp, h.user, h.tags, h.lead, \
         CASE h.lead WHEN 1 THEN (SELECT k.type FROM type_keys k WHERE k.tk = h.type) END \
         FROM heads h WHERE h.sk = ?1 AND h.id = ?2",
    )
    .db()?
    .query_row(params![sk, id], |r| {
        let lead: Option<i64> = r.get(6)?;
        let body = match (r.get_ref(1)?, lead) {
            (ValueRef::Blob(b), None) => body(b).ok_or_else(|| b.to_vec()),
            // (A blob that is no object is read as it is, and found no object.)
            (ValueRef::Blob(b), Some(_)) => {
                let kind: Option<String> = r.get(7)?;
                match crate::json::jsonb::with_lead(b, id, kind.as_deref()) {
                    Some(whole) => body(&whole).ok_or(whole),
                    None => Err(b.to_vec()),
                }
            }
            // A body kept as text (no tool of the platform's writes one): the fields put
            // back in front of its text.
            (other, Some(_)) => {
                let kind: Option<String> = r.get(7)?;
                Err(text_with_lead(other.as_bytes()?, id, kind.as_deref()))
            }
            (other, None) => Err(other.as_bytes()?.to_vec()),
        };
        Ok(HeadRow {
            version: r.get(0)?,
            body,
            reason: r.get(2)?,
            timestamp: r.get(3)?,
            user: r.get(4)?,
            tags: r.get(5)?,
        })
    })
    .optional()
    .db()
}

/// A body kept as text with the fields its row keeps apart put back in front (the text as it
/// is where it is no object).
fn text_with_lead(text: &[u8], id: &str, kind: Option<&str>) -> Vec<u8> {
    let Some(fields) = std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.trim_start().strip_prefix('{'))
    else {
        return text.to_vec();
    };
    let mut whole = format!("{{\"_id\":\"{id}\"");
    if let Some(kind) = kind {
        whole.push_str(&format!(",\"_type\":\"{kind}\""));
    }
    if !fields.trim_start().starts_with('}') {
        whole.push(',');
    }
    whole.push_str(fields);
    whole.into_bytes()
}

/// A current row as [`read_head`] reads it.
pub(crate) struct HeadRow<B> {
    version: u32,
    body: std::result::Result<B, Vec<u8>>,
    reason: Option<String>,
    timestamp: SqlValue,
    user: String,
    tags: Option<String>,
}

impl<B> HeadRow<B> {
    /// The row's time and tags, read from their columns.
    fn meta(&self, id: &str) -> Result<(DateTime<Utc>, Vec<String>)> {
        let what = || format!("the current row of {id} (v{})", self.version);
        let tags: Vec<String> = match &self.tags {
            None => Vec::new(),
            Some(tags) => serde_json::from_str(tags)
                .map_err(|e| Error::caused(format!("{} has tags {tags}", what()), e))?,
        };
        let timestamp = stored_time_value(ValueRef::from(&self.timestamp), &what())?;
        Ok((timestamp, tags))
    }
}

pub(crate) fn decode_version(raw: VersionRow) -> Result<StoredVersion> {
    let VersionRow {
        id,
        version,
        body,
        timestamp,
        user,
        reason,
        tags,
    } = raw;
    // (The row's name is only written out for an error.)
    let what = || format!("{id} v{version}");
    let body: Map<String, Value> = serde_json::from_str(&body)
        .map_err(|e| Error::caused(format!("stored body of {} is not a JSON object", what()), e))?;
    // Most versions carry no tag.
    let tags: Vec<String> = if tags == "[]" {
        Vec::new()
    } else {
        serde_json::from_str(&tags)
            .map_err(|e| Error::caused(format!("stored tags of {}", what()), e))?
    };
    Ok(StoredVersion {
        timestamp: stored_time_value(ValueRef::from(&timestamp), &what())?,
        id,
        version,
        body,
        user,
        reason,
        tags,
    })
}
