//! Drawing a chart's lines as SVG with plotters: the axes in the chart's zone, each line by
//! its shape (a series, a curve's contracts, shaped months over the quoted contracts), the
//! failed points, the legend; a chart without numbers says so.

use super::{number, Drawn, Point, Shape};
use chrono::{DateTime, Duration, Offset};
use chrono_tz::Tz;
use platform_core::{Error, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

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

/// A chart's drawing area: time (in the chart's zone) across, values up.
type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedDateTime<DateTime<Tz>>, RangedCoordf64>>;

/// What the x axis spans: its ends in the chart's zone and how its labels print.
struct Axis {
    from: DateTime<Tz>,
    to: DateTime<Tz>,
    /// Every point falls on a midnight (daily and coarser data, curves): labelled by dates.
    dated: bool,
}

/// Draws the lines into `out` (an SVG of `size` pixels), the axes in `tz`.
pub(super) fn draw(
    drawn: &[Drawn],
    tz: Tz,
    size: (u32, u32),
    title: &str,
    out: &mut String,
) -> Result<()> {
    let root = SVGBackend::with_string(out, size).into_drawing_area();
    root.fill(&WHITE).map_err(drawing_error)?;
    let Some((axis, (y_min, y_max))) = extent(drawn, tz) else {
        draw_empty(&root, size, title)?;
        return root.present().map_err(drawing_error);
    };
    let pad = if y_max > y_min {
        (y_max - y_min) * 0.06
    } else {
        y_min.abs().max(1.0) * 0.1
    };
    // Room at the top for the legend; counts start and end on whole numbers.
    let (mut y0, mut y1) = (y_min - pad, y_max + pad * 4.0);
    let counts = drawn.first().is_some_and(|d| d.counts);
    if counts {
        (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22).into_font().color(&TEXT))
        .margin(14)
        .margin_right(44)
        .x_label_area_size(52)
        .y_label_area_size(if size.0 < 600 { 64 } else { 78 })
        .build_cartesian_2d(axis.from..axis.to, y0..y1)
        .map_err(drawing_error)?;
    draw_axes(&mut chart, drawn, &axis, tz, size, (y0, y1))?;
    // Overlays first, so the first line is drawn on top of them.
    for (i, d) in drawn.iter().enumerate().rev() {
        let colour = COLOURS[i % COLOURS.len()];
        match d.shape {
            Shape::Series => draw_series(&mut chart, d, colour, tz)?,
            Shape::Curve => draw_curve(&mut chart, d, colour, tz)?,
            Shape::Shaped => draw_shaped(&mut chart, d, colour, tz, (i == 0).then_some(y0))?,
        }
    }
    draw_failed(&mut chart, drawn, tz)?;
    draw_partial(&mut chart, drawn, tz)?;
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

/// The x axis and the lowest and highest value of the lines (bars included), or `None` when
/// they hold no number.
fn extent(drawn: &[Drawn], tz: Tz) -> Option<(Axis, (f64, f64))> {
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
        .min()?;
    let x_max = drawn
        .iter()
        .flat_map(|d| d.points.iter().map(|p| p.until.unwrap_or(p.at)))
        .max()?;
    let y_min = all().map(|(_, v)| v).fold(f64::INFINITY, f64::min);
    let y_max = all().map(|(_, v)| v).fold(f64::NEG_INFINITY, f64::max);
    if !y_min.is_finite() {
        return None;
    }
    let from = x_min.with_timezone(&tz);
    let mut to = x_max.with_timezone(&tz);
    if to <= from {
        to = from + Duration::days(1);
    }
    let dated = drawn.iter().flat_map(|d| &d.points).all(|p| {
        p.at.with_timezone(&tz).time() == chrono::NaiveTime::MIN
            && p.until
                .is_none_or(|u| u.with_timezone(&tz).time() == chrono::NaiveTime::MIN)
    });
    Some((Axis { from, to, dated }, (y_min, y_max)))
}

/// A chart without numbers: its title and a line saying so.
fn draw_empty(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    size: (u32, u32),
    title: &str,
) -> Result<()> {
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
    Ok(())
}

/// The grid and the axes' labels and names: time (or delivery, for curves) in the chart's
/// zone, and the first line's unit.
fn draw_axes(
    chart: &mut Chart<'_, '_>,
    drawn: &[Drawn],
    axis: &Axis,
    tz: Tz,
    size: (u32, u32),
    (y0, y1): (f64, f64),
) -> Result<()> {
    let span = axis.to - axis.from;
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
    // Whether the zone's offset changes between the chart's ends (a clock change within it).
    let shifts = axis.from.offset().fix() != axis.to.offset().fix();
    let dated = axis.dated;
    let formatter = |t: &DateTime<Tz>| tick(t, span, dated, shifts);
    // As many labels as fit side by side without touching (fewer on a narrow chart, each as
    // large as on a wide one); data on midnights is labelled by dates, one a day at most.
    let fit = labels_that_fit(size, formatter(&axis.from).chars().count());
    let labels = if axis.dated {
        (span.num_days() as usize + 1).clamp(2, fit)
    } else {
        fit
    };
    // Counts are marked in whole numbers: at most one label a unit.
    let counts = drawn.first().is_some_and(|d| d.counts);
    let y_labels = if counts {
        ((y1 - y0).round() as usize + 1).clamp(2, 7)
    } else {
        7
    };
    let y_formatter = |v: &f64| {
        if counts && v.fract().abs() > 1e-9 {
            String::new()
        } else {
            number(*v)
        }
    };
    chart
        .configure_mesh()
        .x_labels(labels)
        .y_labels(y_labels)
        .x_label_formatter(&formatter)
        .y_label_formatter(&y_formatter)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(("sans-serif", LABEL_PX).into_font().color(&TEXT))
        .axis_desc_style(("sans-serif", LABEL_PX).into_font().color(&TEXT))
        .light_line_style(TRANSPARENT)
        .bold_line_style(GRID)
        .axis_style(TEXT)
        .draw()
        .map_err(drawing_error)
}

/// The size of the axes' labels, in pixels.
const LABEL_PX: u32 = 16;

/// How many x-axis labels of `chars` characters fit across a chart of `size` without touching:
/// each taken as wide as its characters at 0.66 of the font size the SVG is written with
/// (plotters writes a 16 px font as 16 / 1.24; digits are 0.64 of it in DejaVu Sans, less in
/// most other fonts), with a character's gap between them; at most 7 (4 on a narrow chart),
/// at least 2.
pub(super) fn labels_that_fit(size: (u32, u32), chars: usize) -> usize {
    let narrow = size.0 < 600;
    let plot = f64::from(size.0) - 14.0 - 44.0 - if narrow { 64.0 } else { 78.0 };
    let em = f64::from(LABEL_PX) / 1.24;
    let label = (chars as f64 * 0.66 + 1.0) * em;
    let most = if narrow { 4 } else { 7 };
    ((plot / label).floor() as usize).clamp(2, most)
}

/// The legend's mark of a line.
fn legend_line(colour: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3))
}

/// A series: one path per run of numbers (missing values break the line), a run of one point
/// marked by a dot.
fn draw_series(chart: &mut Chart<'_, '_>, d: &Drawn, colour: RGBColor, tz: Tz) -> Result<()> {
    let style = colour.stroke_width(2);
    let mut runs: Vec<Vec<(DateTime<Tz>, f64)>> = vec![Vec::new()];
    for p in &d.points {
        match p.value.filter(|v| v.is_finite()) {
            Some(v) => runs
                .last_mut()
                .map_or((), |r| r.push((p.at.with_timezone(&tz), v))),
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
            series.label(d.label.clone()).legend(legend_line(colour));
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
    Ok(())
}

/// A curve: each contract a segment over its delivery at its value, marked in its middle.
fn draw_curve(chart: &mut Chart<'_, '_>, d: &Drawn, colour: RGBColor, tz: Tz) -> Result<()> {
    let style = colour.stroke_width(2);
    let segments: Vec<PathElement<(DateTime<Tz>, f64)>> = d
        .numeric()
        .map(|(p, v)| {
            let end = p.until.unwrap_or(p.at);
            let from = p.at.with_timezone(&tz);
            PathElement::new(vec![(from, v), (end.with_timezone(&tz), v)], style)
        })
        .collect();
    chart
        .draw_series(segments)
        .map_err(drawing_error)?
        .label(d.label.clone())
        .legend(legend_line(colour));
    let marks: Vec<Circle<(DateTime<Tz>, f64), i32>> = d
        .numeric()
        .map(|(p, v)| {
            let end = p.until.unwrap_or(p.at);
            let mid = p.at + (end - p.at) / 2;
            Circle::new((mid.with_timezone(&tz), v), 3, colour.filled())
        })
        .collect();
    chart.draw_series(marks).map_err(drawing_error)?;
    Ok(())
}

/// Shaped months: one step line per run of months without a gap; behind the first line
/// (`bars_from`, the bottom of the chart) the quoted contracts as bars from the axis to their
/// price over their delivery (an overlay draws its months alone).
fn draw_shaped(
    chart: &mut Chart<'_, '_>,
    d: &Drawn,
    colour: RGBColor,
    tz: Tz,
    bars_from: Option<f64>,
) -> Result<()> {
    let at = |p: &Point| p.at.with_timezone(&tz);
    if let Some(y0) = bars_from {
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
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], BAR.mix(0.25).filled()));
    }
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
                .legend(legend_line(colour));
        }
    }
    Ok(())
}

/// The points whose quality is `FAILED`, of every line, marked in red (a period's in its
/// middle), with their count in the legend.
fn draw_failed(chart: &mut Chart<'_, '_>, drawn: &[Drawn], tz: Tz) -> Result<()> {
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
    if failed.is_empty() {
        return Ok(());
    }
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
    Ok(())
}

/// The points made of fewer observations than their periods hold, of every series line,
/// marked by a hollow ring of the line's colour (distinct from a failed point's filled red
/// one), with their count in the legend.
fn draw_partial(chart: &mut Chart<'_, '_>, drawn: &[Drawn], tz: Tz) -> Result<()> {
    let marks: Vec<(DateTime<Tz>, f64, RGBColor)> = drawn
        .iter()
        .enumerate()
        .flat_map(|(i, d)| {
            let colour = COLOURS[i % COLOURS.len()];
            d.numeric()
                .filter(|(p, _)| p.partial.is_some())
                .map(move |(p, v)| (p.at.with_timezone(&tz), v, colour))
        })
        .collect();
    if marks.is_empty() {
        return Ok(());
    }
    let n = marks.len();
    chart
        .draw_series(marks.into_iter().map(|(t, v, colour)| {
            EmptyElement::at((t, v))
                + Circle::new((0, 0), PARTIAL_RING, WHITE.filled())
                + Circle::new((0, 0), PARTIAL_RING, colour.stroke_width(2))
        }))
        .map_err(drawing_error)?
        .label(format!("partial: fewer observations than the period ({n})"))
        .legend(|(x, y)| Circle::new((x + 11, y), PARTIAL_RING, COLOURS[0].stroke_width(2)));
    Ok(())
}

/// The radius of a partial point's ring.
pub(super) const PARTIAL_RING: i32 = 5;

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
