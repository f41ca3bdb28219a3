//! Checksums: every workload folds its results into one, and a wrong one is an error.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// SplitMix64's finaliser: a cheap, well-mixed step for workloads and digests.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An order-independent sum of digests and a count, safe to update from many threads.
#[derive(Default, Debug)]
pub struct Checksum {
    sum: AtomicU64,
    count: AtomicU64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChecksumError {
    pub what: String,
    pub expected: (u64, u64),
    pub got: (u64, u64),
}

impl fmt::Display for ChecksumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "checksum mismatch in {}: expected {} results summing to {:#018x}, got {} summing to {:#018x}",
            self.what, self.expected.1, self.expected.0, self.got.1, self.got.0
        )
    }
}

impl std::error::Error for ChecksumError {}

impl Checksum {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&self, digest: u64) {
        self.sum.fetch_add(digest, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// (sum, count) so far.
    pub fn value(&self) -> (u64, u64) {
        (
            self.sum.load(Ordering::Relaxed),
            self.count.load(Ordering::Relaxed),
        )
    }

    /// Expected (sum, count) for a list of digests.
    pub fn expected(digests: impl IntoIterator<Item = u64>) -> (u64, u64) {
        digests
            .into_iter()
            .fold((0u64, 0u64), |(s, n), d| (s.wrapping_add(d), n + 1))
    }

    pub fn verify(&self, what: &str, expected: (u64, u64)) -> Result<(), ChecksumError> {
        let got = self.value();
        if got == expected {
            Ok(())
        } else {
            Err(ChecksumError {
                what: what.to_string(),
                expected,
                got,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_in_any_order_and_fails_on_a_missing_or_wrong_result() {
        let digests: Vec<u64> = (0..100).map(mix).collect();
        let expected = Checksum::expected(digests.iter().copied());
        let c = Checksum::new();
        for d in digests.iter().rev() {
            c.add(*d);
        }
        assert!(c.verify("all", expected).is_ok());

        let missing = Checksum::new();
        digests[1..].iter().for_each(|d| missing.add(*d));
        let err = missing.verify("missing", expected).unwrap_err();
        assert_eq!(err.got.1, 99);
        assert!(err.to_string().contains("missing"));

        let wrong = Checksum::new();
        digests.iter().for_each(|d| wrong.add(d ^ 1));
        assert!(wrong.verify("wrong", expected).is_err());
    }

    #[test]
    fn mix_is_not_the_identity() {
        assert_ne!(mix(0), 0);
        assert_ne!(mix(1), mix(2));
    }
}
