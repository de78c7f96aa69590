//! Point checks over the targets of a series: the statistic columns computed once and shared,
//! each native check evaluated column by column, each other check in rhai point by point.

use super::compile::{Compiled, CompiledChecks};
use super::eval::{eval_rhai, fail_message, MISSING};
use super::lack::not_a_number;
use super::native::{Env, PointStat, Term, TermKind, Tree};
use super::series::{self, SeriesCtx};
use super::{functions, CheckScope, CheckStatus, SeriesInput};
#[cfg(any(test, feature = "internals"))]
use super::{CheckOutcome, PointOutcome};
use rhai::Scope;
use std::rc::Rc;
use std::time::Instant;

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
    #[cfg(any(test, feature = "internals"))]
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
    ctx: &'a SeriesCtx,
    terms: &'a [Term],
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
    fn missing(&self) -> bool {
        self.ctx.missing_at(self.j)
    }
    fn text(&self) -> Option<&str> {
        self.ctx.text_at(self.j)
    }
    fn lacking(&self, term: usize) -> bool {
        match self.terms.get(term).map(|t| &t.kind) {
            Some(&TermKind::Point(stat)) => {
                self.cols[term][self.j].is_nan() && self.ctx.lack(stat, self.j).is_some()
            }
            _ => false,
        }
    }
}

impl PointEnv<'_> {
    /// The message of the term that lacks history here.
    fn lack_message(&self, term: usize) -> String {
        let t = &self.terms[term];
        match t.kind {
            TermKind::Point(stat) => self
                .ctx
                .lack(stat, self.j)
                .map(|lack| self.ctx.lack_message(lack, &t.text, self.j))
                .unwrap_or_default(),
            _ => String::new(),
        }
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

impl CompiledChecks {
    /// Point checks over the observations at `targets` (indices into `series`), each reading
    /// the earlier observations of `series` its functions need (the caller includes at least
    /// [`Self::point_history`] of them before the first target).
    #[cfg(any(test, feature = "internals"))]
    pub fn run_series(&self, series: &SeriesInput, targets: &[usize]) -> Vec<PointOutcome> {
        self.evaluate_series(series, targets).into_outcomes()
    }

    /// [`Self::run_series`] without the per-point result objects (what `run_series` builds its
    /// answer from).
    pub fn evaluate_series(&self, series: &SeriesInput, targets: &[usize]) -> SeriesEvaluation {
        self.evaluate(series, targets, false)
    }

    pub(super) fn evaluate(
        &self,
        series: &SeriesInput,
        targets: &[usize],
        force_rhai: bool,
    ) -> SeriesEvaluation {
        let checks: Vec<&Compiled> = self.of_scope(CheckScope::Point).collect();
        let ctx = Rc::new(SeriesCtx::new(series, targets));
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
/// over the shared columns; only the points that fail, hold text, or where a term has no number
/// are looked at one by one (for the message, or to find the term that lacks history).
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
    // Terms that may lack history (NaN where they do).
    let history: Vec<usize> = (0..tree.terms.len())
        .filter(|&i| tree.terms[i].kind != TermKind::Point(PointStat::Value))
        .collect();
    for (j, (status, pass)) in statuses.iter_mut().zip(pass).enumerate() {
        let text = ctx.text_at(j);
        if skip_missing && value[j].is_nan() && text.is_none() {
            *status = CheckStatus::Skipped;
            messages.put(j, MISSING.to_string());
            continue;
        }
        if let (Some(text), true) = (text, check.needs_number) {
            *status = CheckStatus::Fail;
            messages.put(j, not_a_number(text));
            continue;
        }
        let env = PointEnv {
            ctx,
            terms: &tree.terms,
            cols: &cols,
            value,
            j,
        };
        let one_by_one = text.is_some() || history.iter().any(|&i| cols[i][j].is_nan());
        let pass = if one_by_one {
            match tree.cond.try_eval(&env) {
                Ok(pass) => pass,
                Err(term) => {
                    *status = CheckStatus::Skipped;
                    messages.put(j, env.lack_message(term));
                    continue;
                }
            }
        } else {
            pass
        };
        if !pass {
            *status = CheckStatus::Fail;
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
    let terms = check.tree.as_ref().map_or(&check.terms, |t| &t.terms);
    let mut cols: Option<Vec<Rc<Vec<f64>>>> = None;
    for (j, status) in statuses.iter_mut().enumerate() {
        let v = value[j];
        let text = ctx.text_at(j);
        let missing = v.is_nan() && text.is_none();
        if missing && !r.missing_rule {
            *status = CheckStatus::Skipped;
            messages.put(j, MISSING.to_string());
            continue;
        }
        if let (Some(text), true) = (text, check.needs_number) {
            *status = CheckStatus::Fail;
            messages.put(j, not_a_number(text));
            continue;
        }
        ctx.cur.set(j);
        if r.value {
            match text {
                Some(text) => scope.set_value("value", text.to_string()),
                None => scope.set_value("value", v),
            };
        }
        if r.missing {
            scope.set_value("missing", missing);
        }
        if r.time {
            scope.set_value("time", ctx.time_text(ctx.targets.get(j)));
        }
        let (s, message) = eval_rhai(check, &mut scope);
        *status = s;
        match (s, message) {
            (CheckStatus::Fail, None) => {
                let cols = cols.get_or_insert_with(|| point_columns(ctx, terms));
                let env = PointEnv {
                    ctx,
                    terms,
                    cols,
                    value,
                    j,
                };
                messages.put(j, fail_message(check, &env));
            }
            (_, Some(m)) => messages.put(j, m),
            _ => {}
        }
    }
}
