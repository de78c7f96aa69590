//! Content negotiation for GETs: JSON (default), CSV, XML, Arrow IPC, or HTML through a
//! mustache template; data reads also offer their chart as SVG ([`crate::chart`]). And the
//! headers of a list answer (its total, how it was counted, the next page's cursor), with the
//! one shape of a JSON list (`listed`).

use crate::chart;
use crate::error::ApiError;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse};
use platform_core::api::formats::{self as format, arrow, csv, xml, Format};
use platform_core::api::Params;
use platform_core::api::Principal;
use platform_core::Platform;
use serde_json::{json, Value};

/// The header that carries the total of a paged list.
pub const TOTAL_COUNT_HEADER: &str = "x-total-count";
/// The header that says how a list's `x-total-count` was counted: `exact`, or `estimated` for
/// a document list past `platform_core::api::limits::EXACT_TOTAL_UP_TO` matches (unless
/// `_count=exact`).
pub const TOTAL_KIND_HEADER: &str = "x-platform-total";
/// The header that carries the cursor of the next page of a list (the value of `_after` that
/// reads it), present when items follow the page.
pub const NEXT_HEADER: &str = "x-platform-next";

/// The one shape of a JSON list answer: the items, and their total before paging in
/// `x-total-count`.
pub(crate) fn listed<T: serde::Serialize>(items: Vec<T>, total: u64) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((TOTAL_COUNT_HEADER, total.to_string()))
        .json(items)
}

/// The size of the slices a streamed answer is handed to the connection in: actix's default
/// HTTP/1 write buffer size, 32 KiB.
const SLICE: usize = 32 * 1024;

/// How a GET answers: the chosen format, and the template for HTML.
#[derive(Debug, Clone)]
pub struct Output {
    format: Format,
    template: Option<String>,
}

impl Output {
    /// Chooses the format from `Accept`; HTML is on offer only with `_template`.
    pub fn choose(req: &HttpRequest, params: &Params) -> Result<Output, ApiError> {
        Output::choose_among(req, params, false)
    }

    /// As [`Output::choose`], for a data read: its chart (`image/svg+xml`) is on offer too.
    pub fn choose_data(req: &HttpRequest, params: &Params) -> Result<Output, ApiError> {
        Output::choose_among(req, params, true)
    }

    fn choose_among(req: &HttpRequest, params: &Params, data: bool) -> Result<Output, ApiError> {
        let accept = req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok());
        let template = params.get("_template").map(str::to_string);
        let mut available = vec![Format::Json, Format::Csv, Format::Xml, Format::Arrow];
        if data {
            available.push(Format::Svg);
        }
        if template.is_some() {
            available.push(Format::Html);
        }
        let format = format::negotiate(accept, &available).map_err(|e| {
            if template.is_none() && accept.is_some_and(|a| a.contains("text/html")) {
                ApiError::new(
                    e.code(),
                    format!(
                        "{}; text/html needs _template=<script id>",
                        e.public_message()
                    ),
                )
            } else {
                ApiError::Core(e)
            }
        })?;
        Ok(Output { format, template })
    }

    /// Whether the answer is JSON (which some reads write without a tree).
    pub fn is_json(&self) -> bool {
        self.format == Format::Json
    }

    /// Whether the answer is CSV (which data reads write in the core).
    pub fn is_csv(&self) -> bool {
        self.format == Format::Csv
    }

    /// Whether the answer is an Arrow IPC stream (which data reads build without a tree).
    pub fn is_arrow(&self) -> bool {
        self.format == Format::Arrow
    }

    /// Renders the answer's body (inside the core call: templates are read from the store).
    pub fn body(
        &self,
        platform: &Platform,
        who: &Principal,
        value: &Value,
        is_list: bool,
    ) -> platform_core::Result<Vec<u8>> {
        Ok(match self.format {
            Format::Json => serde_json::to_vec(value)
                .map_err(|e| platform_core::Error::caused("a JSON answer", e))?,
            Format::Csv => match value {
                Value::Array(items) if !items.is_empty() && items.iter().all(is_curve) => {
                    csv::curves_to_csv(items)
                }
                Value::Array(items) => csv::objects_to_csv(items),
                one => csv::data_to_csv(one)
                    .unwrap_or_else(|| csv::objects_to_csv(std::slice::from_ref(one))),
            }
            .into_bytes(),
            Format::Xml => xml::to_xml(value, if is_list { "items" } else { "item" }).into_bytes(),
            Format::Arrow => arrow::to_arrow(value)?,
            Format::Svg => {
                let lines: Vec<chart::Line> = match value {
                    Value::Array(items) if is_list || items.iter().all(is_curve) => {
                        items.iter().map(chart::Line::of).collect()
                    }
                    one => vec![chart::Line::of(one)],
                };
                chart::svg(&lines, (chart::WIDTH, chart::HEIGHT))?.into_bytes()
            }
            Format::Html => {
                let data = if is_list {
                    json!({"items": value})
                } else {
                    value.clone()
                };
                platform
                    .scripts()
                    .render_template(who, self.template.as_deref().unwrap_or_default(), &data)?
                    .into_bytes()
            }
        })
    }

    /// The response with an Arrow stream handed to the connection piece by piece (a series'
    /// times and values as they were decoded, not joined into one buffer first), tagged here
    /// with the `ETag` its joined bytes would have (see `ops::conditional`).
    pub fn respond_stream(&self, stream: arrow::ArrowStream) -> HttpResponse {
        let etag = crate::ops::etag_of_pieces(stream.pieces());
        let len = stream.len() as u64;
        // Handed over in slices of the connection's write buffer size: each is copied into
        // that buffer while it is in cache, where a whole column would grow the buffer to
        // megabytes first (slices share the column's bytes; none is copied here).
        let pieces = stream.into_pieces().flat_map(|p| {
            let bytes = actix_web::web::Bytes::from_owner(p);
            (0..bytes.len()).step_by(SLICE).map(move |at| {
                Ok::<_, std::convert::Infallible>(bytes.slice(at..(at + SLICE).min(bytes.len())))
            })
        });
        HttpResponse::Ok()
            .content_type(self.format.content_type())
            .insert_header((header::ETAG, etag))
            .body(actix_web::body::SizedStream::new(
                len,
                futures_util::stream::iter(pieces),
            ))
    }

    /// The response with the body, its content type and, for lists, `x-total-count` with
    /// `x-platform-total` saying whether that total is exact or an estimate.
    pub fn respond(&self, body: Vec<u8>, total: Option<(u64, bool)>) -> HttpResponse {
        let mut res = HttpResponse::Ok();
        res.content_type(self.format.content_type());
        if let Some((total, estimated)) = total {
            res.insert_header((TOTAL_COUNT_HEADER, total.to_string()));
            res.insert_header((
                TOTAL_KIND_HEADER,
                if estimated { "estimated" } else { "exact" },
            ));
        }
        res.body(body)
    }
}

/// Whether an answer is a curve of one ondate (a list of them is drawn and written as such).
fn is_curve(v: &Value) -> bool {
    matches!(v.get("contracts"), Some(Value::Array(_)))
}
