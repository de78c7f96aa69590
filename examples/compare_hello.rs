//! Two helpers of the side-by-side comparison (`benches/compare/run`):
//!
//! - `compare_hello serve PORT`: an actix-web hello-world on 127.0.0.1 (`GET /` answers
//!   `Hello world!`), the ceiling of what an actix-web server does on this machine (W6).
//! - `compare_hello serve-row PORT DB TENANT`: an actix-web server on 127.0.0.1 whose
//!   `GET /object/v1/private/{id}` answers the JSON of that object's current row in the
//!   platform's SQLite file DB (the tenant's production environment), read with plain rusqlite
//!   (one prepared statement, the file mapped as the platform maps it) and sent as read: no
//!   token, no parse, no rendering. What an actix-web server reading that row costs (W6).
//! - `compare_hello serve-checked PORT DB TENANT`: `serve-row` with what makes the platform's
//!   answer safe to give, done the plainest way: the `Authorization: Bearer` token hashed
//!   (SHA-256) and looked up in a per-thread cache of tokens kept under the file's
//!   authentication epoch, the epoch read in the same read transaction as the row (so a
//!   revoked token is refused from the next request on, whichever process revoked it), an
//!   unknown token looked up in the file's `tokens` table (401 if unknown or revoked, 403 if
//!   of another tenant). The floor under W6's object GET with its guarantees. It also answers
//!   `GET /data/v1/private/{OBJ:PROP}?_range=last(N)` the same way: in the one read
//!   transaction, the object's row for the series header and the newest chunks of the series,
//!   only their last N points decoded (with the platform's codec, from the position where they
//!   start), printed with `serde_json` and chrono's date fields as the platform's JSON answer
//!   (the same bytes): the floor under W6's data GET.
//! - `compare_hello --version`: prints a line and exits, the floor of a process start (W8).
//! - `compare_hello probe PORT PATH TOKEN -- COMMAND...`: starts COMMAND, sends `GET PATH` to
//!   127.0.0.1:PORT (with `Authorization: Bearer TOKEN` unless TOKEN is `-`) as soon as the
//!   port accepts, checks the answer is 200, stops COMMAND and exits: a start-up to first
//!   answer, timed from outside by hyperfine (W8).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

#[actix_web::get("/")]
async fn hello() -> &'static str {
    "Hello world!"
}

fn serve(port: u16) -> std::io::Result<()> {
    actix_rt::System::new().block_on(async move {
        actix_web::HttpServer::new(|| actix_web::App::new().service(hello))
            .bind(("127.0.0.1", port))?
            .run()
            .await
    })
}

/// The database file and tenant `serve-row` reads.
struct Row {
    db: std::path::PathBuf,
    tenant: String,
}

thread_local! {
    static CONN: std::cell::OnceCell<rusqlite::Connection> = const { std::cell::OnceCell::new() };
}

/// Runs `f` on this thread's read-only connection to `db` (opened on first use, the file
/// mapped as the platform maps it).
fn with_conn<T>(
    db: &std::path::Path,
    f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    CONN.with(|cell| {
        let conn = match cell.get() {
            Some(c) => c,
            None => {
                let c = rusqlite::Connection::open_with_flags(
                    db,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                )?;
                c.pragma_update(None, "mmap_size", 0x7fff_0000_i64)?;
                cell.get_or_init(|| c)
            }
        };
        f(conn)
    })
}

/// A current row's body as text, as stored: its JSONB printed, with the `_id` and `_type` the
/// row keeps in its columns put back in front (`heads.lead`, schema 19).
macro_rules! body_text {
    () => {
        "CASE WHEN h.lead IS NULL THEN json(h.body) ELSE '{\"_id\":\"' || h.id || '\"' || \
         CASE h.lead WHEN 1 THEN ',\"_type\":\"' || (SELECT k.type FROM type_keys k \
         WHERE k.tk = h.type) || '\"' ELSE '' END || ',' || substr(json(h.body), 2) END"
    };
}

#[actix_web::get("/object/v1/private/{id}")]
async fn row(
    at: actix_web::web::Data<Row>,
    id: actix_web::web::Path<String>,
) -> actix_web::HttpResponse {
    let found = with_conn(&at.db, |conn| {
        use rusqlite::OptionalExtension as _;
        conn.prepare_cached(concat!(
            "SELECT ",
            body_text!(),
            " FROM heads h \
             WHERE sk = (SELECT sk FROM scopes WHERE coll = 'object' AND tenant = ?1 \
             AND env = 'production') AND id = ?2"
        ))?
        .query_row([at.tenant.as_str(), id.as_str()], |r| r.get::<_, String>(0))
        .optional()
    });
    match found {
        Ok(Some(json)) => actix_web::HttpResponse::Ok()
            .content_type("application/json")
            .body(json),
        Ok(None) => actix_web::HttpResponse::NotFound().finish(),
        Err(e) => actix_web::HttpResponse::InternalServerError().body(e.to_string()),
    }
}

thread_local! {
    /// Token hashes (hex) to their tenant, kept at an authentication epoch.
    static TOKENS: std::cell::RefCell<(i64, std::collections::HashMap<String, String>)> =
        std::cell::RefCell::new((-1, std::collections::HashMap::new()));
}

/// What a checked read found.
enum Checked {
    Row(String),
    Missing,
    Refused(actix_web::http::StatusCode),
}

#[actix_web::get("/object/v1/private/{id}")]
async fn checked_row(
    req: actix_web::HttpRequest,
    at: actix_web::web::Data<Row>,
    id: actix_web::web::Path<String>,
) -> actix_web::HttpResponse {
    use rusqlite::OptionalExtension as _;
    let found = with_conn(&at.db, |conn| -> rusqlite::Result<Checked> {
        // One read transaction: the epoch, the token if not kept, the row.
        let tx = conn.unchecked_transaction()?;
        if let Some(status) = refused(&tx, &req, &at.tenant)? {
            return Ok(Checked::Refused(status));
        }
        let tenant = &at.tenant;
        let json = tx
            .prepare_cached(concat!(
                "SELECT ",
                body_text!(),
                " FROM heads h \
                 WHERE sk = (SELECT sk FROM scopes WHERE coll = 'object' AND tenant = ?1 \
             AND env = 'production') AND id = ?2"
            ))?
            .query_row([tenant.as_str(), id.as_str()], |r| r.get::<_, String>(0))
            .optional()?;
        tx.rollback()?;
        Ok(json.map_or(Checked::Missing, Checked::Row))
    });
    match found {
        Ok(Checked::Row(json)) => actix_web::HttpResponse::Ok()
            .content_type("application/json")
            .body(json),
        Ok(Checked::Missing) => actix_web::HttpResponse::NotFound().finish(),
        Ok(Checked::Refused(status)) => actix_web::HttpResponse::build(status).finish(),
        Err(e) => actix_web::HttpResponse::InternalServerError().body(e.to_string()),
    }
}

/// Why the request's `Authorization: Bearer` token is refused (401 unknown or revoked, 403 of
/// another tenant), read in `tx`: the file's authentication epoch, then the token's hash in
/// this thread's cache kept at that epoch, or in the `tokens` table.
fn refused(
    tx: &rusqlite::Transaction<'_>,
    req: &actix_web::HttpRequest,
    tenant: &str,
) -> rusqlite::Result<Option<actix_web::http::StatusCode>> {
    use actix_web::http::StatusCode;
    use rusqlite::OptionalExtension as _;
    use sha2::Digest as _;
    let token = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(token) = token else {
        return Ok(Some(StatusCode::UNAUTHORIZED));
    };
    let mut hash = String::with_capacity(64);
    for b in sha2::Sha256::digest(token.as_bytes()) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        hash.push(DIGITS[usize::from(b >> 4)] as char);
        hash.push(DIGITS[usize::from(b & 15)] as char);
    }
    let epoch: i64 = tx
        .prepare_cached("SELECT n FROM auth_epoch WHERE id = 1")?
        .query_row([], |r| r.get(0))?;
    let of = TOKENS.with(|kept| -> rusqlite::Result<Option<String>> {
        let mut kept = kept.borrow_mut();
        if kept.0 != epoch {
            *kept = (epoch, std::collections::HashMap::new());
        }
        if let Some(t) = kept.1.get(&hash) {
            return Ok(Some(t.clone()));
        }
        let t: Option<String> = tx
            .prepare_cached("SELECT tenant FROM tokens WHERE hash = ?1 AND revoked IS NULL")?
            .query_row([&hash], |r| r.get(0))
            .optional()?;
        if let Some(t) = &t {
            kept.1.insert(hash.clone(), t.clone());
        }
        Ok(t)
    })?;
    Ok(match of {
        None => Some(StatusCode::UNAUTHORIZED),
        Some(t) if t != tenant => Some(StatusCode::FORBIDDEN),
        Some(_) => None,
    })
}

/// What a checked data read found.
enum Data {
    Answer(Vec<u8>),
    Missing,
    Refused(actix_web::http::StatusCode),
}

#[actix_web::get("/data/v1/private/{id}")]
async fn checked_data(
    req: actix_web::HttpRequest,
    at: actix_web::web::Data<Row>,
    id: actix_web::web::Path<String>,
    query: actix_web::web::Query<std::collections::HashMap<String, String>>,
) -> actix_web::HttpResponse {
    let last: Option<usize> = query
        .get("_range")
        .and_then(|r| r.strip_prefix("last(")?.strip_suffix(')')?.parse().ok());
    let (Some(last), Some((object, prop))) = (last, id.split_once(':')) else {
        return actix_web::HttpResponse::BadRequest().body("only OBJ:PROP?_range=last(N)");
    };
    let found = with_conn(&at.db, |conn| -> rusqlite::Result<Data> {
        // One read transaction: the epoch, the token if not kept, the object, its chunks.
        let tx = conn.unchecked_transaction()?;
        if let Some(status) = refused(&tx, &req, &at.tenant)? {
            return Ok(Data::Refused(status));
        }
        let Some(head) = object_head(&tx, &at.tenant, object)? else {
            return Ok(Data::Missing);
        };
        let body: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&head.body).unwrap_or_default();
        let Some(serde_json::Value::Object(header)) = body.get(prop) else {
            return Ok(Data::Missing);
        };
        let columns = last_points(&tx, &at.tenant, object, prop, last)?;
        let from = columns.len().saturating_sub(last);
        let text = answer(&id, (object, prop), &head, &body, header, &columns, from);
        tx.rollback()?;
        Ok(Data::Answer(text))
    });
    match found {
        Ok(Data::Answer(text)) => actix_web::HttpResponse::Ok()
            .content_type("application/json")
            .body(text),
        Ok(Data::Missing) => actix_web::HttpResponse::NotFound().finish(),
        Ok(Data::Refused(status)) => actix_web::HttpResponse::build(status).finish(),
        Err(e) => actix_web::HttpResponse::InternalServerError().body(e.to_string()),
    }
}

/// An object's current row: its body (JSON text), version, timestamp, user and tags.
struct Head {
    body: String,
    version: i64,
    timestamp: String,
    user: String,
    tags: Option<String>,
}

/// The current row of a tenant's object in the production environment, if it exists.
fn object_head(
    tx: &rusqlite::Transaction<'_>,
    tenant: &str,
    object: &str,
) -> rusqlite::Result<Option<Head>> {
    use rusqlite::OptionalExtension as _;
    tx.prepare_cached(concat!(
        "SELECT ",
        body_text!(),
        ", version, CASE WHEN typeof(timestamp) = 'integer' \
         THEN strftime('%Y-%m-%dT%H:%M:%S', timestamp / 1000, 'unixepoch') || '.' \
         || substr(timestamp % 1000 + 1000, 2) || 'Z' ELSE timestamp END, user, tags FROM heads h \
         WHERE sk = (SELECT sk FROM scopes WHERE coll = 'object' AND tenant = ?1 \
             AND env = 'production') AND id = ?2"
    ))?
    .query_row([tenant, object], |r| {
        Ok(Head {
            body: r.get(0)?,
            version: r.get(1)?,
            timestamp: r.get(2)?,
            user: r.get(3)?,
            tags: r.get(4)?,
        })
    })
    .optional()
}

/// The last `last` points of a series: the newest chunks until they hold that many, decoded
/// oldest first, the oldest from the point where they start (the codec reads a chunk from any
/// position on).
fn last_points(
    tx: &rusqlite::Transaction<'_>,
    tenant: &str,
    object: &str,
    prop: &str,
    last: usize,
) -> rusqlite::Result<platform_core::data::columns::Columns> {
    let mut stmt = tx.prepare_cached(
        "SELECT n, payload FROM series_chunks WHERE tenant = ?1 AND env = 'production' \
         AND obj = ?2 AND prop = ?3 AND vto IS NULL ORDER BY start DESC",
    )?;
    let mut rows = stmt.query([tenant, object, prop])?;
    let (mut chunks, mut held) = (Vec::new(), 0usize);
    while held < last {
        let Some(r) = rows.next()? else { break };
        let n = r.get::<_, usize>(0)?;
        held += n;
        chunks.push((n, r.get::<_, Vec<u8>>(1)?));
    }
    let mut columns = platform_core::data::columns::Columns::default();
    let mut skip = held.saturating_sub(last);
    for (n, c) in chunks.iter().rev() {
        let here = skip.min(*n);
        platform_core::data::codec::decode_columns_from(c, &mut columns, here)
            .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))?;
        skip -= here;
    }
    Ok(columns)
}

/// The answer: the data header with the object's fields, then the points from `from` on.
fn answer(
    id: &str,
    (object, prop): (&str, &str),
    head: &Head,
    body: &serde_json::Map<String, serde_json::Value>,
    header: &serde_json::Map<String, serde_json::Value>,
    columns: &platform_core::data::columns::Columns,
    from: usize,
) -> Vec<u8> {
    use serde_json::{json, Map, Value};
    let mut out = Map::new();
    out.insert("_id".into(), json!(id));
    out.extend(header.clone());
    out.insert("_objid".into(), json!(object));
    out.insert("_dataid".into(), json!(prop));
    out.insert(
        "_access".into(),
        header.get("_access").cloned().unwrap_or(Value::Null),
    );
    out.insert(
        "_objtype".into(),
        body.get("_type").cloned().unwrap_or(Value::Null),
    );
    out.insert("_oid".into(), json!(id));
    out.insert("_timestamp".into(), json!(head.timestamp));
    out.insert("_user".into(), json!(head.user));
    let tags: Vec<String> = head
        .tags
        .as_deref()
        .map(|t| serde_json::from_str(t).unwrap_or_default())
        .unwrap_or_default();
    out.insert("_tag".into(), json!(tags));
    out.insert("_version".into(), json!(head.version));
    let mut text = serde_json::to_vec(&out).unwrap_or_default();
    text.pop();
    text.extend_from_slice(b",\"data\":[");
    for (i, (t, v)) in columns.times[from..]
        .iter()
        .zip(&columns.values[from..])
        .enumerate()
    {
        if i > 0 {
            text.push(b',');
        }
        use chrono::{Datelike as _, Timelike as _};
        let time = chrono::DateTime::from_timestamp_millis(*t).unwrap_or_default();
        let _ = write!(
            text,
            "{{\"time\":\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z\",\"value\":",
            time.year(),
            time.month(),
            time.day(),
            time.hour(),
            time.minute(),
            time.second()
        );
        let _ = serde_json::to_writer(&mut text, v);
        text.push(b'}');
    }
    text.extend_from_slice(b"]}");
    text
}

fn serve_row(port: u16, row_at: Row, checked: bool) -> std::io::Result<()> {
    let at = actix_web::web::Data::new(row_at);
    actix_rt::System::new().block_on(async move {
        actix_web::HttpServer::new(move || {
            let app = actix_web::App::new().app_data(at.clone());
            if checked {
                app.service(checked_row).service(checked_data)
            } else {
                app.service(row)
            }
        })
        .bind(("127.0.0.1", port))?
        .run()
        .await
    })
}

fn probe(port: u16, path: &str, token: &str, command: &[String]) -> ExitCode {
    let mut child = match Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start {}: {e}", command[0]);
            return ExitCode::FAILURE;
        }
    };
    let auth = if token == "-" {
        String::new()
    } else {
        format!("Authorization: Bearer {token}\r\n")
    };
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n");
    let started = Instant::now();
    let mut answer = String::new();
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            answer.clear();
            if stream.write_all(request.as_bytes()).is_ok()
                && stream.read_to_string(&mut answer).is_ok()
                && !answer.is_empty()
            {
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    if answer.starts_with("HTTP/1.1 200") {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "no 200 answer: {}",
            answer.lines().next().unwrap_or("(none)")
        );
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--version") => {
            println!("compare_hello 0.1.0");
            ExitCode::SUCCESS
        }
        Some("serve") if args.len() == 2 => match serve(args[1].parse().unwrap_or(8099)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("cannot serve: {e}");
                ExitCode::FAILURE
            }
        },
        Some(mode @ ("serve-row" | "serve-checked")) if args.len() == 4 => {
            let at = Row {
                db: args[2].clone().into(),
                tenant: args[3].clone(),
            };
            match serve_row(args[1].parse().unwrap_or(8099), at, mode == "serve-checked") {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("cannot serve: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("probe") if args.len() > 5 && args[4] == "--" => probe(
            args[1].parse().unwrap_or(8099),
            &args[2],
            &args[3],
            &args[5..],
        ),
        _ => {
            eprintln!(
                "usage: compare_hello serve PORT | serve-row PORT DB TENANT | serve-checked PORT DB \
                 TENANT | --version \
                 | probe PORT PATH TOKEN -- COMMAND..."
            );
            ExitCode::FAILURE
        }
    }
}
