//! Statistics and rounding: quantiles, median and MAD, Tukey's fences, runs of one value, and
//! numbers rounded outward and written as expression literals or for sentences.

/// The `q` quantile (0..=1) of sorted values, linear between ranks; NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = pos.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// The `q` quantile of sorted values at the rank below (never between two values, so one
/// outlier above it cannot pull it up); NaN when empty.
pub fn quantile_lower(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[(q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64).floor() as usize]
}

/// The `q` quantile of sorted whole numbers by nearest rank (a value that occurred).
pub fn quantile_rank(sorted: &[usize], q: f64) -> Option<usize> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Sorts finite values ascending (NaN dropped).
pub fn sorted(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The median and the median absolute deviation of values (NaN when empty).
pub fn median_mad(values: &[f64]) -> (f64, f64) {
    let s = sorted(values.iter().copied());
    let median = quantile(&s, 0.5);
    let dev = sorted(s.iter().map(|x| (x - median).abs()));
    (median, quantile(&dev, 0.5))
}

/// The rounding step giving two significant digits of `width` (a power of ten).
pub fn step_for(width: f64) -> f64 {
    let w = width.abs();
    if !w.is_finite() || w == 0.0 {
        return 1.0;
    }
    10f64.powi(w.log10().floor() as i32 - 1)
}

/// Decimals needed to write multiples of `step`.
fn decimals_of(step: f64) -> usize {
    (-step.log10().round()).max(0.0) as usize
}

/// `x` rounded to a multiple of `step`, down or up (outward rounding of a bound).
pub fn round_to(x: f64, step: f64, up: bool) -> f64 {
    // A tiny tolerance keeps 0.30000000000000004 from becoming 0.31.
    let r = x / step;
    let n = if up {
        (r - 1e-9).ceil()
    } else {
        (r + 1e-9).floor()
    };
    let d = decimals_of(step) as i32;
    let scale = 10f64.powi(d);
    (n * step * scale).round() / scale
}

/// A positive limit rounded up to two significant digits.
pub fn round_up_sig(x: f64) -> f64 {
    round_to(x, step_for(x), true)
}

/// A number as an expression literal: whole numbers without decimals, others with the few
/// decimals they need.
pub fn literal(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let mut s = format!("{x:.10}");
    while s.ends_with('0') {
        s.pop();
    }
    s
}

/// A number for a sentence: four significant digits.
pub fn short(x: f64) -> String {
    if !x.is_finite() || x == 0.0 {
        return literal(x);
    }
    let step = 10f64.powi(x.abs().log10().floor() as i32 - 3);
    let d = decimals_of(step) as i32;
    let scale = 10f64.powi(d);
    literal(((x / step).round() * step * scale).round() / scale)
}

/// A move for a sentence: a percentage when relative.
pub(crate) fn amount(x: f64, relative: bool) -> String {
    if relative {
        format!("{}%", short(x * 100.0))
    } else {
        short(x)
    }
}

/// A float literal (always with a decimal point).
pub fn float_literal(x: f64) -> String {
    let s = literal(x);
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

/// Tukey's far fences of sorted values, rounded outward; None when the quartiles coincide.
pub fn far_fences(sorted: &[f64]) -> Option<(f64, f64)> {
    let (q1, q3) = (quantile(sorted, 0.25), quantile(sorted, 0.75));
    let iqr = q3 - q1;
    if iqr.is_nan() || iqr <= 0.0 {
        return None;
    }
    let (lo, hi) = (q1 - 3.0 * iqr, q3 + 3.0 * iqr);
    let step = step_for(hi - lo);
    Some((round_to(lo, step, false), round_to(hi, step, true)))
}

/// Lengths of the runs of one repeated value (missing values end a run).
pub fn run_lengths(values: &[Option<f64>]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut cur: Option<(f64, usize)> = None;
    for v in values {
        match (v, cur) {
            (Some(x), Some((y, n))) if *x == y => cur = Some((y, n + 1)),
            (Some(x), c) => {
                if let Some((_, n)) = c {
                    out.push(n);
                }
                cur = Some((*x, 1));
            }
            (None, c) => {
                if let Some((_, n)) = c {
                    out.push(n);
                }
                cur = None;
            }
        }
    }
    if let Some((_, n)) = cur {
        out.push(n);
    }
    out
}

/// A number as the answers show it: to six decimals, none when it is not finite.
pub(crate) fn rounded(x: f64) -> Option<f64> {
    x.is_finite().then(|| (x * 1e6).round() / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quantiles_interpolate_and_rank() {
        let s = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&s, 0.5), 3.0);
        assert_eq!(quantile(&s, 0.25), 2.0);
        assert_eq!(quantile(&s, 0.9), 4.6);
        assert!(quantile(&[], 0.5).is_nan());
        assert_eq!(
            quantile_rank(&[1, 1, 1, 1, 1, 1, 1, 1, 1, 8], 0.95),
            Some(8)
        );
        let mut runs = vec![1; 40];
        runs.push(8);
        assert_eq!(
            quantile_rank(&runs, 0.95),
            Some(1),
            "one long run is not the 95% quantile"
        );
        assert_eq!(quantile_rank(&[], 0.5), None);
    }

    #[test]
    fn median_and_mad_ignore_one_outlier() {
        let (median, mad) = median_mad(&[10.0, 11.0, 9.0, 10.0, 1000.0]);
        assert_eq!((median, mad), (10.0, 1.0));
    }

    #[test]
    fn rounding_goes_outward_to_two_significant_digits() {
        assert_eq!(step_for(37.0), 1.0);
        assert_eq!(step_for(0.042), 0.001);
        assert_eq!(round_to(12.34, 1.0, false), 12.0);
        assert_eq!(round_to(12.34, 1.0, true), 13.0);
        assert_eq!(round_to(-3.21, 0.1, false), -3.3);
        assert_eq!(round_to(0.3, 0.1, true), 0.3, "an exact multiple stays");
        assert_eq!(round_up_sig(0.04312), 0.044);
        assert_eq!(round_up_sig(1234.0), 1300.0);
        assert_eq!(literal(70.0), "70");
        assert_eq!(literal(0.044), "0.044");
        assert_eq!(float_literal(2.0), "2.0");
        assert_eq!(short(0.0305551), "0.03056");
        assert_eq!(short(51.342763), "51.34");
        assert_eq!(amount(0.0305551, true), "3.056%");
    }

    #[test]
    fn far_fences_round_outward_and_need_a_spread() {
        let s = sorted((0..100).map(|i| 50.0 + f64::from(i % 10)));
        let (lo, hi) = far_fences(&s).unwrap();
        // Quartiles 52 and 57: fences 37 and 72, already whole.
        assert_eq!((lo, hi), (37.0, 72.0));
        assert!(far_fences(&[5.0; 10]).is_none());
    }

    #[test]
    fn runs_of_one_value() {
        let v = [
            Some(1.0),
            Some(1.0),
            Some(2.0),
            None,
            Some(2.0),
            Some(2.0),
            Some(2.0),
        ];
        assert_eq!(run_lengths(&v), vec![2, 1, 3]);
    }
}
