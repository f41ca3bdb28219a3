//! The CPU work: a request is a batch of numbers, each mixed for a fixed number of
//! rounds.

use rayon::prelude::*;

/// One item's work: `rounds` steps of a wrapping multiply-add chain. Each step
/// uses the last, but wrapping arithmetic lets the compiler unroll and regroup
/// the chain, so a step may cost less than a multiply's latency: the experiments
/// report measured times, never a cost per step.
pub fn mix(x: u64, rounds: u64) -> u64 {
    (0..rounds).fold(x, |a, i| {
        a.wrapping_mul(6364136223846793005).wrapping_add(i)
    })
}

// ANCHOR: evaluate
/// A CPU-heavy request: every item mixed, in parallel on the current Rayon
/// pool.
pub fn evaluate(batch: &[u64], rounds: u64) -> u64 {
    batch
        .par_iter()
        .map(|&x| mix(x, rounds))
        .reduce(|| 0, u64::wrapping_add)
}
// ANCHOR_END: evaluate

/// The same work on the calling thread alone.
pub fn evaluate_sequential(batch: &[u64], rounds: u64) -> u64 {
    batch
        .iter()
        .map(|&x| mix(x, rounds))
        .fold(0, u64::wrapping_add)
}

/// The batch every request carries: `items` numbers from a fixed seed.
pub fn batch(items: usize) -> Vec<u64> {
    (0..items as u64).map(measure::checksum::mix).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_and_sequential_agree() {
        let b = batch(1000);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(
            pool.install(|| evaluate(&b, 50)),
            evaluate_sequential(&b, 50)
        );
        assert_ne!(evaluate_sequential(&b, 50), evaluate_sequential(&b, 51));
    }
}
