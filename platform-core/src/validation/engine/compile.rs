//! Checks compiled once: each expression compiled by rhai on the sandboxed check engine (with
//! the configuration's libraries merged in), its native tree when it is in the native subset,
//! and the variables it reads; the trial run on built-in samples at save time.

use super::native::{Term, TermKind, Tree};
use super::{
    functions, parse, CheckDef, CheckScope, CheckStatus, ContractInput, CurveInput, Library,
    Options, SeriesInput, MAX_EXPRESSION_CHARS,
};
use crate::error::{Error, Result};
use chrono::NaiveDate;
use rhai::{Scope, AST};
use std::collections::HashSet;

/// Which variables an expression reads (only those are put in its scope).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Refs {
    /// `missing` or `is_missing`: the check runs on missing values.
    pub(super) missing_rule: bool,
    pub(super) missing: bool,
    pub(super) value: bool,
    pub(super) time: bool,
    pub(super) tenor: bool,
    pub(super) contract: bool,
    pub(super) ondate: bool,
    pub(super) contracts: bool,
    /// `value` is read as text (`value == "ok"`): a text value is given to the check.
    pub(super) text: bool,
}

impl Refs {
    fn of(src: &str) -> Self {
        let ids = parse::idents(src);
        let has = |s: &str| ids.contains(s);
        Self {
            text: has("value") && parse::reads_text(src),
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

pub(super) struct Compiled {
    pub(super) def: CheckDef,
    pub(super) ast: AST,
    /// The parsed form, when the expression is in the native subset.
    pub(super) tree: Option<Tree>,
    /// Terms shown in the failure message of an expression without a tree.
    pub(super) terms: Vec<Term>,
    /// Evaluated natively (point scope, tree present, native enabled).
    pub(super) native: bool,
    pub(super) refs: Refs,
    /// The check reads the value as a number (`value` outside a text comparison, or a built-in
    /// that reads it, as `change()`): at a text value it fails, `not a number`.
    pub(super) needs_number: bool,
    /// The history it needs: earlier observations (point checks) or previous curves.
    pub(super) history: usize,
}

impl Compiled {
    fn needs_number(refs: &Refs, terms: &[Term]) -> bool {
        (refs.value && !refs.text)
            || terms.iter().any(|t| match t.kind {
                TermKind::Point(s) => s != super::native::PointStat::Value && s.reads_value(),
                TermKind::Curve(s) => s != super::native::CurveStat::Value && s.reads_value(),
                TermKind::Flag(_) => false,
            })
    }
}

/// Compiled checks: compile once, run many times, from any thread.
pub struct CompiledChecks {
    pub(super) checks: Vec<Compiled>,
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

/// The most arguments one call (or function definition) in a check or a script library may
/// have. Calling a function that does not exist makes rhai try every combination of argument
/// types before it fails, 2^n of them: a hidden call with many arguments would cost
/// milliseconds a point.
pub const MAX_CALL_ARGUMENTS: usize = 8;

/// Refuses a source with a call of more than [`MAX_CALL_ARGUMENTS`] arguments.
fn check_call_widths(what: &str, src: &str) -> Result<()> {
    match parse::widest_call(src) {
        Some((name, n)) if n > MAX_CALL_ARGUMENTS => Err(Error::invalid_body(format!(
            "{what}: {name}(...) has {n} arguments; a call takes at most {MAX_CALL_ARGUMENTS}"
        ))),
        _ => Ok(()),
    }
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
        check_call_widths(&format!("script \"{}\"", lib.id), &lib.source)?;
        let ast = crate::script::compile_script(functions::library_engine(), &lib.id, &lib.source)?
            .clone_functions_only();
        shadowed.extend(ast.iter_functions().map(|f| f.name.to_string()));
        functions = Some(match functions {
            None => ast,
            Some(all) => all.merge(&ast),
        });
    }
    // What the libraries' own history calls need, per scope (a check calling one needs it).
    let library_need = |scope: CheckScope| {
        libs.iter()
            .map(|l| parse::need(&l.source, scope, &HashSet::new(), 0))
            .max()
            .unwrap_or(0)
    };
    let library_needs = [
        library_need(CheckScope::Point),
        library_need(CheckScope::Tenor),
    ];
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
        check_call_widths(&format!("check \"{id}\""), &def.expression)?;
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
        let refs = Refs::of(&def.expression);
        let needs_number =
            Compiled::needs_number(&refs, tree.as_ref().map_or(&terms, |t| &t.terms));
        let libraries = library_needs[usize::from(def.scope != CheckScope::Point)];
        checks.push(Compiled {
            native: options.native && def.scope == CheckScope::Point && tree.is_some(),
            history: parse::need(&def.expression, def.scope, &shadowed, libraries),
            def: def.clone(),
            ast,
            tree,
            terms,
            refs,
            needs_number,
        });
    }
    Ok(CompiledChecks { checks })
}

impl CompiledChecks {
    /// Evaluates each check once on a small built-in sample (a series for point checks, a
    /// 3-contract curve for tenor/curve checks): an unknown function, an unknown variable, a
    /// non-boolean result, a runtime error or a limit hit is Err(invalid_body naming the check
    /// and the reason). Used at config save time.
    pub fn trial(&self) -> Result<()> {
        let (series, target) = sample_series();
        let eval = self.evaluate(&series, &[target], true);
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

    /// Ids of the checks that run natively (for tests and stats).
    pub fn native_ids(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| c.native)
            .map(|c| c.def.id.clone())
            .collect()
    }

    /// The earlier observations the point checks need (the most any of them needs): a run
    /// reads that many before its first point.
    pub fn point_history(&self) -> usize {
        self.history_of(|s| s == CheckScope::Point)
    }

    /// The previous curves the tenor and curve checks need (the most any of them needs): a
    /// run reads that many before each curve.
    pub fn curve_history(&self) -> usize {
        self.history_of(|s| s != CheckScope::Point)
    }

    fn history_of(&self, scope: impl Fn(CheckScope) -> bool) -> usize {
        self.checks
            .iter()
            .filter(|c| scope(c.def.scope))
            .map(|c| c.history)
            .max()
            .unwrap_or(0)
    }

    /// The checks, in configuration order.
    #[cfg(feature = "internals")]
    pub fn defs(&self) -> impl Iterator<Item = &CheckDef> {
        self.checks.iter().map(|c| &c.def)
    }

    pub(super) fn of_scope(&self, scope: CheckScope) -> impl Iterator<Item = &Compiled> {
        self.checks.iter().filter(move |c| c.def.scope == scope)
    }
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
        ..SeriesInput::default()
    };
    (series, n as usize - 1)
}

/// A 3-contract monthly curve on 2024-03-01 and two previous curves.
pub(super) fn sample_curve() -> (CurveInput, Vec<CurveInput>) {
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
                text: None,
                start: abs.start(),
                end: abs.end(),
                expiry: abs.delivery().expiry,
            })
        })
        .collect();
    CurveInput { ondate, contracts }
}
