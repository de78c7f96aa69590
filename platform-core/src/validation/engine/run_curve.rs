//! The checks of one curve: each tenor check on every contract, each curve check once, all in
//! rhai, reading the curve's statistics.

use super::compile::{Compiled, CompiledChecks};
use super::curve::CurveCtx;
use super::eval::{eval_rhai, fail_message, MISSING};
use super::lack::not_a_number;
use super::native::{Env, Term, TermKind};
use super::{
    functions, CheckOutcome, CheckScope, CheckStatus, ContractInput, CurveInput, CurveOutcome,
    TenorOutcome,
};
use chrono::NaiveDate;
use rhai::{Dynamic, Scope};
use std::rc::Rc;
use std::time::Instant;

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
    fn text(&self) -> Option<&str> {
        self.ctx.text_now()
    }
}

impl CompiledChecks {
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
                .push(self.curve_eval(check, &ctx, &mut scope, Value::Curve));
        }
        for (i, contract) in curve.contracts.iter().enumerate() {
            ctx.cur.set(Some(i));
            let value = contract.value.unwrap_or(f64::NAN);
            let text = contract.text.as_deref();
            let missing = value.is_nan() && text.is_none();
            let checks = self
                .of_scope(CheckScope::Tenor)
                .map(|check| {
                    let r = &check.refs;
                    let mut scope = Scope::new();
                    if r.value {
                        match text {
                            Some(text) => scope.push("value", text.to_string()),
                            None => scope.push("value", value),
                        };
                    }
                    if r.missing {
                        scope.push("missing", missing);
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
                    let at = match text {
                        Some(text) => Value::Text(text),
                        None if missing => Value::Missing,
                        None => Value::Number,
                    };
                    self.curve_eval(check, &ctx, &mut scope, at)
                })
                .collect();
            outcome.tenors.push(TenorOutcome {
                tenor: contract.tenor.clone(),
                checks,
            });
        }
        outcome
    }

    fn curve_eval(
        &self,
        check: &Compiled,
        ctx: &CurveCtx,
        scope: &mut Scope,
        value: Value,
    ) -> CheckOutcome {
        let start = Instant::now();
        let (status, message) = match value {
            Value::Missing if !check.refs.missing_rule => {
                (CheckStatus::Skipped, MISSING.to_string())
            }
            Value::Text(text) if check.needs_number => (CheckStatus::Fail, not_a_number(text)),
            _ => match eval_rhai(check, scope) {
                (CheckStatus::Fail, None) => {
                    let terms = match &check.tree {
                        Some(t) => &t.terms,
                        None => &check.terms,
                    };
                    let env = CurveEnv { ctx, terms };
                    (CheckStatus::Fail, fail_message(check, &env))
                }
                (status, message) => (status, message.unwrap_or_default()),
            },
        };
        CheckOutcome {
            id: check.def.id.clone(),
            status,
            message,
            micros: start.elapsed().as_secs_f64() * 1e6,
        }
    }
}

/// What a check runs on: the whole curve, or a contract's number, text or missing value.
#[derive(Clone, Copy)]
enum Value<'a> {
    Curve,
    Number,
    Text(&'a str),
    Missing,
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
