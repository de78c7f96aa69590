//! The console from the real binary: its pages and assets are compiled in (served from a
//! directory with nothing else in it), follow `--base-path`, and the token never reaches the log.

use super::{post, Server};
use serde_json::json;

#[test]
fn console_is_served_by_the_binary_under_its_base_path_without_the_token_in_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start_in(
        dir.path(),
        &["serve", "--db", "c.db", "--base-path", "/api"],
    );
    let token = server.admin_token.clone();
    assert!(token.starts_with("pt_"));
    let url = format!("{}/api", server.url);
    post(
        &url,
        &token,
        json!({"_id": "NBP", "SPOT": {"_type": "VarTimeSeries", "calendar": "DAILY",
            "timezone": "Europe/London", "data": [{"time": "2024-07-01", "value": 70.5},
            {"time": "2024-07-02", "value": 250, "status": {"quality": "FAILED"}}]}}),
    );

    let shell = ureq::get(&format!("{url}/console")).call().unwrap();
    assert_eq!(shell.content_type(), "text/html");
    let shell = shell.into_string().unwrap();
    assert!(shell.contains("data-base=\"/api\""), "{shell}");
    assert!(
        shell.contains("src=\"/api/console/assets/console.js\""),
        "{shell}"
    );
    let js = ureq::get(&format!("{url}/console/assets/console.js"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(js.contains("sessionStorage"));
    let css = ureq::get(&format!("{url}/console/assets/console.css"))
        .call()
        .unwrap();
    assert_eq!(css.content_type(), "text/css");

    let bearer = format!("Bearer {token}");
    let page = ureq::get(&format!(
        "{url}/console/series/private/NBP%3ASPOT?preset=all"
    ))
    .set("Authorization", &bearer)
    .call()
    .unwrap()
    .into_string()
    .unwrap();
    assert!(page.contains("<h1>NBP:SPOT</h1>"), "{page}");
    assert!(
        page.contains("href=\"/api/console/object/private/NBP\""),
        "{page}"
    );
    assert!(page.contains("1 failed point"), "{page}");
    assert!(!page.contains(&token));

    let chart = ureq::get(&format!("{url}/data/v1/private/NBP:SPOT"))
        .set("Authorization", &bearer)
        .set("Accept", "image/svg+xml")
        .call()
        .unwrap();
    assert_eq!(chart.content_type(), "image/svg+xml");
    let chart = chart.into_string().unwrap();
    assert!(chart.starts_with("<svg role=\"img\""), "{chart}");
    assert!(chart.contains("<title id=\"chart-title\">NBP:SPOT</title>"));

    assert!(server.stop().success());
    let log: Vec<String> = server.log.iter().collect();
    assert!(
        log.iter()
            .any(|l| l.contains("/api/console/series/private")),
        "the access log shows the console's requests: {log:?}"
    );
    assert!(!log.iter().any(|l| l.contains(&token)), "{log:?}");
}
