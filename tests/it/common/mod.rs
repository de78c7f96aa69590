//! The test server: the production app (`platform_server::configure`) on a fresh store, driven
//! in process without sockets. The store is in-memory SQLite, or with
//! `PLATFORM_TEST_BACKEND=postgres` a fresh schema of the PostgreSQL server `PLATFORM_TEST_PG`
//! names (see [`fresh_store`]): the same tests run on both backends.

use actix_web::http::{header, Method};
use actix_web::test;
use platform_core::auth::Role;
use platform_core::Platform;
use platform_server::{AppState, ServerConfig};
use serde_json::Value;

/// A fresh platform behind the HTTP face.
pub struct TestServer {
    pub platform: Platform,
    /// The clock of a server made with [`TestServer::at`].
    pub clock: Option<std::sync::Arc<platform_core::clock::FixedClock>>,
    /// The state every request shares (with its realtime hub).
    pub state: AppState,
    /// The PostgreSQL schema of the store, dropped after the server.
    pub db: Option<std::sync::Arc<platform_core::store::postgres::testing::TestSchema>>,
    /// The app, built at the first request and serving every later one (as a server's worker
    /// builds it once).
    app: std::cell::RefCell<Option<App>>,
}

/// The production app's service, its answers' bodies boxed.
type App = actix_service::boxed::RcService<
    actix_http::Request,
    actix_web::dev::ServiceResponse,
    actix_web::Error,
>;

/// The variable that picks the backend of the test servers (`sqlite`, the default, or
/// `postgres`).
pub const BACKEND: &str = "PLATFORM_TEST_BACKEND";

/// Whether the test servers run on PostgreSQL.
/// A vector file of the spec (`shared/spec/vectors/NAME`), or the copy the core keeps when the
/// spec is not beside the repository.
pub fn vectors(name: &str) -> Value {
    let shared = format!(
        "{}/../shared/spec/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let copy = format!(
        "{}/platform-core/testdata/vectors/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let path = if std::path::Path::new(&shared).exists() {
        shared
    } else {
        copy
    };
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first record batch of a GET answered as an Arrow IPC stream (asserted a 200).
pub async fn arrow_batch(c: &Client<'_>, path: &str) -> arrow_array::RecordBatch {
    let res = c
        .server
        .start(
            test::TestRequest::get()
                .uri(path)
                .insert_header((header::AUTHORIZATION, format!("Bearer {}", c.token)))
                .insert_header((header::ACCEPT, "application/vnd.apache.arrow.stream")),
        )
        .await;
    assert_eq!(res.status(), 200, "{path}");
    let bytes = test::read_body(res).await;
    let mut reader = arrow_ipc::reader::StreamReader::try_new(&bytes[..], None).unwrap();
    reader.next().unwrap().unwrap()
}

pub fn on_postgres() -> bool {
    match std::env::var(BACKEND).as_deref() {
        Ok("postgres") => true,
        Ok("sqlite") | Ok("") | Err(_) => false,
        Ok(other) => panic!("{BACKEND}={other}: use sqlite or postgres"),
    }
}

/// A fresh empty store for a test server: in-memory SQLite, or a fresh PostgreSQL schema (kept
/// alive by the second value).
pub fn fresh_store() -> (
    std::sync::Arc<dyn platform_core::store::Store>,
    Option<std::sync::Arc<platform_core::store::postgres::testing::TestSchema>>,
) {
    if on_postgres() {
        let schema =
            platform_core::store::postgres::testing::TestSchema::new().unwrap_or_else(|| {
                panic!("{BACKEND}=postgres needs PLATFORM_TEST_PG (a PostgreSQL URL)")
            });
        let store = schema.store();
        return (
            std::sync::Arc::new(store),
            Some(std::sync::Arc::new(schema)),
        );
    }
    let store = platform_core::store::sqlite::SqliteStore::open_in_memory().unwrap();
    (std::sync::Arc::new(store), None)
}

/// A platform on a fresh store (see [`fresh_store`]), with the system clock.
pub fn fresh_platform() -> (
    Platform,
    Option<std::sync::Arc<platform_core::store::postgres::testing::TestSchema>>,
) {
    let (store, db) = fresh_store();
    (
        Platform::new(
            store,
            std::sync::Arc::new(platform_core::clock::SystemClock),
        ),
        db,
    )
}

/// One answer: status, headers and body (JSON when it parses, else a string).
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: actix_web::http::header::HeaderMap,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| String::from_utf8(v.as_bytes().to_vec()).unwrap())
    }

    pub fn total(&self) -> u64 {
        self.header("x-total-count")
            .expect("x-total-count")
            .parse()
            .unwrap()
    }

    /// Asserts the error envelope and header for a failed call, and returns the message.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> String {
        assert_eq!(self.status, status, "status of {:?}", self.body);
        let err = &self.body["error"];
        assert_eq!(err["status"], status, "{:?}", self.body);
        assert_eq!(err["code"], code, "{:?}", self.body);
        let message = err["message"].as_str().expect("message").to_string();
        assert!(!message.is_empty());
        let header = self.header("x-platform-error").expect("x-platform-error");
        assert!(
            header.bytes().all(|b| (b' '..=b'~').contains(&b)),
            "{header}"
        );
        if message.is_ascii() {
            assert_eq!(header, format!("[{code}] {message}"));
        } else {
            assert_eq!(header, platform_server::error::header_text(code, &message));
        }
        // The same text under the name the prior art's SDK prints (decisions 12).
        assert_eq!(
            self.header("x-odsl-error").as_deref(),
            Some(header.as_str())
        );
        message
    }
}

impl TestServer {
    pub fn new() -> TestServer {
        Self::with_config(ServerConfig::default())
    }

    pub fn with_config(config: ServerConfig) -> TestServer {
        let (platform, db) = fresh_platform();
        let mut server = Self::over(platform, config);
        server.db = db;
        server
    }

    /// A server over a platform made by the test (delivery settings, a file store...).
    pub fn with_platform(platform: Platform) -> TestServer {
        Self::over(platform, ServerConfig::default())
    }

    /// A server at `now` (RFC 3339) over an in-memory store, delivering with `settings`.
    pub fn at_with_delivery(
        now: &str,
        settings: platform_core::events::deliver::DeliverySettings,
    ) -> TestServer {
        Self::at_with_network(now, settings, None)
    }

    /// The same, sending through `network` (a resolver of its own, say) rather than the
    /// server's own client when one is given.
    pub fn at_with_network(
        now: &str,
        settings: platform_core::events::deliver::DeliverySettings,
        network: Option<std::sync::Arc<dyn platform_core::events::deliver::Outbound>>,
    ) -> TestServer {
        let now = chrono::DateTime::parse_from_rfc3339(now)
            .unwrap()
            .with_timezone(&chrono::Utc);
        let (store, db) = fresh_store();
        let clock = std::sync::Arc::new(platform_core::clock::FixedClock::new(now));
        let mut platform = Platform::new(store, clock.clone()).with_delivery(settings);
        if let Some(network) = network {
            platform = platform.with_outbound(network);
        }
        let mut server = Self::over(platform, ServerConfig::default());
        server.clock = Some(clock);
        server.db = db;
        server
    }

    /// Moves the clock of a server made with `at` forward.
    pub fn advance(&self, seconds: i64) {
        let clock = self.clock.as_ref().expect("a server with a clock");
        clock.set(
            platform_core::clock::Clock::now(clock.as_ref()) + chrono::TimeDelta::seconds(seconds),
        );
    }

    fn over(platform: Platform, config: ServerConfig) -> TestServer {
        let state = AppState::new(platform, config);
        TestServer {
            platform: state.platform.clone(),
            clock: None,
            state,
            db: None,
            app: std::cell::RefCell::new(None),
        }
    }

    /// The app serving this server's requests, built at the first one.
    async fn app(&self) -> App {
        if let Some(app) = self.app.borrow().as_ref() {
            return app.clone();
        }
        let app = test::init_service(platform_server::app(self.state.clone())).await;
        let app = actix_service::boxed::rc_service(actix_service::ServiceExt::map(
            app,
            |res: actix_web::dev::ServiceResponse<_>| res.map_into_boxed_body(),
        ));
        *self.app.borrow_mut() = Some(app.clone());
        app
    }

    /// A server whose clock stands at `now` (RFC 3339).
    pub fn at(now: &str) -> TestServer {
        let now = chrono::DateTime::parse_from_rfc3339(now)
            .unwrap()
            .with_timezone(&chrono::Utc);
        let (store, db) = fresh_store();
        let clock = std::sync::Arc::new(platform_core::clock::FixedClock::new(now));
        let mut server = Self::over(Platform::new(store, clock.clone()), ServerConfig::default());
        server.clock = Some(clock);
        server.db = db;
        server
    }

    /// A client of tenant `acme` with a role.
    pub fn client(&self, role: Role) -> Client<'_> {
        self.client_of("acme", &format!("{role}-user"), role)
    }

    pub fn client_of(&self, tenant: &str, user: &str, role: Role) -> Client<'_> {
        let token = self
            .platform
            .tenancy()
            .create_token(tenant, user, role)
            .unwrap();
        Client {
            server: self,
            auth: Some(format!("Bearer {token}")),
            env: None,
            token,
        }
    }

    /// A client without credentials.
    pub fn anonymous(&self) -> Client<'_> {
        Client {
            server: self,
            auth: None,
            env: None,
            token: String::new(),
        }
    }

    pub async fn send(&self, req: test::TestRequest) -> Resp {
        let res = test::call_service(&self.app().await, req.to_request()).await;
        Self::read(res).await
    }

    /// Starts a request and returns its response without reading the body (for streams).
    pub async fn start(&self, req: test::TestRequest) -> actix_web::dev::ServiceResponse {
        test::call_service(&self.app().await, req.to_request()).await
    }

    /// Reads a whole response.
    pub async fn read(res: actix_web::dev::ServiceResponse) -> Resp {
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = test::read_body(res).await;
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Resp {
            status,
            headers,
            body,
        }
    }
}

/// Requests as one caller.
#[derive(Clone)]
pub struct Client<'a> {
    pub server: &'a TestServer,
    pub auth: Option<String>,
    pub env: Option<String>,
    pub token: String,
}

impl Client<'_> {
    /// The same caller in another environment.
    pub fn in_env(&self, env: &str) -> Self {
        Client {
            env: Some(env.to_string()),
            ..self.clone()
        }
    }

    /// The same caller with a raw Authorization header.
    pub fn with_auth(&self, auth: &str) -> Self {
        Client {
            auth: Some(auth.to_string()),
            ..self.clone()
        }
    }

    fn request(&self, method: Method, path: &str) -> test::TestRequest {
        let mut req = test::TestRequest::default().method(method).uri(path);
        if let Some(auth) = &self.auth {
            req = req.insert_header((header::AUTHORIZATION, auth.clone()));
        }
        if let Some(env) = &self.env {
            req = req.insert_header(("x-platform-environment", env.clone()));
        }
        req
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.server.send(self.request(Method::GET, path)).await
    }

    pub async fn delete(&self, path: &str) -> Resp {
        self.server.send(self.request(Method::DELETE, path)).await
    }

    pub async fn put(&self, path: &str) -> Resp {
        self.server.send(self.request(Method::PUT, path)).await
    }

    pub async fn put_json(&self, path: &str, body: Value) -> Resp {
        let req = self
            .request(Method::PUT, path)
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .set_payload(body.to_string());
        self.server.send(req).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Resp {
        self.post_raw(path, body.to_string()).await
    }

    pub async fn post_raw(&self, path: &str, body: impl Into<String>) -> Resp {
        let req = self
            .request(Method::POST, path)
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .set_payload(body.into());
        self.server.send(req).await
    }

    /// A POST of a body of this content type (none when `None`), as bytes.
    pub async fn post_bytes(
        &self,
        path: &str,
        content_type: Option<&str>,
        body: impl Into<Vec<u8>>,
    ) -> Resp {
        let mut req = self.request(Method::POST, path);
        if let Some(kind) = content_type {
            req = req.insert_header((header::CONTENT_TYPE, kind.to_string()));
        }
        self.server.send(req.set_payload(body.into())).await
    }

    pub async fn method(&self, method: Method, path: &str) -> Resp {
        self.server.send(self.request(method, path)).await
    }

    /// A GET whose query travels in a form body.
    pub async fn get_form(&self, path: &str, form: &str) -> Resp {
        let req = self
            .request(Method::GET, path)
            .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
            .set_payload(form.to_string());
        self.server.send(req).await
    }

    /// Saves and asserts success; returns the stored document.
    pub async fn save(&self, body: Value) -> Value {
        let r = self.post("/object/v1", body).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body
    }
}
