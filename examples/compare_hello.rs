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
//!   of another tenant). The floor under W6's object GET with its guarantees.
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

#[actix_web::get("/object/v1/private/{id}")]
async fn row(
    at: actix_web::web::Data<Row>,
    id: actix_web::web::Path<String>,
) -> actix_web::HttpResponse {
    let found = with_conn(&at.db, |conn| {
        use rusqlite::OptionalExtension as _;
        conn.prepare_cached(
            "SELECT json(body) FROM heads \
             WHERE coll = 'object' AND tenant = ?1 AND env = 'production' AND id = ?2",
        )?
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
    use actix_web::http::StatusCode;
    use rusqlite::OptionalExtension as _;
    use sha2::Digest as _;
    let token = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(token) = token else {
        return actix_web::HttpResponse::Unauthorized().finish();
    };
    let mut hash = String::with_capacity(64);
    for b in sha2::Sha256::digest(token.as_bytes()) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        hash.push(DIGITS[usize::from(b >> 4)] as char);
        hash.push(DIGITS[usize::from(b & 15)] as char);
    }
    let found = with_conn(&at.db, |conn| -> rusqlite::Result<Checked> {
        // One read transaction: the epoch, the token if not kept, the row.
        let tx = conn.unchecked_transaction()?;
        let epoch: i64 = tx
            .prepare_cached("SELECT n FROM auth_epoch WHERE id = 1")?
            .query_row([], |r| r.get(0))?;
        let tenant = TOKENS.with(|kept| -> rusqlite::Result<Option<String>> {
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
        let Some(tenant) = tenant else {
            return Ok(Checked::Refused(StatusCode::UNAUTHORIZED));
        };
        if tenant != at.tenant {
            return Ok(Checked::Refused(StatusCode::FORBIDDEN));
        }
        let json = tx
            .prepare_cached(
                "SELECT json(body) FROM heads \
                 WHERE coll = 'object' AND tenant = ?1 AND env = 'production' AND id = ?2",
            )?
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

fn serve_row(port: u16, row_at: Row, checked: bool) -> std::io::Result<()> {
    let at = actix_web::web::Data::new(row_at);
    actix_rt::System::new().block_on(async move {
        actix_web::HttpServer::new(move || {
            let app = actix_web::App::new().app_data(at.clone());
            if checked {
                app.service(checked_row)
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
