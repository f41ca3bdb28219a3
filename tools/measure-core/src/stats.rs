//! Statistics: median, min and max over repetitions; percentiles of latency samples.

use hdrhistogram::Histogram;
use std::time::Duration;

pub use records::summary::Summary;

/// Latency samples in nanoseconds, kept in an HDR histogram (3 significant digits, up to 1 hour).
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        let hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds");
        LatencyHistogram { hist }
    }

    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.hist.saturating_record(ns.max(1));
    }

    /// Adds every sample of `other` (histograms kept per thread, merged at the end).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        self.hist.add(&other.hist).expect("same bounds");
    }

    pub fn len(&self) -> u64 {
        self.hist.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hist.is_empty()
    }

    /// The value at `quantile` (0.0..=1.0), in nanoseconds.
    pub fn quantile_ns(&self, quantile: f64) -> f64 {
        self.hist.value_at_quantile(quantile) as f64
    }

    pub fn mean_ns(&self) -> f64 {
        self.hist.mean()
    }

    pub fn p50_ns(&self) -> f64 {
        self.quantile_ns(0.50)
    }
    pub fn p99_ns(&self) -> f64 {
        self.quantile_ns(0.99)
    }
    pub fn p999_ns(&self) -> f64 {
        self.quantile_ns(0.999)
    }
    pub fn max_ns(&self) -> f64 {
        self.hist.max() as f64
    }

    /// Share of samples (0.0..=1.0) strictly above `threshold`.
    pub fn share_above(&self, threshold: Duration) -> f64 {
        if self.hist.is_empty() {
            return 0.0;
        }
        let limit = u64::try_from(threshold.as_nanos()).unwrap_or(u64::MAX);
        let at_or_below = self.hist.count_between(0, limit);
        1.0 - at_or_below as f64 / self.hist.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_one_to_ten_thousand_microseconds() {
        let mut h = LatencyHistogram::new();
        for us in 1..=10_000u64 {
            h.record(Duration::from_micros(us));
        }
        assert_eq!(h.len(), 10_000);
        // 3 significant digits: each value is exact to 0.1%.
        let close = |got: f64, want: f64| (got - want).abs() / want < 0.001;
        assert!(close(h.p50_ns(), 5_000_000.0), "{}", h.p50_ns());
        assert!(close(h.p99_ns(), 9_900_000.0), "{}", h.p99_ns());
        assert!(close(h.p999_ns(), 9_990_000.0), "{}", h.p999_ns());
        assert!(close(h.max_ns(), 10_000_000.0), "{}", h.max_ns());
    }

    #[test]
    fn merged_histograms_hold_both_sets_of_samples() {
        let (mut a, mut b) = (LatencyHistogram::new(), LatencyHistogram::new());
        a.record(Duration::from_micros(10));
        b.record(Duration::from_millis(10));
        b.record(Duration::from_millis(10));
        a.merge(&b);
        assert_eq!(a.len(), 3);
        assert!((a.max_ns() - 10_000_000.0).abs() / 1e7 < 0.001);
    }

    #[test]
    fn share_above_threshold_counts_the_tail() {
        let mut h = LatencyHistogram::new();
        for _ in 0..90 {
            h.record(Duration::from_micros(100));
        }
        for _ in 0..10 {
            h.record(Duration::from_millis(20));
        }
        assert!((h.share_above(Duration::from_millis(10)) - 0.10).abs() < 1e-9);
        assert_eq!(h.share_above(Duration::from_secs(1)), 0.0);
        assert_eq!(LatencyHistogram::new().share_above(Duration::ZERO), 0.0);
    }
}
