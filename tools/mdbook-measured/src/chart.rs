//! Inline SVG charts: lines for a sweep, bars for variants on a linear axis, dots (a marker with
//! min–max whiskers) for variants on a log axis. Colours come from CSS variables
//! (theme/measure.css), so a chart follows the reader's mdBook theme and prints in black; each
//! series also has its own marker shape and dash pattern, so no series is told apart by colour
//! alone.
//!
//! The x axis is categorical (one even step per case, in order), so counts such as shard numbers
//! 1, 4, 16, 64 or job lengths 0.1 to 30 ms do not crowd at one end. Where the cases are numbers
//! that are not evenly spaced, the axis title says so ("log-spaced", or "evenly spaced
//! categories"), so that no reader takes the step from 1 to 3 for the step from 3 to 10. The
//! legend sits under the plot (only where there is more than one series), so the plot keeps the
//! width and the labels stay legible on a narrow screen.
//!
//! Honest marks: a bar on a log axis would start from an arbitrary floor, so bars become dots
//! there; a whisker that runs past the axis ends in a chevron, with a note under the chart; a
//! reference line (`ref-line=` in the directive) is dashed and labelled.

use crate::esc;
use measure::format::{format_plain, format_value};

choice! {
    /// How a chart draws its series (`kind=` in a directive).
    pub enum ChartKind {
        /// Lines over the cases.
        Line = "line" ("a sweep over cases"),
        Bar = "bar" ("linear axis"),
        /// A dot plot: categorical x, one marker per series per category, offset per series.
        Dot = "dot" ("a dot plot, for a log axis"),
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// A dashed horizontal line at `value` (in the chart's unit), with its label.
#[derive(Clone, Debug, PartialEq)]
pub struct RefLine {
    pub value: f64,
    pub label: String,
}

pub struct ChartSpec {
    pub kind: ChartKind,
    /// `None`: log scale when the data spans more than 30×.
    pub log: Option<bool>,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub xs: Vec<String>,
    /// The cases as numbers, where every x is one: decides whether the axis title says how the
    /// categories are spaced.
    pub x_values: Option<Vec<f64>>,
    pub series: Vec<(String, Vec<Option<Point>>)>,
    pub unit: String,
    pub ref_lines: Vec<RefLine>,
}

const W: f64 = 560.0;
const PLOT_H: f64 = 260.0;
/// The least room left of the plot, for the tick labels and the y-axis title; wider tick labels
/// ("6M tasks/s") take more.
const MIN_LEFT: f64 = 74.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 12.0;
const LEGEND_ROW: f64 = 20.0;
const LEGEND_COLS: usize = 2;
/// The charts' text size (theme/measure.css) and an average glyph's width in it.
const FONT_PX: f64 = 13.0;
const GLYPH_PX: f64 = 0.55 * FONT_PX;
/// Category labels too wide for their step are turned by this angle (degrees).
const TURN_DEG: f64 = 35.0;
/// The category labels' baseline under the plot, and the axis title's gap under the labels: more
/// than a line's, so the title does not read as a second line of the category above it.
const LABEL_DY: f64 = 17.0;
const TITLE_GAP: f64 = 26.0;

/// A y axis: linear or log, mapping values to pixels.
struct YAxis {
    log: bool,
    lo: f64,
    hi: f64,
    /// Linear axes: the distance between ticks; log axes: the unit the 1-2-5 ticks count in.
    step: f64,
}

impl YAxis {
    fn new(spec: &ChartSpec) -> YAxis {
        let values: Vec<f64> = spec
            .series
            .iter()
            .flat_map(|(_, pts)| pts.iter().flatten())
            .flat_map(|p| [p.min, p.median, p.max])
            // A reference line must be on the chart to be read.
            .chain(spec.ref_lines.iter().map(|r| r.value))
            .filter(|v| v.is_finite())
            .collect();
        let max = values
            .iter()
            .copied()
            .fold(f64::MIN, f64::max)
            .max(f64::MIN_POSITIVE);
        let min_pos = values
            .iter()
            .copied()
            .filter(|v| *v > 0.0)
            .fold(f64::MAX, f64::min)
            .min(max);
        let log = spec.log.unwrap_or(max / min_pos > 30.0);
        if log {
            let scale = unit_scale(&spec.unit, min_pos);
            let (lo, hi) = log_bounds(min_pos / scale, max / scale);
            YAxis {
                log,
                lo: lo * scale,
                hi: hi * scale,
                step: scale,
            }
        } else {
            let scale = unit_scale(&spec.unit, max / 5.0);
            let step = nice_step(max / scale / 5.0) * scale;
            YAxis {
                log,
                lo: 0.0,
                hi: (max / step).ceil().max(1.0) * step,
                step,
            }
        }
    }

    fn y(&self, v: f64) -> f64 {
        let frac = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            v / self.hi
        };
        TOP + PLOT_H - frac.clamp(0.0, 1.0) * PLOT_H
    }

    /// Whether a value lies below or above what the axis shows (and is drawn at its end).
    fn below(&self, v: f64) -> bool {
        v < self.lo * (1.0 - 1e-9)
    }
    fn above(&self, v: f64) -> bool {
        v > self.hi * (1.0 + 1e-9)
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let scale = self.step;
            log_ticks(self.lo / scale, self.hi / scale)
                .into_iter()
                .map(|t| t * scale)
                .collect()
        } else {
            let n = (self.hi / self.step).round() as i32;
            (0..=n).map(|i| f64::from(i) * self.step).collect()
        }
    }
}

/// What an axis counts its ticks in: bytes in KiB or MiB (so a tick reads "50 MiB", not
/// "47.7 MiB"), anything else in itself.
fn unit_scale(unit: &str, v: f64) -> f64 {
    match unit {
        "B" if v >= 1024.0 * 1024.0 => 1024.0 * 1024.0,
        "B" if v >= 1024.0 => 1024.0,
        _ => 1.0,
    }
}

/// The values 1, 2 and 5 times a power of ten between `lo` and `hi`, in order.
fn one_two_five(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32 - 1, hi.log10().ceil() as i32 + 1);
    (a..=b)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
        .collect()
}

/// A log axis from the 1-2-5 value at or under the smallest positive value to the one at or over
/// the largest, so the data fill the plot rather than a decade's worth of empty space.
fn log_bounds(min_pos: f64, max: f64) -> (f64, f64) {
    let below = one_two_five(min_pos / 10.0, min_pos);
    let above = one_two_five(max, max * 10.0);
    let lo = below.last().copied().unwrap_or(min_pos);
    let hi = above.first().copied().unwrap_or(max);
    // One value: still an axis, one step either side.
    if hi <= lo {
        (lo / 2.0, lo * 2.0)
    } else {
        (lo, hi)
    }
}

/// Ticks on a log axis: 1, 2 and 5 times each power of ten, or only the powers of ten where the
/// axis spans more than three decades (the labels would crowd).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let all = one_two_five(lo, hi);
    if hi / lo <= 1000.0 * (1.0 + 1e-9) {
        return all;
    }
    all.into_iter()
        .filter(|v| (v.log10() - v.log10().round()).abs() < 1e-9)
        .collect()
}

/// 1, 2, 2.5 or 5 times a power of ten, at or above `v`: a tick step that keeps the axis within
/// one step of the data.
fn nice_step(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let base = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|c| *c >= v * 0.999)
        .unwrap_or(10.0 * base)
}

/// How a categorical axis of numbers is spaced, where the even steps would hide it:
/// "log-spaced" when each case is about the same multiple of the one before (1, 4, 16, 64),
/// "evenly spaced categories" when neither the steps nor the multiples are even (0.1, 1, 3, 10,
/// 30); nothing when the steps are even (50, 100, 150) or there are only two cases.
pub fn spacing_note(values: &[f64]) -> Option<&'static str> {
    if values.len() < 3 {
        return None;
    }
    let range = values.iter().copied().fold(f64::MIN, f64::max)
        - values.iter().copied().fold(f64::MAX, f64::min);
    let steps: Vec<f64> = values.windows(2).map(|w| w[1] - w[0]).collect();
    if spread(&steps) <= range * 0.01 {
        return None;
    }
    let multiples: Option<Vec<f64>> = values
        .windows(2)
        .map(|w| (w[0] > 0.0 && w[1] > w[0]).then(|| w[1] / w[0]))
        .collect();
    // Within a quarter of each other: 0.3, 1, 3.5, 10, 35 is log-spaced; 0.1, 1, 3, 10 is not.
    match multiples {
        Some(m) if max_of(&m) <= min_of(&m) * 1.25 => Some("log-spaced"),
        _ => Some("evenly spaced categories"),
    }
}

fn max_of(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::MIN, f64::max)
}
fn min_of(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::MAX, f64::min)
}
fn spread(v: &[f64]) -> f64 {
    max_of(v) - min_of(v)
}

/// Where each case sits along a line chart's x axis, as a share of the plot (0 to 1), where
/// evenly spaced categories would bend the curve (0.1, 1, 3, 10, 30; 25 … 150, 200): on a log
/// scale when every value is positive and they span a factor of ten or more ("log scale"), else
/// on a linear one. None where even categories already show the spacing (even steps, a constant
/// multiple: [`spacing_note`]) or there are only two cases.
pub fn true_scale(values: &[f64]) -> Option<(Vec<f64>, Option<&'static str>)> {
    if spacing_note(values) != Some("evenly spaced categories") {
        return None;
    }
    let (lo, hi) = (min_of(values), max_of(values));
    if hi <= lo {
        return None;
    }
    if lo > 0.0 && hi / lo >= 10.0 {
        let (l, h) = (lo.ln(), hi.ln());
        Some((
            values.iter().map(|v| (v.ln() - l) / (h - l)).collect(),
            Some("log scale"),
        ))
    } else {
        Some((values.iter().map(|v| (v - lo) / (hi - lo)).collect(), None))
    }
}

/// The x-axis title, with how its categories are spaced unless it says so already.
fn x_title(spec: &ChartSpec) -> String {
    let said = ["spaced", "categor", "scale"]
        .iter()
        .any(|w| spec.x_label.to_lowercase().contains(w));
    let values = spec.x_values.as_deref();
    let note = match (spec.kind, values.and_then(true_scale)) {
        (ChartKind::Line, Some((_, note))) => note,
        _ => values.and_then(spacing_note),
    };
    match note {
        Some(note) if !said => format!("{}, {note}", spec.x_label),
        _ => spec.x_label.clone(),
    }
}

/// An axis label: the value in its unit, without trailing zeros ("10 µs", not "10.0 µs"), and a
/// plain "0" at the origin whatever the unit.
fn tick_label(v: f64, unit: &str) -> String {
    if v == 0.0 {
        return "0".into();
    }
    // Rates count in millions from 1M up ("2M /s"); a tick under it reads "0.5M /s", not
    // "500,000 /s", so the axis keeps one way of writing.
    if unit.ends_with("/s") && (1e5..1e6).contains(&v.abs()) {
        return format!("{}M {unit}", v / 1e6);
    }
    format_plain(v, unit)
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

/// "x: series: median (min, max)", the hover text of a point or a bar.
fn point_title(x_label: &str, x: &str, name: &str, p: &Point, unit: &str) -> String {
    esc(&format!(
        "{x_label} {x}, {name}: {} (min {}, max {})",
        format_value(p.median, unit),
        format_value(p.min, unit),
        format_value(p.max, unit)
    ))
}

/// Each series' marker shape, after its colour: red and green differ in shape too.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    TriangleDown,
    Cross,
}

const MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
];

/// Each series' line: solid, dashed, dotted, dash-dot... (SVG `stroke-dasharray`).
const DASHES: [&str; 6] = ["", "7 4", "2 3", "9 3 2 3", "4 4", "1 3"];

impl Marker {
    fn of(series: usize) -> Marker {
        MARKERS[series % MARKERS.len()]
    }

    fn name(self) -> &'static str {
        match self {
            Marker::Circle => "circle",
            Marker::Square => "square",
            Marker::Triangle => "triangle",
            Marker::Diamond => "diamond",
            Marker::TriangleDown => "triangle-down",
            Marker::Cross => "cross",
        }
    }

    /// The marker centred on (x, y), with a hover text inside when given.
    fn svg(self, x: f64, y: f64, title: Option<&str>) -> String {
        let class = format!("marker {}", self.name());
        let inner = title.map_or_else(String::new, |t| format!("<title>{t}</title>"));
        let path = |d: String| format!("<path class=\"{class}\" d=\"{d}\">{inner}</path>");
        match self {
            Marker::Circle => format!(
                "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"4.5\">{inner}</circle>",
                f(x),
                f(y)
            ),
            Marker::Square => format!(
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"8\" height=\"8\">{inner}</rect>",
                f(x - 4.0),
                f(y - 4.0)
            ),
            Marker::Triangle => path(format!(
                "M{} {}L{} {}L{} {}Z",
                f(x),
                f(y - 5.5),
                f(x + 5.0),
                f(y + 3.5),
                f(x - 5.0),
                f(y + 3.5)
            )),
            Marker::TriangleDown => path(format!(
                "M{} {}L{} {}L{} {}Z",
                f(x),
                f(y + 5.5),
                f(x + 5.0),
                f(y - 3.5),
                f(x - 5.0),
                f(y - 3.5)
            )),
            Marker::Diamond => path(format!(
                "M{} {}L{} {}L{} {}L{} {}Z",
                f(x),
                f(y - 5.5),
                f(x + 5.0),
                f(y),
                f(x),
                f(y + 5.5),
                f(x - 5.0),
                f(y)
            )),
            Marker::Cross => path(format!(
                "M{} {}L{} {}M{} {}L{} {}",
                f(x - 4.5),
                f(y - 4.5),
                f(x + 4.5),
                f(y + 4.5),
                f(x - 4.5),
                f(y + 4.5),
                f(x + 4.5),
                f(y - 4.5)
            )),
        }
    }
}

/// ` stroke-dasharray="..."` for series `k`'s line; nothing for the solid first one.
fn dash_attr(k: usize) -> String {
    match DASHES[k % DASHES.len()] {
        "" => String::new(),
        d => format!(" stroke-dasharray=\"{d}\""),
    }
}

/// Where the category labels go: level under their category, or turned when one is wider than
/// its step; and the height they take under the plot.
struct XLabels {
    turned: bool,
    height: f64,
}

impl XLabels {
    fn new(xs: &[String], step: f64) -> XLabels {
        let widest = xs
            .iter()
            .map(|x| x.chars().count() as f64 * GLYPH_PX)
            .fold(0.0, f64::max);
        if widest <= step - 8.0 {
            XLabels {
                turned: false,
                height: 22.0,
            }
        } else {
            XLabels {
                turned: true,
                height: 16.0 + widest * TURN_DEG.to_radians().sin(),
            }
        }
    }

    fn svg(&self, x: f64, label: &str) -> String {
        let y = TOP + PLOT_H + LABEL_DY;
        if self.turned {
            format!(
                "<text class=\"tick\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-{TURN_DEG} {0} {1})\">{2}</text>",
                f(x + 4.0),
                f(y - 4.0),
                esc(label)
            )
        } else {
            format!(
                "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                f(x),
                y,
                esc(label)
            )
        }
    }
}

/// A point's whisker was cut at the axis: its min below it, its max above it, or both.
#[derive(Default)]
struct Clipped {
    min: bool,
    max: bool,
}

/// The chart's layout: where the plot starts, and where each category and series goes.
struct Frame {
    left: f64,
    plot_w: f64,
    step: f64,
    /// Each case's place along the plot (0 to 1) on a true scale ([`true_scale`]); None: evenly
    /// spaced categories.
    positions: Option<Vec<f64>>,
}

impl Frame {
    fn new(spec: &ChartSpec, y: &YAxis) -> Frame {
        // The tick labels end 6 px left of the axis; the rotated y title needs the 24 px before them.
        let widest = y
            .ticks()
            .iter()
            .map(|t| tick_label(*t, &spec.unit).chars().count() as f64 * GLYPH_PX)
            .fold(0.0, f64::max);
        let left = MIN_LEFT.max(widest + 30.0);
        let plot_w = W - left - RIGHT;
        let positions = match spec.kind {
            ChartKind::Line => spec
                .x_values
                .as_deref()
                .and_then(true_scale)
                .map(|(p, _)| p),
            _ => None,
        };
        Frame {
            left,
            plot_w,
            step: plot_w / spec.xs.len().max(1) as f64,
            positions,
        }
    }

    fn x_at(&self, i: usize) -> f64 {
        match &self.positions {
            // The first and last cases keep half a step from the plot's edges, as categories do.
            Some(p) => self.left + self.step / 2.0 + p[i] * (self.plot_w - self.step),
            None => self.left + (i as f64 + 0.5) * self.step,
        }
    }

    /// The narrowest gap between two cases' places, for the labels under them.
    fn narrowest(&self) -> f64 {
        match &self.positions {
            Some(p) => p
                .windows(2)
                .map(|w| (w[1] - w[0]) * (self.plot_w - self.step))
                .fold(self.step, f64::min),
            None => self.step,
        }
    }

    /// Series `k` of `count` sits this far from its category's centre, so whiskers do not
    /// overlap: a few pixels for lines, more for dots.
    fn offset(&self, kind: ChartKind, k: usize, count: usize) -> f64 {
        let gap = match kind {
            ChartKind::Dot => (self.step * 0.7 / count as f64).min(14.0),
            _ => 4.0,
        };
        (k as f64 - (count as f64 - 1.0) / 2.0) * gap
    }
}

pub fn render(spec: &ChartSpec) -> String {
    let y = YAxis::new(spec);
    // A bar's length from an arbitrary floor means nothing on a log axis: a dot says it honestly.
    let kind = match spec.kind {
        ChartKind::Bar if y.log => ChartKind::Dot,
        k => k,
    };
    let frame = Frame::new(spec, &y);
    let labels = XLabels::new(&spec.xs, frame.narrowest());
    let bottom = TOP + PLOT_H;
    let title_y = bottom + labels.height + TITLE_GAP;
    let legend_top = title_y + 12.0;
    let legend_rows = if spec.series.len() > 1 {
        spec.series.len().div_ceil(LEGEND_COLS)
    } else {
        0
    };
    let mut clipped = Clipped::default();
    let mut body = String::new();
    body.push_str(&grid(&y, &spec.unit, frame.left));
    body.push_str(&ref_lines(&y, &spec.ref_lines, &spec.unit, frame.left));
    for (i, x) in spec.xs.iter().enumerate() {
        body.push_str(&labels.svg(frame.x_at(i), x));
    }
    let scale = if y.log { ", log scale" } else { "" };
    body.push_str(&format!(
        "<text class=\"label axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text><text class=\"label axis-title\" transform=\"translate(15 {}) rotate(-90)\" text-anchor=\"middle\">{}{scale}</text>",
        f(frame.left + frame.plot_w / 2.0),
        f(title_y),
        esc(&x_title(spec)),
        f(TOP + PLOT_H / 2.0),
        esc(&spec.y_label)
    ));
    for (k, (name, points)) in spec.series.iter().enumerate() {
        let ctx = SeriesCtx {
            spec,
            y: &y,
            frame: &frame,
            kind,
            k,
            name,
        };
        body.push_str(&ctx.svg(points, &mut clipped));
        if legend_rows > 0 {
            let at = legend_at(k, spec.series.len(), &frame, legend_top);
            body.push_str(&legend_entry(kind, k, name, at));
        }
    }
    let note_top = legend_top + legend_rows as f64 * LEGEND_ROW;
    let note = clip_note(&clipped);
    if let Some(note) = &note {
        body.push_str(&format!(
            "<text class=\"note\" x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>",
            f(frame.left),
            f(note_top + 10.0),
            esc(note)
        ));
    }
    let h = note_top + if note.is_some() { LEGEND_ROW } else { 0.0 } + 6.0;
    format!(
        "<svg class=\"measure-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"{}\"><title>{}</title>{body}</svg>",
        f(h),
        esc(&spec.title),
        esc(&spec.title)
    )
}

/// The grid lines with their tick labels, and the two axes.
fn grid(y: &YAxis, unit: &str, left: f64) -> String {
    let mut s = String::new();
    for t in y.ticks() {
        let py = f(y.y(t));
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{left}\" x2=\"{}\" y1=\"{py}\" y2=\"{py}\"/><text class=\"tick\" x=\"{}\" y=\"{py}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            W - RIGHT,
            left - 6.0,
            esc(&tick_label(t, unit))
        ));
    }
    let bottom = TOP + PLOT_H;
    s.push_str(&format!(
        "<line class=\"axis\" x1=\"{left}\" x2=\"{left}\" y1=\"{TOP}\" y2=\"{bottom}\"/><line class=\"axis\" x1=\"{left}\" x2=\"{}\" y1=\"{bottom}\" y2=\"{bottom}\"/>",
        W - RIGHT,
    ));
    s
}

/// Dashed horizontal lines with their labels at the left, above the line (the first category
/// sits half a step in, so the label rarely meets a point).
fn ref_lines(y: &YAxis, lines: &[RefLine], unit: &str, left: f64) -> String {
    lines
        .iter()
        .map(|r| {
            let py = y.y(r.value);
            format!(
                "<g class=\"ref-line\"><title>{}</title><line class=\"ref\" x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke-dasharray=\"6 4\"/><text class=\"ref-label\" x=\"{}\" y=\"{}\">{}</text></g>",
                esc(&format!("{}: {}", r.label, format_value(r.value, unit))),
                W - RIGHT,
                f(py),
                f(py),
                f(left + 6.0),
                f(py - 5.0),
                esc(&r.label)
            )
        })
        .collect()
}

/// One series and where it is drawn.
struct SeriesCtx<'a> {
    spec: &'a ChartSpec,
    y: &'a YAxis,
    frame: &'a Frame,
    kind: ChartKind,
    k: usize,
    name: &'a str,
}

impl SeriesCtx<'_> {
    fn svg(&self, points: &[Option<Point>], clipped: &mut Clipped) -> String {
        let mut s = format!("<g class=\"series s{}\">", self.k % 6);
        let count = self.spec.series.len();
        let offset = self.frame.offset(self.kind, self.k, count);
        if self.kind == ChartKind::Line {
            let coords: Vec<String> = points
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    p.map(|p| {
                        format!(
                            "{},{}",
                            f(self.frame.x_at(i) + offset),
                            f(self.y.y(p.median))
                        )
                    })
                })
                .collect();
            s.push_str(&format!(
                "<polyline points=\"{}\"{}/>",
                coords.join(" "),
                dash_attr(self.k)
            ));
        }
        for (i, p) in points.iter().enumerate() {
            let Some(p) = p else { continue };
            let title = point_title(
                &self.spec.x_label,
                &self.spec.xs[i],
                self.name,
                p,
                &self.spec.unit,
            );
            match self.kind {
                ChartKind::Bar => s.push_str(&self.bar(i, p, &title, clipped)),
                ChartKind::Line | ChartKind::Dot => {
                    let px = self.frame.x_at(i) + offset;
                    s.push_str(&whisker(self.y, px, p, clipped));
                    s.push_str(&Marker::of(self.k).svg(px, self.y.y(p.median), Some(&title)));
                }
            }
        }
        s.push_str("</g>");
        s
    }

    /// A bar from zero (bars are drawn on linear axes only), its whisker over it.
    fn bar(&self, i: usize, p: &Point, title: &str, clipped: &mut Clipped) -> String {
        let count = self.spec.series.len() as f64;
        let width = self.frame.step * 0.8 / count;
        let x0 = self.frame.left
            + i as f64 * self.frame.step
            + self.frame.step * 0.1
            + self.k as f64 * width;
        let top = self.y.y(p.median);
        let base = self.y.y(0.0);
        format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{title}</title></rect>{}",
            f(x0),
            f(top),
            f(width * 0.9),
            f((base - top).max(0.5)),
            whisker(self.y, x0 + width * 0.45, p, clipped)
        )
    }
}

/// A min–max whisker with caps; an end cut off at the axis gets a chevron pointing past it
/// instead of a cap, and is counted for the chart's note.
fn whisker(y: &YAxis, x: f64, p: &Point, clipped: &mut Clipped) -> String {
    let (y_min, y_max) = (y.y(p.min), y.y(p.max));
    let (cut_min, cut_max) = (y.below(p.min), y.above(p.max));
    clipped.min |= cut_min;
    clipped.max |= cut_max;
    let end = |at: f64, cut: bool, down: bool| {
        if cut {
            // A chevron pointing down (past the bottom) or up (past the top).
            let dy = if down { -6.0 } else { 6.0 };
            format!(
                "<path class=\"clip-mark\" d=\"M{} {}L{} {}L{} {}\"/>",
                f(x - 5.0),
                f(at + dy),
                f(x),
                f(at),
                f(x + 5.0),
                f(at + dy)
            )
        } else {
            format!(
                "<path class=\"whisker\" d=\"M{} {}h8\"/>",
                f(x - 4.0),
                f(at)
            )
        }
    };
    format!(
        "<path class=\"whisker\" d=\"M{} {}V{}\"/>{}{}",
        f(x),
        f(y_min),
        f(y_max),
        end(y_min, cut_min, true),
        end(y_max, cut_max, false)
    )
}

/// The note under a chart with a whisker cut at the axis: the reader is told, not misled.
fn clip_note(clipped: &Clipped) -> Option<String> {
    let beyond = match (clipped.min, clipped.max) {
        (true, true) => "its minimum or maximum lies beyond it",
        (true, false) => "its minimum lies below it",
        (false, true) => "its maximum lies above it",
        (false, false) => return None,
    };
    Some(format!(
        "A chevron marks a whisker cut off at the axis: {beyond} (the numbers give it)."
    ))
}

/// Where series `k` of `count` goes in the legend: two columns under the plot, filled down the
/// first column, then the second, so the legend reads down in the order of the series.
fn legend_at(k: usize, count: usize, frame: &Frame, top: f64) -> (f64, f64) {
    let rows = count.div_ceil(LEGEND_COLS);
    let (col, row) = ((k / rows) as f64, (k % rows) as f64);
    (
        frame.left + col * (frame.plot_w / LEGEND_COLS as f64),
        top + row * LEGEND_ROW + 8.0,
    )
}

/// One legend entry: the series' line and marker, its marker alone (dots) or a square (bars).
fn legend_entry(kind: ChartKind, k: usize, name: &str, (lx, ly): (f64, f64)) -> String {
    let swatch = match kind {
        ChartKind::Line => format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"{}/>{}",
            f(lx),
            f(lx + 22.0),
            f(ly),
            f(ly),
            dash_attr(k),
            Marker::of(k).svg(lx + 11.0, ly, None)
        ),
        ChartKind::Dot => Marker::of(k).svg(lx + 11.0, ly, None),
        ChartKind::Bar => format!(
            "<rect x=\"{}\" y=\"{}\" width=\"13\" height=\"13\"/>",
            f(lx + 4.0),
            f(ly - 6.5)
        ),
    };
    format!(
        "<g class=\"legend-entry series s{}\">{swatch}</g><text class=\"legend\" x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>",
        k % 6,
        f(lx + 30.0),
        f(ly),
        esc(name)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(m: f64) -> Option<Point> {
        Some(Point {
            median: m,
            min: m * 0.9,
            max: m * 1.1,
        })
    }

    fn spec(log: Option<bool>, kind: ChartKind) -> ChartSpec {
        ChartSpec {
            kind,
            log,
            title: "p99 <by> burst".into(),
            x_label: "burst".into(),
            y_label: "p99".into(),
            xs: vec!["0".into(), "1".into(), "2".into()],
            x_values: Some(vec![0.0, 1.0, 2.0]),
            series: vec![
                (
                    "inline".into(),
                    vec![p(80_000.0), p(35_000_000.0), p(36_000_000.0)],
                ),
                ("fix".into(), vec![p(78_000.0), None, p(79_000.0)]),
            ],
            unit: "ns".into(),
            ref_lines: Vec::new(),
        }
    }

    /// The value of `attr="..."` in the first element that starts with `element`.
    fn attr_of(svg: &str, element: &str, attr: &str) -> f64 {
        let at = svg.find(element).unwrap_or_else(|| panic!("no {element}"));
        let rest = &svg[at..];
        let key = format!(" {attr}=\"");
        let start = rest.find(&key).expect("attribute") + key.len();
        let end = start + rest[start..].find('"').expect("closing quote");
        rest[start..end].parse().expect("a number")
    }

    #[test]
    fn wide_ranges_get_a_log_axis_with_one_two_five_ticks() {
        let svg = render(&spec(None, ChartKind::Line));
        assert!(svg.contains("log scale"));
        // 70.2 µs to 39.6 ms: from 50 µs to 50 ms, 1-2-5 ticks in between.
        assert!(svg.contains(">50 µs<") && svg.contains(">50 ms<"), "{svg}");
        assert!(
            svg.contains(">200 µs<") && !svg.contains(">10 µs<"),
            "{svg}"
        );
        assert!(svg.contains("p99 &lt;by&gt; burst"), "titles are escaped");
        assert!(
            !svg.contains("\n\n"),
            "no blank line may split the HTML block"
        );
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(
            svg.contains("<title>burst 1, inline: 35.0 ms (min 31.5 ms, max 38.5 ms)</title>"),
            "a point's hover text names its case and series: {svg}"
        );
    }

    #[test]
    fn a_log_axis_over_many_decades_ticks_only_the_decades() {
        assert_eq!(
            log_ticks(1.0, 10_000.0),
            vec![1.0, 10.0, 100.0, 1000.0, 10_000.0]
        );
        assert_eq!(
            log_ticks(0.5, 50.0),
            vec![0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        assert_eq!(log_bounds(0.3, 40.0), (0.2, 50.0));
        assert_eq!(log_bounds(1.0, 1.0), (0.5, 2.0));
    }

    #[test]
    fn byte_axes_tick_in_whole_mebibytes() {
        let mib = 1024.0 * 1024.0;
        let mut s = spec(Some(true), ChartKind::Dot);
        s.unit = "B".into();
        s.series = vec![("rss".into(), vec![p(11.0 * mib), p(330.0 * mib), None])];
        let svg = render(&s);
        assert!(
            svg.contains(">10 MiB<") && svg.contains(">500 MiB<"),
            "{svg}"
        );
        s.log = Some(false);
        s.series[0].1[1] = p(130.0 * mib);
        let svg = render(&s);
        assert!(
            svg.contains(">50 MiB<") && svg.contains(">150 MiB<"),
            "{svg}"
        );
    }

    #[test]
    fn wide_tick_labels_push_the_plot_right_of_the_axis_title() {
        let mut s = spec(Some(false), ChartKind::Dot);
        s.unit = "tasks/s".into();
        s.series = vec![("rate".into(), vec![p(1e6), p(5.5e6), None])];
        let svg = render(&s);
        assert!(svg.contains(">6M tasks/s<"), "{svg}");
        let left = attr_of(&svg, "<line class=\"axis\"", "x1");
        let widest = "6M tasks/s".len() as f64 * GLYPH_PX;
        assert!(left - 6.0 - widest >= 24.0, "{left}");
        // Short labels keep the least margin.
        assert_eq!(
            attr_of(
                &render(&spec(None, ChartKind::Dot)),
                "<line class=\"axis\"",
                "x1"
            ),
            MIN_LEFT
        );
    }

    #[test]
    fn rate_ticks_under_a_million_count_in_millions_too() {
        assert_eq!(tick_label(500_000.0, "/s"), "0.5M /s");
        assert_eq!(tick_label(2_000_000.0, "/s"), "2M /s");
        assert_eq!(tick_label(50_000.0, "/s"), "50,000 /s");
    }

    #[test]
    fn the_legend_reads_down_its_columns() {
        let frame = Frame::new(
            &spec(None, ChartKind::Dot),
            &YAxis::new(&spec(None, ChartKind::Dot)),
        );
        let at = |k| legend_at(k, 6, &frame, 0.0);
        assert_eq!(at(0).0, at(2).0, "the first three in the first column");
        assert!(
            at(3).0 > at(2).0 && at(3).1 == at(0).1,
            "the fourth tops the second"
        );
    }

    #[test]
    fn linear_axis_and_bars_on_request() {
        let svg = render(&spec(Some(false), ChartKind::Bar));
        assert!(!svg.contains("log scale"));
        assert_eq!(
            svg.matches("<rect").count(),
            5 + 2,
            "one bar per present point, one square per series"
        );
        assert!(svg.contains(">0<"), "the origin is a plain 0");
        assert!(!svg.contains(">0 µs<"));
        // The data reach 39.6 ms (36 ms + 10%): the axis stops at the next tick, 40 ms.
        assert!(svg.contains(">40 ms<") && !svg.contains(">50 ms<"), "{svg}");
    }

    #[test]
    fn bars_on_a_log_axis_are_drawn_as_dots() {
        let svg = render(&spec(Some(true), ChartKind::Bar));
        assert!(svg.contains("log scale"));
        assert_eq!(
            svg.matches("<rect").count(),
            3,
            "only the squares of series 1: {svg}"
        );
        assert!(!svg.contains("<rect x"), "no bars");
        // Series 0 circles, series 1 squares: five points and two legend markers.
        assert_eq!(svg.matches("class=\"marker circle\"").count(), 3 + 1);
        assert_eq!(svg.matches("class=\"marker square\"").count(), 2 + 1);
        assert_eq!(svg.matches("class=\"whisker\" d=\"M").count(), 5 * 3);
    }

    #[test]
    fn dots_of_one_category_sit_side_by_side() {
        let svg = render(&spec(Some(true), ChartKind::Dot));
        let first = attr_of(&svg, "<circle class=\"marker circle\"", "cx");
        let second = attr_of(&svg, "<rect class=\"marker square\"", "x") + 4.0;
        let centre = MIN_LEFT + (W - MIN_LEFT - RIGHT) / 6.0;
        assert!(first < centre && second > centre, "{first} {second}");
        assert!(second - first >= 10.0, "whiskers apart: {first} {second}");
    }

    #[test]
    fn each_series_has_its_marker_and_dash() {
        let mut s = spec(None, ChartKind::Line);
        s.series = (0..4)
            .map(|k| (format!("v{k}"), vec![p(1.0 + k as f64); 3]))
            .collect();
        let svg = render(&s);
        for (m, n) in [
            ("circle", 0),
            ("square", 1),
            ("triangle", 2),
            ("diamond", 3),
        ] {
            assert_eq!(
                svg.matches(&format!("class=\"marker {m}\"")).count(),
                3 + 1,
                "three points and the legend's {m} of series {n}"
            );
        }
        assert_eq!(
            svg.matches("stroke-dasharray=\"7 4\"").count(),
            2,
            "line and legend"
        );
        assert_eq!(svg.matches("<g class=\"legend-entry").count(), 4);
    }

    #[test]
    fn one_series_has_no_legend() {
        let mut s = spec(None, ChartKind::Dot);
        s.series.truncate(1);
        let svg = render(&s);
        assert!(!svg.contains("legend"), "{svg}");
        let two = render(&spec(None, ChartKind::Dot));
        assert_eq!(two.matches("class=\"legend\"").count(), 2);
    }

    #[test]
    fn a_whisker_below_the_axis_is_marked_and_noted() {
        let mut s = spec(Some(false), ChartKind::Line);
        s.series[1].1[0] = Some(Point {
            median: 5_000_000.0,
            min: -1_000_000.0,
            max: 6_000_000.0,
        });
        let svg = render(&s);
        assert_eq!(svg.matches("class=\"clip-mark\"").count(), 1, "{svg}");
        assert!(svg.contains("its minimum lies below it"), "{svg}");
        // The chevron's tip sits on the axis.
        assert!(svg.contains(&format!(
            "L{} {}",
            f(MIN_LEFT + (W - MIN_LEFT - RIGHT) / 6.0 + 2.0),
            f(TOP + PLOT_H)
        )));
        let clean = render(&spec(Some(false), ChartKind::Line));
        assert!(!clean.contains("clip-mark") && !clean.contains("class=\"note\""));
    }

    #[test]
    fn a_reference_line_sits_at_its_value() {
        let mut s = spec(Some(false), ChartKind::Line);
        s.ref_lines = vec![RefLine {
            value: 10_000_000.0,
            label: "a tenth <here>".into(),
        }];
        let svg = render(&s);
        let y = YAxis::new(&s);
        assert_eq!(
            attr_of(&svg, "<line class=\"ref\"", "y1"),
            (y.y(1e7) * 10.0).round() / 10.0
        );
        // 40 ms axis: 10 ms is a quarter of the way up.
        assert!((y.y(1e7) - (TOP + PLOT_H * 0.75)).abs() < 0.01);
        assert!(svg.contains(">a tenth &lt;here&gt;</text>"), "{svg}");
        assert!(svg.contains("stroke-dasharray=\"6 4\""));
        // A line above the data stretches the axis to show it.
        s.ref_lines[0].value = 100_000_000.0;
        assert!(YAxis::new(&s).hi >= 1e8);
    }

    #[test]
    fn numeric_categories_say_how_they_are_spaced() {
        assert_eq!(spacing_note(&[1.0, 4.0, 16.0, 64.0]), Some("log-spaced"));
        assert_eq!(
            spacing_note(&[0.3, 1.0, 3.5, 10.0, 35.0]),
            Some("log-spaced")
        );
        assert_eq!(
            spacing_note(&[0.1, 1.0, 3.0, 10.0, 30.0]),
            Some("evenly spaced categories")
        );
        assert_eq!(
            spacing_note(&[0.0, 1.0, 4.0]),
            Some("evenly spaced categories")
        );
        assert_eq!(spacing_note(&[50.0, 100.0, 150.0, 200.0]), None);
        assert_eq!(spacing_note(&[1.0, 64.0]), None);

        let mut s = spec(None, ChartKind::Line);
        s.x_values = Some(vec![1.0, 4.0, 16.0]);
        assert!(render(&s).contains(">burst, log-spaced</text>"));
        s.x_label = "shards, log-spaced".into();
        assert!(
            render(&s).contains(">shards, log-spaced</text>"),
            "said once"
        );
        s.x_values = None;
        s.x_label = "burst".into();
        assert!(render(&s).contains(">burst</text>"), "names: no note");
    }

    #[test]
    fn uneven_numeric_cases_sit_at_their_values_on_a_line_chart() {
        let (p, note) = true_scale(&[0.1, 1.0, 3.0, 10.0, 30.0]).unwrap();
        assert_eq!(note, Some("log scale"));
        assert!((p[1] - 10f64.ln() / 300f64.ln()).abs() < 1e-9, "{p:?}");
        let (p, note) = true_scale(&[25.0, 50.0, 75.0, 100.0, 125.0, 150.0, 200.0]).unwrap();
        assert_eq!(note, None);
        assert!((p[5] - 125.0 / 175.0).abs() < 1e-9, "{p:?}");
        assert!(
            true_scale(&[1.0, 4.0, 16.0]).is_none(),
            "log-spaced: even categories show it"
        );
        assert!(true_scale(&[50.0, 100.0, 150.0]).is_none(), "even steps");

        let mut s = spec(None, ChartKind::Line);
        s.x_values = Some(vec![0.1, 1.0, 30.0]);
        s.xs = vec!["0.1".into(), "1".into(), "30".into()];
        assert!(
            render(&s).contains(">burst, log scale</text>"),
            "{}",
            render(&s)
        );
    }

    #[test]
    fn the_x_title_stands_clear_of_the_category_labels() {
        let svg = render(&spec(None, ChartKind::Dot));
        let label_y = TOP + PLOT_H + LABEL_DY;
        assert!(svg.contains(&format!("y=\"{label_y}\" text-anchor=\"middle\">1</text>")));
        let title_y = attr_of(&svg, "<text class=\"label axis-title\"", "y");
        assert!(title_y - label_y >= 2.3 * FONT_PX, "{label_y} {title_y}");
    }

    #[test]
    fn long_category_labels_are_turned() {
        let mut s = spec(None, ChartKind::Dot);
        s.xs = (0..3)
            .map(|i| format!("a_rather_long_channel_name_{i}"))
            .collect();
        let svg = render(&s);
        assert_eq!(svg.matches("rotate(-35").count(), 3);
        let label_y = TOP + PLOT_H + 13.0;
        let title_y = attr_of(&svg, "<text class=\"label axis-title\"", "y");
        assert!(
            title_y > label_y + 28.0 * GLYPH_PX * 0.5,
            "below the turned labels"
        );
    }

    #[test]
    fn tick_steps_keep_the_axis_close_to_the_data() {
        assert_eq!(nice_step(3.2), 5.0);
        assert_eq!(nice_step(2.2), 2.5);
        assert_eq!(nice_step(56.0), 100.0);
        assert_eq!(nice_step(1000.0), 1000.0);
        let axis = YAxis::new(&ChartSpec {
            log: Some(false),
            ..spec(None, ChartKind::Bar)
        });
        assert!(
            axis.hi >= 39_600_000.0 && axis.hi < 39_600_000.0 * 1.3,
            "{}",
            axis.hi
        );
    }
}
