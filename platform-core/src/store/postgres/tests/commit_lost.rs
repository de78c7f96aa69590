//! A connection lost during `COMMIT`: the write answers UNAVAILABLE saying its outcome is
//! unknown and that sending it again is safe (never "nothing was changed"), whether the
//! database committed it or not; and the same save sent again makes no second version.
//!
//! A proxy between the store and PostgreSQL relays both ways until it sees the client send
//! `COMMIT`; then it either relays that message and cuts both sides before the answer comes
//! back (the database commits, the client cannot know), or cuts without relaying it (the
//! database rolls back).

use super::super::testing::TestSchema;
use super::super::{PgOptions, PgStore};
use crate::auth::Principal;
use crate::documents::SaveOptions;
use crate::store::Collection;
use crate::{ErrorCode, Platform};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What the proxy does with the first `COMMIT` it sees once armed.
#[derive(Clone, Copy, PartialEq)]
enum Cut {
    /// Relays it, then cuts both sides: the database commits.
    AfterSending,
    /// Cuts both sides without relaying it: the database rolls back.
    BeforeSending,
}

/// A proxy to `upstream` (host:port) on a port of its own; cuts at the first `COMMIT` of a write
/// transaction a client sends while `armed`, which it then clears.
/// `ended` is set when the database ends the session of a cut connection (it has then done
/// all it will do with what it got).
fn proxy(upstream: String, cut: Cut, armed: Arc<AtomicBool>, ended: Arc<AtomicBool>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { return };
            let Ok(server) = TcpStream::connect(&upstream) else {
                continue;
            };
            let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut s_in, mut c_out) = (server, client);
            let armed = armed.clone();
            let ended = ended.clone();
            // Client to server, watching for COMMIT.
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                // Whether the connection is in a write transaction (read ones end with COMMIT
                // too, and are left alone).
                let mut writing = false;
                loop {
                    let n = match c_in.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let chunk = &buf[..n];
                    let at = |text: &[u8]| chunk.windows(text.len()).position(|w| w == text);
                    let begin = at(b"BEGIN ISOLATION LEVEL READ COMMITTED");
                    let end = at(b"COMMIT\0").or_else(|| at(b"COMMIT;"));
                    writing |= begin.is_some();
                    let commit = writing && end.is_some();
                    if end.is_some() {
                        writing = begin.is_some_and(|b| end.is_some_and(|e| b > e));
                    }
                    if commit && armed.swap(false, Ordering::SeqCst) {
                        // The client loses its connection here.
                        let _ = c_in.shutdown(Shutdown::Both);
                        if cut == Cut::AfterSending {
                            // The database gets the whole transaction and its COMMIT, then the
                            // end of its input; its answers are read and dropped (a failed
                            // send of theirs would end its session before the COMMIT).
                            let _ = s_out.write_all(chunk);
                            let _ = s_out.shutdown(Shutdown::Write);
                        } else {
                            let _ = s_out.shutdown(Shutdown::Both);
                        }
                        break;
                    }
                    if s_out.write_all(chunk).is_err() {
                        break;
                    }
                }
            });
            // Server to client, reading the server to its end even once the client is gone.
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let mut relaying = true;
                loop {
                    match s_in.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => relaying = relaying && c_out.write_all(&buf[..n]).is_ok(),
                    }
                }
                if !relaying {
                    ended.store(true, Ordering::SeqCst);
                }
                let _ = c_out.shutdown(Shutdown::Both);
            });
        }
    });
    port
}

/// The host:port of the test server's URL.
fn upstream(url: &str) -> String {
    let config: tokio_postgres::Config = url.parse().unwrap();
    let host = match &config.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        other => panic!("the test server is not on TCP: {other:?}"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!("{host}:{port}")
}

/// The test server's URL with its host and port replaced by 127.0.0.1:`port`, without TLS (the
/// proxy reads the protocol to find the COMMIT).
fn via(url: &str, port: u16) -> String {
    let at = url
        .rfind('@')
        .map_or(url.find("://").unwrap() + 3, |a| a + 1);
    let end = url[at..].find('/').map_or(url.len(), |e| at + e);
    let url = format!("{}127.0.0.1:{port}{}", &url[..at], &url[end..]);
    let glue = if url.contains('?') { '&' } else { '?' };
    format!("{url}{glue}sslmode=disable")
}

fn save(platform: &Platform, who: &Principal, body: Value) -> crate::Result<Value> {
    platform
        .objects()
        .save(who, Collection::Object, body, &SaveOptions::default())
}

fn versions_of(platform: &Platform, id: &str) -> Vec<u64> {
    let who = platform.tenancy().local_principal("acme", "ann").unwrap();
    match platform
        .objects()
        .versions(&who, Collection::Object, crate::ids::Source::Private, id)
    {
        Ok(versions) => versions.iter().map(|v| u64::from(v.version)).collect(),
        Err(e) if e.code() == ErrorCode::NotFound => Vec::new(),
        Err(e) => panic!("{e}"),
    }
}

fn run(cut: Cut) {
    let Some(schema) = TestSchema::new() else {
        return;
    };
    let direct = Platform::over(
        Arc::new(schema.store()),
        Arc::new(crate::clock::SystemClock),
    );
    // The tenant and user exist before the proxy cuts anything.
    let who = direct.tenancy().local_principal("acme", "ann").unwrap();
    save(&direct, &who, json!({"_id": "WARMUP", "_type": "Thing"})).unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let ended = Arc::new(AtomicBool::new(false));
    let port = proxy(upstream(&schema.url), cut, armed.clone(), ended.clone());
    let url = via(&schema.url, port);
    let store = PgStore::open_with(
        &url,
        &PgOptions {
            schema: schema.schema.clone(),
            ..PgOptions::default()
        },
    )
    .unwrap();
    let proxied = Platform::over(Arc::new(store), Arc::new(crate::clock::SystemClock));
    let body = json!({"_id": "CUT", "_type": "Thing", "price": 42.5});
    armed.store(true, Ordering::SeqCst);
    let e = save(&proxied, &who, body.clone()).unwrap_err();
    assert!(!armed.load(Ordering::SeqCst), "the proxy saw no COMMIT");
    assert_eq!(e.code(), ErrorCode::Unavailable, "{e}");
    assert!(e.is_outcome_unknown(), "{e}");
    let said = e.public_message();
    assert!(said.contains("whether it was stored is unknown"), "{said}");
    assert!(
        said.contains("sending the same request again is safe"),
        "{said}"
    );
    assert!(!said.contains("nothing was changed"), "{said}");
    // What the database did, once it is done with the cut session: committed when the COMMIT
    // reached it, else nothing.
    if cut == Cut::AfterSending {
        let waited = std::time::Instant::now();
        while !ended.load(Ordering::SeqCst) {
            assert!(waited.elapsed().as_secs() < 10, "the session did not end");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    let stored = versions_of(&direct, "CUT");
    match cut {
        Cut::AfterSending => assert_eq!(stored, vec![1], "the commit reached the database"),
        Cut::BeforeSending => assert!(stored.is_empty(), "{stored:?}"),
    }
    // Sent again (through the proxy, now relaying): one version either way.
    let again = save(&proxied, &who, body).unwrap();
    assert_eq!(again["_version"], json!(1), "{again}");
    assert_eq!(versions_of(&direct, "CUT"), vec![1]);
}

#[test]
fn a_commit_whose_answer_is_lost_is_unknown_and_safe_to_send_again() {
    run(Cut::AfterSending);
}

#[test]
fn a_commit_cut_before_it_reached_the_database_is_unknown_too_and_nothing_is_stored() {
    run(Cut::BeforeSending);
}
