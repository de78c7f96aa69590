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
//!   is [`CheckStatus::Skipped`] unless it mentions `missing` or `is_missing`.
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
//! History windows: a point sees at most `lookback` earlier observations; `mean(n)` and the
//! other aggregates use the previous `min(n, lookback)` observations, leaving missing values
//! out. `spike()` is QARTOD's spike magnitude of the previous observation (the middle of the
//! last three): `|x[t-1] - (x[t-2] + x[t]) / 2|`. `gap()` is NaN for a sparse series or without
//! a previous observation in the window. Tenor history is matched by absolute delivery period
//! (`2024M04` is `M01` on 2024-03-01 and `M00` on 2024-04-01). `tenor_count()` counts the
//! contracts with a value (`contracts` counts all); `unchanged_fraction()` and
//! `max_abs_change()` look at the contracts with a value on both this and the previous curve;
//! `sorted()` and `no_gaps()` look at each period unit (months, quarters...) separately.
//!
//! Comparisons are rhai's, on both paths: two integers compare exactly; otherwise rhai 1.27
//! compares relative to the larger magnitude with a tolerance of `f64::EPSILON`. So a NaN (a
//! statistic that is not available) satisfies `== 0`, `<= 0` and `>= 0` and fails every other
//! comparison, and an infinity fails every comparison; guard with `is_finite(x)` where it
//! matters.

mod curve;
mod functions;
mod native;
mod parse;
mod series;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use chrono::NaiveDate;
use curve::CurveCtx;
use native::{Env, PointStat, Term, TermKind, Tree};
use rhai::{Dynamic, Scope, AST};
use series::SeriesCtx;
use std::collections::HashSet;
use std::rc::Rc;
use std::time::Instant;

/// Longest check expression, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 1_000;

/// Where a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckScope {
    /// On each observation of a time series.
    Point,
    /// On each contract of a curve.
    Tenor,
    /// Once per curve.
    Curve,
}

/// How bad a failing check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// Values; `None` is missing (null, text or NaN).
    pub values: Vec<Option<f64>>,
    /// The calendar step in milliseconds (for `gap()`); `None` for a sparse series.
    pub step_ms: Option<i64>,
}

/// The results of the point checks at one observation.
#[derive(Debug, Clone, PartialEq)]
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
    /// The value; `None` is missing.
    pub value: Option<f64>,
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

/// Which variables an expression reads (only those are put in its scope).
#[derive(Debug, Clone, Copy, Default)]
struct Refs {
    /// `missing` or `is_missing`: the check runs on missing values.
    missing_rule: bool,
    missing: bool,
    value: bool,
    time: bool,
    tenor: bool,
    contract: bool,
    ondate: bool,
    contracts: bool,
}

impl Refs {
    fn of(src: &str) -> Self {
        let ids = parse::idents(src);
        let has = |s: &str| ids.contains(s);
        Self {
            missing_rule: has("missing") || has("is_missing"),
            missing: has("missing"),
            value: has("value"),
            time: has("time"),
            tenor: has("tenor"),
            contract: has("contract"),
            ondate: has("ondate"),
            contracts: has("contracts"),
        }
    }
}

struct Compiled {
    def: CheckDef,
    ast: AST,
    /// The parsed form, when the expression is in the native subset.
    tree: Option<Tree>,
    /// Terms shown in the failure message of an expression without a tree.
    terms: Vec<Term>,
    /// Evaluated natively (point scope, tree present, native enabled).
    native: bool,
    refs: Refs,
}

/// Compiled checks: compile once, run many times, from any thread.
pub struct CompiledChecks {
    checks: Vec<Compiled>,
}

impl std::fmt::Debug for CompiledChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledChecks")
            .field(
                "checks",
                &self.checks.iter().map(|c| &c.def.id).collect::<Vec<_>>(),
            )
            .field("native", &self.native_ids())
            .finish()
    }
}

fn template_scope(scope: CheckScope) -> Scope<'static> {
    let mut s = Scope::new();
    match scope {
        CheckScope::Point => {
            s.push("value", 0.0_f64);
            s.push("time", String::new());
            s.push("missing", false);
        }
        CheckScope::Tenor => {
            s.push("value", 0.0_f64);
            s.push("missing", false);
            s.push("tenor", String::new());
            s.push("contract", rhai::Map::new());
            s.push("ondate", String::new());
            s.push("contracts", 0_i64);
        }
        CheckScope::Curve => {
            s.push("contracts", 0_i64);
            s.push("ondate", String::new());
        }
    }
    s
}

fn check_error(id: &str, reason: impl std::fmt::Display) -> Error {
    Error::invalid_body(format!("check \"{id}\": {reason}"))
}

/// Compiles checks and libraries with the default [`Options`].
pub fn compile(defs: &[CheckDef], libs: &[Library]) -> Result<CompiledChecks> {
    compile_with(defs, libs, Options::default())
}

/// Compiles checks and libraries.
pub fn compile_with(
    defs: &[CheckDef],
    libs: &[Library],
    options: Options,
) -> Result<CompiledChecks> {
    let engine = functions::engine();
    let mut functions: Option<AST> = None;
    let mut shadowed = HashSet::new();
    for lib in libs {
        let ast = crate::script::compile_script(functions::library_engine(), &lib.id, &lib.source)?
            .clone_functions_only();
        shadowed.extend(ast.iter_functions().map(|f| f.name.to_string()));
        functions = Some(match functions {
            None => ast,
            Some(all) => all.merge(&ast),
        });
    }
    let mut checks = Vec::with_capacity(defs.len());
    for def in defs {
        let id = &def.id;
        let chars = def.expression.chars().count();
        if chars > MAX_EXPRESSION_CHARS {
            return Err(check_error(
                id,
                format!("the expression has {chars} characters, more than {MAX_EXPRESSION_CHARS}"),
            ));
        }
        if def.expression.trim().is_empty() {
            return Err(check_error(id, "the expression is empty"));
        }
        let ast = engine
            .compile_expression_with_scope(&template_scope(def.scope), &def.expression)
            .map_err(|e| check_error(id, format!("does not compile: {e}")))?;
        let ast = match &functions {
            Some(f) => ast.merge(f),
            None => ast,
        };
        let tree = parse::parse_tree(&def.expression, def.scope, &shadowed);
        let terms = if tree.is_none() {
            parse::scan_terms(&def.expression, def.scope, &shadowed)
        } else {
            Vec::new()
        };
        checks.push(Compiled {
            native: options.native && def.scope == CheckScope::Point && tree.is_some(),
            def: def.clone(),
            ast,
            tree,
            terms,
            refs: Refs::of(&def.expression),
        });
    }
    Ok(CompiledChecks { checks })
}

/// Point checks evaluated over a range of targets: statuses and messages per (check, target),
/// without building the per-point result objects.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesEvaluation {
    ids: Vec<String>,
    targets: series::Targets,
    /// Check-major: `statuses[check * targets + target]`.
    statuses: Vec<CheckStatus>,
    /// The non-empty messages, by the same cell number, ascending.
    messages: Vec<(usize, String)>,
    micros: Vec<f64>,
}

impl SeriesEvaluation {
    /// The point checks' ids, in configuration order.
    pub fn check_ids(&self) -> &[String] {
        &self.ids
    }

    /// How many targets were evaluated (targets outside the series are dropped).
    pub fn target_count(&self) -> usize {
        self.targets.len()
    }

    /// The series index of target `target` (a position, `0..target_count()`).
    pub fn index(&self, target: usize) -> usize {
        self.targets.get(target)
    }

    /// The status of check `check` at target `target` (positions, not ids or series indices).
    pub fn status(&self, check: usize, target: usize) -> CheckStatus {
        self.statuses[check * self.targets.len() + target]
    }

    /// The message of check `check` at target `target`.
    pub fn message(&self, check: usize, target: usize) -> &str {
        let cell = check * self.targets.len() + target;
        self.messages
            .binary_search_by_key(&cell, |(k, _)| *k)
            .map_or("", |i| self.messages[i].1.as_str())
    }

    /// Microseconds check `check` took per target.
    pub fn micros(&self, check: usize) -> f64 {
        self.micros.get(check).copied().unwrap_or(0.0)
    }

    /// Per point, the outcome of every point check.
    pub fn into_outcomes(self) -> Vec<PointOutcome> {
        let n = self.targets.len();
        let mut messages: Vec<String> = Vec::new();
        messages.resize_with(self.statuses.len(), String::new);
        for (cell, m) in self.messages {
            messages[cell] = m;
        }
        (0..n)
            .map(|j| PointOutcome {
                index: self.targets.get(j),
                checks: self
                    .ids
                    .iter()
                    .enumerate()
                    .map(|(c, id)| CheckOutcome {
                        id: id.clone(),
                        status: self.statuses[c * n + j],
                        message: std::mem::take(&mut messages[c * n + j]),
                        micros: self.micros[c],
                    })
                    .collect(),
            })
            .collect()
    }
}

/// Term values at one target of a series run.
struct PointEnv<'a> {
    cols: &'a [Rc<Vec<f64>>],
    value: &'a [f64],
    j: usize,
}

impl Env for PointEnv<'_> {
    #[inline]
    fn num(&self, term: usize) -> f64 {
        self.cols[term][self.j]
    }
    fn flag(&self, _: usize) -> bool {
        false
    }
    #[inline]
    fn value(&self) -> f64 {
        self.value[self.j]
    }
}

fn point_columns(ctx: &SeriesCtx, terms: &[Term]) -> Vec<Rc<Vec<f64>>> {
    terms
        .iter()
        .map(|t| match t.kind {
            TermKind::Point(stat) => ctx.column(stat),
            _ => Rc::new(vec![f64::NAN; ctx.targets.len()]),
        })
        .collect()
}

/// Term values at the current contract of a curve run.
struct CurveEnv<'a> {
    ctx: &'a CurveCtx,
    terms: &'a [Term],
}

impl Env for CurveEnv<'_> {
    fn num(&self, term: usize) -> f64 {
        match self.terms.get(term).map(|t| &t.kind) {
            Some(TermKind::Curve(stat)) => self.ctx.stat(*stat).unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }
    fn flag(&self, term: usize) -> bool {
        match self.terms.get(term).map(|t| &t.kind) {
            Some(TermKind::Flag(flag)) => self.ctx.flag(flag),
            _ => false,
        }
    }
    fn value(&self) -> f64 {
        self.ctx.value_now()
    }
}

/// The message of a failed check: from its tree when it has one, else its terms' values.
fn fail_message<E: Env>(check: &Compiled, env: &E) -> String {
    match &check.tree {
        Some(tree) => tree
            .explain(env)
            .unwrap_or_else(|| native::generic_message(&tree.terms, env)),
        None => native::generic_message(&check.terms, env),
    }
}

fn not_boolean(d: &Dynamic) -> String {
    format!(
        "the expression returned {} ({d}), not true or false",
        d.type_name()
    )
}

/// One rhai evaluation: the status and, on an error, its message (None on pass/fail).
fn eval_rhai(check: &Compiled, scope: &mut Scope) -> (CheckStatus, Option<String>) {
    match functions::engine().eval_ast_with_scope::<Dynamic>(scope, &check.ast) {
        Ok(d) => match d.as_bool() {
            Ok(true) => (CheckStatus::Pass, None),
            Ok(false) => (CheckStatus::Fail, None),
            Err(_) => (CheckStatus::Error, Some(not_boolean(&d))),
        },
        Err(e) => (CheckStatus::Error, Some(e.to_string())),
    }
}

const MISSING: &str = "value is missing";

impl CompiledChecks {
    /// Evaluates each check once on a small built-in sample (a series for point checks, a
    /// 3-contract curve for tenor/curve checks): an unknown function, an unknown variable, a
    /// non-boolean result, a runtime error or a limit hit is Err(invalid_body naming the check
    /// and the reason). Used at config save time.
    pub fn trial(&self) -> Result<()> {
        let (series, target) = sample_series();
        let eval = self.evaluate(&series, &[target], target, true);
        for (c, id) in eval.check_ids().iter().enumerate() {
            if eval.status(c, 0) == CheckStatus::Error {
                return Err(check_error(id, eval.message(c, 0)));
            }
        }
        let (curve, history) = sample_curve();
        let out = self.run_curve(&curve, &history);
        let tenor_checks = out.tenors.iter().flat_map(|t| &t.checks);
        for o in out.curve.iter().chain(tenor_checks) {
            if o.status == CheckStatus::Error {
                return Err(check_error(&o.id, &o.message));
            }
        }
        Ok(())
    }

    /// Point checks over the observations at `targets` (indices into `series`), each seeing
    /// up to `lookback` earlier observations of `series` (the caller includes them before the
    /// targets).
    pub fn run_series(
        &self,
        series: &SeriesInput,
        targets: &[usize],
        lookback: usize,
    ) -> Vec<PointOutcome> {
        self.evaluate_series(series, targets, lookback)
            .into_outcomes()
    }

    /// [`Self::run_series`] without the per-point result objects (what `run_series` builds its
    /// answer from).
    pub fn evaluate_series(
        &self,
        series: &SeriesInput,
        targets: &[usize],
        lookback: usize,
    ) -> SeriesEvaluation {
        self.evaluate(series, targets, lookback, false)
    }

    /// Tenor checks on each contract and curve checks once, with `history` = previous curves,
    /// newest first (up to curveHistory).
    pub fn run_curve(&self, curve: &CurveInput, history: &[CurveInput]) -> CurveOutcome {
        let ctx = Rc::new(CurveCtx::new(curve, history));
        let _entered = functions::enter(functions::Ctx::Curve(ctx.clone()));
        let ondate = curve.ondate.format("%Y-%m-%d").to_string();
        let count = i64::try_from(curve.contracts.len()).unwrap_or(i64::MAX);
        let mut outcome = CurveOutcome {
            curve: Vec::new(),
            tenors: Vec::new(),
        };
        for check in self.of_scope(CheckScope::Curve) {
            let mut scope = Scope::new();
            if check.refs.contracts {
                scope.push("contracts", count);
            }
            if check.refs.ondate {
                scope.push("ondate", ondate.clone());
            }
            outcome
                .curve
                .push(self.curve_eval(check, &ctx, &mut scope, false));
        }
        for (i, contract) in curve.contracts.iter().enumerate() {
            ctx.cur.set(Some(i));
            let value = contract.value.unwrap_or(f64::NAN);
            let checks = self
                .of_scope(CheckScope::Tenor)
                .map(|check| {
                    let r = &check.refs;
                    let mut scope = Scope::new();
                    if r.value {
                        scope.push("value", value);
                    }
                    if r.missing {
                        scope.push("missing", value.is_nan());
                    }
                    if r.tenor {
                        scope.push("tenor", contract.tenor.clone());
                    }
                    if r.contract {
                        scope.push("contract", contract_map(contract));
                    }
                    if r.ondate {
                        scope.push("ondate", ondate.clone());
                    }
                    if r.contracts {
                        scope.push("contracts", count);
                    }
                    self.curve_eval(check, &ctx, &mut scope, value.is_nan())
                })
                .collect();
            outcome.tenors.push(TenorOutcome {
                tenor: contract.tenor.clone(),
                checks,
            });
        }
        outcome
    }

    /// Ids of the checks that run natively (for tests and stats).
    pub fn native_ids(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| c.native)
            .map(|c| c.def.id.clone())
            .collect()
    }

    /// The checks, in configuration order.
    pub fn defs(&self) -> impl Iterator<Item = &CheckDef> {
        self.checks.iter().map(|c| &c.def)
    }

    fn of_scope(&self, scope: CheckScope) -> impl Iterator<Item = &Compiled> {
        self.checks.iter().filter(move |c| c.def.scope == scope)
    }

    fn curve_eval(
        &self,
        check: &Compiled,
        ctx: &CurveCtx,
        scope: &mut Scope,
        missing: bool,
    ) -> CheckOutcome {
        let start = Instant::now();
        let (status, message) = if missing && !check.refs.missing_rule {
            (CheckStatus::Skipped, MISSING.to_string())
        } else {
            match eval_rhai(check, scope) {
                (CheckStatus::Fail, _) => {
                    let terms = match &check.tree {
                        Some(t) => &t.terms,
                        None => &check.terms,
                    };
                    let env = CurveEnv { ctx, terms };
                    (CheckStatus::Fail, fail_message(check, &env))
                }
                (status, message) => (status, message.unwrap_or_default()),
            }
        };
        CheckOutcome {
            id: check.def.id.clone(),
            status,
            message,
            micros: start.elapsed().as_secs_f64() * 1e6,
        }
    }

    fn evaluate(
        &self,
        series: &SeriesInput,
        targets: &[usize],
        lookback: usize,
        force_rhai: bool,
    ) -> SeriesEvaluation {
        let checks: Vec<&Compiled> = self.of_scope(CheckScope::Point).collect();
        let times = checks.iter().any(|c| {
            let gap = TermKind::Point(PointStat::Gap);
            force_rhai
                || !c.native
                || c.tree
                    .as_ref()
                    .is_some_and(|t| t.terms.iter().any(|t| t.kind == gap))
        });
        let ctx = Rc::new(SeriesCtx::new(series, targets, lookback, times));
        let n = ctx.targets.len();
        let mut out = SeriesEvaluation {
            ids: checks.iter().map(|c| c.def.id.clone()).collect(),
            targets: ctx.targets.clone(),
            statuses: vec![CheckStatus::Pass; n * checks.len()],
            messages: Vec::new(),
            micros: vec![0.0; checks.len()],
        };
        if n == 0 {
            return out;
        }
        let uses_rhai = checks.iter().any(|c| force_rhai || !c.native);
        let _entered = uses_rhai.then(|| functions::enter(functions::Ctx::Series(ctx.clone())));
        let value = ctx.column(PointStat::Value);
        for (c, check) in checks.iter().enumerate() {
            let start = Instant::now();
            let statuses = &mut out.statuses[c * n..(c + 1) * n];
            let messages = &mut Messages {
                base: c * n,
                out: &mut out.messages,
            };
            match &check.tree {
                Some(tree) if check.native && !force_rhai => {
                    run_native(check, tree, &ctx, &value, statuses, messages);
                }
                _ => run_rhai(check, &ctx, &value, statuses, messages),
            }
            out.micros[c] = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        }
        out
    }
}

/// The messages of one check of a series run (cells `base + target`).
struct Messages<'a> {
    base: usize,
    out: &'a mut Vec<(usize, String)>,
}

impl Messages<'_> {
    fn put(&mut self, target: usize, message: String) {
        self.out.push((self.base + target, message));
    }
}

/// A native check over all targets: the tree is evaluated node by node, each node in one loop
/// over the shared columns; only failing points are looked at one by one (for the message).
fn run_native(
    check: &Compiled,
    tree: &Tree,
    ctx: &SeriesCtx,
    value: &[f64],
    statuses: &mut [CheckStatus],
    messages: &mut Messages,
) {
    let cols = point_columns(ctx, &tree.terms);
    let pass = tree.cond.column(&cols, value).into_vec(value.len());
    let skip_missing = !check.refs.missing_rule;
    for (j, (status, pass)) in statuses.iter_mut().zip(pass).enumerate() {
        if skip_missing && value[j].is_nan() {
            *status = CheckStatus::Skipped;
            messages.put(j, MISSING.to_string());
        } else if !pass {
            *status = CheckStatus::Fail;
            let env = PointEnv {
                cols: &cols,
                value,
                j,
            };
            messages.put(j, fail_message(check, &env));
        }
    }
}

/// A check in rhai, one evaluation per target.
fn run_rhai(
    check: &Compiled,
    ctx: &SeriesCtx,
    value: &[f64],
    statuses: &mut [CheckStatus],
    messages: &mut Messages,
) {
    let r = check.refs;
    let mut scope = Scope::new();
    if r.value {
        scope.push("value", 0.0_f64);
    }
    if r.missing {
        scope.push("missing", false);
    }
    if r.time {
        scope.push("time", String::new());
    }
    let mut cols: Option<Vec<Rc<Vec<f64>>>> = None;
    for (j, status) in statuses.iter_mut().enumerate() {
        let v = value[j];
        if v.is_nan() && !r.missing_rule {
            *status = CheckStatus::Skipped;
            messages.put(j, MISSING.to_string());
            continue;
        }
        ctx.cur.set(j);
        if r.value {
            scope.set_value("value", v);
        }
        if r.missing {
            scope.set_value("missing", v.is_nan());
        }
        if r.time {
            scope.set_value("time", ctx.time_text(ctx.targets.get(j)));
        }
        let (s, message) = eval_rhai(check, &mut scope);
        *status = s;
        match (s, message) {
            (CheckStatus::Fail, _) => {
                let terms = check.tree.as_ref().map_or(&check.terms, |t| &t.terms);
                let cols = cols.get_or_insert_with(|| point_columns(ctx, terms));
                let env = PointEnv { cols, value, j };
                messages.put(j, fail_message(check, &env));
            }
            (_, Some(m)) => messages.put(j, m),
            _ => {}
        }
    }
}

fn contract_map(c: &ContractInput) -> rhai::Map {
    let mut m = rhai::Map::new();
    let date = |d: NaiveDate| Dynamic::from(d.format("%Y-%m-%d").to_string());
    m.insert("tenor".into(), Dynamic::from(c.tenor.clone()));
    m.insert("relative".into(), Dynamic::from(c.relative.clone()));
    m.insert("absolute".into(), Dynamic::from(c.absolute.clone()));
    m.insert("start".into(), date(c.start));
    m.insert("end".into(), date(c.end));
    m.insert("expiry".into(), date(c.expiry));
    m
}

/// 48 hourly observations around 100 with no repeats; the target is the last one and sees all
/// the others.
fn sample_series() -> (SeriesInput, usize) {
    const HOUR: i64 = 3_600_000;
    let start = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let n = 48;
    let series = SeriesInput {
        times: (0..n).map(|i| start + i * HOUR).collect(),
        values: (0..n)
            .map(|i| Some(100.0 + ((i * 7) % 11) as f64 * 0.5 + i as f64 * 0.01))
            .collect(),
        step_ms: Some(HOUR),
    };
    (series, n as usize - 1)
}

/// A 3-contract monthly curve on 2024-03-01 and two previous curves.
fn sample_curve() -> (CurveInput, Vec<CurveInput>) {
    let date = |m, d| NaiveDate::from_ymd_opt(2024, m, d).unwrap_or_default();
    let curve = sample_month_curve(date(3, 1), 40.0);
    let history = vec![
        sample_month_curve(date(2, 29), 39.5),
        sample_month_curve(date(2, 28), 39.0),
    ];
    (curve, history)
}

fn sample_month_curve(ondate: NaiveDate, base: f64) -> CurveInput {
    use crate::query::period::{PeriodUnit, RelativePeriod};
    let contracts = (1..=3u32)
        .filter_map(|index| {
            let rel = RelativePeriod {
                unit: PeriodUnit::Month,
                index,
            };
            let abs = rel.at(ondate).ok()?;
            Some(ContractInput {
                tenor: rel.to_string(),
                relative: rel.to_string(),
                absolute: abs.to_string(),
                value: Some(base + f64::from(index)),
                start: abs.start(),
                end: abs.end(),
                expiry: abs.delivery().expiry,
            })
        })
        .collect();
    CurveInput { ondate, contracts }
}
