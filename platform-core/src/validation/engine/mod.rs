//! The check engine: compiles the one-line rhai checks of a validation configuration once and
//! runs them over time-series points (point scope) or curves (tenor and curve scope).
//!
//! - **Compile** ([`compile`]): each expression (at most [`MAX_EXPRESSION_CHARS`] characters)
//!   is compiled with `compile_expression_with_scope` on the sandboxed check engine
//!   ([`crate::script::engine`] with [`crate::script::Profile::Check`]: strict variables, no
//!   loops, closures or `eval`, operation and depth limits); library functions (the
//!   configuration's `scripts`) are compiled once and merged into every check.
//! - **Native path**: a point check that is a conjunction (or any `&&`/`||`/`!` combination) of
//!   comparisons and built-in calls with literal arguments (`value > 0`,
//!   `abs(pct_change(1)) < 0.2`, `abs(robust_z(50)) < 3.5`, `!is_missing()`...) is parsed into a
//!   small tree and evaluated in Rust over the whole target range, with no rhai evaluation per
//!   point. Everything else runs in rhai per point. Both paths read the same statistic columns
//!   (computed once per run and shared by all checks) and build the same messages, so they
//!   give identical results (held together by a property test).
//! - **Run**: a check passes when it returns `true`, fails on `false`; a runtime error or a
//!   non-boolean result is [`CheckStatus::Error`] with the message. A check on a missing value
//!   is [`CheckStatus::Skipped`] unless it mentions `missing` or `is_missing`. A check whose
//!   history function lacks the history it reads there (the first point of a series,
//!   `mean(30)` at the fifth) is skipped too, with a message naming the function (`lack`). A
//!   check that needs a number where the value is text fails, `value "n/a" is not a number`;
//!   one that compares `value` with text (`value == "ok"`) reads the text.
//!
//! Built-ins (all numbers are floats, NaN when not available):
//!
//! | scope | variables | functions |
//! |---|---|---|
//! | point | `value`, `time` (RFC 3339), `missing` | `is_missing()`, `lag(k)`, `prev()`, `change(k)`, `pct_change(k)` (k defaults to 1), `mean(n)`, `stdev(n)`, `median(n)`, `mad(n)`, `min_of(n)`, `max_of(n)`, `quantile(n, q)`, `count(n)`, `zscore(n)`, `robust_z(n)`, `run_length()`, `run_length(tol)`, `gap()`, `spike()` |
//! | tenor | `value`, `missing`, `tenor`, `contract` (map), `ondate`, `contracts` | `is_missing()`, `prev_tenor(k)`, `tenor_change(k)`, `tenor_pct_change(k)` (k defaults to 1), `excess_move()`, `tenor_run_length()`, `tenor_run_length(tol)`, and the curve functions |
//! | curve | `contracts`, `ondate` | `tenor_count()`, `prev_tenor_count()`, `has_tenor(code)`, `sorted()`, `unique()`, `no_gaps()`, `unchanged_fraction()`, `max_abs_change()` |
//! | any | | `between(x, lo, hi)`, `is_finite(x)`, `is_zero(x)`, `is_negative(x)`, `on_tick(x, tick)`, `decimals(x)`, `clamp(x, lo, hi)`, and rhai's `abs`, `min`, `max`, `round`, `sqrt`, `ln`, `exp`, `sign` |
//!
//! History: a check's expression decides what it reads. `mean(n)` and the other aggregates
//! read the previous `n` observations, leaving missing values out; `lag(k)` the one `k` back;
//! `run_length()` counts back at most [`MAX_HISTORY`] observations. With fewer earlier
//! observations than a function reads, no number where it reads one, or too few values in its
//! window, the function lacks history and the check is skipped there (never failed on a NaN).
//! [`CompiledChecks::point_history`] and [`CompiledChecks::curve_history`] say how much a run
//! must read before its points (`parse::need`: the largest literal count, or the most for a
//! count that is not a literal). `spike()` is QARTOD's spike magnitude of the previous
//! observation (the middle of the last three): `|x[t-1] - (x[t-2] + x[t]) / 2|`. `gap()` needs a
//! daily or intraday calendar. Tenor history is matched by absolute delivery period
//! (`2024M04` is `M01` on 2024-03-01 and `M00` on 2024-04-01). `tenor_count()` counts the
//! contracts with a value (`contracts` counts all); `unchanged_fraction()` and
//! `max_abs_change()` look at the contracts with a value on both this and the previous curve;
//! `sorted()` and `no_gaps()` look at each period unit (months, quarters...) separately.
//!
//! Comparisons are rhai's, on both paths: two integers compare exactly; otherwise rhai 1.27
//! compares relative to the larger magnitude with a tolerance of `f64::EPSILON`. So a NaN (a
//! statistic that is NaN by itself, as a z-score over a flat window) satisfies `== 0`, `<= 0`
//! and `>= 0` and fails every other comparison, and an infinity fails every comparison; guard
//! with `is_finite(x)` where it matters.
//!
//! The user's reference of every function is `docs/checks.md` (a test holds it to the
//! functions registered here).
//!
//! | file | holds |
//! |---|---|
//! | `compile` | checks compiled once (rhai, and the native tree when there is one); the trial |
//! | `run_series` | point checks over a series, natively column by column or in rhai point by point |
//! | `run_curve` | tenor checks per contract and curve checks once per curve |
//! | `eval` | one rhai evaluation and a failure's message, shared by both runs |
//! | `lack` | why a function has no number at a point (skipped), or a text value (not a number) |
//! | `parse` | the native subset recognised and typed, and the terms of any check |
//! | `native` | the native tree, its evaluation over columns, and the failure messages |
//! | `series`, `curve` | the statistics the built-ins read (columns per series, values per curve) |
//! | `functions` | the built-ins registered on the rhai engine |

mod compile;
mod curve;
mod eval;
mod functions;
mod lack;
mod native;
mod parse;
mod run_curve;
mod run_series;
mod series;
#[cfg(test)]
mod tests;

pub use compile::{compile, CompiledChecks};
// Named by the tests, benches and fuzz targets only.
#[cfg(any(test, feature = "internals"))]
pub use compile::compile_with;
pub use run_series::SeriesEvaluation;

use chrono::NaiveDate;
use std::collections::BTreeMap;

/// Longest check expression, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 1_000;

/// The most earlier observations a point check reads: the largest count a point function takes
/// (`mean(1000)`), and how far back `run_length()` counts.
pub const MAX_HISTORY: usize = 1_000;

/// The most previous curves a tenor or curve check reads: the largest count a tenor function
/// takes (`prev_tenor(30)`), and how far back `tenor_run_length()` counts.
pub const MAX_CURVE_HISTORY: usize = 30;

/// Where a check runs. Its serde form is the name configurations use (`point`, `tenor`,
/// `curve`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckScope {
    /// On each observation of a time series.
    Point,
    /// On each contract of a curve.
    Tenor,
    /// Once per curve.
    Curve,
}

/// How bad a failing check is. Its serde form is the name configurations use (`warning`,
/// `failed`, `severe`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look.
    Warning,
    /// The data is wrong.
    Failed,
    /// The data is badly wrong.
    Severe,
}

/// One check of a configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckDef {
    /// The check id (names the check in errors and results).
    pub id: String,
    /// Display name.
    pub name: String,
    /// One rhai expression returning a boolean.
    pub expression: String,
    /// Where it runs.
    pub scope: CheckScope,
    /// The severity of a failure.
    pub severity: Severity,
}

/// A rhai function library (a configuration's `scripts`): its functions are callable from the
/// checks; its statements are ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Library {
    /// The script id.
    pub id: String,
    /// The rhai source.
    pub source: String,
}

/// Compile options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Run the checks the engine recognises natively (default true; false forces rhai for
    /// every check, for tests and benchmarks).
    pub native: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self { native: true }
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckStatus {
    /// The expression returned true.
    Pass,
    /// The expression returned false.
    Fail,
    /// A runtime error, a limit hit, or a result that is not a boolean.
    Error,
    /// The value is missing and the check does not mention `missing` / `is_missing`.
    Skipped,
}

/// One check's result at one point or contract.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    /// The check id.
    pub id: String,
    /// The outcome.
    pub status: CheckStatus,
    /// Empty on a pass; the numbers of a failure (`value 4520 outside 0..1000`); the error text.
    pub message: String,
    /// Evaluation time in microseconds (for a series run: the check's average per point).
    pub micros: f64,
}

/// The observations of a time series (the targets and the history before them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SeriesInput {
    /// Times in UTC milliseconds, ascending.
    pub times: Vec<i64>,
    /// Values; `None` is missing (null or NaN) or text (see `text`).
    pub values: Vec<Option<f64>>,
    /// The observations holding text, by index (their `values` are `None`): a check that needs
    /// a number fails there (`not a number`); a check that compares `value` with text reads it.
    pub text: BTreeMap<usize, String>,
    /// The calendar step in milliseconds (for `gap()`); `None` for a sparse series.
    pub step_ms: Option<i64>,
}

/// The results of the point checks at one observation.
#[derive(Debug, Clone, PartialEq)]
#[cfg(any(test, feature = "internals"))]
pub struct PointOutcome {
    /// Index of the observation in the [`SeriesInput`].
    pub index: usize,
    /// One outcome per point check, in configuration order.
    pub checks: Vec<CheckOutcome>,
}

/// A curve of one ondate.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveInput {
    /// The curve date.
    pub ondate: NaiveDate,
    /// The contracts.
    pub contracts: Vec<ContractInput>,
}

/// One contract of a curve.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractInput {
    /// The tenor code as stored (relative when it has one).
    pub tenor: String,
    /// The relative code ("" for none).
    pub relative: String,
    /// The absolute code ("" for balance-of codes).
    pub absolute: String,
    /// The value; `None` is missing (or text).
    pub value: Option<f64>,
    /// The value when it is text (then `value` is `None`).
    pub text: Option<String>,
    /// First delivery day.
    pub start: NaiveDate,
    /// Last delivery day (inclusive).
    pub end: NaiveDate,
    /// Expiry.
    pub expiry: NaiveDate,
}

/// The results of a curve run.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveOutcome {
    /// One outcome per curve check, in configuration order.
    pub curve: Vec<CheckOutcome>,
    /// Per contract (curve order), the tenor checks.
    pub tenors: Vec<TenorOutcome>,
}

/// The tenor checks of one contract.
#[derive(Debug, Clone, PartialEq)]
pub struct TenorOutcome {
    /// The contract's tenor code.
    pub tenor: String,
    /// One outcome per tenor check, in configuration order.
    pub checks: Vec<CheckOutcome>,
}
