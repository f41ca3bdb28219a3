//! From a claim's figure in each repetition to one of three verdicts.
//!
//! The runner interleaves an experiment's cells within each repetition, so repetition *i* of every
//! cell a claim reads was measured side by side: the claim's figure is computed per repetition
//! (paired), and the verdict is judged on those figures, never on the medians alone.
//!
//! The statistic is the median of the per-repetition figures, with a distribution-free
//! confidence interval for it from order statistics: the interval from the *k*-th smallest to the
//! *k*-th largest figure covers the true median with probability 1 − 2·P(B ≤ k − 1), B ~
//! Binomial(n, ½), whatever the figures' distribution (figures of repeated runs on a shared
//! machine are skewed and have outliers, so an interval that assumes a normal distribution would
//! claim more than it knows). We take the narrowest such interval with at least [`CONFIDENCE`]:
//! with 5 repetitions that is the whole range (93.75 %), with 10 the second smallest to the
//! second largest (97.9 %), with 20 the sixth to the fifteenth (95.9 %). Fewer than 5 repetitions
//! give no such interval, so they can show nothing either way.
//!
//! - **held**: the whole interval satisfies the bound;
//! - **not shown**: the interval straddles the bound, so this run cannot tell;
//! - **refuted**: the whole interval violates the bound.

/// The least coverage an interval must have. 90 % rather than 95 %: at 95 % five repetitions,
/// the book's usual count, could never decide anything; at 90 % they decide with their whole
/// range, which is as wide as an interval from five values can be.
pub const CONFIDENCE: f64 = 0.90;

/// The fewest repetitions that give an interval at [`CONFIDENCE`].
pub const MIN_REPETITIONS: usize = 5;

/// A repetition count above which a claim is closer to its bound than repeating can resolve.
pub const MOST_REPETITIONS_WORTH_SUGGESTING: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Held,
    NotShown,
    Refuted,
    /// The record lacks a cell the claim reads (a filtered or quick run), or cannot be compared.
    Missing(String),
    /// The claim holds only where a machine fact has a value this record's machine does not
    /// have (`only-where`): why, with the value found.
    DoesNotApply(String),
}

impl Verdict {
    /// Whether the record judged the claim: it had every cell, and the claim applies there.
    pub fn judged(&self) -> bool {
        matches!(self, Verdict::Held | Verdict::NotShown | Verdict::Refuted)
    }
}

/// An interval for the median of `n` figures: `lo`..=`hi`, covering it with `coverage`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
    pub coverage: f64,
    /// A confidence interval for the median ([`median_interval`]), not the whole range
    /// ([`range`]): the pages name the two apart ("90 % CI", "min–max").
    pub of_median: bool,
}

/// The median of `figures` (the middle one, or the mean of the middle two).
pub fn median(figures: &[f64]) -> Option<f64> {
    let s = sorted(figures)?;
    let n = s.len();
    Some(if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    })
}

/// The narrowest order-statistics interval for the median with at least [`CONFIDENCE`], or
/// `None` when there are too few figures for one (or one is not a number).
pub fn median_interval(figures: &[f64]) -> Option<Interval> {
    let s = sorted(figures)?;
    let n = s.len();
    let k = interval_rank(n)?;
    Some(Interval {
        lo: s[k - 1],
        hi: s[n - k],
        n,
        coverage: coverage(n, k),
        of_median: true,
    })
}

/// The whole range of `figures`, as an interval (an invariant or an every-repetition claim
/// is judged on it).
pub fn range(figures: &[f64]) -> Option<Interval> {
    let s = sorted(figures)?;
    let n = s.len();
    Some(Interval {
        lo: s[0],
        hi: s[n - 1],
        n,
        coverage: coverage(n, 1),
        of_median: false,
    })
}

/// The rank k of the interval [x(k), x(n+1-k)] for `n` repetitions: the largest whose coverage is
/// still at least [`CONFIDENCE`], so that the interval is the narrowest that has it.
pub fn interval_rank(n: usize) -> Option<usize> {
    (1..=n.div_ceil(2))
        .take_while(|&k| coverage(n, k) >= CONFIDENCE)
        .last()
}

/// P(x(k) ≤ median ≤ x(n+1-k)) = 1 − 2·P(Binomial(n, ½) ≤ k − 1).
pub fn coverage(n: usize, k: usize) -> f64 {
    if k == 0 || 2 * k > n + 1 {
        return 0.0;
    }
    let tail: f64 = (0..k).map(|i| binomial(n, i)).sum::<f64>() / 2f64.powi(n as i32);
    (1.0 - 2.0 * tail).max(0.0)
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

fn sorted(figures: &[f64]) -> Option<Vec<f64>> {
    if figures.is_empty() || figures.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut s = figures.to_vec();
    s.sort_by(f64::total_cmp);
    Some(s)
}

/// `at-least` and `at-most` on a figure, in the figure's unit.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    pub at_least: Option<f64>,
    pub at_most: Option<f64>,
}

impl Limits {
    pub fn holds(&self, x: f64) -> bool {
        self.at_least.is_none_or(|lo| x >= lo) && self.at_most.is_none_or(|hi| x <= hi)
    }

    /// The verdict on an interval: held when both ends hold (the allowed band is convex, so the
    /// whole interval does), refuted when the whole interval lies on the wrong side of one bound.
    pub fn judge(&self, i: &Interval) -> Verdict {
        if self.holds(i.lo) && self.holds(i.hi) {
            Verdict::Held
        } else if self.at_least.is_some_and(|b| i.hi < b) || self.at_most.is_some_and(|b| i.lo > b)
        {
            Verdict::Refuted
        } else {
            Verdict::NotShown
        }
    }

    /// How far the interval stays from the bound, as a share of the bound: positive when it
    /// holds with room (0.25: the nearer end is 25 % inside), negative when it crosses. `None`
    /// for a bound of zero, where a share means nothing.
    pub fn margin(&self, i: &Interval) -> Option<f64> {
        let lower = self.at_least.map(|b| share(i.lo - b, b));
        let upper = self.at_most.map(|b| share(b - i.hi, b));
        match (lower, upper) {
            (Some(a), Some(b)) => Some(a?.min(b?)),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => None,
        }
    }

    /// The bound a figure near `x` is judged against: the nearer of the two.
    pub fn nearest(&self, x: f64) -> Option<f64> {
        match (self.at_least, self.at_most) {
            (Some(lo), Some(hi)) => Some(if (x - lo).abs() <= (hi - x).abs() {
                lo
            } else {
                hi
            }),
            (Some(b), None) | (None, Some(b)) => Some(b),
            (None, None) => None,
        }
    }
}

fn share(distance: f64, bound: f64) -> Option<f64> {
    (bound != 0.0).then(|| distance / bound.abs())
}

/// How many repetitions would decide a claim that this run did not show, if its median stayed
/// where it is: an order-statistics interval narrows about as 1/√n, so the interval's half-width
/// on the bound's side, h, shrinks below the median's distance to the bound, d, at about
/// n · (h / d)² repetitions (with fewer than [`MIN_REPETITIONS`], the range stands in for the
/// interval). An estimate, not a promise: the median moves too. `Err` says why no number can be
/// given.
pub fn repetitions_to_decide(figures: &[f64], limits: &Limits) -> Result<usize, String> {
    let n = figures.len();
    if n < 2 {
        return Err(format!(
            "{n} repetition has no spread to judge by: run at least {MIN_REPETITIONS}"
        ));
    }
    let (Some(m), Some(i)) = (
        median(figures),
        median_interval(figures).or_else(|| range(figures)),
    ) else {
        return Err("a figure is not a number".into());
    };
    let Some(bound) = limits.nearest(m) else {
        return Err("no bound".into());
    };
    let distance = (m - bound).abs();
    let half_width = if bound < m { m - i.lo } else { i.hi - m };
    let too_close = || {
        format!(
            "more than {MOST_REPETITIONS_WORTH_SUGGESTING}: the median sits closer to its bound than this run's spread can resolve; redesign the experiment or restate the claim"
        )
    };
    if distance == 0.0 {
        return Err(too_close());
    }
    let needed = (n as f64 * (half_width / distance).powi(2)).ceil() as usize;
    let needed = needed.max(MIN_REPETITIONS).max(n + 1);
    if needed > MOST_REPETITIONS_WORTH_SUGGESTING {
        return Err(too_close());
    }
    Ok(needed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_of_order_statistics_intervals_is_binomial() {
        assert_eq!(coverage(5, 1), 1.0 - 2.0 / 32.0);
        assert!((coverage(10, 2) - (1.0 - 2.0 * 11.0 / 1024.0)).abs() < 1e-12);
        assert!((coverage(10, 3) - (1.0 - 2.0 * 56.0 / 1024.0)).abs() < 1e-12);
        assert_eq!(coverage(4, 1), 0.875);
        assert_eq!(coverage(3, 3), 0.0, "k past the middle is no interval");
    }

    #[test]
    fn the_interval_is_the_narrowest_with_the_confidence() {
        let five = median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0]).unwrap();
        assert_eq!((five.lo, five.hi, five.n), (1.0, 5.0, 5));
        assert_eq!(five.coverage, 0.9375);
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        let i = median_interval(&ten).unwrap();
        assert_eq!((i.lo, i.hi), (2.0, 9.0), "k = 3 covers only 89 %");
        let twenty: Vec<f64> = (1..=20).map(f64::from).collect();
        let i = median_interval(&twenty).unwrap();
        assert_eq!((i.lo, i.hi), (6.0, 15.0));
        assert!(i.coverage > 0.95 && i.coverage < 0.96, "{}", i.coverage);
        assert!(
            median_interval(&[1.0, 2.0, 3.0, 4.0]).is_none(),
            "4 give 87.5 % at most"
        );
        assert!(median_interval(&[1.0, f64::NAN, 3.0, 4.0, 5.0]).is_none());
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn three_verdicts_from_where_the_interval_lies() {
        let at_least = Limits {
            at_least: Some(1.5),
            at_most: None,
        };
        let i = |lo, hi| Interval {
            lo,
            hi,
            n: 5,
            coverage: 0.9375,
            of_median: true,
        };
        assert_eq!(at_least.judge(&i(1.6, 3.4)), Verdict::Held);
        assert_eq!(at_least.judge(&i(1.2, 3.4)), Verdict::NotShown);
        assert_eq!(at_least.judge(&i(0.9, 1.4)), Verdict::Refuted);
        let band = Limits {
            at_least: Some(0.5),
            at_most: Some(2.0),
        };
        assert_eq!(band.judge(&i(0.6, 1.9)), Verdict::Held);
        assert_eq!(band.judge(&i(1.5, 2.5)), Verdict::NotShown);
        assert_eq!(band.judge(&i(2.1, 2.5)), Verdict::Refuted);
        assert_eq!(band.judge(&i(0.1, 0.4)), Verdict::Refuted);
        assert_eq!(band.judge(&i(0.1, 2.5)), Verdict::NotShown);
    }

    #[test]
    fn margins_are_shares_of_the_bound_from_the_nearer_end() {
        let at_least = Limits {
            at_least: Some(10.0),
            at_most: None,
        };
        let i = |lo, hi| Interval {
            lo,
            hi,
            n: 5,
            coverage: 0.9375,
            of_median: true,
        };
        assert!((at_least.margin(&i(12.5, 40.0)).unwrap() - 0.25).abs() < 1e-12);
        assert!((at_least.margin(&i(8.0, 40.0)).unwrap() + 0.2).abs() < 1e-12);
        let at_most = Limits {
            at_least: None,
            at_most: Some(0.8),
        };
        assert!((at_most.margin(&i(0.5, 0.72)).unwrap() - 0.1).abs() < 1e-12);
        let zero = Limits {
            at_least: None,
            at_most: Some(0.0),
        };
        assert_eq!(zero.margin(&i(0.0, 0.0)), None);
    }

    #[test]
    fn the_repetitions_a_claim_would_need_grow_as_it_nears_its_bound() {
        let limits = Limits {
            at_least: Some(1.0),
            at_most: None,
        };
        // Median 1.2, the interval (the range of five) reaches 1.0: 5 · (0.2 / 0.2)² = 5, so 6.
        let near = [1.0, 1.1, 1.2, 1.3, 1.4];
        assert_eq!(repetitions_to_decide(&near, &limits), Ok(6));
        // The same spread around 1.05: 5 · (0.2 / 0.05)² = 80.
        let nearer = [0.85, 0.95, 1.05, 1.15, 1.25];
        assert_eq!(repetitions_to_decide(&nearer, &limits), Ok(80));
        let on_it = [0.8, 0.9, 1.0, 1.1, 1.2];
        assert!(
            repetitions_to_decide(&on_it, &limits)
                .unwrap_err()
                .contains("redesign")
        );
        assert!(
            repetitions_to_decide(&[1.2], &limits)
                .unwrap_err()
                .contains("at least 5")
        );
    }
}
