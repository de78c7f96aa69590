//! Hardening: the holes an attack pass found, each attacked the same way.

use crate::common::TestServer;
use platform_core::auth::Role;
use serde_json::json;

#[actix_rt::test]
async fn bad_input_the_attack_pass_found_accepted_is_refused() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Admin);
    c.save(json!({"_id": "PWR", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                  "F": {"_type": "VarCurve", "ondate": "2024-03-01", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    let before = c.get("/object/v1/private/PWR/*").await.body;

    // A contract's value is a number.
    let m = c
        .post(
            "/object/v1",
            json!({"_id": "PWR", "F": {"_type": "VarCurve", "ondate": "2024-03-02", "contracts": [{"tenor": "M01", "value": "abc"}]}}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("abc"), "{m}");

    // background is true or false.
    c.post(
        "/validationconfig/v1",
        json!({"_id": "PWR:S", "kind": "timeseries", "checks": [{"expression": "value < 10"}]}),
    )
    .await;
    let m = c
        .post(
            "/validation/v1?_function=run",
            json!({"target": "PWR:S", "from": "2024-07-01", "to": "2024-07-02", "background": "yes"}),
        )
        .await
        .assert_error(400, "INVALID_BODY");
    assert!(m.contains("background"), "{m}");

    // A statistics range is made of dates.
    let m = c
        .get("/validation/v1?_function=stats&from=garbage")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("garbage"), "{m}");
    c.get("/validation/v1?_function=stats&to=2024-13-01")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    // A tenor code refused on a save is refused on a read.
    let m = c
        .get("/data/v1/private/PWR:F?tenor=M99999999")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("M99999999"), "{m}");

    // Extensions have no `all` source.
    c.get("/extension/v1/all")
        .await
        .assert_error(400, "INVALID_PARAMETER");

    assert_eq!(c.get("/object/v1/private/PWR/*").await.body, before);
    assert_eq!(c.get("/validation/v1").await.total(), 0, "no run started");
}

#[actix_rt::test]
async fn a_restricted_data_property_is_hidden_entirely_from_a_user_without_its_role() {
    use platform_core::auth::Grant;
    let s = TestServer::new();
    let writer = s.client_of("acme", "wendy", Role::Writer);
    writer
        .save(json!({"_id": "BOOK", "name": "book",
                     "PNL": {"_type": "VarTimeSeries", "_access": "traders", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1}]},
                     "OPEN": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 2}]}}))
        .await;
    let reader = s.client_of("acme", "rita", Role::Reader);
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| !k.starts_with('_'))
            .cloned()
            .collect()
    };
    for path in [
        "/object/v1/private/BOOK",
        "/object/v1/private/BOOK/1",
        "/object/v1/private",
        "/object/v1/all?_id=BOOK",
        "/object/v1/private?_project=PNL,OPEN,name",
        "/object/v1/private?_search=book&_project=PNL",
    ] {
        let r = reader.get(path).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        let item = if r.body.is_array() {
            r.body[0].clone()
        } else {
            r.body.clone()
        };
        assert!(item.get("PNL").is_none(), "{path}: {item}");
        assert!(!item.to_string().contains("traders"), "{path}: {item}");
        if !path.contains("_search") {
            assert!(
                item.get("OPEN").is_some() || path.contains("_project=PNL"),
                "{path}: {item}"
            );
        }
    }
    // A writer without the role sees the same, and a replace keeps what it cannot see.
    assert_eq!(
        keys(&writer.get("/object/v1/private/BOOK").await.body),
        ["name", "OPEN"]
    );
    let r = writer
        .post(
            "/object/v1?_replace=true",
            json!({"_id": "BOOK", "name": "renamed"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body.get("PNL").is_none(), "{}", r.body);
    // Granted, the property is there, with its data, after the replace.
    s.platform
        .tenancy()
        .grant("acme", "rita", &Grant::Access("traders".into()))
        .unwrap();
    let book = reader.get("/object/v1/private/BOOK").await.body;
    assert_eq!(book["PNL"]["_access"], "traders", "{book}");
    assert!(
        book.get("OPEN").is_none(),
        "the replace removed what the writer could see"
    );
    assert_eq!(
        reader.get("/data/v1/private/BOOK:PNL").await.body["data"][0]["value"],
        1.0
    );
}

/// The query shapes of the attack pass that answered 500: `$or` of 999 terms, `$in` of 1,000
/// values, 999 filter parameters, `_search` of 999 words, `_sort` of 2,000 fields.
fn attack_queries() -> Vec<(&'static str, String)> {
    let enc = |s: &str| {
        s.replace('{', "%7B")
            .replace('}', "%7D")
            .replace('"', "%22")
            .replace(' ', "+")
    };
    let or = |n: usize| -> String {
        let terms: Vec<String> = (0..n).map(|i| format!("{{\"name\":\"n{i}\"}}")).collect();
        format!(
            "_filter={}",
            enc(&format!("{{\"$or\":[{}]}}", terms.join(",")))
        )
    };
    let values = |n: usize| -> Vec<String> { (0..n).map(|i| format!("n{i}")).collect() };
    let dollar_in = |n: usize| -> String {
        let quoted: Vec<String> = values(n).iter().map(|v| format!("\"{v}\"")).collect();
        format!(
            "_filter={}",
            enc(&format!("{{\"name\":{{\"$in\":[{}]}}}}", quoted.join(",")))
        )
    };
    let params: Vec<String> = (0..999).map(|i| format!("f{i}=ne(x)")).collect();
    let words: Vec<String> = (0..999).map(|i| format!("w{i}")).collect();
    let sort: Vec<String> = (0..2000).map(|i| format!("\"f{i}\":1")).collect();
    vec![
        ("$or of 999", or(999)),
        ("$in of 1000", dollar_in(1000)),
        (
            "in() of 1000",
            format!("name=in({})", values(1000).join(",")),
        ),
        ("999 parameters", params.join("&")),
        (
            "_search of 999 words",
            format!("_search={}", words.join("+")),
        ),
        (
            "_sort of 2000 fields",
            format!("_sort={}", enc(&format!("{{{}}}", sort.join(",")))),
        ),
        ("$or of 1001", or(1001)),
        ("$in of 1001", dollar_in(1001)),
    ]
}

#[actix_rt::test]
async fn queries_of_the_attack_pass_run_or_are_400_past_the_documented_limits() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "name": "n1"})).await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "A:S", "kind": "timeseries", "name": "n1", "checks": [{"expression": "value > 0"}]}),
    )
    .await;
    for base in ["/object/v1/private", "/validationconfig/v1"] {
        for (what, query) in attack_queries() {
            // Long queries travel in a form body, as the interface allows.
            let r = c.get_form(base, &query).await;
            let within = what.contains("999 parameters")
                || what.contains("of 999")
                || what.contains("of 1000");
            if within && !what.contains("words") {
                // Up to the limit the query runs, in SQL as deep as it is.
                assert_eq!(r.status, 200, "{base} {what}: {:?}", r.body);
                assert_eq!(r.total(), 1, "{base} {what}");
            } else {
                let m = r.assert_error(400, "INVALID_PARAMETER");
                assert!(m.contains("at most"), "{base} {what}: {m}");
            }
        }
    }
    // At the limits of search words and sort fields, the same shapes run.
    let words: Vec<String> = (0..32).map(|i| format!("n{i}")).collect();
    let sort: Vec<String> = (0..32).map(|i| format!("f{i}")).collect();
    for query in [
        format!("_search={}", words.join("|")),
        format!("_sort={}", sort.join(",")),
    ] {
        let r = c.get_form("/object/v1/private", &query).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        assert_eq!(r.total(), 1, "{query}");
    }
}

const SMTP_PASSWORD: &str = "hunter2-smtp-password";

/// Tenant `evil` publishes `evil.tools` whose install script is `install`, asking for
/// `permissions`; tenant `globex` (a platform-role admin holding secret `smtp`) is returned.
async fn evil_extension<'a>(
    s: &'a TestServer,
    install: &str,
    permissions: serde_json::Value,
) -> crate::common::Client<'a> {
    let evil = s.client_of("evil", "eve", Role::Admin);
    let r = evil
        .post(
            "/script/v1",
            json!({"_id": "evil-install", "script": install}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = evil
        .post(
            "/extension/v1",
            json!({"_id": "evil.tools", "publisher": "evil", "code": "tools", "name": "Tools",
                   "permissions": permissions,
                   "views": [{"name": "main", "script": "evil-view"}],
                   "resources": {"script": {"install": "evil-install"}}}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = evil
        .post(
            "/extension/v1/public?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let globex = s.client_of("globex", "pat", Role::Platform);
    let r = globex
        .post("/secret/v1", json!({"_id": "smtp", "value": SMTP_PASSWORD}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    globex
}

#[actix_rt::test]
async fn another_publishers_install_script_cannot_read_undeclared_secrets_nor_write_public_data() {
    let s = TestServer::new();
    let globex = evil_extension(
        &s,
        "let s = secret(\"smtp\"); save_object(#{\"_id\": \"#LEAK\", \"v\": s}); s",
        json!([]),
    )
    .await;
    let r = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["script"]["ok"], false, "{}", r.body);
    let error = r.body["script"]["error"].as_str().unwrap();
    assert!(error.contains("may not read secret \"smtp\""), "{error}");
    assert!(!r.body.to_string().contains(SMTP_PASSWORD), "{}", r.body);
    s.client_of("evil", "eva", Role::Reader)
        .get("/object/v1/public/%23LEAK")
        .await
        .assert_error(404, "NOT_FOUND");

    // Without any secret, the public source is out of reach for reads and writes alike.
    let admin = s.client(Role::Platform);
    admin.save(json!({"_id": "#PUBLIC", "v": 1})).await;
    let s2 = TestServer::new();
    let globex2 = evil_extension(
        &s2,
        "save_object(#{\"_id\": \"#DEFACED\", \"v\": 1})",
        json!([]),
    )
    .await;
    let r = globex2
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    let error = r.body["script"]["error"].as_str().unwrap();
    assert!(
        error.contains("writes only the tenant's private source"),
        "{error}"
    );
    globex2
        .get("/object/v1/public/%23DEFACED")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_declared_secret_is_read_only_once_accepted_and_its_value_is_never_said() {
    let s = TestServer::new();
    let globex = evil_extension(
        &s,
        "let s = secret(\"smtp\"); message(\"the password is \" + s); save_object(#{\"_id\": \"CONFIGURED\", \"by\": \"tools\"}); \"got \" + s",
        json!(["secret:smtp"]),
    )
    .await;
    // The catalogue shows what the extension asks for.
    let catalogue = globex.get("/extension/v1/public/evil.tools").await.body;
    assert_eq!(catalogue["permissions"], json!(["secret:smtp"]));
    // Accepting something it does not ask for is refused, and nothing is installed.
    globex
        .post(
            "/extension/v1/private?_publish=true&_accept=secret:other",
            json!({"_id": "evil.tools"}),
        )
        .await
        .assert_error(400, "INVALID_PARAMETER");
    globex
        .get("/extension/v1/private/evil.tools")
        .await
        .assert_error(404, "NOT_FOUND");
    // Declared but not accepted: the read fails and the script's writes roll back.
    let r = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    assert_eq!(r.body["accepted"], json!([]), "{}", r.body);
    assert!(r.body["script"]["error"]
        .as_str()
        .unwrap()
        .contains("may not read secret"));
    globex
        .get("/object/v1/private/CONFIGURED")
        .await
        .assert_error(404, "NOT_FOUND");

    // Accepted: the script reads it, but neither its answer nor its messages carry the value.
    assert_eq!(
        globex
            .delete("/extension/v1/private/evil.tools")
            .await
            .status,
        200
    );
    let stream = s
        .start(
            actix_web::test::TestRequest::get()
                .uri("/extension/v1/private/evil.tools/messages?_limit=3")
                .insert_header(("authorization", format!("Bearer {}", globex.token))),
        )
        .await;
    let r = globex
        .post(
            "/extension/v1/private?_publish=true&_accept=secret:smtp",
            json!({"_id": "evil.tools"}),
        )
        .await;
    assert_eq!(r.body["action"], "install", "{}", r.body);
    assert_eq!(r.body["accepted"], json!(["secret:smtp"]), "{}", r.body);
    assert_eq!(r.body["script"]["ok"], true, "{}", r.body);
    assert_eq!(r.body["script"]["result"], "got [secret]");
    assert!(!r.body.to_string().contains(SMTP_PASSWORD), "{}", r.body);
    let saved = globex.get("/object/v1/private/CONFIGURED").await.body;
    assert_eq!(saved["_user"], "extension:evil.tools");
    let body = actix_web::test::read_body(stream).await;
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(text.contains("the password is [secret]"), "{text}");
    assert!(!text.contains(SMTP_PASSWORD), "{text}");
}

#[actix_rt::test]
async fn another_publishers_view_renders_only_private_templates() {
    let s = TestServer::new();
    let globex = evil_extension(&s, "1", json!([])).await;
    // A public template a platform admin keeps, and the view the extension names, which pulls it in.
    globex
        .post(
            "/script/v1",
            json!({"_id": "#internal-notes", "scriptType": "mustache", "script": "internal notes"}),
        )
        .await;
    globex
        .post(
            "/script/v1",
            json!({"_id": "evil-view", "scriptType": "mustache", "script": "<p>{{> #internal-notes}}</p>"}),
        )
        .await;
    let r = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let view = s
        .send(
            actix_web::test::TestRequest::get()
                .uri("/extension/v1/private/evil.tools/view/main")
                .insert_header(("authorization", format!("Bearer {}", globex.token)))
                .insert_header(("accept", "text/html")),
        )
        .await;
    let m = view.assert_error(403, "NOT_AUTHORIZED");
    assert!(m.contains("#internal-notes"), "{m}");
}

#[actix_rt::test]
async fn a_script_call_over_its_write_or_time_budget_fails_and_keeps_nothing() {
    use platform_core::script::ScriptLimits;
    use std::time::Duration;
    let (platform, db) = crate::common::fresh_platform();
    let platform = platform.with_script_limits(ScriptLimits {
        writes: 50,
        time: Duration::from_millis(300),
    });
    let mut s = TestServer::with_platform(platform);
    s.db = db;
    let globex = evil_extension(
        &s,
        // Catching the refusal does not help: the call has failed.
        "let i = 0; while i < 100 { i += 1; try { save_object(#{\"_id\": \"SPAM\" + i}); } catch {} } \"done\"",
        json!([]),
    )
    .await;
    let r = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    let error = r.body["script"]["error"].as_str().unwrap();
    assert!(error.contains("budget of 50 objects"), "{error}");
    assert!(error.contains("nothing it wrote was kept"), "{error}");
    assert_eq!(globex.get("/object/v1/private?_limit=-1").await.total(), 0);

    // Time: a loop within the operation limit but past the time budget (each read goes to the
    // store).
    let evil = s.client_of("evil", "eve", Role::Admin);
    evil.post(
        "/script/v1",
        json!({"_id": "evil-install", "script": "save_object(#{\"_id\": \"EARLY\"}); let x = 0; while x < 150000 { get_object(\"EARLY\"); x += 1; } x"}),
    )
    .await;
    evil.post(
        "/extension/v1/public?_publish=true",
        json!({"_id": "evil.tools"}),
    )
    .await;
    globex.delete("/extension/v1/private/evil.tools").await;
    let started = std::time::Instant::now();
    let r = globex
        .post(
            "/extension/v1/private?_publish=true",
            json!({"_id": "evil.tools"}),
        )
        .await;
    let error = r.body["script"]["error"].as_str().unwrap();
    assert!(error.contains("time budget of 300 ms"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    globex
        .get("/object/v1/private/EARLY")
        .await
        .assert_error(404, "NOT_FOUND");
}

#[actix_rt::test]
async fn a_run_whose_status_write_fails_keeps_no_records_and_raises_nothing() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let admin = s.client(Role::Platform);
    admin
        .save(json!({"_id": "#PUB", "S": {"_type": "VarTimeSeries", "calendar": "DAILY",
                     "data": [{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": -1}]}}))
        .await;
    // A writer may run checks on public data, but not write its quality status.
    let w = s.client_of("acme", "wes", Role::Writer);
    let r = w
        .post(
            "/validationconfig/v1",
            json!({"_id": "#PUB:S", "kind": "timeseries", "options": {"writeStatus": true},
                   "checks": [{"name": "positive", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let before = admin.get("/data/v1/public/%23PUB:S").await.body;
    let r = w
        .post(
            "/validation/v1?_function=run",
            json!({"target": "#PUB:S", "from": "2024-07-01", "to": "2024-07-02"}),
        )
        .await;
    r.assert_error(403, "NOT_AUTHORIZED");
    // Records, events and statuses are one transaction: none of them was kept.
    assert_eq!(w.get("/validation/v1").await.total(), 0);
    assert_eq!(admin.get("/data/v1/public/%23PUB:S").await.body, before);
    let log = w.get("/automation/v1/log").await;
    assert_eq!(log.total(), 0, "{:?}", log.body);
}

#[actix_rt::test]
async fn a_delayed_run_is_a_job_that_waits_for_its_time_without_holding_a_thread() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    c.save(
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
                  "data": [{"time": "2024-07-01", "value": 1}]}}),
    )
    .await;
    c.post(
        "/validationconfig/v1",
        json!({"_id": "NBP:SPOT", "kind": "timeseries", "checks": [{"name": "p", "expression": "value > 0"}]}),
    )
    .await;
    for (function, body) in [
        ("run", json!({"target": "NBP:SPOT"})),
        ("runMany", json!({"targets": ["NBP:SPOT"]})),
    ] {
        let started = std::time::Instant::now();
        let r = c
            .post(
                &format!("/validation/v1?_function={function}&_delay=30000"),
                body,
            )
            .await;
        assert_eq!(r.status, 200, "{function}: {:?}", r.body);
        assert_eq!(r.body["background"], true, "{function}: {:?}", r.body);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{function} answered at once"
        );
        assert!(
            !s.platform.jobs().run_next().unwrap(),
            "{function}: not before its time"
        );
    }
    s.advance(31);
    assert!(s.platform.jobs().run_next().unwrap());
    assert!(s.platform.jobs().run_next().unwrap());
    assert_eq!(c.get("/validation/v1").await.total(), 1);
    // A test runs at once: a delay is refused.
    c.post(
        "/validation/v1?_function=test&_delay=100",
        json!({"target": "NBP:SPOT"}),
    )
    .await
    .assert_error(400, "INVALID_PARAMETER");
}

/// An object with a daily series and a curve, and a configuration of the series.
async fn plant(c: &crate::common::Client<'_>) {
    c.save(json!({"_id": "PWR", "S": {"_type": "VarTimeSeries", "calendar": "DAILY",
                                      "data": [{"time": "2024-07-01", "value": 1}, {"time": "2024-07-02", "value": 2}]},
                  "F": {"_type": "VarCurve", "ondate": "2024-07-01", "contracts": [{"tenor": "M01", "value": 1}]}}))
        .await;
    let r = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "PWR:S", "kind": "timeseries", "checks": [{"id": "p", "expression": "value > 0"}]}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[actix_rt::test]
async fn a_type_name_follows_the_id_rules() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    c.save(json!({"_id": "A", "_type": "Plant"})).await;
    for bad in ["", "#", "a/b", "a:b", "*"] {
        let m = c
            .post("/object/v1", json!({"_id": "A", "_type": bad}))
            .await
            .assert_error(400, "INVALID_ID");
        assert!(m.contains("_type"), "{bad:?}: {m}");
    }
    assert_eq!(c.get("/object/v1/private/A/*").await.total(), 1);
}

#[actix_rt::test]
async fn the_text_fields_of_a_check_are_text() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    plant(&c).await;
    for field in ["id", "name", "scope", "severity"] {
        let mut check = json!({"expression": "value > 1"});
        check[field] = json!(5);
        let m = c
            .post(
                "/validationconfig/v1",
                json!({"_id": "PWR:S", "kind": "timeseries", "checks": [check]}),
            )
            .await
            .assert_error(400, "INVALID_BODY");
        assert!(m.contains(&format!("checks[0].{field}")), "{m}");
    }
    assert_eq!(c.get("/validationconfig/v1/PWR:S/*").await.total(), 1);
}

#[actix_rt::test]
async fn a_malformed_run_request_is_refused_before_it_fans_out_or_is_queued() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    plant(&c).await;
    for (function, body) in [
        (
            "runMany",
            json!({"targets": ["PWR:S"], "from": "garbage", "to": "2024-07-02"}),
        ),
        (
            "runMany",
            json!({"targets": ["PWR:S"], "points": ["2024-07-01", "yesterday"]}),
        ),
        (
            "run&_delay=100",
            json!({"target": "PWR:S", "from": "garbage"}),
        ),
    ] {
        let m = c
            .post(&format!("/validation/v1?_function={function}"), body)
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("is not a time"), "{function}: {m}");
    }
    for body in [
        json!({"targets": ["PWR:S"], "background": "yes"}),
        json!({"targets": ["PWR:S"], "points": "2024-07-01"}),
        json!({"targets": ["PWR:S"], "ondate": 5}),
    ] {
        c.post("/validation/v1?_function=runMany", body)
            .await
            .assert_error(400, "INVALID_BODY");
    }
    assert_eq!(c.get("/validation/v1?_function=jobs").await.total(), 0);
    assert_eq!(c.get("/validation/v1").await.total(), 0);
}

#[actix_rt::test]
async fn the_automation_log_filters_on_a_status_it_has() {
    let s = TestServer::new();
    let c = s.client(Role::Admin);
    for status in ["success", "failed", "skipped"] {
        let r = c.get(&format!("/automation/v1/log?status={status}")).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let m = c
        .get("/automation/v1/log?status=succes")
        .await
        .assert_error(400, "INVALID_PARAMETER");
    assert!(m.contains("succes"), "{m}");
}

#[actix_rt::test]
async fn list_tenors_is_true_or_false() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    plant(&c).await;
    for flag in ["", "=true", "=1"] {
        let r = c
            .get(&format!("/data/v1/private/PWR:F?listTenors{flag}"))
            .await;
        assert_eq!(r.body, json!(["M01"]), "{flag}");
    }
    let r = c.get("/data/v1/private/PWR:F?listTenors=false").await;
    assert_eq!(r.body["contracts"][0]["tenor"], "M01", "{:?}", r.body);
    c.get("/data/v1/private/PWR:F?listTenors=maybe")
        .await
        .assert_error(400, "INVALID_PARAMETER");
}

#[actix_rt::test]
async fn deletes_and_tags_name_their_source_not_all() {
    use actix_web::http::Method;
    let s = TestServer::new();
    let c = s.client(Role::Platform);
    c.save(json!({"_id": "A", "v": 1})).await;
    c.save(json!({"_id": "A", "v": 2})).await;
    c.save(json!({"_id": "#P", "v": 1})).await;
    for (method, path) in [
        (Method::DELETE, "/object/v1/all/A"),
        (Method::DELETE, "/object/v1/all/A/1"),
        (Method::DELETE, "/object/v1/all/A/*"),
        (Method::DELETE, "/object/v1/all/%23P"),
        (Method::PUT, "/object/v1/all/A/1/gold"),
    ] {
        let m = c
            .method(method, path)
            .await
            .assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("all source"), "{path}: {m}");
    }
    let versions = c.get("/object/v1/private/A/*").await.body;
    assert_eq!(versions.as_array().unwrap().len(), 2);
    assert_eq!(versions[0]["_tag"], json!([]));
    assert_eq!(c.get("/object/v1/public/%23P").await.status, 200);
    // Reading through all stays.
    assert_eq!(c.get("/object/v1/all/A").await.body["v"], 2);
}

#[actix_rt::test]
async fn a_validation_configuration_is_one_per_data_item_not_per_ondate() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    plant(&c).await;
    let m = c
        .post(
            "/validationconfig/v1",
            json!({"_id": "PWR:F:2024-07-01", "kind": "curve", "checks": [{"expression": "value > 0"}]}),
        )
        .await
        .assert_error(400, "INVALID_ID");
    assert!(m.contains("PWR:F:2024-07-01"), "{m}");
    assert_eq!(c.get("/validationconfig/v1").await.total(), 1);
}

#[actix_rt::test]
async fn a_function_a_list_does_not_have_is_refused() {
    let s = TestServer::at("2024-07-08T12:00:00Z");
    let c = s.client(Role::Writer);
    plant(&c).await;
    for path in [
        "/object/v1/private?_function=stats",
        "/object/v1/all?_function=listAutomations",
        "/type/v1/public?_function=bogus",
        "/data/v1/private?_function=runMany",
    ] {
        let m = c.get(path).await.assert_error(400, "INVALID_PARAMETER");
        assert!(m.contains("_function"), "{path}: {m}");
    }
    // Lists with functions keep them.
    assert_eq!(c.get("/validation/v1?_function=jobs").await.status, 200);
    assert_eq!(
        c.get("/validationconfig/v1?_function=automations")
            .await
            .status,
        200
    );
}

#[actix_rt::test]
async fn a_key_given_twice_in_a_body_is_refused_not_resolved() {
    let s = TestServer::new();
    let c = s.client(Role::Writer);
    for body in [
        r#"{"_id": "X", "_id": "Y"}"#,
        r#"{"_id": "Z", "S": {"_type": "VarTimeSeries", "data": [{"time": "2024-07-01T00:00:00Z", "value": 1, "value": 2}]}}"#,
    ] {
        let m = c
            .post_raw("/object/v1", body)
            .await
            .assert_error(400, "INVALID_JSON");
        assert!(m.contains("given twice"), "{m}");
    }
    assert_eq!(c.get("/object/v1/private").await.total(), 0);
}
