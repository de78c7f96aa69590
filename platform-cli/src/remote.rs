//! A running server as a target of the CLI: one JSON call at a time over its REST interface,
//! with the server's own error (status, code and message from the JSON body) turned back into a
//! core error.

use platform_core::{Error, ErrorCode, Result};
use serde_json::Value;

/// A server's base URL, the token and the environment calls go to.
pub struct Remote {
    base: String,
    token: Option<String>,
    environment: String,
}

impl Remote {
    /// A server at `base` (e.g. `http://127.0.0.1:8080`).
    pub fn new(base: &str, token: Option<String>, environment: &str) -> Remote {
        Remote {
            base: base.trim_end_matches('/').to_string(),
            token,
            environment: environment.to_string(),
        }
    }

    /// One call; returns the JSON body and the `x-total-count` header if any, with whether
    /// that total is an estimate (`x-platform-total: estimated`).
    pub fn call(
        &self,
        method: &str,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<(Value, Option<(u64, bool)>)> {
        let mut url = format!("{}/{path}", self.base);
        if !query.is_empty() {
            let qs = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(query)
                .finish();
            url = format!("{url}?{qs}");
        }
        let mut req = ureq::request(method, &url).set("x-platform-environment", &self.environment);
        if let Some(token) = &self.token {
            req = req.set("Authorization", &format!("Bearer {token}"));
        }
        let res = match body {
            Some(b) => req.send_json(b),
            None => req.call(),
        };
        let res = match res {
            Ok(res) => res,
            Err(ureq::Error::Status(status, res)) => return Err(server_error(status, res)),
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("cannot reach {}: {e}", self.base),
                ))
            }
        };
        let estimated = res.header("x-platform-total") == Some("estimated");
        let total = res
            .header("x-total-count")
            .and_then(|t| t.parse().ok())
            .map(|n| (n, estimated));
        let value = res.into_json().map_err(|e| {
            Error::new(
                ErrorCode::InvalidBody,
                format!("the server's answer is not JSON: {e}"),
            )
        })?;
        Ok((value, total))
    }
}

/// The server's error envelope (`{"error": {"code", "message"}}`) as a core error.
fn server_error(status: u16, res: ureq::Response) -> Error {
    let body: Value = res.into_json().unwrap_or(Value::Null);
    // A core code comes back as itself; one only HTTP knows (a body or URL refused) is a bad
    // input of the call, and a server failure an internal error.
    let code = body["error"]["code"]
        .as_str()
        .and_then(|name| ErrorCode::ALL.into_iter().find(|c| c.name() == name))
        .unwrap_or(if (400..500).contains(&status) {
            ErrorCode::InvalidParameter
        } else {
            ErrorCode::Internal
        });
    let message = body["error"]["message"].as_str().map_or_else(
        || format!("HTTP {status}"),
        |m| format!("HTTP {status}: {m}"),
    );
    Error::new(code, message)
}

/// Percent-encodes a path segment (everything but unreserved characters).
pub fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
