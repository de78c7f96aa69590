//! The built-in functions as rhai sees them, and the per-evaluation context they read.
//!
//! History functions never receive arrays: the runner puts the series (or the curve) and the
//! current target in a thread-local context for the duration of a run ([`enter`]), and
//! `lag(1)`, `mean(20)`, `prev_tenor(1)`... read the shared columns from there. The engine is
//! the sandboxed check profile of [`crate::script::engine`], built once per process, with
//! `OptimizationLevel::Simple` (never `Full`: it would call these functions at compile time).

use super::curve::CurveCtx;
use super::native::{self, CurveFlag, CurveStat, PointStat};
use super::series::SeriesCtx;
use crate::script::{self, Profile};
use rhai::{Engine, EvalAltResult, ImmutableString};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

type R<T> = Result<T, Box<EvalAltResult>>;

/// What the functions of one evaluation read.
pub(crate) enum Ctx {
    Series(Rc<SeriesCtx>),
    Curve(Rc<CurveCtx>),
}

thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// The context is set while this lives (and the previous one restored after).
pub(crate) struct Entered {
    prev: Option<Ctx>,
}

pub(crate) fn enter(ctx: Ctx) -> Entered {
    Entered {
        prev: CTX.with(|c| c.replace(Some(ctx))),
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let prev = self.prev.take();
        CTX.with(|c| *c.borrow_mut() = prev);
    }
}

fn with_series<T>(name: &str, f: impl FnOnce(&SeriesCtx) -> T) -> R<T> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Series(s)) => Ok(f(s)),
        _ => Err(format!("{name}() is only available in point checks").into()),
    })
}

fn point(name: &str, stat: PointStat) -> R<f64> {
    with_series(name, |s| s.at(stat))
}

fn curve_stat(name: &str, stat: CurveStat) -> R<f64> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Curve(k)) => k.stat(stat).ok_or_else(|| {
            format!("{name}() is only available in tenor checks (it reads one contract)").into()
        }),
        _ => Err(format!("{name}() is only available in curve and tenor checks").into()),
    })
}

fn curve_flag(name: &str, flag: &CurveFlag) -> R<bool> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Curve(k)) => Ok(k.flag(flag)),
        _ => Err(format!("{name}() is only available in curve and tenor checks").into()),
    })
}

fn is_missing() -> R<bool> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Series(s)) => Ok(s.value_now().is_nan()),
        Some(Ctx::Curve(k)) if k.cur.get().is_some() => Ok(k.value_now().is_nan()),
        _ => Err("is_missing() is only available in point and tenor checks".into()),
    })
}

fn count(name: &str, n: f64) -> R<usize> {
    native::count_arg(n).ok_or_else(|| {
        format!(
            "{name}(): the count must be a whole number >= 0, not {}",
            native::fmt_num(n)
        )
        .into()
    })
}

/// The check engine, built once per process.
pub(crate) fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut engine = script::engine(Profile::Check);
        register(&mut engine);
        engine
    })
}

/// The engine libraries (`scripts` of a configuration) are compiled with (statements and
/// function definitions allowed); their functions then run under the check engine's limits.
pub(crate) fn library_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| script::engine(Profile::Script))
}

/// A number argument: rhai gives `i64` or `f64`; each function is registered for both.
trait Number: Clone + Send + Sync + 'static {
    fn f(self) -> f64;
}
impl Number for f64 {
    fn f(self) -> f64 {
        self
    }
}
impl Number for i64 {
    fn f(self) -> f64 {
        self as f64
    }
}

fn reg1<A: Number, T: Clone + Send + Sync + 'static>(e: &mut Engine, name: &str, f: fn(f64) -> T) {
    e.register_fn(name, move |a: A| f(a.f()));
}

fn reg2<A: Number, B: Number, T: Clone + Send + Sync + 'static>(
    e: &mut Engine,
    name: &str,
    f: fn(f64, f64) -> T,
) {
    e.register_fn(name, move |a: A, b: B| f(a.f(), b.f()));
}

fn reg3<A: Number, B: Number, C: Number, T: Clone + Send + Sync + 'static>(
    e: &mut Engine,
    name: &str,
    f: fn(f64, f64, f64) -> T,
) {
    e.register_fn(name, move |a: A, b: B, c: C| f(a.f(), b.f(), c.f()));
}

fn num1<T: Clone + Send + Sync + 'static>(e: &mut Engine, name: &str, f: fn(f64) -> T) {
    reg1::<f64, T>(e, name, f);
    reg1::<i64, T>(e, name, f);
}

fn num2<T: Clone + Send + Sync + 'static>(e: &mut Engine, name: &str, f: fn(f64, f64) -> T) {
    reg2::<f64, f64, T>(e, name, f);
    reg2::<f64, i64, T>(e, name, f);
    reg2::<i64, f64, T>(e, name, f);
    reg2::<i64, i64, T>(e, name, f);
}

fn num3<T: Clone + Send + Sync + 'static>(e: &mut Engine, name: &str, f: fn(f64, f64, f64) -> T) {
    reg3::<f64, f64, f64, T>(e, name, f);
    reg3::<f64, f64, i64, T>(e, name, f);
    reg3::<f64, i64, f64, T>(e, name, f);
    reg3::<f64, i64, i64, T>(e, name, f);
    reg3::<i64, f64, f64, T>(e, name, f);
    reg3::<i64, f64, i64, T>(e, name, f);
    reg3::<i64, i64, f64, T>(e, name, f);
    reg3::<i64, i64, i64, T>(e, name, f);
}

/// A point statistic taking one count (`mean(n)`), registered for `i64` and `f64`.
fn point_count(e: &mut Engine, name: &'static str, make: fn(usize) -> PointStat) {
    e.register_fn(name, move |n: i64| -> R<f64> {
        point(name, make(count(name, n as f64)?))
    });
    e.register_fn(name, move |n: f64| -> R<f64> {
        point(name, make(count(name, n)?))
    });
}

/// A tenor number taking one count (`prev_tenor(k)`).
fn tenor_count(e: &mut Engine, name: &'static str, make: fn(usize) -> CurveStat) {
    e.register_fn(name, move |n: i64| -> R<f64> {
        curve_stat(name, make(count(name, n as f64)?))
    });
    e.register_fn(name, move |n: f64| -> R<f64> {
        curve_stat(name, make(count(name, n)?))
    });
}

fn quantile(name: &'static str, n: f64, q: f64) -> R<f64> {
    let n = count(name, n)?;
    let q = native::quantile_arg(q).ok_or_else(|| -> Box<EvalAltResult> {
        format!(
            "quantile(): q must be between 0 and 1, not {}",
            native::fmt_num(q)
        )
        .into()
    })?;
    point(name, PointStat::Quantile(n, q.to_bits()))
}

fn register(e: &mut Engine) {
    use CurveStat as C;
    use PointStat as P;

    // Value predicates and generic helpers (abs, min, max, round, sqrt, ln, exp, sign come
    // from rhai's packages).
    num3(e, "between", native::between);
    num1(e, "is_finite", f64::is_finite);
    num1(e, "is_zero", |x| x == 0.0);
    num1(e, "is_negative", native::is_negative);
    num2(e, "on_tick", native::on_tick);
    num1(e, "decimals", native::decimals);
    num3(e, "clamp", native::clamp);
    e.register_fn("is_missing", is_missing);

    // Point scope: history.
    point_count(e, "lag", P::Lag);
    e.register_fn("prev", || point("prev", P::Lag(1)));
    e.register_fn("change", || point("change", P::Change(1)));
    point_count(e, "change", P::Change);
    e.register_fn("pct_change", || point("pct_change", P::PctChange(1)));
    point_count(e, "pct_change", P::PctChange);
    point_count(e, "mean", P::Mean);
    point_count(e, "stdev", P::Stdev);
    point_count(e, "median", P::Median);
    point_count(e, "mad", P::Mad);
    point_count(e, "min_of", P::MinOf);
    point_count(e, "max_of", P::MaxOf);
    point_count(e, "count", P::Count);
    point_count(e, "zscore", P::Zscore);
    point_count(e, "robust_z", P::RobustZ);
    e.register_fn("quantile", |n: i64, q: f64| {
        quantile("quantile", n as f64, q)
    });
    e.register_fn("quantile", |n: i64, q: i64| {
        quantile("quantile", n as f64, q as f64)
    });
    e.register_fn("quantile", |n: f64, q: f64| quantile("quantile", n, q));
    e.register_fn("quantile", |n: f64, q: i64| {
        quantile("quantile", n, q as f64)
    });
    e.register_fn("run_length", || {
        point("run_length", P::RunLength(0f64.to_bits()))
    });
    e.register_fn("run_length", |tol: f64| {
        point("run_length", P::RunLength(tol.to_bits()))
    });
    e.register_fn("run_length", |tol: i64| {
        point("run_length", P::RunLength((tol as f64).to_bits()))
    });
    e.register_fn("gap", || point("gap", P::Gap));
    e.register_fn("spike", || point("spike", P::Spike));

    // Tenor scope.
    e.register_fn("prev_tenor", || curve_stat("prev_tenor", C::PrevTenor(1)));
    tenor_count(e, "prev_tenor", C::PrevTenor);
    e.register_fn("tenor_change", || {
        curve_stat("tenor_change", C::TenorChange(1))
    });
    tenor_count(e, "tenor_change", C::TenorChange);
    e.register_fn("tenor_pct_change", || {
        curve_stat("tenor_pct_change", C::TenorPctChange(1))
    });
    tenor_count(e, "tenor_pct_change", C::TenorPctChange);
    e.register_fn("excess_move", || curve_stat("excess_move", C::ExcessMove));
    e.register_fn("tenor_run_length", || {
        curve_stat("tenor_run_length", C::TenorRunLength(0f64.to_bits()))
    });
    e.register_fn("tenor_run_length", |tol: f64| {
        curve_stat("tenor_run_length", C::TenorRunLength(tol.to_bits()))
    });
    e.register_fn("tenor_run_length", |tol: i64| {
        curve_stat(
            "tenor_run_length",
            C::TenorRunLength((tol as f64).to_bits()),
        )
    });

    // Curve scope (also usable from tenor checks).
    e.register_fn("tenor_count", || curve_stat("tenor_count", C::TenorCount));
    e.register_fn("prev_tenor_count", || {
        curve_stat("prev_tenor_count", C::PrevTenorCount)
    });
    e.register_fn("unchanged_fraction", || {
        curve_stat("unchanged_fraction", C::UnchangedFraction)
    });
    e.register_fn("max_abs_change", || {
        curve_stat("max_abs_change", C::MaxAbsChange)
    });
    e.register_fn("sorted", || curve_flag("sorted", &CurveFlag::Sorted));
    e.register_fn("unique", || curve_flag("unique", &CurveFlag::Unique));
    e.register_fn("no_gaps", || curve_flag("no_gaps", &CurveFlag::NoGaps));
    e.register_fn("has_tenor", |code: ImmutableString| {
        curve_flag("has_tenor", &CurveFlag::HasTenor(code.to_string()))
    });
}
