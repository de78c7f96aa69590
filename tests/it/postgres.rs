//! On PostgreSQL (`PLATFORM_TEST_BACKEND=postgres`): a database that goes away answers 503 with
//! the error envelope and changes nothing, and the server recovers when it is back.

use crate::common::{on_postgres, TestServer};
use platform_core::auth::Role;
use platform_core::store::postgres::{testing::TestSchema, PgStore, DEFAULT_LEASE};
use serde_json::json;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A TCP relay to the PostgreSQL server that can be cut (every connection closed, new ones
/// refused) and restored.
struct Relay {
    port: u16,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Relay {
    fn start(upstream: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (is_up, kept) = (up.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                if !is_up.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let mut open = kept.lock().unwrap();
                open.push(client.try_clone().unwrap());
                open.push(server.try_clone().unwrap());
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        while let Ok(n) = from.read(&mut buf) {
                            if n == 0 || to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Relay { port, up, open }
    }

    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// `host:port` of a PostgreSQL URL.
fn authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split_once('@').map_or(rest, |(_, r)| r);
    let hostport = rest.split(['/', '?']).next().unwrap_or_default();
    if hostport.contains(':') {
        hostport.to_string()
    } else {
        format!("{hostport}:5432")
    }
}

#[actix_rt::test]
async fn a_lost_database_answers_503_and_the_server_recovers() {
    if !on_postgres() {
        return;
    }
    let schema = TestSchema::new().unwrap();
    let relay = Relay::start(authority(&schema.url));
    let url = schema.url.replacen(
        &authority(&schema.url),
        &format!("127.0.0.1:{}", relay.port),
        1,
    );
    let store = PgStore::open_in_schema(&url, &schema.schema, DEFAULT_LEASE).unwrap();
    let platform =
        platform_core::Platform::new(Arc::new(store), Arc::new(platform_core::clock::SystemClock));
    let s = TestServer::with_platform(platform);
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "v": 1})).await;

    relay.cut();
    let r = c.post("/object/v1", json!({"_id": "A", "v": 2})).await;
    r.assert_error(503, "UNAVAILABLE");
    let r = c.get("/object/v1/private/A").await;
    r.assert_error(503, "UNAVAILABLE");

    relay.restore();
    let r = c.get("/object/v1/private/A").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["v"], 1, "the refused write changed nothing");
    assert_eq!(r.body["_version"], 1);
    assert_eq!(c.save(json!({"_id": "A", "v": 3})).await["_version"], 2);
}
