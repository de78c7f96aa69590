//! Routes of the extension service beyond the versioned ones: publish, install, uninstall,
//! views, and realtime messages (Server-Sent Events).

use crate::endpoint::{AnswerDoc, Endpoint, Verb};
use crate::error::ApiError;
use crate::request::{Caller, Query};
use actix_web::web::Bytes;
use actix_web::{web, HttpResponse};
use futures_util::StreamExt as _;
use platform_core::api::{extensions::Acceptance, realtime::Channel};
use platform_core::ErrorCode;
use serde_json::Value;
use tokio::sync::broadcast;

type Reply = Result<HttpResponse, ApiError>;

/// The extension routes beyond the versioned ones (before the generic ones).
pub(crate) const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        Verb::Get,
        "/extension/v1/realtime",
        "A stream of the messages of every installed extension",
        |r| r.to(realtime),
    )
    .query(&["_limit"])
    .answer(AnswerDoc::EventStream),
    Endpoint::new(
        Verb::Get,
        "/extension/v1/{source}/{id}/messages",
        "A stream of one installed extension's messages",
        |r| r.to(messages),
    )
    .sources(&["private"])
    .query(&["_limit"])
    .answer(AnswerDoc::EventStream),
    Endpoint::new(
        Verb::Get,
        "/extension/v1/{source}/{id}/view/{view}",
        "Run a view of an installed extension (Accept text/html)",
        |r| r.to(view),
    )
    .sources(&["private"])
    .answer(AnswerDoc::Html),
];

fn private_only(source: &str) -> Result<(), ApiError> {
    if source == "private" {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::NotFound,
            format!("views and messages are of private (installed) extensions, not {source}"),
        ))
    }
}

/// `POST /extension/v1/{public|private}?_publish=true`: publish or install.
pub async fn publish_or_install(
    caller: Caller,
    source: &str,
    body: Value,
    params: &platform_core::api::Params,
) -> Reply {
    let id = body
        .get("_id")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidId,
                "the body must be the extension, with its _id",
            )
        })?
        .to_string();
    match source {
        "public" => {
            let published = caller
                .run(move |p, who| p.extensions().publish(who, &id))
                .await?;
            Ok(HttpResponse::Ok().json(&published))
        }
        "private" => {
            // `_accept=secret:<id>` (repeated, or comma-separated): what the installer grants.
            let accept = Acceptance::from_params(params);
            let installed = caller
                .run(move |p, who| p.extensions().install(who, &id, &accept))
                .await?;
            Ok(HttpResponse::Ok().json(&installed))
        }
        other => Err(ApiError::new(
            ErrorCode::NotFound,
            format!("unknown source \"{other}\""),
        )),
    }
}

/// `DELETE /extension/v1/private/{id}`: uninstall.
pub async fn uninstall(caller: Caller, id: String) -> Reply {
    let uninstalled = caller
        .run(move |p, who| p.extensions().uninstall(who, &id))
        .await?;
    Ok(HttpResponse::Ok().json(&uninstalled))
}

async fn view(
    caller: Caller,
    path: web::Path<(String, String, String)>,
    Query(params): Query,
) -> Reply {
    let (source, id, view) = path.into_inner();
    private_only(&source)?;
    let accept = caller
        .req()
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok());
    platform_core::api::formats::negotiate(accept, &[platform_core::api::formats::Format::Html])?;
    let html = caller
        .run(move |p, who| p.extensions().render_view(who, &id, &view, &params))
        .await?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(html))
}

async fn messages(
    caller: Caller,
    path: web::Path<(String, String)>,
    Query(params): Query,
) -> Reply {
    let (source, id) = path.into_inner();
    private_only(&source)?;
    stream(caller, Some(id), &params).await
}

async fn realtime(caller: Caller, Query(params): Query) -> Reply {
    stream(caller, None, &params).await
}

/// A Server-Sent Events stream of the caller's extension messages (one extension, or all);
/// `_limit=N` ends it after N messages.
async fn stream(
    caller: Caller,
    topic: Option<String>,
    params: &platform_core::api::Params,
) -> Reply {
    let params = params.clone();
    let subscription = caller
        .run(move |p, who| p.extensions().subscribe(who, topic.as_deref(), &params))
        .await?;
    let limit = subscription.limit.unwrap_or(usize::MAX);
    let rx = caller.state().hub.sender.subscribe();
    let closed = caller.state().hub.closed.subscribe();
    let every = caller.state().config.sse_heartbeat;
    let mut heartbeat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let wanted = move |c: &Channel| subscription.wants(c);
    // Messages (counted against `_limit`) and heartbeat comments, until the hub closes.
    let events = futures_util::stream::unfold(
        (rx, closed, heartbeat, limit),
        move |(mut rx, mut closed, mut heartbeat, left)| {
            let wanted = wanted.clone();
            async move {
                loop {
                    if left == 0 || *closed.borrow() {
                        return None;
                    }
                    tokio::select! {
                        message = rx.recv() => match message {
                            Ok((channel, payload)) if wanted(&channel) => {
                                let line = Bytes::from(format!("data: {payload}\n\n"));
                                return Some((Ok::<_, actix_web::Error>(line), (rx, closed, heartbeat, left - 1)));
                            }
                            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                            Err(broadcast::error::RecvError::Closed) => return None,
                        },
                        _ = heartbeat.tick() => {
                            let line = Bytes::from_static(b": heartbeat\n\n");
                            return Some((Ok(line), (rx, closed, heartbeat, left)));
                        }
                        _ = closed.changed() => return None,
                    }
                }
            }
        },
    );
    let opening = futures_util::stream::once(async {
        Ok::<_, actix_web::Error>(Bytes::from_static(b": connected\n\n"))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("cache-control", "no-cache"))
        .streaming(opening.chain(events)))
}
