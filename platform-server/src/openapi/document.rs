//! The OpenAPI 3.1 document of the route table: an operation per endpoint (per service it
//! serves, for a generic path), with its parameters, body, answers and the error envelope.

use super::endpoints;
use super::parameters::query_parameter_doc;
use super::schema::{any_array, any_object, enum_of, integer, string};
use crate::endpoint::{AnswerDoc, BodyDoc, Endpoint, Function, Verb};
use crate::error::ErrorEnvelope;
use actix_web::{web, HttpResponse};
use utoipa::openapi::path::{Operation, Parameter, ParameterIn};
use utoipa::openapi::request_body::RequestBody;
use utoipa::openapi::response::{Response, Responses};
use utoipa::openapi::schema::{AdditionalProperties, Array, Object, ObjectBuilder, Schema, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{
    Components, ContentBuilder, Header, HeaderBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths,
    Ref, RefOr, Required, ServerBuilder, Tag,
};
use utoipa::PartialSchema as _;

/// `GET /openapi.json`: the document, with the base path as its server.
pub async fn openapi_json(state: web::Data<crate::state::AppState>) -> HttpResponse {
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
    let base = crate::state::normalise_base(base);
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
            tag.description = platform_core::api::interface::services::find(&t)
                .map(|s| s.description.to_string());
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
    if platform_core::api::interface::services::find(first).is_some() {
        first
    } else {
        "operations"
    }
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
    if endpoint.body == BodyDoc::Csv {
        // The one body that must come with its media type.
        responses = responses.response("415", Ref::from_response_name("Error"));
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
            BodyDoc::Csv => "CSV text",
        };
        out.push_str(&format!(" _function={}: {reads}.", Function::names(&of)));
    }
    out
}

fn request_body(endpoint: &Endpoint, service: &str) -> Option<RequestBody> {
    let (schema, required, description) = match endpoint.body {
        BodyDoc::None => return None,
        BodyDoc::Csv => return Some(csv_body()),
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

/// The body of a CSV import: the text `platform data import` reads from a file.
fn csv_body() -> RequestBody {
    RequestBody::builder()
        .description(Some(
            "CSV in UTF-8: a header, then rows of time,value[,status] (any ISO 8601 time; \
             without an offset in the series' zone), or settlementDate,settlementPeriod,value \
             (Elexon's SettlementDate, SettlementPeriod too) into a HALFHOURLY series, or \
             ondate,tenor,value into a curve; fields separated by ',', ';' (decimal commas \
             then allowed) or tab. A bad row is a 400 naming its line, and nothing is written.",
        ))
        .required(Some(Required::True))
        .content(
            "text/csv",
            ContentBuilder::new()
                .schema(Some(string()))
                .example(Some(serde_json::Value::from(
                    "settlementDate,settlementPeriod,value\n2025-10-26,1,51.2\n2025-10-26,50,48.0\n",
                )))
                .build(),
        )
        .build()
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
            .header(crate::negotiate::TOTAL_COUNT_HEADER, total_count())
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
            .header(crate::negotiate::TOTAL_COUNT_HEADER, total_count())
            .header(crate::negotiate::TOTAL_KIND_HEADER, total_kind())
            .header(crate::negotiate::NEXT_HEADER, next_cursor())
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
