//! The route table and the OpenAPI 3.1 document made from it.
//!
//! Every route the server has is an [`Endpoint`] in one of the modules' `ENDPOINTS` tables
//! ([`tables`]): [`register_all`] registers them (consecutive endpoints of one path are one
//! resource, answering 405 with the error envelope for other methods), and [`document`] describes
//! them, so the two cannot drift. A generic path such as `/{service}/v1/{source}` is documented
//! once per service it serves ([`Endpoint::services`]). The tables are read here only: a route
//! module describes its endpoints with the types of [`crate::endpoint`] and imports nothing of
//! this module.
//!
//! The document is built with utoipa's builder types (`document`; what each query parameter
//! means, `parameters`); the error envelope's schema is derived from the type the server
//! serializes ([`crate::error::ErrorEnvelope`]).

mod document;
mod parameters;
mod schema;
#[cfg(test)]
mod tests;

pub use document::{document, openapi_json, operation_id, path_parameters, BEARER, ERROR_STATUSES};
pub use parameters::query_parameter_doc;

use crate::endpoint::{Endpoint, Verb};
use actix_web::web;

/// `/openapi.json`: the document itself (registered after the operator's endpoints).
pub(crate) const ENDPOINTS: &[Endpoint] =
    &[
        Endpoint::new(Verb::Get, "/openapi.json", "This OpenAPI document", |r| {
            r.to(openapi_json)
        })
        .open(),
    ];

/// Every table, in the order the routes are registered: the operator's endpoints and this
/// document first, then the specific paths of each service before the generic
/// `/{service}/...` ones.
pub fn tables() -> [&'static [Endpoint]; 8] {
    [
        crate::ops::ENDPOINTS,
        ENDPOINTS,
        crate::secrets::ENDPOINTS,
        crate::tokens::ENDPOINTS,
        crate::extensions::ENDPOINTS,
        crate::validation::ENDPOINTS,
        crate::automation::ENDPOINTS,
        crate::routes::ENDPOINTS,
    ]
}

/// Every endpoint, in registration order.
pub fn endpoints() -> impl Iterator<Item = &'static Endpoint> {
    tables().into_iter().flatten()
}

/// Registers every endpoint under the current scope: each run of endpoints with one path is
/// one resource, which answers other methods with 405 and the error envelope.
pub fn register_all(cfg: &mut web::ServiceConfig) {
    let all: Vec<&'static Endpoint> = endpoints().collect();
    let mut i = 0;
    while i < all.len() {
        let path = all[i].path;
        let mut resource = web::resource(path);
        while i < all.len() && all[i].path == path {
            resource = resource.route((all[i].to)(web::method(all[i].verb.method())));
            i += 1;
        }
        cfg.service(resource.default_service(web::to(crate::routes::method_not_allowed)));
    }
}

/// Registers the endpoints of the services that only `/{service}/...` paths serve (objects,
/// data, types...) once more, ahead of everything else, each resource guarded to answer only
/// such a service. The router tries its resources in order, matching each dynamic path with a
/// regular expression: the most common requests then match after a few tries, not after every
/// specific path of the other services. A request these do not take goes on to the resources
/// [`register_all`] registers (the same handlers, in the same order), so which handler answers
/// does not change.
///
/// `base` is the normalised base path the scope is mounted at (`""` or `/api`);
/// `console_segment` is the first segment of the console's pages.
pub fn register_generic_first(
    base: String,
    console_segment: &'static str,
) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg: &mut web::ServiceConfig| {
        let fast: std::sync::Arc<[&'static str]> = generic_only_services(console_segment).into();
        let mut all: Vec<&'static Endpoint> = endpoints()
            .filter(|e| e.path.starts_with("/{service}"))
            .collect();
        // An item's path first, then a source's (the most common requests): each of these
        // paths has a number of segments of its own, so no order changes which one matches
        // (see `generic_paths_differ_in_their_segments`), and each one tried costs a match.
        all.sort_by_key(|e| match e.path {
            "/{service}/v1/{source}/{key}" => 0,
            "/{service}/v1/{source}" => 1,
            _ => 2,
        });
        let mut i = 0;
        while i < all.len() {
            let path = all[i].path;
            let (base, fast) = (base.clone(), fast.clone());
            let mut resource = web::resource(path).guard(actix_web::guard::fn_guard(move |ctx| {
                let rest = ctx.head().uri.path().strip_prefix(base.as_str());
                let service = rest
                    .and_then(|r| r.strip_prefix('/'))
                    .map(|r| r.split('/').next().unwrap_or(r));
                service.is_some_and(|s| fast.contains(&s))
            }));
            while i < all.len() && all[i].path == path {
                resource = resource.route((all[i].to)(web::method(all[i].verb.method())));
                i += 1;
            }
            cfg.service(resource.default_service(web::to(crate::routes::method_not_allowed)));
        }
    }
}

/// The services the `/{service}/...` endpoints serve whose name no other path starts with (no
/// endpoint of their own, not the console's): a request for one of them can only be answered by
/// a `/{service}/...` endpoint.
pub fn generic_only_services(console_segment: &str) -> Vec<&'static str> {
    let first = |path: &'static str| path.trim_start_matches('/').split('/').next().unwrap_or("");
    let taken: Vec<&str> = endpoints()
        .filter(|e| !e.path.starts_with("/{"))
        .map(|e| first(e.path))
        .chain([console_segment])
        .collect();
    let mut out: Vec<&'static str> = endpoints()
        .filter(|e| e.path.starts_with("/{service}"))
        .flat_map(|e| e.services.iter().copied())
        .filter(|s| !taken.contains(s))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
