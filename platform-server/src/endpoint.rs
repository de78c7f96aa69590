//! The route table's entries: an [`Endpoint`] is one route (method, path, handler) with what
//! the OpenAPI document says of it. Each route module lists its endpoints in an `ENDPOINTS`
//! table of these; `crate::openapi` gathers the tables, registers the routes and writes the
//! document.

use actix_web::http::Method;
use utoipa::openapi::path::HttpMethod;

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

    /// utoipa's method, for the document.
    pub fn http(self) -> HttpMethod {
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
    /// CSV text (`text/csv`, UTF-8): a data import.
    Csv,
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
