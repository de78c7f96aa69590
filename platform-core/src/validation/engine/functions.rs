//! The built-in functions as rhai sees them, and the per-evaluation context they read.
//!
//! History functions never receive arrays: the runner puts the series (or the curve) and the
//! current target in a thread-local context for the duration of a run ([`enter`]), and
//! `lag(1)`, `mean(20)`, `prev_tenor(1)`... read the shared columns from there. The engine is
//! the sandboxed check profile of [`crate::script::engine`], built once per process, with
//! `OptimizationLevel::Simple` (never `Full`: it would call these functions at compile time).

use super::curve::CurveCtx;
use super::lack::{call_text, Stop};
use super::native::{self, CurveFlag, CurveStat, PointStat};
use super::series::SeriesCtx;
use super::{MAX_CURVE_HISTORY, MAX_HISTORY};
use crate::script::{self, Profile};
use rhai::{Engine, EvalAltResult, ImmutableString, RhaiNativeFunc};
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
    /// Why the last evaluation stopped, when a built-in stopped it.
    static STOP: RefCell<Option<Stop>> = const { RefCell::new(None) };
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

/// Why a built-in stopped the evaluation since the last call (taken, so the next evaluation
/// starts clean).
pub(crate) fn take_stop() -> Option<Stop> {
    STOP.with(|s| s.borrow_mut().take())
}

/// Stops the evaluation: the reason is kept for [`take_stop`], and rhai gets an error with its
/// message.
fn stop<T>(why: Stop) -> R<T> {
    let message = match &why {
        Stop::Lacking(m) | Stop::NotANumber(m) => m.clone(),
    };
    STOP.with(|s| *s.borrow_mut() = Some(why));
    Err(message.into())
}

fn with_series<T>(name: &str, f: impl FnOnce(&SeriesCtx) -> T) -> R<T> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Series(s)) => Ok(f(s)),
        _ => Err(format!("{name}() is only available in point checks").into()),
    })
}

/// A point statistic at the current target; `args` are the call's, for the message when it
/// has no number there.
fn point(name: &str, args: &[f64], stat: PointStat) -> R<f64> {
    with_series(name, |s| s.checked(stat, || call_text(name, args)))?.or_else(stop)
}

/// A curve number; `args` as for [`point`].
fn curve_stat(name: &str, args: &[f64], stat: CurveStat) -> R<f64> {
    let out = CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Curve(k)) => k.checked(stat, || call_text(name, args)).map_err(Some),
        _ => Err(None),
    });
    match out {
        Ok(Some(x)) => Ok(x),
        Ok(None) => Err(format!(
            "{name}() is only available in tenor checks (it reads one contract)"
        )
        .into()),
        Err(Some(why)) => stop(why),
        Err(None) => Err(format!("{name}() is only available in curve and tenor checks").into()),
    }
}

fn curve_flag(name: &str, flag: &CurveFlag) -> R<bool> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Curve(k)) => Ok(k.flag(flag)),
        _ => Err(format!("{name}() is only available in curve and tenor checks").into()),
    })
}

fn is_missing() -> R<bool> {
    CTX.with(|c| match &*c.borrow() {
        Some(Ctx::Series(s)) => Ok(s.missing_at(s.cur.get())),
        Some(Ctx::Curve(k)) if k.cur.get().is_some() => Ok(k.missing_now()),
        _ => Err("is_missing() is only available in point and tenor checks".into()),
    })
}

fn count(name: &str, n: f64, max: usize) -> R<usize> {
    native::count_arg(n, max).ok_or_else(|| {
        format!(
            "{name}(): the count must be a whole number from 0 to {max}, not {}",
            native::fmt_num(n)
        )
        .into()
    })
}

/// The check engine and the names of the functions registered on it, built once per process.
fn built() -> &'static (Engine, Vec<&'static str>) {
    static ENGINE: OnceLock<(Engine, Vec<&'static str>)> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut engine = script::engine(Profile::Check);
        let mut registry = Registry {
            engine: &mut engine,
            names: Vec::new(),
        };
        register(&mut registry);
        let names = registry.names;
        (engine, names)
    })
}

/// The check engine, built once per process.
pub(crate) fn engine() -> &'static Engine {
    &built().0
}

/// The names of the functions the platform registers for checks, in registration order (rhai's
/// own helpers, `abs`, `min`..., are not among them).
#[cfg(test)]
pub(crate) fn names() -> &'static [&'static str] {
    &built().1
}

/// The engine libraries (`scripts` of a configuration) are compiled with (statements and
/// function definitions allowed); their functions then run under the check engine's limits.
pub(crate) fn library_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| script::engine(Profile::Script))
}

/// Registers functions on the check engine and records their names: every built-in is
/// registered through it, so [`names`] is the list the documentation test reads.
struct Registry<'e> {
    engine: &'e mut Engine,
    names: Vec<&'static str>,
}

impl Registry<'_> {
    fn add<
        A: 'static,
        const N: usize,
        const X: bool,
        T: Clone + Send + Sync + 'static,
        const F: bool,
    >(
        &mut self,
        name: &'static str,
        func: impl RhaiNativeFunc<A, N, X, T, F> + Send + Sync + 'static,
    ) {
        self.engine.register_fn(name, func);
        if !self.names.contains(&name) {
            self.names.push(name);
        }
    }
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

fn reg1<A: Number, T: Clone + Send + Sync + 'static>(
    e: &mut Registry,
    name: &'static str,
    f: fn(f64) -> T,
) {
    e.add(name, move |a: A| f(a.f()));
}

fn reg2<A: Number, B: Number, T: Clone + Send + Sync + 'static>(
    e: &mut Registry,
    name: &'static str,
    f: fn(f64, f64) -> T,
) {
    e.add(name, move |a: A, b: B| f(a.f(), b.f()));
}

fn reg3<A: Number, B: Number, C: Number, T: Clone + Send + Sync + 'static>(
    e: &mut Registry,
    name: &'static str,
    f: fn(f64, f64, f64) -> T,
) {
    e.add(name, move |a: A, b: B, c: C| f(a.f(), b.f(), c.f()));
}

fn num1<T: Clone + Send + Sync + 'static>(e: &mut Registry, name: &'static str, f: fn(f64) -> T) {
    reg1::<f64, T>(e, name, f);
    reg1::<i64, T>(e, name, f);
}

fn num2<T: Clone + Send + Sync + 'static>(
    e: &mut Registry,
    name: &'static str,
    f: fn(f64, f64) -> T,
) {
    reg2::<f64, f64, T>(e, name, f);
    reg2::<f64, i64, T>(e, name, f);
    reg2::<i64, f64, T>(e, name, f);
    reg2::<i64, i64, T>(e, name, f);
}

fn num3<T: Clone + Send + Sync + 'static>(
    e: &mut Registry,
    name: &'static str,
    f: fn(f64, f64, f64) -> T,
) {
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
fn point_count(e: &mut Registry, name: &'static str, make: fn(usize) -> PointStat) {
    let call = move |n: f64| -> R<f64> { point(name, &[n], make(count(name, n, MAX_HISTORY)?)) };
    e.add(name, move |n: i64| call(n as f64));
    e.add(name, move |n: f64| call(n));
}

/// A point statistic without arguments (`gap()`).
fn point_none(e: &mut Registry, name: &'static str, stat: PointStat) {
    e.add(name, move || point(name, &[], stat));
}

/// A point statistic taking a tolerance (`run_length(tol)`).
fn point_tol(e: &mut Registry, name: &'static str, make: fn(u64) -> PointStat) {
    e.add(name, move |tol: f64| {
        point(name, &[tol], make(tol.to_bits()))
    });
    e.add(name, move |tol: i64| {
        point(name, &[tol as f64], make((tol as f64).to_bits()))
    });
}

/// A tenor number taking one count (`prev_tenor(k)`).
fn tenor_count(e: &mut Registry, name: &'static str, make: fn(usize) -> CurveStat) {
    let call = move |n: f64| -> R<f64> {
        curve_stat(name, &[n], make(count(name, n, MAX_CURVE_HISTORY)?))
    };
    e.add(name, move |n: i64| call(n as f64));
    e.add(name, move |n: f64| call(n));
}

/// A curve number without arguments (`tenor_count()`).
fn curve_none(e: &mut Registry, name: &'static str, stat: CurveStat) {
    e.add(name, move || curve_stat(name, &[], stat));
}

/// A curve property without arguments (`sorted()`).
fn flag_none(e: &mut Registry, name: &'static str, flag: CurveFlag) {
    e.add(name, move || curve_flag(name, &flag));
}

fn quantile(name: &'static str, n: f64, q: f64) -> R<f64> {
    let k = count(name, n, MAX_HISTORY)?;
    let q = native::quantile_arg(q).ok_or_else(|| -> Box<EvalAltResult> {
        format!(
            "quantile(): q must be between 0 and 1, not {}",
            native::fmt_num(q)
        )
        .into()
    })?;
    point(name, &[n, q], PointStat::Quantile(k, q.to_bits()))
}

fn register(e: &mut Registry) {
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
    e.add("is_missing", is_missing);

    // Point scope: history.
    point_count(e, "lag", P::Lag);
    point_none(e, "prev", P::Lag(1));
    point_none(e, "change", P::Change(1));
    point_count(e, "change", P::Change);
    point_none(e, "pct_change", P::PctChange(1));
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
    e.add("quantile", |n: i64, q: f64| {
        quantile("quantile", n as f64, q)
    });
    e.add("quantile", |n: i64, q: i64| {
        quantile("quantile", n as f64, q as f64)
    });
    e.add("quantile", |n: f64, q: f64| quantile("quantile", n, q));
    e.add("quantile", |n: f64, q: i64| {
        quantile("quantile", n, q as f64)
    });
    point_none(e, "run_length", P::RunLength(0f64.to_bits()));
    point_tol(e, "run_length", P::RunLength);
    point_none(e, "gap", P::Gap);
    point_none(e, "spike", P::Spike);

    // Tenor scope.
    curve_none(e, "prev_tenor", C::PrevTenor(1));
    tenor_count(e, "prev_tenor", C::PrevTenor);
    curve_none(e, "tenor_change", C::TenorChange(1));
    tenor_count(e, "tenor_change", C::TenorChange);
    curve_none(e, "tenor_pct_change", C::TenorPctChange(1));
    tenor_count(e, "tenor_pct_change", C::TenorPctChange);
    curve_none(e, "excess_move", C::ExcessMove);
    curve_none(e, "tenor_run_length", C::TenorRunLength(0f64.to_bits()));
    e.add("tenor_run_length", |tol: f64| {
        curve_stat("tenor_run_length", &[tol], C::TenorRunLength(tol.to_bits()))
    });
    e.add("tenor_run_length", |tol: i64| {
        let tol = tol as f64;
        curve_stat("tenor_run_length", &[tol], C::TenorRunLength(tol.to_bits()))
    });

    // Curve scope (also usable from tenor checks).
    curve_none(e, "tenor_count", C::TenorCount);
    curve_none(e, "prev_tenor_count", C::PrevTenorCount);
    curve_none(e, "unchanged_fraction", C::UnchangedFraction);
    curve_none(e, "max_abs_change", C::MaxAbsChange);
    flag_none(e, "sorted", CurveFlag::Sorted);
    flag_none(e, "unique", CurveFlag::Unique);
    flag_none(e, "no_gaps", CurveFlag::NoGaps);
    e.add("has_tenor", |code: ImmutableString| {
        curve_flag("has_tenor", &CurveFlag::HasTenor(code.to_string()))
    });
}
