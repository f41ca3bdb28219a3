//! How the book's figures read: times in their natural unit, sizes in KiB and MiB, rates with
//! thousands separators, about three significant digits. Used by the reports a run prints, by
//! the claims' figures and by the book's pages alike, so that one figure reads the same everywhere.

/// Formats a value for a human: times scale to ns, µs, ms or s; sizes to B, KiB, MiB; rates get
/// thousands separators; about three significant digits.
pub fn format_value(value: f64, unit: &str) -> String {
    scale(value, unit).text(sig3)
}

/// A value in its unit without trailing zeros ("10 µs", not "10.0 µs"): axis labels and bounds.
pub fn format_plain(v: f64, unit: &str) -> String {
    scale(v, unit).text(plain)
}

/// "1.60–3.44×", "30.1–40.2 ms", or "900 µs–1.20 ms" where the two ends read in different units.
pub fn format_range(lo: f64, hi: f64, unit: &str) -> String {
    let (lo, hi) = (scale(lo, unit), scale(hi, unit));
    if lo.unit == hi.unit {
        format!("{}–{}", lo.digits(sig3), hi.text(sig3))
    } else {
        format!("{}–{}", lo.text(sig3), hi.text(sig3))
    }
}

/// A value in the unit a reader reads it in.
struct Scaled {
    number: f64,
    /// "ms", "%", "M reads/s"; empty for a count.
    unit: String,
    /// The unit follows the number without a space ("%", "×", "M …").
    tight: bool,
    /// A whole count of bytes or things: no decimals, whatever `digits` would write.
    whole: bool,
}

impl Scaled {
    fn digits(&self, digits: fn(f64) -> String) -> String {
        if self.whole {
            sig3(self.number)
                .split('.')
                .next()
                .unwrap_or("0")
                .to_string()
        } else {
            digits(self.number)
        }
    }

    fn text(&self, digits: fn(f64) -> String) -> String {
        let n = self.digits(digits);
        match (self.unit.as_str(), self.tight) {
            ("", _) => n,
            (u, true) => format!("{n}{u}"),
            (u, false) => format!("{n} {u}"),
        }
    }
}

fn scale(value: f64, unit: &str) -> Scaled {
    let spaced = |number: f64, unit: &str| Scaled {
        number,
        unit: unit.to_string(),
        tight: false,
        whole: false,
    };
    let tight = |number: f64, unit: &str| Scaled {
        tight: true,
        ..spaced(number, unit)
    };
    if let Some(s) = seconds(value, unit) {
        let a = s.abs();
        return if a == 0.0 {
            spaced(0.0, "µs")
        } else if a < 1e-6 {
            spaced(s * 1e9, "ns")
        } else if a < 1e-3 {
            spaced(s * 1e6, "µs")
        } else if a < 1.0 {
            spaced(s * 1e3, "ms")
        } else {
            spaced(s, "s")
        };
    }
    match unit {
        // Byte counts, written "B" or "bytes" in the records (Chapters 10 and 11 say "bytes").
        "B" | "bytes" if value.abs() >= 1024.0 * 1024.0 => spaced(value / (1024.0 * 1024.0), "MiB"),
        "B" | "bytes" if value.abs() >= 1024.0 => spaced(value / 1024.0, "KiB"),
        "B" | "bytes" => Scaled {
            whole: value.fract() == 0.0,
            ..spaced(value, "B")
        },
        "%" => tight(value, "%"),
        // A share of a whole (0.25) reads as a percentage.
        "ratio" => tight(value * 100.0, "%"),
        "x" | "×" => tight(value, "×"),
        // A count of whole things reads as one: 21, not 21.0.
        "" | "count" => Scaled {
            whole: value.fract() == 0.0,
            ..spaced(value, "")
        },
        // Millions of things per second: 419M reads/s.
        rate if rate.ends_with("/s") && value.abs() >= 1e6 => {
            tight(value / 1e6, &format!("M {rate}"))
        }
        other => spaced(value, other),
    }
}

/// Metrics a listing finds by searching sizes in turn (the first size at which something happens),
/// each with the largest size its search tries. Where nothing happens up to that size the listing
/// stores a value above it (Chapter 5's `threshold_items`: twice 8,192, see `threshold_cell` in
/// its main.rs): a mark, not a size. The records do not carry the sizes tried, hence this list.
const SEARCHED_UP_TO: &[(&str, f64)] = &[("threshold_items", 8192.0)];

/// The largest size tried, when `value` of `metric` says its search found nothing up to it.
pub fn never_found_up_to(metric: &str, value: f64) -> Option<f64> {
    SEARCHED_UP_TO
        .iter()
        .find(|(m, _)| *m == metric)
        .map(|(_, largest)| *largest)
        .filter(|largest| value > *largest)
}

/// A value of `metric` for a human: [`format_value`], except that a search that found nothing
/// reads "never (≤ 8,192)" rather than as a size nobody measured.
pub fn format_metric(value: f64, unit: &str, metric: &str) -> String {
    match never_found_up_to(metric, value) {
        Some(largest) => format!("never (≤ {})", format_value(largest, unit)),
        None => format_value(value, unit),
    }
}

/// A time in seconds, if `unit` is a unit of time.
pub fn seconds(value: f64, unit: &str) -> Option<f64> {
    match unit {
        "ns" => Some(value * 1e-9),
        "us" | "µs" => Some(value * 1e-6),
        "ms" => Some(value * 1e-3),
        "s" => Some(value),
        _ => None,
    }
}

/// A number as a person writes a bound: `10`, `1.5`, `0.25` (three digits, trailing zeros cut).
pub fn plain(v: f64) -> String {
    let s = sig3(v);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Two significant digits ("230", "58", "0.23"), for a figure whose interval spans a factor of two
/// or more: a third digit would claim more than the figure knows.
pub fn sig2(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return sig3(v);
    }
    let step = 10f64.powi(a.log10().floor() as i32 - 1);
    let rounded = (v / step).round() * step;
    if rounded.abs() >= 100.0 {
        sig3(rounded)
    } else if rounded.abs() >= 10.0 {
        format!("{rounded:.0}")
    } else {
        let decimals = (-(step.log10().round()) as i32).max(0) as usize;
        format!("{rounded:.decimals$}")
    }
}

/// About three significant digits, with thousands separators and no needless decimals.
pub fn sig3(v: f64) -> String {
    let a = v.abs();
    let decimals = if a == 0.0 || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else if a >= 0.1 {
        3
    } else {
        4
    };
    let s = format!("{v:.decimals$}");
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_significant_digits_round_the_figure_not_just_its_decimals() {
        assert_eq!(super::sig2(231.0), "230");
        assert_eq!(super::sig2(288.0), "290");
        assert_eq!(super::sig2(58.3), "58");
        assert_eq!(super::sig2(5.0), "5.0");
        assert_eq!(super::sig2(0.226), "0.23");
        assert_eq!(super::sig2(1234.0), "1,200");
    }

    #[test]
    fn a_range_names_its_unit_once_where_both_ends_share_it() {
        assert_eq!(format_range(1.6, 3.44, "×"), "1.60–3.44×");
        assert_eq!(format_range(30.1, 40.2, "ms"), "30.1–40.2 ms");
        assert_eq!(format_range(900e3, 1.2e6, "ns"), "900 µs–1.20 ms");
        assert_eq!(format_range(3.0, 21.0, "count"), "3–21");
        assert_eq!(format_range(512.0, 2048.0, "B"), "512 B–2.00 KiB");
        assert_eq!(format_range(512.0, 800.5, "B"), "512–800 B");
        assert_eq!(format_plain(10.0, "µs"), "10 µs");
        assert_eq!(format_plain(4.2e6, "reads/s"), "4.2M reads/s");
    }

    use super::*;

    #[test]
    fn formats_times_with_their_natural_unit() {
        assert_eq!(format_value(35_300_000.0, "ns"), "35.3 ms");
        assert_eq!(format_value(78.7, "us"), "78.7 µs");
        assert_eq!(format_value(1006.6, "ms"), "1.01 s");
        assert_eq!(format_value(166.1, "ns"), "166 ns");
        assert_eq!(format_value(0.0, "ms"), "0 µs");
        assert_eq!(format_plain(10.0, "%"), "10%");
        assert_eq!(format_plain(10_000.0, "ns"), "10 µs");
        assert_eq!(format_plain(2.5, "x"), "2.5×");
    }

    #[test]
    fn a_search_that_found_nothing_reads_never() {
        assert_eq!(
            format_metric(16_384.0, "count", "threshold_items"),
            "never (≤ 8,192)"
        );
        assert_eq!(format_metric(8_192.0, "count", "threshold_items"), "8,192");
        assert_eq!(format_metric(16_384.0, "count", "items"), "16,384");
    }

    #[test]
    fn formats_other_units() {
        assert_eq!(format_value(1_234_567.0, "msg/s"), "1.23M msg/s");
        assert_eq!(format_value(2_500.0, "req/s"), "2,500 req/s");
        assert_eq!(format_value(21.0, "count"), "21");
        assert_eq!(format_value(6_250.0, "count"), "6,250");
        assert_eq!(format_value(13.9, "%"), "13.9%");
        assert_eq!(format_value(448.2, "x"), "448×");
        assert_eq!(format_value(3.0 * 1024.0 * 1024.0, "B"), "3.00 MiB");
        assert_eq!(format_value(8.0, "B"), "8 B");
        assert_eq!(format_value(3.0 * 1024.0 * 1024.0, "bytes"), "3.00 MiB");
        assert_eq!(format_value(8.0, "bytes"), "8 B");
        assert_eq!(sig3(-1234.0), "-1,234");
        assert_eq!(sig3(0.01234), "0.0123");
    }
}
