//! The open-loop generator measured alone: its timing error (actual minus scheduled send time)
//! and its CPU use, for several spin margins, at a fixed rate with nothing else running.
//!
//! `cargo run -p measure --example generator_error -- [RATE_PER_S] [SECONDS]`

use measure::loadgen::measure_alone;
use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let rate: f64 = args
        .next()
        .map_or(2500.0, |a| a.parse().expect("RATE_PER_S is a number"));
    let seconds: f64 = args
        .next()
        .map_or(3.0, |a| a.parse().expect("SECONDS is a number"));
    println!("{rate} sends/s for {seconds} s, nothing else running");
    println!("spin margin   p50 error   p99 error   max error   CPU (share of one core)");
    for spin_us in [0, 25, 50, 100, 200] {
        let spin = Duration::from_micros(spin_us);
        let report = measure_alone(rate, Duration::from_secs_f64(seconds), spin);
        let e = &report.timing_error;
        println!(
            "{spin_us:>8} µs  {:>8.1} µs  {:>8.1} µs  {:>8.1} µs  {:>6.1}%",
            e.p50_ns() / 1e3,
            e.p99_ns() / 1e3,
            e.max_ns() / 1e3,
            100.0 * report.cpu_share()
        );
    }
}
