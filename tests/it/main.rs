//! Black-box tests over HTTP: one binary, one module per area, one in-process server per test.

mod architecture;
mod automation;
mod common;
mod conformance;
mod corpus;
mod data;
mod embed;
mod energy_time;
mod errors;
mod extensions;
mod formats;
mod hardening;
mod isolation;
mod object;
mod openapi;
mod ops;
mod outbound;
mod postgres;
mod query;
mod scripts;
mod secrets;
mod suggest;
mod tenancy;
mod time_text;
mod types;
mod validation;
