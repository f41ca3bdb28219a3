//! Inline SVG charts: lines for a sweep, bars for variants. Colours come from CSS variables
//! (theme/measure.css), so a chart follows the reader's mdBook theme and prints in black.

use crate::esc;
use measure::report::format_value;

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

const W: f64 = 680.0;
const H: f64 = 340.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 170.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 52.0;

/// A y axis: linear or log, mapping values to pixels.
struct YAxis {
    log: bool,
    lo: f64,
    hi: f64,
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
            }
        } else {
            YAxis {
                log,
                lo: 0.0,
                hi: nice_ceiling(max),
            }
        }
    }

    fn y(&self, v: f64) -> f64 {
        let frac = if self.log {
            (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            v / self.hi
        };
        H - BOTTOM - frac.clamp(0.0, 1.0) * (H - TOP - BOTTOM)
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
            (0..=5).map(|i| self.hi * f64::from(i) / 5.0).collect()
        }
    }
}

/// 1, 2 or 5 times a power of ten, at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let base = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * base)
        .find(|c| *c >= v)
        .unwrap_or(10.0 * base)
}

/// An axis label: the value in its unit, without trailing zeros ("10 µs", not "10.0 µs").
fn tick_label(v: f64, unit: &str) -> String {
    measure::report::format_plain(v, unit)
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

pub fn render(spec: &ChartSpec) -> String {
    let y = YAxis::new(spec);
    let plot_w = W - LEFT - RIGHT;
    let n = spec.xs.len().max(1) as f64;
    let numeric: Option<Vec<f64>> = spec.xs.iter().map(|x| x.parse::<f64>().ok()).collect();
    let x_at = |i: usize| -> f64 {
        match (&numeric, spec.kind) {
            (Some(nums), ChartKind::Line) if nums.len() > 1 => {
                let (lo, hi) = (nums[0], nums[nums.len() - 1]);
                let span = if hi > lo { hi - lo } else { 1.0 };
                LEFT + 20.0 + (nums[i] - lo) / span * (plot_w - 40.0)
            }
            _ => LEFT + (i as f64 + 0.5) * plot_w / n,
        }
    };
    let mut s = format!(
        "<svg class=\"measure-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{}\"><title>{}</title>",
        esc(&spec.title),
        esc(&spec.title)
    );
    // Grid and y labels.
    for t in y.ticks() {
        let py = f(y.y(t));
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{py}\" y2=\"{py}\"/><text class=\"tick\" x=\"{}\" y=\"{py}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            esc(&tick_label(t, &spec.unit))
        ));
    }
    // Axes.
    s.push_str(&format!(
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{}\"/><line class=\"axis\" x1=\"{LEFT}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
        H - BOTTOM,
        W - RIGHT,
        H - BOTTOM,
        H - BOTTOM
    ));
    for (i, x) in spec.xs.iter().enumerate() {
        s.push_str(&format!(
            "<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            f(x_at(i)),
            H - BOTTOM + 16.0,
            esc(x)
        ));
    }
    let scale = if y.log { ", log scale" } else { "" };
    s.push_str(&format!(
        "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text><text class=\"label\" transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}{scale}</text>",
        f(LEFT + plot_w / 2.0),
        H - 12.0,
        esc(&spec.x_label),
        f(TOP + (H - TOP - BOTTOM) / 2.0),
        esc(&spec.y_label)
    ));
    let count = spec.series.len();
    for (k, (name, points)) in spec.series.iter().enumerate() {
        let class = format!("s{}", k % 6);
        match spec.kind {
            ChartKind::Line => {
                let offset = (k as f64 - (count as f64 - 1.0) / 2.0) * 3.0;
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
                    if let Some(p) = p {
                        let px = f(x_at(i) + offset);
                        s.push_str(&format!(
                            "<line class=\"whisker\" x1=\"{px}\" x2=\"{px}\" y1=\"{}\" y2=\"{}\"/><circle cx=\"{px}\" cy=\"{}\" r=\"3.5\"><title>{}: {} (min {}, max {})</title></circle>",
                            f(y.y(p.min)),
                            f(y.y(p.max)),
                            f(y.y(p.median)),
                            esc(name),
                            esc(&format_value(p.median, &spec.unit)),
                            esc(&format_value(p.min, &spec.unit)),
                            esc(&format_value(p.max, &spec.unit))
                        ));
                    }
                }
                s.push_str("</g>");
            }
            ChartKind::Bar => {
                let band = plot_w / n;
                let bar = band * 0.8 / count as f64;
                s.push_str(&format!("<g class=\"series {class}\">"));
                for (i, p) in points.iter().enumerate() {
                    if let Some(p) = p {
                        let x0 = LEFT + i as f64 * band + band * 0.1 + k as f64 * bar;
                        let top = y.y(p.median);
                        let base = y.y(if y.log { y.lo } else { 0.0 });
                        let mid = f(x0 + bar / 2.0);
                        s.push_str(&format!(
                            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: {} (min {}, max {})</title></rect><line class=\"whisker\" x1=\"{mid}\" x2=\"{mid}\" y1=\"{}\" y2=\"{}\"/>",
                            f(x0),
                            f(top),
                            f(bar * 0.9),
                            f((base - top).max(0.5)),
                            esc(name),
                            esc(&format_value(p.median, &spec.unit)),
                            esc(&format_value(p.min, &spec.unit)),
                            esc(&format_value(p.max, &spec.unit)),
                            f(y.y(p.min)),
                            f(y.y(p.max))
                        ));
                    }
                }
                s.push_str("</g>");
            }
        }
        // Legend: a line and dot for lines, a square for bars.
        let ly = TOP + 10.0 + k as f64 * 20.0;
        let (x0, text_x) = (W - RIGHT + 14.0, W - RIGHT + 40.0);
        let swatch = match spec.kind {
            ChartKind::Line => format!(
                "<line x1=\"{x0}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/><circle cx=\"{}\" cy=\"{}\" r=\"3.5\"/>",
                x0 + 20.0,
                f(ly),
                f(ly),
                x0 + 10.0,
                f(ly)
            ),
            ChartKind::Bar => format!(
                "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\"/>",
                x0 + 4.0,
                f(ly - 6.0)
            ),
        };
        s.push_str(&format!(
            "<g class=\"series {class}\">{swatch}</g><text class=\"legend\" x=\"{text_x}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>",
            f(ly),
            esc(name)
        ));
    }
    s.push_str("</svg>");
    s
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
        assert!(svg.contains(">0 µs<"));
    }

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(3.2), 5.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(nice_ceiling(1000.0), 1000.0);
    }
}
