//! The scalar built-ins rhai registers too (`functions.rs` registers these very functions),
//! and rhai's comparison of two numbers.

use super::Op;

/// rhai's built-in comparison of two numbers when one is a float (rhai 1.27, checked build,
/// `func/builtin.rs`): relative to the larger magnitude (1 when a side is 0), with a tolerance
/// of `f64::EPSILON`. Consequences: `NaN == 0`, `NaN <= 0` and `NaN >= 0` are true (any other
/// comparison with NaN is false), every comparison with an infinity is false, and numbers
/// within one epsilon of each other are equal.
#[inline]
pub(crate) fn rhai_compare(op: Op, x: f64, y: f64) -> bool {
    let max = if x * y == 0.0 {
        1.0
    } else {
        x.abs().max(y.abs())
    };
    if max == 0.0 {
        return matches!(op, Op::Eq | Op::Ge | Op::Le);
    }
    match op {
        Op::Eq => (x - y).abs() / max <= f64::EPSILON,
        Op::Ne => (x - y).abs() / max > f64::EPSILON,
        Op::Gt => (x - y) / max > f64::EPSILON,
        Op::Ge => (x - y) / max > -f64::EPSILON,
        Op::Lt => (y - x) / max > f64::EPSILON,
        Op::Le => (y - x) / max > -f64::EPSILON,
    }
}

// ---- scalar built-ins shared with rhai (functions.rs registers these very functions) ----

/// rhai's `min` on floats.
#[inline]
pub(crate) fn rhai_min(x: f64, y: f64) -> f64 {
    if x <= y {
        x
    } else {
        y
    }
}

/// rhai's `max` on floats.
#[inline]
pub(crate) fn rhai_max(x: f64, y: f64) -> f64 {
    if x >= y {
        x
    } else {
        y
    }
}

/// `between(x, lo, hi)`: inclusive; false when any is NaN.
#[inline]
pub(crate) fn between(x: f64, lo: f64, hi: f64) -> bool {
    x >= lo && x <= hi
}

/// `is_negative(x)`.
#[inline]
pub(crate) fn is_negative(x: f64) -> bool {
    x < 0.0
}

/// `clamp(x, lo, hi)`; NaN stays NaN.
#[inline]
pub(crate) fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `on_tick(x, tick)`: x is a whole multiple of a positive tick (relative tolerance 1e-9).
pub(crate) fn on_tick(x: f64, tick: f64) -> bool {
    if !(x.is_finite() && tick.is_finite() && tick > 0.0) {
        return false;
    }
    let r = x / tick;
    (r - r.round()).abs() <= 1e-9 * r.abs().max(1.0)
}

/// `decimals(x)`: digits after the point in the shortest text of x (NaN when not finite).
pub(crate) fn decimals(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let text = format!("{x}");
    text.split_once('.').map_or(0.0, |(_, d)| d.len() as f64)
}

/// A count argument (`lag(k)`, `mean(n)`, `prev_tenor(k)`): a whole number from 0 to `max`
/// ([`MAX_HISTORY`](crate::validation::engine::MAX_HISTORY) observations for point functions,
/// [`MAX_CURVE_HISTORY`](crate::validation::engine::MAX_CURVE_HISTORY) curves for tenor ones).
pub(crate) fn count_arg(x: f64, max: usize) -> Option<usize> {
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= max as f64).then_some(x as usize)
}

/// A quantile argument: 0 <= q <= 1.
pub(crate) fn quantile_arg(q: f64) -> Option<f64> {
    (0.0..=1.0).contains(&q).then_some(q)
}
