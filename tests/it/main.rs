//! Black-box tests over HTTP: one binary, one module per area, one in-process server per test.

mod architecture;
mod common;
mod errors;
mod object;
mod tenancy;
mod types;
