//! The recorder behind `/metrics`: what the `metrics` facade records (counters, gauges and
//! histograms of fixed buckets, by name and labels) kept in atomics and printed in the Prometheus
//! text exposition format (version 0.0.4), each family with the `# HELP` line of its description
//! (`metrics::describe_counter!` and the like; the platform's are in [`crate::metric_names`]).
//!
//! Made here rather than taken from `metrics-exporter-prometheus`: that recorder times its
//! summaries with `quanta`, whose clock calibrates the processor's counter when first made, a
//! busy loop of about a millisecond that can run for 200 ms on a busy machine, and was run
//! before the server's first answer. This one keeps only what `/metrics` prints.

use metrics::{
    Counter, Gauge, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Counters, gauges and histograms by key; each series kept as long as the process.
#[derive(Debug)]
pub struct Prometheus {
    /// Upper bounds of the histograms' buckets, ascending (`+Inf` is added when printed).
    bounds: Arc<[f64]>,
    /// The description of each family by name: its `# HELP` line.
    help: RwLock<HashMap<String, String>>,
    counters: Series<AtomicU64>,
    gauges: Series<AtomicU64>,
    histograms: Series<Buckets>,
}

/// One kind of series by key.
type Series<T> = RwLock<HashMap<Key, Arc<T>>>;

impl Prometheus {
    /// A recorder whose histograms count into buckets with these upper bounds (sorted here;
    /// bounds that are not finite are dropped).
    pub fn new(bounds: &[f64]) -> Prometheus {
        let mut bounds: Vec<f64> = bounds.iter().copied().filter(|b| b.is_finite()).collect();
        bounds.sort_by(f64::total_cmp);
        bounds.dedup();
        Prometheus {
            bounds: bounds.into(),
            help: RwLock::default(),
            counters: RwLock::default(),
            gauges: RwLock::default(),
            histograms: RwLock::default(),
        }
    }

    /// Every series in the text exposition format: the families by name, each with its
    /// `# HELP` line (when described) and its `# TYPE` line, its series sorted by labels.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let help = self.help.read().unwrap_or_else(|e| e.into_inner());
        let counters = sorted(&self.counters);
        for (i, (key, n)) in counters.iter().enumerate() {
            family(&mut out, &help, &counters, i, "counter");
            sample(&mut out, key, "", None, n.load(Ordering::Relaxed) as f64);
        }
        let gauges = sorted(&self.gauges);
        for (i, (key, v)) in gauges.iter().enumerate() {
            family(&mut out, &help, &gauges, i, "gauge");
            let value = f64::from_bits(v.load(Ordering::Relaxed));
            sample(&mut out, key, "", None, value);
        }
        let histograms = sorted(&self.histograms);
        for (i, (key, h)) in histograms.iter().enumerate() {
            family(&mut out, &help, &histograms, i, "histogram");
            // The counts are read once: the buckets printed are cumulative and end with the
            // count, whatever is recorded meanwhile.
            let mut seen = 0u64;
            for (b, c) in h.counts.iter().enumerate() {
                seen += c.load(Ordering::Relaxed);
                let le = self
                    .bounds
                    .get(b)
                    .map_or("+Inf".to_string(), |b| number(*b));
                sample(&mut out, key, "_bucket", Some(&le), seen as f64);
            }
            let sum = f64::from_bits(h.sum.load(Ordering::Relaxed));
            sample(&mut out, key, "_sum", None, sum);
            sample(&mut out, key, "_count", None, seen as f64);
        }
        out
    }

    /// The series of `key` in `map`, made on first use.
    fn series<T>(map: &Series<T>, key: &Key, make: impl FnOnce() -> T) -> Arc<T> {
        if let Some(found) = map.read().unwrap_or_else(|e| e.into_inner()).get(key) {
            return found.clone();
        }
        let mut map = map.write().unwrap_or_else(|e| e.into_inner());
        map.entry(key.clone())
            .or_insert_with(|| Arc::new(make()))
            .clone()
    }
}

/// The series of `map` sorted by name, then labels.
fn sorted<T>(map: &Series<T>) -> Vec<(Key, Arc<T>)> {
    let map = map.read().unwrap_or_else(|e| e.into_inner());
    let mut all: Vec<(Key, Arc<T>)> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    drop(map);
    let labels = |k: &Key| -> Vec<(String, String)> {
        k.labels()
            .map(|l| (l.key().to_string(), l.value().to_string()))
            .collect()
    };
    all.sort_by(|(a, _), (b, _)| {
        a.name()
            .cmp(b.name())
            .then_with(|| labels(a).cmp(&labels(b)))
    });
    all
}

/// The `# HELP` line (when `help` describes it) and the `# TYPE` line of the family of `all[i]`,
/// where it is the first series of its name (`all` sorted by name).
fn family<T>(
    out: &mut String,
    help: &HashMap<String, String>,
    all: &[(Key, Arc<T>)],
    i: usize,
    kind: &str,
) {
    let name = all[i].0.name();
    if i == 0 || all[i - 1].0.name() != name {
        if let Some(text) = help.get(name) {
            out.push_str("# HELP ");
            out.push_str(name);
            out.push(' ');
            // The format escapes backslashes and line feeds in a description.
            for c in text.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c => out.push(c),
                }
            }
            out.push('\n');
        }
        out.push_str("# TYPE ");
        out.push_str(name);
        out.push(' ');
        out.push_str(kind);
        out.push('\n');
    }
}

/// One sample line: `name{labels} value`.
fn sample(out: &mut String, key: &Key, suffix: &str, le: Option<&str>, value: f64) {
    out.push_str(key.name());
    out.push_str(suffix);
    let labels: Vec<(&str, &str)> = key
        .labels()
        .map(|l| (l.key(), l.value()))
        .chain(le.map(|le| ("le", le)))
        .collect();
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(k);
            out.push_str("=\"");
            for c in v.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    '\n' => out.push_str("\\n"),
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        out.push('}');
    }
    out.push(' ');
    out.push_str(&number(value));
    out.push('\n');
}

/// A sample value as Prometheus reads it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        // Rust prints the shortest text that reads back as the same number.
        format!("{v}")
    }
}

/// A histogram: a count per bucket (the last one past every bound), and the sum of the values.
#[derive(Debug)]
struct Buckets {
    bounds: Arc<[f64]>,
    counts: Box<[AtomicU64]>,
    sum: AtomicU64,
}

impl HistogramFn for Buckets {
    fn record(&self, value: f64) {
        // The first bucket whose bound is at least the value (`le`), else the last.
        let i = self.bounds.partition_point(|b| *b < value);
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        let _ = self
            .sum
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                Some((f64::from_bits(bits) + value).to_bits())
            });
    }
}

impl Prometheus {
    /// Keeps `description` as the `# HELP` text of the family `name` (the last one given).
    fn describe(&self, name: KeyName, description: SharedString) {
        let mut help = self.help.write().unwrap_or_else(|e| e.into_inner());
        help.insert(name.as_str().to_string(), description.into_owned());
    }
}

/// The unit is not printed: a family's name carries it (`_seconds`, `_bytes`).
impl Recorder for Prometheus {
    fn describe_counter(&self, name: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(name, description);
    }
    fn describe_gauge(&self, name: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(name, description);
    }
    fn describe_histogram(&self, name: KeyName, _: Option<Unit>, description: SharedString) {
        self.describe(name, description);
    }

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(Self::series(&self.counters, key, AtomicU64::default))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(Self::series(&self.gauges, key, || {
            AtomicU64::new(0f64.to_bits())
        }))
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        let bounds = self.bounds.clone();
        Histogram::from_arc(Self::series(&self.histograms, key, move || Buckets {
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            bounds,
            sum: AtomicU64::new(0f64.to_bits()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    /// A value equal to a bound counts in that bound's bucket (`le`), buckets are cumulative,
    /// `+Inf` holds them all, and the sum and count follow.
    #[test]
    fn histograms_count_into_cumulative_buckets_up_to_and_including_each_bound() {
        let recorder = Prometheus::new(&[1.0, 0.5, 2.5, f64::INFINITY]);
        metrics::with_local_recorder(&recorder, || {
            for v in [0.25, 0.5, 0.75, 1.0, 3.0, 2.5] {
                metrics::histogram!("t_seconds", "kind" => "a").record(v);
            }
        });
        assert_eq!(
            lines(&recorder.render()),
            [
                "# TYPE t_seconds histogram",
                r#"t_seconds_bucket{kind="a",le="0.5"} 2"#,
                r#"t_seconds_bucket{kind="a",le="1"} 4"#,
                r#"t_seconds_bucket{kind="a",le="2.5"} 5"#,
                r#"t_seconds_bucket{kind="a",le="+Inf"} 6"#,
                r#"t_seconds_sum{kind="a"} 8"#,
                r#"t_seconds_count{kind="a"} 6"#,
            ]
        );
    }

    /// Each family has one `# TYPE` line, its series sorted by labels; counters add, gauges
    /// keep the last value set; label values are escaped.
    #[test]
    fn families_print_once_with_their_series_sorted_and_labels_escaped() {
        let recorder = Prometheus::new(&[]);
        metrics::with_local_recorder(&recorder, || {
            metrics::counter!("b_total", "k" => "y").increment(2);
            metrics::counter!("b_total", "k" => "x").increment(1);
            metrics::counter!("a_total").increment(5);
            metrics::counter!("b_total", "k" => "y").increment(3);
            metrics::gauge!("g", "path" => "a\"b\\c\nd").set(1.5);
            metrics::gauge!("g", "path" => "a\"b\\c\nd").set(-0.25);
        });
        assert_eq!(
            lines(&recorder.render()),
            [
                "# TYPE a_total counter",
                "a_total 5",
                "# TYPE b_total counter",
                r#"b_total{k="x"} 1"#,
                r#"b_total{k="y"} 5"#,
                "# TYPE g gauge",
                r#"g{path="a\"b\\c\nd"} -0.25"#,
            ]
        );
    }

    /// A described family prints its `# HELP` line (backslashes and line feeds escaped) once,
    /// before its `# TYPE` line, whatever its kind; the last description given stands. A family
    /// never described has no `# HELP` line (the lint of `promtool check metrics` reports it).
    #[test]
    fn described_families_print_their_help_before_their_type() {
        let recorder = Prometheus::new(&[1.0]);
        metrics::with_local_recorder(&recorder, || {
            metrics::describe_counter!("c_total", "Things.");
            metrics::describe_counter!("c_total", "Things done.");
            metrics::describe_gauge!("g", "A path\nin C:\\dir.");
            metrics::describe_histogram!("h_seconds", "How long things took.");
            metrics::counter!("c_total", "k" => "b").increment(1);
            metrics::counter!("c_total", "k" => "a").increment(2);
            metrics::counter!("undescribed_total").increment(1);
            metrics::gauge!("g").set(1.0);
            metrics::histogram!("h_seconds").record(0.5);
        });
        assert_eq!(
            lines(&recorder.render()),
            [
                "# HELP c_total Things done.",
                "# TYPE c_total counter",
                r#"c_total{k="a"} 2"#,
                r#"c_total{k="b"} 1"#,
                "# TYPE undescribed_total counter",
                "undescribed_total 1",
                r"# HELP g A path\nin C:\\dir.",
                "# TYPE g gauge",
                "g 1",
                "# HELP h_seconds How long things took.",
                "# TYPE h_seconds histogram",
                r#"h_seconds_bucket{le="1"} 1"#,
                r#"h_seconds_bucket{le="+Inf"} 1"#,
                "h_seconds_sum 0.5",
                "h_seconds_count 1",
            ]
        );
    }

    #[test]
    fn an_empty_recorder_prints_nothing() {
        assert_eq!(Prometheus::new(&[1.0]).render(), "");
    }
}
