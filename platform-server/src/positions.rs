//! Reading one's own writes when read replicas serve reads.
//!
//! A write's answer carries the primary's commit position (`x-platform-lsn`, as PostgreSQL
//! prints a log position). A GET that sends a position back is served by a replica only once
//! that replica has replayed it, else by the primary; a GET by a token that wrote through this
//! server in the last [`RECENT`] is held to that write's position the same way, header or not.
//! Other requests read from the primary.

use crate::error::ApiError;
use actix_web::http::Method;
use actix_web::HttpRequest;
use platform_core::api::interface::{format_position, parse_position};
use platform_core::ErrorCode;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The header of a commit position: answered by writes, sent back by reads.
pub const POSITION_HEADER: &str = "x-platform-lsn";

/// How long a token's reads are held to its last write's position.
pub const RECENT: Duration = Duration::from_secs(5);

/// The most tokens remembered (the oldest are forgotten past it).
const REMEMBERED: usize = 10_000;

/// The commit position of a request's write, for the answer's header.
#[derive(Debug, Clone, Copy)]
pub struct Committed(pub u64);

impl Committed {
    /// The header's value.
    pub fn header_value(self) -> String {
        format_position(self.0)
    }
}

/// The recent writes of tokens, on a server with read replicas.
#[derive(Debug, Default)]
pub struct Recent {
    /// Whether the database has read replicas (else nothing is kept or looked up).
    enabled: bool,
    writes: Mutex<HashMap<String, (u64, Instant)>>,
}

impl Recent {
    /// For a database with read replicas when `enabled`.
    pub fn new(enabled: bool) -> Recent {
        Recent {
            enabled,
            writes: Mutex::default(),
        }
    }

    /// Whether reads may go to replicas at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Remembers that the token `key` wrote at `position`.
    pub fn wrote(&self, key: String, position: u64) {
        if !self.enabled {
            return;
        }
        let mut writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        if writes.len() >= REMEMBERED {
            writes.retain(|_, (_, at)| at.elapsed() < RECENT);
            if writes.len() >= REMEMBERED {
                writes.clear();
            }
        }
        writes.insert(key, (position, Instant::now()));
    }

    /// The position the token `key` wrote at in the last [`RECENT`], if any.
    fn recent(&self, key: &str) -> Option<u64> {
        let writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        writes
            .get(key)
            .filter(|(_, at)| at.elapsed() < RECENT)
            .map(|(p, _)| *p)
    }

    /// Where the reads of `req` may be served: `None` for the primary (not a GET, or no
    /// replicas), else the position a replica must have replayed (0: any). A position
    /// header that does not parse is a 400.
    pub fn reads_after(
        &self,
        req: &HttpRequest,
        key: Option<&str>,
    ) -> Result<Option<u64>, ApiError> {
        if !self.enabled || !(req.method() == Method::GET || req.method() == Method::HEAD) {
            return Ok(None);
        }
        let sent = match req.headers().get(POSITION_HEADER) {
            None => 0,
            Some(v) => v.to_str().ok().and_then(parse_position).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::InvalidParameter,
                    format!(
                        "{POSITION_HEADER} must be a commit position a write answered, such as 16/B374D848"
                    ),
                )
            })?,
        };
        let recent = key.and_then(|k| self.recent(k)).unwrap_or(0);
        Ok(Some(sent.max(recent)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn reads_are_held_to_the_position_sent_and_to_the_tokens_recent_write() {
        let recent = Recent::new(true);
        let get = |header: Option<&str>| {
            let mut req = TestRequest::get();
            if let Some(h) = header {
                req = req.insert_header((POSITION_HEADER, h));
            }
            req.to_http_request()
        };
        assert_eq!(recent.reads_after(&get(None), Some("t")).unwrap(), Some(0));
        assert_eq!(
            recent.reads_after(&get(Some("1/0")), None).unwrap(),
            Some(1 << 32)
        );
        recent.wrote("t".into(), 5 << 32);
        assert_eq!(
            recent.reads_after(&get(Some("1/0")), Some("t")).unwrap(),
            Some(5 << 32)
        );
        assert_eq!(recent.reads_after(&get(None), Some("u")).unwrap(), Some(0));
        let e = recent.reads_after(&get(Some("soon")), None).unwrap_err();
        assert!(e.to_string().contains(POSITION_HEADER), "{e}");
        // Writes read from the primary; so does everything without replicas.
        let post = TestRequest::post().to_http_request();
        assert_eq!(recent.reads_after(&post, Some("t")).unwrap(), None);
        assert_eq!(
            Recent::new(false).reads_after(&get(None), None).unwrap(),
            None
        );
    }
}
