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

use chrono::{DateTime, Duration, NaiveDate, Offset, TimeZone};
use chrono_tz::Tz;
use platform_core::{Error, Result};
use plotters::prelude::*;
use serde_json::Value;

/// Default width of a chart, in pixels (the SVG scales; see its `viewBox`).
pub const WIDTH: u32 = 960;
/// Default height of a chart, in pixels.
pub const HEIGHT: u32 = 480;
/// Most points a line keeps; longer lines keep each bucket's first, lowest, highest and last
/// point (and every failed one), so a year of minutes still draws as its envelope.
const MAX_POINTS: usize = 2400;

/// Line colours, in order (each at least 4.5:1 against white).
const COLOURS: [RGBColor; 4] = [
    RGBColor(0x1f, 0x5f, 0xa8),
    RGBColor(0x8a, 0x4f, 0x00),
    RGBColor(0x2e, 0x6b, 0x30),
    RGBColor(0x6a, 0x1b, 0x9a),
];
/// The bars of quoted contracts under a shaped curve (drawn at a quarter of its strength).
const BAR: RGBColor = RGBColor(0x55, 0x55, 0x55);
/// Failed points.
const FAILED: RGBColor = RGBColor(0xc6, 0x28, 0x28);
const TEXT: RGBColor = RGBColor(0x1a, 0x1a, 0x1a);
const GRID: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);

/// One line of a chart: a data read's JSON and its name in the legend (the item's id when
/// empty).
#[derive(Debug, Clone)]
pub struct Line<'a> {
    /// What the legend calls it.
    pub label: String,
    /// The data read (a series, a tenor's history, a curve or a catalogue entry).
    pub item: &'a Value,
}

impl<'a> Line<'a> {
    /// A line named by its item's id.
    pub fn of(item: &'a Value) -> Line<'a> {
        Line {
            label: String::new(),
            item,
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
            if p.failed || p.value.is_none() {
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
                0 => "; no failed points.".to_string(),
                1 => "; 1 failed point.".to_string(),
                n => format!("; {n} failed points."),
            });
        }
        parts.push(s);
    }
    let mut text = parts.join(" ");
    if let Some(c) = text.get(..1) {
        text = c.to_uppercase() + &text[1..];
    }
    Description { title, text }
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

/// An x-axis label in the chart's zone, as fine as the span needs (dates only for data that
/// falls on midnights); a time of day carries its offset when the zone's offset changes within
/// the chart (the repeated hour of an autumn clock change is two labels: `10-27 02:00+02:00`,
/// `10-27 02:00+01:00`).
fn tick(t: &DateTime<Tz>, span: Duration, dated: bool, shifts: bool) -> String {
    if span > Duration::days(3 * 365) {
        t.format("%Y-%m").to_string()
    } else if dated || span > Duration::days(4) {
        t.format("%Y-%m-%d").to_string()
    } else if shifts {
        t.format("%m-%d %H:%M%:z").to_string()
    } else {
        t.format("%m-%d %H:%M").to_string()
    }
}

fn drawing_error(e: impl std::fmt::Display) -> Error {
    Error::Internal(format!("drawing a chart: {e}"))
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

fn draw(drawn: &[Drawn], tz: Tz, size: (u32, u32), title: &str, out: &mut String) -> Result<()> {
    let root = SVGBackend::with_string(out, size).into_drawing_area();
    root.fill(&WHITE).map_err(drawing_error)?;
    let all = || {
        drawn.iter().flat_map(|d| {
            d.numeric().chain(
                d.bars
                    .iter()
                    .filter_map(|p| p.value.filter(|v| v.is_finite()).map(|v| (p, v))),
            )
        })
    };
    let x_min = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.at))
        .min();
    let x_max = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.until.unwrap_or(p.at)))
        .max();
    let y_min = all().map(|(_, v)| v).fold(f64::INFINITY, f64::min);
    let y_max = all().map(|(_, v)| v).fold(f64::NEG_INFINITY, f64::max);
    let (Some(x_min), Some(x_max), true) = (x_min, x_max, y_min.is_finite()) else {
        let style = TextStyle::from(("sans-serif", 22).into_font())
            .color(&TEXT)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Center,
            ));
        let (w, h) = size;
        root.draw_text(title, &style, (w as i32 / 2, h as i32 / 2 - 20))
            .map_err(drawing_error)?;
        root.draw_text(
            "No observations in this range",
            &style,
            (w as i32 / 2, h as i32 / 2 + 16),
        )
        .map_err(drawing_error)?;
        root.present().map_err(drawing_error)?;
        return Ok(());
    };
    let x_min = x_min.with_timezone(&tz);
    let mut x_max = x_max.with_timezone(&tz);
    if x_max <= x_min {
        x_max = x_min + Duration::days(1);
    }
    let pad = if y_max > y_min {
        (y_max - y_min) * 0.06
    } else {
        y_min.abs().max(1.0) * 0.1
    };
    // Room at the top for the legend.
    let (y0, y1) = (y_min - pad, y_max + pad * 4.0);
    let span = x_max - x_min;
    let curve = drawn.first().is_some_and(|d| d.shape != Shape::Series);
    let x_desc = if curve {
        format!("Delivery ({})", tz.name())
    } else {
        format!("Time ({})", tz.name())
    };
    let y_desc = drawn
        .first()
        .map(|d| d.unit.clone())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "Value".into());
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22).into_font().color(&TEXT))
        .margin(14)
        .margin_right(44)
        .x_label_area_size(52)
        .y_label_area_size(if size.0 < 600 { 64 } else { 78 })
        .build_cartesian_2d(x_min..x_max, y0..y1)
        .map_err(drawing_error)?;
    // Data on midnights (daily and coarser, curves) is labelled by dates, one a day at most.
    let dated = drawn.iter().flat_map(|d| &d.points).all(|p| {
        p.at.with_timezone(&tz).time() == chrono::NaiveTime::MIN
            && p.until
                .is_none_or(|u| u.with_timezone(&tz).time() == chrono::NaiveTime::MIN)
    });
    // Fewer labels on a narrow chart (a phone's), each as large as on a wide one.
    let most = if size.0 < 600 { 4 } else { 7 };
    let labels = if dated {
        (span.num_days() as usize + 1).clamp(2, most)
    } else {
        most
    };
    // Whether the zone's offset changes between the chart's ends (a clock change within it).
    let shifts = x_min.offset().fix() != x_max.offset().fix();
    let formatter = |t: &DateTime<Tz>| tick(t, span, dated, shifts);
    let y_formatter = |v: &f64| number(*v);
    chart
        .configure_mesh()
        .x_labels(labels)
        .y_labels(7)
        .x_label_formatter(&formatter)
        .y_label_formatter(&y_formatter)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(("sans-serif", 16).into_font().color(&TEXT))
        .axis_desc_style(("sans-serif", 16).into_font().color(&TEXT))
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .axis_style(TEXT)
        .draw()
        .map_err(drawing_error)?;
    // Overlays first, so the first line is drawn on top of them.
    for (i, d) in drawn.iter().enumerate().rev() {
        let colour = COLOURS[i % COLOURS.len()];
        let style = colour.stroke_width(2);
        let at = |p: &Point| p.at.with_timezone(&tz);
        match d.shape {
            Shape::Series => {
                // Missing values break the line: one path per run of numbers.
                let mut runs: Vec<Vec<(DateTime<Tz>, f64)>> = vec![Vec::new()];
                for p in &d.points {
                    match p.value.filter(|v| v.is_finite()) {
                        Some(v) => runs.last_mut().map_or((), |r| r.push((at(p), v))),
                        None => runs.push(Vec::new()),
                    }
                }
                let mut first = true;
                for run in runs.into_iter().filter(|r| !r.is_empty()) {
                    let single = run.len() == 1;
                    let series = chart
                        .draw_series(LineSeries::new(run.clone(), style))
                        .map_err(drawing_error)?;
                    if first {
                        series.label(d.label.clone()).legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3))
                        });
                        first = false;
                    }
                    if single {
                        chart
                            .draw_series(
                                run.iter()
                                    .map(|&(t, v)| Circle::new((t, v), 2, colour.filled())),
                            )
                            .map_err(drawing_error)?;
                    }
                }
            }
            Shape::Curve => {
                let segments: Vec<PathElement<(DateTime<Tz>, f64)>> = d
                    .numeric()
                    .map(|(p, v)| {
                        let end = p.until.unwrap_or(p.at);
                        PathElement::new(vec![(at(p), v), (end.with_timezone(&tz), v)], style)
                    })
                    .collect();
                chart
                    .draw_series(segments)
                    .map_err(drawing_error)?
                    .label(d.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3))
                    });
                let marks: Vec<Circle<(DateTime<Tz>, f64), i32>> = d
                    .numeric()
                    .map(|(p, v)| {
                        let end = p.until.unwrap_or(p.at);
                        let mid = p.at + (end - p.at) / 2;
                        Circle::new((mid.with_timezone(&tz), v), 3, colour.filled())
                    })
                    .collect();
                chart.draw_series(marks).map_err(drawing_error)?;
            }
            Shape::Shaped => {
                // The quoted contracts: bars from the axis to their price, over their delivery
                // (of the first line only: an overlay draws its months alone).
                if i == 0 {
                    let bars = d.bars.iter().filter_map(|p| {
                        let v = p.value.filter(|v| v.is_finite())?;
                        let end = p.until.unwrap_or(p.at).with_timezone(&tz);
                        Some(Rectangle::new(
                            [(at(p), y0), (end, v)],
                            BAR.mix(0.25).filled(),
                        ))
                    });
                    chart
                        .draw_series(bars)
                        .map_err(drawing_error)?
                        .label("quoted contracts")
                        .legend(|(x, y)| {
                            Rectangle::new([(x, y - 6), (x + 22, y + 6)], BAR.mix(0.25).filled())
                        });
                }
                // The months: one step line per run of months without a gap.
                let mut runs: Vec<Vec<(DateTime<Tz>, f64)>> = Vec::new();
                for (p, v) in d.numeric() {
                    let end = p.until.unwrap_or(p.at).with_timezone(&tz);
                    match runs.last_mut() {
                        Some(run) if run.last().is_some_and(|(t, _)| *t == at(p)) => {
                            run.extend([(at(p), v), (end, v)])
                        }
                        _ => runs.push(vec![(at(p), v), (end, v)]),
                    }
                }
                for (k, run) in runs.into_iter().enumerate() {
                    let series = chart
                        .draw_series(LineSeries::new(run, colour.stroke_width(3)))
                        .map_err(drawing_error)?;
                    if k == 0 {
                        series
                            .label(format!("{} (months)", d.label))
                            .legend(move |(x, y)| {
                                PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3))
                            });
                    }
                }
            }
        }
    }
    let failed: Vec<(DateTime<Tz>, f64)> = drawn
        .iter()
        .flat_map(|d| {
            d.numeric().filter(|(p, _)| p.failed).map(|(p, v)| {
                let at = match &p.until {
                    Some(end) => p.at + (*end - p.at) / 2,
                    None => p.at,
                };
                (at.with_timezone(&tz), v)
            })
        })
        .collect();
    if !failed.is_empty() {
        let n = failed.len();
        chart
            .draw_series(failed.into_iter().map(|(t, v)| {
                EmptyElement::at((t, v))
                    + Circle::new((0, 0), 6, FAILED.filled())
                    + Circle::new((0, 0), 6, WHITE.stroke_width(1))
            }))
            .map_err(drawing_error)?
            .label(format!("quality FAILED ({n})"))
            .legend(|(x, y)| Circle::new((x + 11, y), 6, FAILED.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(GRID)
        .label_font(("sans-serif", 16).into_font().color(&TEXT))
        .draw()
        .map_err(drawing_error)?;
    root.present().map_err(drawing_error)?;
    Ok(())
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
