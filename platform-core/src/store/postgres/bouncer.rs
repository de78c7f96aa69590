//! pgbouncer for tests: a process of the test's own in transaction pooling, on a free port,
//! in front of the test server, with two server connections for every client of the run (so
//! that they are shared). Debian's pgbouncer package is installed by `scripts/pgbouncer.sh`; a
//! test that needs it fails, naming the script, when it is missing.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A pgbouncer process of the test's own, in transaction pooling; stopped when dropped.
pub struct Bouncer {
    child: Child,
    dir: PathBuf,
    port: u16,
}

impl Bouncer {
    /// pgbouncer in front of the server of `upstream` (a URL), with `extra` lines in its
    /// settings.
    pub fn start(upstream: &str, extra: &str) -> Bouncer {
        let bin = [
            "/usr/sbin/pgbouncer",
            "/usr/bin/pgbouncer",
            "/usr/local/bin/pgbouncer",
        ]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .unwrap_or_else(|| {
            panic!(
                "pgbouncer is not installed: run scripts/pgbouncer.sh (as root; it installs \
                     Debian's pgbouncer package), as .ci/run does"
            )
        });
        let config: tokio_postgres::Config = upstream.parse().expect("the test server's URL");
        let host = match config.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            _ => panic!("the test server must be reached over TCP to put pgbouncer before it"),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or("postgres").to_string();
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "platform-pgbouncer-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // pgbouncer refuses to run as root: as root, it runs as postgres, which writes its log
        // here.
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let listen = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let own = listen.local_addr().unwrap().port();
        drop(listen);
        std::fs::write(dir.join("users.txt"), format!("\"{user}\" \"\"\n")).unwrap();
        let ini = dir.join("pgbouncer.ini");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n* = host={host} port={port}\n\n[pgbouncer]\n\
                 listen_addr = 127.0.0.1\nlisten_port = {own}\nunix_socket_dir =\n\
                 auth_type = trust\nauth_file = {users}\n\
                 pool_mode = transaction\ndefault_pool_size = 2\nreserve_pool_size = 0\n\
                 max_client_conn = 200\nlogfile = {log}\n{extra}\n",
                users = dir.join("users.txt").display(),
                log = dir.join("pgbouncer.log").display(),
            ),
        )
        .unwrap();
        let root = std::fs::metadata("/proc/self")
            .map(|m| m.uid() == 0)
            .unwrap_or(false);
        let mut command = Command::new(bin);
        if root {
            command.args(["-u", "postgres"]);
        }
        let child = command
            .arg(&ini)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        let bouncer = Bouncer {
            child,
            dir,
            port: own,
        };
        let until = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", own)).is_err() {
            assert!(
                Instant::now() < until,
                "pgbouncer did not start: {}",
                bouncer.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        bouncer
    }

    /// `url` through this pgbouncer (its host and port replaced).
    pub fn url(&self, url: &str) -> String {
        let after = url.find("://").map_or(0, |i| i + 3);
        let rest = &url[after..];
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let user = rest[..end].rfind('@').map_or("", |at| &rest[..=at]);
        format!(
            "{}{user}127.0.0.1:{}{}",
            &url[..after],
            self.port,
            &rest[end..]
        )
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("pgbouncer.log")).unwrap_or_default()
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
