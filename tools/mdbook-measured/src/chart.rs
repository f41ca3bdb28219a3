//! Inline SVG charts: lines for a sweep, bars for variants. Colours come from CSS variables
//! (theme/measure.css), so a chart follows the reader's mdBook theme and prints in black.
//!
//! The x axis is categorical (one even step per case, in order), so counts such as shard numbers
//! 1, 4, 16, 64 or job lengths 0.1 to 30 ms do not crowd at one end. The legend sits under the
//! plot, so the plot keeps the width and the labels stay legible on a narrow screen.

use crate::esc;
use measure::format::{format_plain, format_value};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChartKind {
    Line,
    Bar,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

pub struct ChartSpec {
    pub kind: ChartKind,
    /// `None`: log scale when the data spans more than 30×.
    pub log: Option<bool>,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub xs: Vec<String>,
    pub series: Vec<(String, Vec<Option<Point>>)>,
    pub unit: String,
}

const W: f64 = 560.0;
const PLOT_H: f64 = 260.0;
const LEFT: f64 = 74.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 12.0;
/// Room under the plot for the x labels and the axis title.
const UNDER: f64 = 46.0;
const LEGEND_ROW: f64 = 20.0;

/// A y axis: linear or log, mapping values to pixels.
struct YAxis {
    log: bool,
    lo: f64,
    hi: f64,
    /// Linear axes: the distance between ticks.
    step: f64,
}

impl YAxis {
    fn new(spec: &ChartSpec) -> YAxis {
        let values: Vec<f64> = spec
            .series
            .iter()
            .flat_map(|(_, pts)| pts.iter().flatten())
            .flat_map(|p| [p.min, p.median, p.max])
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
            YAxis {
                log,
                lo: 10f64.powf(min_pos.log10().floor()),
                hi: 10f64.powf(max.log10().ceil()).max(min_pos * 10.0),
                step: 0.0,
            }
        } else {
            let step = nice_step(max / 5.0);
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

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let (a, b) = (
                self.lo.log10().round() as i32,
                self.hi.log10().round() as i32,
            );
            let mut t = Vec::new();
            for e in a..=b {
                let base = 10f64.powi(e);
                t.push(base);
                if b - a <= 2 && e < b {
                    t.extend([2.0 * base, 5.0 * base]);
                }
            }
            t
        } else {
            let n = (self.hi / self.step).round() as i32;
            (0..=n).map(|i| f64::from(i) * self.step).collect()
        }
    }
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

/// An axis label: the value in its unit, without trailing zeros ("10 µs", not "10.0 µs"), and a
/// plain "0" at the origin whatever the unit.
fn tick_label(v: f64, unit: &str) -> String {
    if v == 0.0 {
        return "0".into();
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

pub fn render(spec: &ChartSpec) -> String {
    let y = YAxis::new(spec);
    let plot_w = W - LEFT - RIGHT;
    let n = spec.xs.len().max(1) as f64;
    let x_at = |i: usize| LEFT + (i as f64 + 0.5) * plot_w / n;
    let legend_cols = 2usize;
    let legend_rows = spec.series.len().div_ceil(legend_cols) as f64;
    let h = TOP + PLOT_H + UNDER + legend_rows * LEGEND_ROW + 6.0;
    let mut s = format!(
        "<svg class=\"measure-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"{}\"><title>{}</title>",
        f(h),
        esc(&spec.title),
        esc(&spec.title)
    );
    let bottom = TOP + PLOT_H;
    for t in y.ticks() {
        let py = f(y.y(t));
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{py}\" y2=\"{py}\"/><text class=\"tick\" x=\"{}\" y=\"{py}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            esc(&tick_label(t, &spec.unit))
        ));
    }
    s.push_str(&format!(
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{bottom}\"/><line class=\"axis\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{bottom}\" y2=\"{bottom}\"/>",
        W - RIGHT,
    ));
    for (i, x) in spec.xs.iter().enumerate() {
        s.push_str(&format!(
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            f(x_at(i)),
            bottom + 17.0,
            esc(x)
        ));
    }
    let scale = if y.log { ", log scale" } else { "" };
    s.push_str(&format!(
        "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text><text class=\"label\" transform=\"translate(15 {}) rotate(-90)\" text-anchor=\"middle\">{}{scale}</text>",
        f(LEFT + plot_w / 2.0),
        bottom + 38.0,
        esc(&spec.x_label),
        f(TOP + PLOT_H / 2.0),
        esc(&spec.y_label)
    ));
    let count = spec.series.len();
    for (k, (name, points)) in spec.series.iter().enumerate() {
        let class = format!("s{}", k % 6);
        match spec.kind {
            ChartKind::Line => {
                let offset = (k as f64 - (count as f64 - 1.0) / 2.0) * 4.0;
                let coords: Vec<String> = points
                    .iter()
                    .enumerate()
                    .filter_map(|(i, p)| {
                        p.map(|p| format!("{},{}", f(x_at(i) + offset), f(y.y(p.median))))
                    })
                    .collect();
                s.push_str(&format!(
                    "<g class=\"series {class}\"><polyline points=\"{}\"/>",
                    coords.join(" ")
                ));
                for (i, p) in points.iter().enumerate() {
                    let Some(p) = p else { continue };
                    let px = x_at(i) + offset;
                    s.push_str(&whisker(px, y.y(p.min), y.y(p.max)));
                    s.push_str(&format!(
                        "<circle cx=\"{}\" cy=\"{}\" r=\"4\"><title>{}</title></circle>",
                        f(px),
                        f(y.y(p.median)),
                        point_title(&spec.x_label, &spec.xs[i], name, p, &spec.unit)
                    ));
                }
                s.push_str("</g>");
            }
            ChartKind::Bar => {
                let band = plot_w / n;
                let bar = band * 0.8 / count as f64;
                s.push_str(&format!("<g class=\"series {class}\">"));
                for (i, p) in points.iter().enumerate() {
                    let Some(p) = p else { continue };
                    let x0 = LEFT + i as f64 * band + band * 0.1 + k as f64 * bar;
                    let top = y.y(p.median);
                    let base = y.y(if y.log { y.lo } else { 0.0 });
                    s.push_str(&format!(
                        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
                        f(x0),
                        f(top),
                        f(bar * 0.9),
                        f((base - top).max(0.5)),
                        point_title(&spec.x_label, &spec.xs[i], name, p, &spec.unit)
                    ));
                    s.push_str(&whisker(x0 + bar * 0.45, y.y(p.min), y.y(p.max)));
                }
                s.push_str("</g>");
            }
        }
        // The legend, two entries a row under the plot: a line and dot, or a square for bars.
        let (col, row) = ((k % legend_cols) as f64, (k / legend_cols) as f64);
        let lx = LEFT + col * (plot_w / legend_cols as f64);
        let ly = bottom + UNDER + row * LEGEND_ROW + 8.0;
        let swatch = match spec.kind {
            ChartKind::Line => format!(
                "<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/><circle cx=\"{}\" cy=\"{}\" r=\"4\"/>",
                f(lx),
                f(lx + 22.0),
                f(ly),
                f(ly),
                f(lx + 11.0),
                f(ly)
            ),
            ChartKind::Bar => format!(
                "<rect x=\"{}\" y=\"{}\" width=\"13\" height=\"13\"/>",
                f(lx + 4.0),
                f(ly - 6.5)
            ),
        };
        s.push_str(&format!(
            "<g class=\"series {class}\">{swatch}</g><text class=\"legend\" x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>",
            f(lx + 30.0),
            f(ly),
            esc(name)
        ));
    }
    s.push_str("</svg>");
    s
}

/// A min–max whisker with caps, drawn over the point or bar.
fn whisker(x: f64, y_min: f64, y_max: f64) -> String {
    format!(
        "<path class=\"whisker\" d=\"M{} {}V{}M{} {}h8M{} {}h8\"/>",
        f(x),
        f(y_min),
        f(y_max),
        f(x - 4.0),
        f(y_min),
        f(x - 4.0),
        f(y_max)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(log: Option<bool>, kind: ChartKind) -> ChartSpec {
        let p = |m: f64| {
            Some(Point {
                median: m,
                min: m * 0.9,
                max: m * 1.1,
            })
        };
        ChartSpec {
            kind,
            log,
            title: "p99 <by> burst".into(),
            x_label: "burst".into(),
            y_label: "p99".into(),
            xs: vec!["0".into(), "1".into(), "2".into()],
            series: vec![
                (
                    "inline".into(),
                    vec![p(80_000.0), p(35_000_000.0), p(36_000_000.0)],
                ),
                ("fix".into(), vec![p(78_000.0), None, p(79_000.0)]),
            ],
            unit: "ns".into(),
        }
    }

    #[test]
    fn wide_ranges_get_a_log_axis_with_decade_ticks() {
        let svg = render(&spec(None, ChartKind::Line));
        assert!(svg.contains("log scale"));
        assert!(svg.contains(">10 µs<") && svg.contains(">100 ms<"), "{svg}");
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
