//! Charts of data reads, drawn as SVG on the server with plotters' SVG backend.
//!
//! A chart is made from what a data GET answers (its JSON), so `Accept: image/svg+xml` on any
//! data read draws exactly the data the JSON would carry (`_range`, `_version`, conversion and
//! the other parameters already applied). Two shapes:
//! - a time series (and a tenor's history, which reads as one): a line over time, the x axis in
//!   the series' time zone, points whose quality is `FAILED` marked in red; missing values break
//!   the line;
//! - a curve (one ondate): each contract a segment over its delivery period at its value, with a
//!   marker in the middle;
//! - a curve shaped into months (`_shape=MONTHLY`): the months as a step line, the quoted
//!   contracts as bars over their delivery behind it.
//!
//! More than one line may share a chart (an older version or another ondate overlaid, a
//! catalogue read with `_range`). Every chart carries its text alternative: a `<title>` and a
//! `<desc>` (title, range, last value, failed points) as the SVG's first children, named by
//! `aria-labelledby`; [`describe`] gives the same text to the pages that embed it.

mod draw;

use chrono::{DateTime, Duration, NaiveDate, TimeZone};
use chrono_tz::Tz;
use draw::draw;
use platform_core::api::time::coverage;
use platform_core::Result;
use serde_json::Value;

/// Default width of a chart, in pixels (the SVG scales; see its `viewBox`).
pub const WIDTH: u32 = 960;
/// Default height of a chart, in pixels.
pub const HEIGHT: u32 = 480;
/// Most points a line keeps; longer lines keep each bucket's first, lowest, highest and last
/// point (and every failed one), so a year of minutes still draws as its envelope.
const MAX_POINTS: usize = 2400;

/// One line of a chart: a data read's JSON and its name in the legend (the item's id when
/// empty).
#[derive(Debug, Clone)]
pub struct Line<'a> {
    /// What the legend calls it.
    pub label: String,
    /// The data read (a series, a tenor's history, a curve or a catalogue entry).
    pub item: &'a Value,
    /// Its values count things (records...): the value axis is marked in whole numbers.
    pub counts: bool,
}

impl<'a> Line<'a> {
    /// A line named by its item's id.
    pub fn of(item: &'a Value) -> Line<'a> {
        Line::named(String::new(), item)
    }

    /// A line named `label` in the legend.
    pub fn named(label: impl Into<String>, item: &'a Value) -> Line<'a> {
        Line {
            label: label.into(),
            item,
            counts: false,
        }
    }

    /// A line of counts named by its item's id: its axis marks whole numbers only.
    pub fn of_counts(item: &'a Value) -> Line<'a> {
        Line {
            counts: true,
            ..Line::of(item)
        }
    }
}

/// The text alternative of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    /// What the chart shows (the first line's item id, its currency and units).
    pub title: String,
    /// Its range, its last value, its failed points, what is overlaid.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Series,
    Curve,
    Shaped,
}

#[derive(Debug, Clone)]
struct Point {
    at: DateTime<Tz>,
    /// The end of a contract's delivery (exclusive); `None` for a series point.
    until: Option<DateTime<Tz>>,
    value: Option<f64>,
    failed: bool,
    /// An aggregate made of fewer observations than its period holds: how many, of how many
    /// (its status source `CALCULATED:<n> of <m>`).
    partial: Option<(usize, usize)>,
    /// The time as the read wrote it (or the contract's tenor).
    name: String,
}

#[derive(Debug, Clone)]
struct Drawn {
    /// The item's id (the chart's title when it comes first).
    id: String,
    label: String,
    shape: Shape,
    tz: Tz,
    unit: String,
    points: Vec<Point>,
    /// The quoted contracts of a shaped curve (drawn as bars).
    bars: Vec<Point>,
    /// Its values count things (see [`Line::counts`]).
    counts: bool,
}

impl Drawn {
    fn numeric(&self) -> impl Iterator<Item = (&Point, f64)> {
        self.points
            .iter()
            .filter_map(|p| p.value.filter(|v| v.is_finite()).map(|v| (p, v)))
    }
}

fn text<'v>(item: &'v Value, key: &str) -> Option<&'v str> {
    item.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// Reads a time as a data read writes it: a date (midnight in `tz`), or an instant with `Z` or
/// an offset.
fn parse_time(s: &str, tz: Tz) -> Option<DateTime<Tz>> {
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let midnight = d.and_hms_opt(0, 0, 0)?;
        return tz.from_local_datetime(&midnight).earliest();
    }
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&tz))
}

fn read_line(line: &Line<'_>) -> Drawn {
    let item = line.item;
    let tz: Tz = text(item, "timezone")
        .and_then(|z| z.parse().ok())
        .unwrap_or(Tz::UTC);
    let id = text(item, "_id").unwrap_or("data").to_string();
    let label = if line.label.is_empty() {
        id.clone()
    } else {
        line.label.clone()
    };
    let unit = match (text(item, "currency"), text(item, "units")) {
        (Some(c), Some(u)) => format!("{c}/{u}"),
        (Some(one), None) | (None, Some(one)) => one.to_string(),
        (None, None) => String::new(),
    };
    let failed = |p: &Value| {
        p.pointer("/status/quality")
            .and_then(Value::as_str)
            .is_some_and(|q| q.starts_with("FAILED"))
    };
    let partial = |p: &Value| {
        p.pointer("/status/source")
            .and_then(Value::as_str)
            .and_then(coverage)
    };
    let mut points = Vec::new();
    let delivered = |contracts: &Value| {
        let mut out = Vec::new();
        for c in contracts.as_array().into_iter().flatten() {
            let props = c.get("properties").unwrap_or(&Value::Null);
            let (Some(start), Some(end)) = (
                text(props, "start").and_then(|s| parse_time(s, tz)),
                text(props, "end").and_then(|s| parse_time(s, tz)),
            ) else {
                continue;
            };
            out.push(Point {
                at: start,
                until: Some(end + Duration::days(1)),
                value: c.get("value").and_then(Value::as_f64),
                failed: failed(c),
                partial: None,
                name: text(c, "tenor").unwrap_or_default().to_string(),
            });
        }
        out.sort_by_key(|p| (p.at, p.until));
        out
    };
    let mut bars = Vec::new();
    let shape = if let Some(contracts) = item.get("contracts").filter(|c| c.is_array()) {
        points = delivered(contracts);
        if text(item, "shape").is_some() {
            bars = delivered(item.get("quoted").unwrap_or(&Value::Null));
            Shape::Shaped
        } else {
            Shape::Curve
        }
    } else {
        for p in item
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(time) = text(p, "time") else {
                continue;
            };
            let Some(at) = parse_time(time, tz) else {
                continue;
            };
            points.push(Point {
                at,
                until: None,
                value: p.get("value").and_then(Value::as_f64),
                failed: failed(p),
                partial: partial(p),
                name: time.to_string(),
            });
        }
        Shape::Series
    };
    Drawn {
        id,
        label,
        shape,
        tz,
        unit,
        points,
        bars,
        counts: line.counts,
    }
}

/// Keeps at most about [`MAX_POINTS`] points: per bucket the first, lowest, highest and last,
/// and every failed point; missing values are kept where they break the line.
fn thin(points: Vec<Point>) -> Vec<Point> {
    if points.len() <= MAX_POINTS {
        return points;
    }
    let bucket = points.len().div_ceil(MAX_POINTS / 4);
    let mut out = Vec::with_capacity(MAX_POINTS + 16);
    for chunk in points.chunks(bucket) {
        let mut keep = vec![false; chunk.len()];
        keep[0] = true;
        keep[chunk.len() - 1] = true;
        let numeric = || {
            chunk
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.value.map(|v| (i, v)))
        };
        if let Some((i, _)) = numeric().min_by(|a, b| a.1.total_cmp(&b.1)) {
            keep[i] = true;
        }
        if let Some((i, _)) = numeric().max_by(|a, b| a.1.total_cmp(&b.1)) {
            keep[i] = true;
        }
        for (i, p) in chunk.iter().enumerate() {
            if p.failed || p.partial.is_some() || p.value.is_none() {
                keep[i] = true;
            }
        }
        out.extend(
            chunk
                .iter()
                .zip(keep)
                .filter(|(_, k)| *k)
                .map(|(p, _)| p.clone()),
        );
    }
    out
}

fn number(v: f64) -> String {
    if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-3) {
        format!("{v:.4e}")
    } else {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}

fn zone_name(tz: Tz) -> &'static str {
    tz.name()
}

/// The text alternative of the chart of these lines (see [`Description`]).
pub fn describe(lines: &[Line<'_>]) -> Description {
    let drawn: Vec<Drawn> = lines.iter().map(read_line).collect();
    describe_drawn(&drawn)
}

fn describe_drawn(drawn: &[Drawn]) -> Description {
    let Some(first) = drawn.first() else {
        return Description {
            title: "Chart".into(),
            text: "No data.".into(),
        };
    };
    let title = if first.unit.is_empty() {
        first.id.clone()
    } else {
        format!("{} ({})", first.id, first.unit)
    };
    let mut parts = Vec::new();
    for (i, d) in drawn.iter().enumerate() {
        let numeric: Vec<(&Point, f64)> = d.numeric().collect();
        let failed = d.points.iter().filter(|p| p.failed).count();
        let who = if i == 0 {
            String::new()
        } else {
            format!("Overlaid: {}: ", d.label)
        };
        let mut s = match (d.shape, d.points.first(), d.points.last()) {
            (_, None, _) | (_, _, None) => format!("{who}no observations in this range."),
            (Shape::Series, Some(a), Some(b)) => format!(
                "{who}time series from {} to {} ({}), {} observations",
                a.name,
                b.name,
                zone_name(d.tz),
                d.points.len()
            ),
            (Shape::Curve, Some(a), Some(b)) => format!(
                "{who}curve of {} contracts by delivery period, from {} to {}",
                d.points.len(),
                a.name,
                b.name
            ),
            (Shape::Shaped, Some(a), Some(b)) => format!(
                "{who}curve shaped into {} months, from {} to {}, over {} quoted contracts",
                d.points.len(),
                a.name,
                b.name,
                d.bars.len()
            ),
        };
        if let Some((p, v)) = numeric.last() {
            let unit = if d.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", d.unit)
            };
            s.push_str(&format!("; last value {}{unit} ({})", number(*v), p.name));
        }
        if !d.points.is_empty() {
            s.push_str(&match failed {
                0 => "; no failed points".to_string(),
                1 => "; 1 failed point".to_string(),
                n => format!("; {n} failed points"),
            });
            s.push_str(&partial_text(d));
            s.push('.');
        }
        parts.push(s);
    }
    let mut text = parts.join(" ");
    if let Some(c) = text.get(..1) {
        text = c.to_uppercase() + &text[1..];
    }
    Description { title, text }
}

/// What the description says of a line's partial points (marked as such): how many, and the
/// last with its coverage; nothing when there are none.
fn partial_text(d: &Drawn) -> String {
    let partial: Vec<&Point> = d.points.iter().filter(|p| p.partial.is_some()).collect();
    let Some(last) = partial.last() else {
        return String::new();
    };
    let (n, m) = last.partial.unwrap_or_default();
    let what = match partial.len() {
        1 => "1 partial point (from fewer observations than its period holds:".to_string(),
        k => {
            format!("{k} partial points (from fewer observations than their periods hold; the last")
        }
    };
    format!("; {what} {}, {n} of {m})", last.name)
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The SVG chart of these lines (the first names the chart), `size` pixels; its title and
/// description have the ids `chart-title` and `chart-desc`.
pub fn svg(lines: &[Line<'_>], size: (u32, u32)) -> Result<String> {
    svg_named(lines, size, "chart")
}

/// [`svg`] with the ids `{name}-title` and `{name}-desc`, for pages that hold several charts.
pub fn svg_named(lines: &[Line<'_>], size: (u32, u32), name: &str) -> Result<String> {
    let mut drawn: Vec<Drawn> = lines.iter().map(read_line).collect();
    let description = describe_drawn(&drawn);
    for d in &mut drawn {
        d.points = thin(std::mem::take(&mut d.points));
    }
    let tz = drawn.first().map_or(Tz::UTC, |d| d.tz);
    let mut body = String::new();
    draw(&drawn, tz, size, &description.title, &mut body)?;
    Ok(with_text_alternative(&body, &description, name))
}

/// Puts `role="img"`, `aria-labelledby` and the `<title>` and `<desc>` into the SVG plotters
/// wrote.
fn with_text_alternative(svg: &str, d: &Description, name: &str) -> String {
    let Some(open) = svg.find("<svg") else {
        return svg.to_string();
    };
    let Some(close) = svg[open..].find('>').map(|i| open + i) else {
        return svg.to_string();
    };
    format!(
        "{}<svg role=\"img\" aria-labelledby=\"{name}-title {name}-desc\"{}><title id=\"{name}-title\">{}</title><desc id=\"{name}-desc\">{}</desc>{}",
        &svg[..open],
        &svg[open + 4..close],
        escape(&d.title),
        escape(&d.text),
        &svg[close + 1..]
    )
}

/// The UTC instant of a chart's first point, for tests of the axis zone.
#[cfg(test)]
fn first_at(item: &Value) -> Option<DateTime<chrono::Utc>> {
    read_line(&Line::of(item))
        .points
        .first()
        .map(|p| p.at.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn series(points: Value) -> Value {
        json!({"_id": "NBP:SPOT", "_type": "VarTimeSeries", "calendar": "BUSINESS",
               "timezone": "Europe/London", "currency": "GBP", "units": "therm", "data": points})
    }

    #[test]
    fn dates_are_midnight_in_the_series_zone() {
        let item = series(json!([{"time": "2024-07-01", "value": 1.0}]));
        assert_eq!(
            first_at(&item).unwrap().to_rfc3339(),
            "2024-06-30T23:00:00+00:00"
        );
        let item = series(json!([{"time": "2024-07-01T10:00:00Z", "value": 1.0}]));
        assert_eq!(
            first_at(&item).unwrap().to_rfc3339(),
            "2024-07-01T10:00:00+00:00"
        );
    }

    #[test]
    fn the_description_names_range_last_value_and_failures() {
        let item = series(json!([
            {"time": "2024-07-01", "value": 70.5},
            {"time": "2024-07-02", "value": 250, "status": {"quality": "FAILED:Range"}},
            {"time": "2024-07-03", "value": null},
        ]));
        let d = describe(&[Line::of(&item)]);
        assert_eq!(d.title, "NBP:SPOT (GBP/therm)");
        assert_eq!(
            d.text,
            "Time series from 2024-07-01 to 2024-07-03 (Europe/London), 3 observations; \
             last value 250 GBP/therm (2024-07-02); 1 failed point."
        );
    }

    #[test]
    fn long_lines_keep_their_envelope_and_failures() {
        let points: Vec<Value> = (0..100_000)
            .map(|i| {
                let mut p =
                    json!({"time": format!("2024-01-01T00:00:00Z"), "value": (i % 97) as f64});
                if i == 54_321 {
                    p["value"] = json!(1e6);
                    p["status"] = json!({"quality": "FAILED"});
                }
                p
            })
            .collect();
        let drawn = read_line(&Line::of(&series(Value::Array(points))));
        let kept = thin(drawn.points);
        assert!(kept.len() <= MAX_POINTS + 8, "{}", kept.len());
        assert!(kept.iter().any(|p| p.failed && p.value == Some(1e6)));
        assert!(kept.iter().any(|p| p.value == Some(96.0)));
        assert!(kept.iter().any(|p| p.value == Some(0.0)));
    }

    #[test]
    fn the_svg_carries_its_text_alternative_first() {
        let item = series(
            json!([{"time": "2024-07-01", "value": 1.5}, {"time": "2024-07-02", "value": 2}]),
        );
        let svg = svg(&[Line::of(&item)], (WIDTH, HEIGHT)).unwrap();
        let open = &svg[svg.find("<svg").unwrap()..];
        assert!(open.starts_with("<svg role=\"img\" aria-labelledby=\"chart-title chart-desc\""));
        assert!(
            svg.contains("<title id=\"chart-title\">NBP:SPOT (GBP/therm)</title>"),
            "{svg}"
        );
        assert!(svg.contains("Time (Europe/London)"));
        // Empty: a frame that says so.
        let empty = series(json!([]));
        let svg = svg_of(&empty);
        assert!(svg.contains("No observations in this range"), "{svg}");
    }

    #[test]
    fn the_repeated_hour_is_two_points_and_two_ticks() {
        let item = json!({"_id": "DE:POWER", "calendar": "HOURLY", "timezone": "Europe/Berlin",
            "data": [{"time": "2024-10-27T01:00:00+02:00", "value": 1},
                     {"time": "2024-10-27T02:00:00+02:00", "value": 2},
                     {"time": "2024-10-27T02:00:00+01:00", "value": 3},
                     {"time": "2024-10-27T03:00:00+01:00", "value": 4}]});
        let drawn = read_line(&Line::of(&item));
        let at: Vec<String> = drawn.points.iter().map(|p| p.at.to_rfc3339()).collect();
        assert_eq!(at[1], "2024-10-27T02:00:00+02:00");
        assert_eq!(at[2], "2024-10-27T02:00:00+01:00");
        let svg = svg_of(&item);
        for tick in ["\n10-27 02:00+02:00\n", "\n10-27 02:00+01:00\n"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
        // Without a clock change the labels carry no offset.
        let item = series(json!([{"time": "2024-07-01T10:00:00+01:00", "value": 1},
                                 {"time": "2024-07-01T12:00:00+01:00", "value": 2}]));
        let svg = svg_of(&item);
        assert!(svg.contains("\n07-01 11:00\n"), "{svg}");
        assert!(!svg.contains("+01:00\n"), "{svg}");
    }

    fn svg_of(item: &Value) -> String {
        svg(&[Line::of(item)], (WIDTH, HEIGHT)).unwrap()
    }
}
