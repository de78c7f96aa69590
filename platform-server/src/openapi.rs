//! The route table and the OpenAPI 3.1 document made from it.
//!
//! Every route the server has is an [`Endpoint`] in one of the modules' `ENDPOINTS` tables
//! ([`tables`]): [`register_all`] registers them (consecutive endpoints of one path are one
//! resource, answering 405 with the error envelope for other methods), and [`document`] describes
//! them, so the two cannot drift. A generic path such as `/{service}/v1/{source}` is documented
//! once per service it serves ([`Endpoint::services`]).
//!
//! The document is built with utoipa's builder types; the error envelope's schema is derived
//! from the type the server serializes ([`crate::error::ErrorEnvelope`]).

use crate::error::ErrorEnvelope;
use actix_web::http::Method;
use actix_web::{web, HttpResponse};
use utoipa::openapi::path::{HttpMethod, Operation, Parameter, ParameterIn};
use utoipa::openapi::request_body::RequestBody;
use utoipa::openapi::response::{Response, Responses};
use utoipa::openapi::schema::{AdditionalProperties, Array, Object, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    Components, ContentBuilder, Header, HeaderBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths,
    Ref, RefOr, Required, ServerBuilder, Tag,
};
use utoipa::PartialSchema as _;

/// An HTTP method of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verb {
    /// GET.
    Get,
    /// POST.
    Post,
    /// PUT.
    Put,
    /// DELETE.
    Delete,
}

impl Verb {
    /// Every verb the server uses.
    pub const ALL: [Verb; 4] = [Verb::Get, Verb::Post, Verb::Put, Verb::Delete];

    /// actix's method.
    pub fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Delete => Method::DELETE,
        }
    }

    /// The lower-case name the document's path items use.
    pub fn name(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::Post => "post",
            Verb::Put => "put",
            Verb::Delete => "delete",
        }
    }

    fn http(self) -> HttpMethod {
        match self {
            Verb::Get => HttpMethod::Get,
            Verb::Post => HttpMethod::Post,
            Verb::Put => HttpMethod::Put,
            Verb::Delete => HttpMethod::Delete,
        }
    }
}

/// The request body an endpoint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyDoc {
    /// None.
    None,
    /// A JSON object.
    Object,
    /// A JSON object, or an array of objects saved in one transaction.
    ObjectOrArray,
    /// A JSON object, or nothing where the `_function` given reads none (see [`Function`]).
    OptionalObject,
}

/// A value of `_function` an endpoint answers, and the body it reads there.
///
/// A function of a method with a body (POST, PUT) reads a body of its shape and refuses any
/// other JSON type (`crate::request::Caller::function_body`): [`BodyDoc::Object`] a JSON object,
/// [`BodyDoc::ObjectOrArray`] an object or an array, [`BodyDoc::OptionalObject`] an object or
/// nothing; [`BodyDoc::None`] reads none, so nothing or a JSON object (ignored) is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Function {
    /// The value of `_function`.
    pub name: &'static str,
    /// The body it reads.
    pub body: BodyDoc,
}

impl Function {
    /// A function that reads no body (every function of a GET).
    pub const fn new(name: &'static str) -> Function {
        Function {
            name,
            body: BodyDoc::None,
        }
    }

    /// A function of a POST or PUT that reads a body of this shape.
    pub const fn body(mut self, body: BodyDoc) -> Function {
        self.body = body;
        self
    }

    /// The function of `functions` named `name`.
    pub fn find(functions: &'static [Function], name: &str) -> Option<&'static Function> {
        functions.iter().find(|f| f.name == name)
    }

    /// The names of `functions`, as a message lists them: `a, b or c`.
    pub fn names(functions: &[Function]) -> String {
        let names: Vec<&str> = functions.iter().map(|f| f.name).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }
}

/// What a successful (200) answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerDoc {
    /// A JSON object.
    Object,
    /// A JSON array, its total before paging in `x-total-count`.
    List,
    /// A JSON object, or with `_function` a list of items.
    ObjectOrList,
    /// The saved item, or the array of saved items for an array.
    Saved,
    /// One item as JSON, CSV, XML, or HTML through `_template`.
    Formatted,
    /// A list as JSON, CSV, XML, or HTML through `_template`, total in `x-total-count`.
    FormattedList,
    /// An HTML page.
    Html,
    /// A Server-Sent Events stream that stays open.
    EventStream,
    /// The Prometheus text format.
    Metrics,
    /// The readiness report (also the body of its 503).
    Readiness,
}

/// One route: method and path (as actix matches it, under the base path), the handler, and
/// what the document says of it.
#[derive(Clone, Copy)]
pub struct Endpoint {
    /// The method.
    pub verb: Verb,
    /// The path template under the base path, e.g. `/secret/v1/{key}`.
    pub path: &'static str,
    /// For a path starting with `/{service}`: the services it serves (each is documented with
    /// its own path); others answer 404 or 405 there.
    pub services: &'static [&'static str],
    /// One line on what it does.
    pub summary: &'static str,
    /// The query parameters it reads (see `query_parameter`).
    pub query: &'static [&'static str],
    /// The values of `_function` it answers and the bodies they read (`query` then lists
    /// `_function`).
    pub functions: &'static [Function],
    /// Whether `_function` must be given.
    pub function_required: bool,
    /// The values `{source}` may take, when the path has it.
    pub sources: &'static [&'static str],
    /// The request body.
    pub body: BodyDoc,
    /// The success answer.
    pub answer: AnswerDoc,
    /// Whether it answers without a token.
    pub open: bool,
    /// Whether, answering without a token, it may be configured to want one (`/metrics`).
    pub token_optional: bool,
    /// Attaches the handler to a route of this method.
    pub to: fn(actix_web::Route) -> actix_web::Route,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.verb.name().to_uppercase(), self.path)
    }
}

/// `{source}` of versioned services: either source, or both for lists.
pub const SOURCES: &[&str] = &["public", "private", "all"];

impl Endpoint {
    /// An endpoint answering a JSON object, needing a token, reading nothing else.
    pub const fn new(
        verb: Verb,
        path: &'static str,
        summary: &'static str,
        to: fn(actix_web::Route) -> actix_web::Route,
    ) -> Endpoint {
        Endpoint {
            verb,
            path,
            services: &[],
            summary,
            query: &[],
            functions: &[],
            function_required: false,
            sources: SOURCES,
            body: BodyDoc::None,
            answer: AnswerDoc::Object,
            open: false,
            token_optional: false,
            to,
        }
    }

    /// The services a `/{service}...` path serves.
    pub const fn services(mut self, services: &'static [&'static str]) -> Endpoint {
        self.services = services;
        self
    }

    /// The query parameters read.
    pub const fn query(mut self, query: &'static [&'static str]) -> Endpoint {
        self.query = query;
        self
    }

    /// The `_function`s answered, and whether one is required.
    pub const fn functions(mut self, functions: &'static [Function], required: bool) -> Self {
        self.functions = functions;
        self.function_required = required;
        self
    }

    /// The values of `{source}`.
    pub const fn sources(mut self, sources: &'static [&'static str]) -> Endpoint {
        self.sources = sources;
        self
    }

    /// The request body.
    pub const fn body(mut self, body: BodyDoc) -> Endpoint {
        self.body = body;
        self
    }

    /// The success answer.
    pub const fn answer(mut self, answer: AnswerDoc) -> Endpoint {
        self.answer = answer;
        self
    }

    /// Answers without a token.
    pub const fn open(mut self) -> Endpoint {
        self.open = true;
        self
    }

    /// Answers without a token by default; a setting may make it want one.
    pub const fn token_optional(mut self) -> Endpoint {
        self.open = true;
        self.token_optional = true;
        self
    }

    /// The concrete paths the document lists for it (one per service of a generic path).
    pub fn documented_paths(&self) -> Vec<String> {
        if self.path.contains("{service}") {
            self.services
                .iter()
                .map(|s| self.path.replace("{service}", s))
                .collect()
        } else {
            vec![self.path.to_string()]
        }
    }
}

/// Every table, in the order the routes are registered: the specific paths of each service
/// before the generic `/{service}/...` ones.
pub fn tables() -> [&'static [Endpoint]; 7] {
    [
        crate::ops::ENDPOINTS,
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

/// `GET /openapi.json`: the document, with the base path as its server.
pub async fn openapi_json(state: web::Data<crate::AppState>) -> HttpResponse {
    HttpResponse::Ok().json(document(&state.config.base_path))
}

/// The statuses every operation may answer with the error envelope.
pub const ERROR_STATUSES: [(&str, &str); 11] = [
    ("400", "Invalid input: a parameter, the body or an id"),
    ("401", "No valid token"),
    ("403", "The token's role or tenant may not do this"),
    ("404", "No such item, source or release"),
    ("405", "The path does not have this method"),
    (
        "406",
        "The Accept header asks for a format the answer does not have",
    ),
    ("408", "The body did not arrive in time"),
    ("409", "A conflicting write"),
    ("413", "The body is larger than the limit"),
    ("414", "The URL is longer than the limit"),
    (
        "500",
        "An internal error (logged with the id in the message)",
    ),
];

/// The name of the bearer security scheme.
pub const BEARER: &str = "bearer";

/// The OpenAPI 3.1 document of every endpoint; `base` is the configured base path.
pub fn document(base: &str) -> OpenApi {
    let mut paths = Paths::new();
    for endpoint in endpoints() {
        for path in endpoint.documented_paths() {
            let operation = operation(endpoint, &path);
            paths.add_path_operation(&path, vec![endpoint.verb.http()], operation);
        }
    }
    let mut components = Components::new();
    components
        .schemas
        .insert("ErrorEnvelope".into(), ErrorEnvelope::schema());
    let mut nested = Vec::new();
    <ErrorEnvelope as utoipa::ToSchema>::schemas(&mut nested);
    components.schemas.extend(nested);
    components.responses.insert(
        "Error".into(),
        RefOr::T(
            Response::builder()
                .description(
                    "An error: the envelope in the body, `[CODE] message` in `x-platform-error` (and `x-odsl-error`)",
                )
                .header(
                    crate::error::ERROR_HEADER,
                    HeaderBuilder::new()
                        .schema(string())
                        .description(Some("[CODE] message, in ASCII"))
                        .build(),
                )
                .header(
                    crate::error::ODSL_ERROR_HEADER,
                    HeaderBuilder::new()
                        .schema(string())
                        .description(Some("The same text as x-platform-error"))
                        .build(),
                )
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                        .build(),
                )
                .build(),
        ),
    );
    components.add_security_scheme(
        BEARER,
        SecurityScheme::Http(
            Http::builder()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(
                    "An access token (`platform init` prints the first; `platform token create` \
                     makes more)",
                ))
                .build(),
        ),
    );
    let mut tags: Vec<String> = Vec::new();
    for e in endpoints() {
        for path in e.documented_paths() {
            let tag = tag_of(&path).to_string();
            if !tags.contains(&tag) {
                tags.push(tag);
            }
        }
    }
    let base = crate::normalise_base(base);
    let mut builder = OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("platform")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "The REST interface of the platform: master data, time series and curves, \
                     validation, automations, extensions and secrets. Every path is also under \
                     the configured base path.",
                ))
                .build(),
        )
        .paths(paths)
        .components(Some(components))
        .security(Some([SecurityRequirement::new(
            BEARER,
            Vec::<String>::new(),
        )]))
        .tags(Some(tags.into_iter().map(|t| {
            let mut tag = Tag::new(&t);
            tag.description = platform_core::services::find(&t).map(|s| s.description.to_string());
            tag
        })));
    if !base.is_empty() {
        builder = builder.servers(Some([ServerBuilder::new().url(base).build()]));
    }
    builder.build()
}

/// The tag of a documented path: its first segment (the service, or `operations`).
fn tag_of(path: &str) -> &str {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    if platform_core::services::find(first).is_some() {
        first
    } else {
        "operations"
    }
}

fn string() -> Schema {
    Object::with_type(Type::String).into()
}

fn any_object() -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .build()
        .into()
}

fn any_array() -> Schema {
    Array::new(RefOr::T(Schema::Object(Object::new()))).into()
}

fn operation(endpoint: &Endpoint, path: &str) -> Operation {
    let mut op = Operation::builder()
        .summary(Some(endpoint.summary))
        .operation_id(Some(operation_id(endpoint.verb, path)))
        .tag(tag_of(path));
    for name in path_parameters(path) {
        op = op.parameter(path_parameter(endpoint, &name));
    }
    for name in endpoint.query {
        op = op.parameter(query_parameter(endpoint, name));
    }
    if !endpoint.open {
        op = op.parameter(
            Parameter::builder()
                .name(crate::request::ENVIRONMENT_HEADER)
                .parameter_in(ParameterIn::Header)
                .required(Required::False)
                .description(Some(
                    "A named environment of the caller's tenant (production without it)",
                ))
                .schema(Some(string())),
        );
    }
    if let Some(body) = request_body(endpoint, tag_of(path)) {
        op = op.request_body(Some(body));
    }
    let mut responses = Responses::builder().response("200", success(endpoint.answer));
    if endpoint.answer == AnswerDoc::Readiness {
        responses = responses.response("503", success(endpoint.answer));
    }
    for (status, _) in ERROR_STATUSES {
        responses = responses.response(status, Ref::from_response_name("Error"));
    }
    op = op.responses(responses.build());
    if endpoint.token_optional {
        op = op.securities(Some([
            SecurityRequirement::default(),
            SecurityRequirement::new(BEARER, Vec::<String>::new()),
        ]));
    } else if endpoint.open {
        op = op.securities(Some(Vec::new()));
    }
    op.build()
}

/// A unique operation id: the verb and the path's segments (`get_object_v1_source_key`).
pub fn operation_id(verb: Verb, path: &str) -> String {
    let mut id = verb.name().to_string();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        id.push('_');
        id.extend(
            segment
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_'),
        );
    }
    id
}

/// The `{name}`s of a path, in order.
pub fn path_parameters(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .map(str::to_string)
        .collect()
}

fn enum_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .build()
        .into()
}

fn path_parameter(endpoint: &Endpoint, name: &str) -> Parameter {
    let (schema, description, example): (Schema, &str, Option<&str>) = match name {
        "source" => (
            enum_of(endpoint.sources),
            "public (shared) or private (the caller's tenant); all reads both",
            None,
        ),
        "switch" => (enum_of(&["enable", "disable"]), "enable or disable", None),
        "version" => (
            string(),
            "A version number, a tag, or * for every version",
            Some("1"),
        ),
        "tag" => (string(), "The tag to set on the version", Some("approved")),
        "key" => (string(), "The item's key (its _id; # is %23)", Some("GB")),
        "id" => (string(), "The item's id", Some("GB")),
        "view" => (string(), "The view's name", Some("main")),
        _ => (string(), "", None),
    };
    Parameter::builder()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(schema))
        .example(example.map(serde_json::Value::from))
        .build()
}

fn integer(min: i64, max: Option<i64>) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(min))
        .maximum(max)
        .build()
        .into()
}

fn boolean() -> Schema {
    Object::with_type(Type::Boolean).into()
}

/// The schema and meaning of a query parameter the endpoints read.
pub fn query_parameter_doc(name: &str) -> Option<(Schema, &'static str)> {
    use platform_core::clock::MAX_DELAY_MS;
    use platform_core::query::paging::MAX_LIMIT;
    Some(match name {
        "_filter" => (string(), "A filter as a JSON object"),
        "_sort" => (string(), "A JSON object of fields to 1 (ascending) or -1"),
        "_limit" => (
            integer(-1, Some(MAX_LIMIT as i64)),
            "Items to return (default 100; -1 for all)",
        ),
        "_skip" => (integer(0, None), "Items to skip"),
        "_count" => (
            string(),
            "Lists of objects and other documents: exact counts every match for x-total-count; \
             estimated (the default) counts exactly up to 10,000 matches and estimates past them",
        ),
        "_after" => (
            string(),
            "Object lists: the page after this cursor (from x-platform-next; not with _skip)",
        ),
        "_search" => (string(), "A search expression"),
        "_searchinfo" => (string(), "Auto-complete: items whose name starts with it"),
        "_distinct" => (string(), "A field: answers its distinct values"),
        "_project" => (
            string(),
            "Fields to return: a list, or a JSON object of 1s or 0s",
        ),
        "_profile" => (string(), "A data name: answers the object's data"),
        "_range" => (string(), "last(n), from(date) or between(date,date)"),
        "_reason" => (string(), "The reason kept in the audit trail"),
        "_replace" => (boolean(), "Replace the object instead of merging"),
        "_replaceData" => (
            boolean(),
            "Replace the observations of each series sent instead of merging into them; the \
             object's other fields and data merge as without it",
        ),
        "_onDuplicate" => (string(), "What to do with duplicate observations"),
        "_id" => (string(), "An id (repeated) to read from the all source"),
        "_type" => (string(), "The exact object type"),
        "_template" => (string(), "A mustache template's id (with Accept text/html)"),
        "_version" => (string(), "A version number or tag of the data"),
        "_publish" => (
            boolean(),
            "Publish (public) or install (private) the extension",
        ),
        "_accept" => (
            string(),
            "Permissions the installer grants, e.g. secret:<id>",
        ),
        "_run" => (boolean(), "Test-fire the automation now"),
        "_delay" => (
            integer(0, Some(MAX_DELAY_MS as i64)),
            "Delay in milliseconds before a manually triggered run",
        ),
        "_wait" => (
            integer(0, Some(crate::validation::MAX_WAIT_SECS as i64)),
            "Seconds to wait for a run or runMany that goes to the background: its result \
             when the job ends within them, else the queued answer",
        ),
        "_function" => (string(), "A function of the service"),
        "_asof" => (
            string(),
            "An instant or date: the version current then (single items and lists)",
        ),
        "_calendar" => (
            string(),
            "Data: scale the series to this calendar (DAILY, MONTHLY, GASDAY, EFA, EFADAY...)",
        ),
        "_observed" => (
            string(),
            "Data: how scaling aggregates into coarser periods (needs _calendar)",
        ),
        "_distribution" => (
            string(),
            "Data: constant spreads values over finer periods (needs _calendar)",
        ),
        "_block" => (
            string(),
            "Data: the hours scaling keeps: PEAK, OFFPEAK, BASE, EFA1..EFA6 or a block calendar (needs _calendar)",
        ),
        "_timezone" => (
            string(),
            "Data: an IANA time zone, or series (each series' own). Without _calendar a \
             series' times print in it with their offsets (2024-10-27T02:00:00+02:00, then \
             +01:00 for the repeated hour; UTC prints Z; dates of date calendars stay dates) \
             and an Arrow answer's time column carries it; with _calendar it is the zone \
             periods are cut in. Dates of _range without a zone are read in it. Curves have \
             no instants: nothing changes. Default: times in UTC, dates of _range in the \
             series' zone",
        ),
        "tenor" => (string(), "Curves: the history of one tenor"),
        "listTenors" => (boolean(), "Curves: list the relative tenors"),
        "_shape" => (
            enum_of(&["MONTHLY"]),
            "Curves: one arbitrage-free price a month (vectors/shaping.json)",
        ),
        "_weights" => (
            enum_of(&["hours", "days"]),
            "Curves: weigh shaped months by hours (default) or days (gas's default)",
        ),
        "_continuation" => (
            string(),
            "Curves: the continuation series of a position (M01, Q01, Y01, DA01...), one point \
             per ondate",
        ),
        "_roll" => (
            string(),
            "With _continuation: expiry (the day after the front contract's expiry, the \
             default) or calendar (the first day of each period)",
        ),
        "currency" => (string(), "Convert to this currency"),
        "units" => (string(), "Convert to these units"),
        "__density" => (
            ObjectBuilder::new()
                .schema_type(Type::Number)
                .exclusive_minimum(Some(0))
                .build()
                .into(),
            "The product density in kg/m3 for unit conversion",
        ),
        "automation" => (string(), "Only this automation's entries"),
        "status" => (string(), "Only entries of this status"),
        "from" => (string(), "From this date"),
        "to" => (string(), "Up to this date"),
        "date" => (string(), "Calendars: the date businessDays moves from"),
        "n" => (
            integer(-50_000, Some(50_000)),
            "Calendars: business days to move (negative: back)",
        ),
        "target" => (string(), "Only this data id"),
        "kind" => (string(), "Only this kind (timeseries or curve)"),
        "group" => (string(), "Only this group"),
        "tenant" => (
            string(),
            "Tokens: only this tenant's (the caller's own; another is not found)",
        ),
        _ => return None,
    })
}

fn query_parameter(endpoint: &Endpoint, name: &str) -> Parameter {
    let (mut schema, description) = query_parameter_doc(name)
        .unwrap_or_else(|| panic!("{endpoint:?}: no documentation of query parameter {name}"));
    let mut required = Required::False;
    if name == "_function" && !endpoint.functions.is_empty() {
        let names: Vec<&str> = endpoint.functions.iter().map(|f| f.name).collect();
        schema = enum_of(&names);
        if endpoint.function_required {
            required = Required::True;
        }
    }
    Parameter::builder()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(required)
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

/// The fields the interface names of what a service saves (more fields are allowed).
fn item_schema(service: &str) -> Schema {
    let fields: &[(&str, Type)] = match service {
        "object" | "type" | "script" | "extension" | "calendar" => &[
            ("_id", Type::String),
            ("_type", Type::String),
            ("name", Type::String),
            ("description", Type::String),
            ("classification", Type::String),
        ],
        "secret" => &[
            ("_id", Type::String),
            ("value", Type::String),
            ("enabled", Type::Boolean),
            ("notBefore", Type::String),
            ("expires", Type::String),
        ],
        "automation" => &[
            ("_id", Type::String),
            ("name", Type::String),
            ("target", Type::String),
            ("properties", Type::Object),
            ("conditions", Type::Array),
            ("enabled", Type::Boolean),
            ("active", Type::Boolean),
        ],
        _ => &[],
    };
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)));
    for (name, kind) in fields {
        object = object.property(*name, Object::with_type(kind.clone()));
    }
    object.build().into()
}

/// What each `_function` of an endpoint reads, grouped by shape, e.g. ` _function=run or test:
/// a JSON object. _function=automations: none (nothing, or a JSON object, is taken and
/// ignored).`
fn function_bodies(endpoint: &Endpoint) -> String {
    let shapes: Vec<BodyDoc> = endpoint.functions.iter().map(|f| f.body).collect();
    let mut out = String::new();
    for (i, shape) in shapes.iter().enumerate() {
        if shapes[..i].contains(shape) {
            continue;
        }
        let of: Vec<Function> = endpoint
            .functions
            .iter()
            .filter(|f| f.body == *shape)
            .copied()
            .collect();
        let reads = match shape {
            BodyDoc::None => "none (nothing, or a JSON object, is taken and ignored)",
            BodyDoc::Object => "a JSON object",
            BodyDoc::ObjectOrArray => "a JSON object or an array",
            BodyDoc::OptionalObject => "a JSON object or nothing",
        };
        out.push_str(&format!(" _function={}: {reads}.", Function::names(&of)));
    }
    out
}

fn request_body(endpoint: &Endpoint, service: &str) -> Option<RequestBody> {
    let (schema, required, description) = match endpoint.body {
        BodyDoc::None => return None,
        BodyDoc::Object => (item_schema(service), true, "A JSON object"),
        BodyDoc::OptionalObject => (
            any_object(),
            false,
            "A JSON object, or nothing where a _function reads none; another JSON type is \
             refused (400).",
        ),
        BodyDoc::ObjectOrArray => (
            Schema::OneOf(
                utoipa::openapi::schema::OneOfBuilder::new()
                    .item(item_schema(service))
                    .item(Array::new(item_schema(service)))
                    .build(),
            ),
            true,
            "One item, or an array of items saved in one transaction",
        ),
    };
    Some(
        RequestBody::builder()
            .description(Some(format!("{description}{}", function_bodies(endpoint))))
            .required(Some(if required {
                Required::True
            } else {
                Required::False
            }))
            .content(
                "application/json",
                ContentBuilder::new().schema(Some(schema)).build(),
            )
            .build(),
    )
}

fn total_count() -> Header {
    HeaderBuilder::new()
        .schema(integer(0, None))
        .description(Some("The total of the list before paging"))
        .build()
}

fn total_kind() -> Header {
    HeaderBuilder::new()
        .schema(string())
        .description(Some(
            "Lists of objects and other documents: exact, or estimated when x-total-count is an \
             estimate (past 10,000 matches, unless _count=exact)",
        ))
        .build()
}

fn next_cursor() -> Header {
    HeaderBuilder::new()
        .schema(string())
        .description(Some(
            "Object lists: the cursor of the next page (its _after), when items follow",
        ))
        .build()
}

fn success(answer: AnswerDoc) -> Response {
    let json = |schema: Schema| ContentBuilder::new().schema(Some(schema)).build();
    let text = || ContentBuilder::new().schema(Some(string())).build();
    let either = || {
        Schema::OneOf(
            utoipa::openapi::schema::OneOfBuilder::new()
                .item(any_object())
                .item(any_array())
                .build(),
        )
    };
    let b = Response::builder();
    match answer {
        AnswerDoc::Object => b
            .description("The answer")
            .content("application/json", json(any_object())),
        AnswerDoc::List => b
            .description("The items")
            .header(crate::routes::TOTAL_COUNT_HEADER, total_count())
            .content("application/json", json(any_array())),
        AnswerDoc::ObjectOrList => b
            .description("The item, or with _function the function's answer")
            .content("application/json", json(either())),
        AnswerDoc::Saved => b
            .description("The saved item, or for an array the saved items")
            .content("application/json", json(either())),
        AnswerDoc::Formatted => b
            .description("The item (JSON, CSV, XML, or HTML through _template)")
            .content("application/json", json(either()))
            .content("text/csv", text())
            .content("application/xml", text())
            .content("text/html", text()),
        AnswerDoc::FormattedList => b
            .description("The items (JSON, CSV, XML, or HTML through _template)")
            .header(crate::routes::TOTAL_COUNT_HEADER, total_count())
            .header(crate::routes::TOTAL_KIND_HEADER, total_kind())
            .header(crate::routes::NEXT_HEADER, next_cursor())
            .content("application/json", json(any_array()))
            .content("text/csv", text())
            .content("application/xml", text())
            .content("text/html", text()),
        AnswerDoc::Html => b
            .description("The rendered page")
            .content("text/html", text()),
        AnswerDoc::EventStream => b
            .description("Server-Sent Events until the server stops (or _limit messages)")
            .content("text/event-stream", text()),
        AnswerDoc::Metrics => b
            .description("The Prometheus text format")
            .content("text/plain", text()),
        AnswerDoc::Readiness => b.description("The readiness report").content(
            "application/json",
            json(
                ObjectBuilder::new()
                    .property("status", enum_of(&["ready", "unavailable"]))
                    .required("status")
                    .property("database", enum_of(&["up", "down"]))
                    .required("database")
                    .build()
                    .into(),
            ),
        ),
    }
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `/{service}/...` paths `register_generic_first` puts in the order of their use: each
    /// is whole segments (a literal, or a `{name}` that matches one segment), and no two have
    /// as many, so a path can match one of them at most, in whatever order they are tried.
    #[test]
    fn generic_paths_differ_in_their_segments() {
        let mut counts = Vec::new();
        for e in endpoints().filter(|e| e.path.starts_with("/{service}")) {
            let segments: Vec<&str> = e.path[1..].split('/').collect();
            for s in &segments {
                let whole = s.starts_with('{') && s.ends_with('}') && !s.contains(':');
                assert!(whole || !s.contains(['{', '}', '*']), "{}: {s}", e.path);
            }
            counts.push((segments.len(), e.path));
        }
        counts.dedup();
        let mut by_count = counts.clone();
        by_count.sort();
        by_count.dedup_by_key(|(n, _)| *n);
        assert_eq!(by_count.len(), counts.len(), "{counts:?}");
        assert!(counts.len() >= 6);
    }

    #[test]
    fn each_path_is_one_run_of_the_table_and_each_method_once() {
        let all: Vec<&Endpoint> = endpoints().collect();
        let mut seen: Vec<&str> = Vec::new();
        for (i, e) in all.iter().enumerate() {
            if i > 0 && all[i - 1].path == e.path {
                assert!(
                    !all[..i]
                        .iter()
                        .any(|o| o.path == e.path && o.verb == e.verb),
                    "{e:?} twice"
                );
                continue;
            }
            assert!(!seen.contains(&e.path), "{e:?}: its path is not one run");
            seen.push(e.path);
        }
    }

    #[test]
    fn every_query_parameter_is_documented_and_read_by_the_platform() {
        use platform_core::query::params::{STANDARD, SYSTEM_FIELDS};
        for e in endpoints() {
            for name in e.query {
                assert!(query_parameter_doc(name).is_some(), "{e:?}: {name}");
                if name.starts_with('_') {
                    assert!(
                        STANDARD.contains(name) || SYSTEM_FIELDS.contains(name),
                        "{e:?}: {name} would be refused as unknown"
                    );
                }
            }
            assert_eq!(
                e.functions.is_empty(),
                !e.query.contains(&"_function"),
                "{e:?}: _function and its values go together"
            );
            assert_eq!(
                e.path.contains("{service}"),
                !e.services.is_empty(),
                "{e:?}: a generic path names its services"
            );
        }
    }

    #[test]
    fn only_the_functions_of_a_method_with_a_body_read_one() {
        for e in endpoints().filter(|e| matches!(e.verb, Verb::Get | Verb::Delete)) {
            for f in e.functions {
                assert_eq!(f.body, BodyDoc::None, "{e:?} _function={}", f.name);
            }
        }
    }

    #[test]
    fn every_standard_parameter_is_documented_on_some_endpoint() {
        for name in platform_core::query::params::STANDARD {
            assert!(
                endpoints().any(|e| e.query.contains(&name)),
                "{name} is read by the platform but no endpoint documents it"
            );
        }
    }

    #[test]
    fn the_documented_threshold_of_exact_totals_is_the_stores() {
        // `_count` and `x-platform-total` are documented with the number written out.
        let said = "10,000";
        assert!(query_parameter_doc("_count").unwrap().1.contains(said));
        assert_eq!(
            platform_core::query::total::EXACT_TOTAL_UP_TO.to_string(),
            said.replace(',', "")
        );
    }

    #[test]
    fn only_services_no_other_path_starts_with_are_routed_first() {
        // `extension`, `validationconfig` and `automation` have paths of their own (and
        // `console` its pages): their requests keep the full order of the route table.
        assert_eq!(
            generic_only_services(crate::console::SEGMENT),
            ["calendar", "data", "object", "script", "type"]
        );
        // A service named like the console's segment would not be routed first.
        assert!(!generic_only_services("object").contains(&"object"));
    }

    #[test]
    fn operation_ids_are_unique() {
        let mut ids = std::collections::BTreeSet::new();
        for e in endpoints() {
            for path in e.documented_paths() {
                assert!(ids.insert(operation_id(e.verb, &path)), "{e:?} {path}");
            }
        }
    }
}
