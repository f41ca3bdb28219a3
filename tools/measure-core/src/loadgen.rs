//! An open-loop load generator: every arrival has a scheduled time, fixed before the run starts,
//! and is sent at that time whether or not earlier work has finished. Latency is measured from
//! the scheduled time, so a stalled server cannot hide its queue (no coordinated omission).
//!
//! To wait, the generator sleeps until shortly before the deadline and then spins, which keeps
//! its own timing error small without burning a whole core. It measures both.

use crate::stats::LatencyHistogram;
use std::time::{Duration, Instant};

/// One scheduled arrival: when (from the start of the run) and what.
#[derive(Clone, Debug)]
pub struct Arrival<T> {
    pub at: Duration,
    pub what: T,
}

/// `count` arrivals at a fixed rate, starting at `offset`.
pub fn fixed_rate<T: Clone>(
    rate_per_s: f64,
    offset: Duration,
    count: usize,
    what: T,
) -> Vec<Arrival<T>> {
    assert!(rate_per_s > 0.0, "rate must be positive");
    (0..count)
        .map(|i| Arrival {
            at: offset + Duration::from_secs_f64(i as f64 / rate_per_s),
            what: what.clone(),
        })
        .collect()
}

/// How the generator waits.
#[derive(Clone, Copy, Debug)]
pub struct OpenLoop {
    /// Spin for this long before each deadline; sleep before that.
    pub spin: Duration,
}

impl Default for OpenLoop {
    fn default() -> Self {
        OpenLoop {
            spin: Duration::from_micros(50),
        }
    }
}

/// What the generator measured about itself.
#[derive(Debug)]
pub struct GeneratorReport {
    /// Actual send time minus scheduled time, per arrival.
    pub timing_error: LatencyHistogram,
    /// CPU time the generator's thread used.
    pub cpu: Duration,
    /// Wall time from start to the last send.
    pub wall: Duration,
    pub sent: u64,
}

impl GeneratorReport {
    /// The generator's CPU use as a share of one core.
    pub fn cpu_share(&self) -> f64 {
        if self.wall.is_zero() {
            0.0
        } else {
            self.cpu.as_secs_f64() / self.wall.as_secs_f64()
        }
    }
}

impl OpenLoop {
    /// Sends every arrival (sorted by time) at `start + at`, calling `send(what, scheduled)` on
    /// this thread. `send` must be quick: hand the work to the system under test and return.
    pub fn run<T>(
        &self,
        start: Instant,
        arrivals: &[Arrival<T>],
        mut send: impl FnMut(&T, Instant),
    ) -> GeneratorReport {
        precise_sleeps();
        let cpu_before = thread_cpu_time();
        let mut timing_error = LatencyHistogram::new();
        for arrival in arrivals {
            let scheduled = start + arrival.at;
            wait_until(scheduled, self.spin);
            timing_error.record(Instant::now().saturating_duration_since(scheduled));
            send(&arrival.what, scheduled);
        }
        GeneratorReport {
            timing_error,
            cpu: thread_cpu_time().saturating_sub(cpu_before),
            wall: start.elapsed(),
            sent: arrivals.len() as u64,
        }
    }
}

/// The generator alone, sending nothing, at `rate_per_s` for `length`: its own timing error and
/// CPU use with this `spin` margin, as a floor under every latency measured with it.
pub fn measure_alone(rate_per_s: f64, length: Duration, spin: Duration) -> GeneratorReport {
    let arrivals = fixed_rate(
        rate_per_s,
        Duration::ZERO,
        (rate_per_s * length.as_secs_f64()) as usize,
        (),
    );
    OpenLoop { spin }.run(
        Instant::now() + Duration::from_millis(5),
        &arrivals,
        |_, _| {},
    )
}

/// Sleeps until `spin` before `deadline`, then spins until the deadline.
pub fn wait_until(deadline: Instant, spin: Duration) {
    let now = Instant::now();
    if let Some(early) = deadline.checked_duration_since(now).filter(|e| *e > spin) {
        std::thread::sleep(early - spin);
    }
    spin_until(deadline);
}

/// Spins until `deadline`: the last stretch of a wait that must end on time.
pub fn spin_until(deadline: Instant) {
    while Instant::now() < deadline {
        std::hint::spin_loop();
    }
}

/// Asks Linux for exact sleeps on this thread: the default timer slack (50 µs) would make every
/// sleep overshoot by up to that much.
fn precise_sleeps() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and only affects this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// CPU time consumed by the calling thread.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_rate_spaces_arrivals_evenly() {
        let a = fixed_rate(1000.0, Duration::from_millis(5), 3, ());
        let at: Vec<_> = a.iter().map(|x| x.at).collect();
        assert_eq!(
            at,
            vec![
                Duration::from_millis(5),
                Duration::from_millis(6),
                Duration::from_millis(7)
            ]
        );
    }

    #[test]
    fn a_stalled_consumer_does_not_move_the_schedule() {
        // The first send stalls for 20 ms, as a blocked runtime would. An open-loop generator
        // still hands every later request its original scheduled time (so its latency counts
        // the stall) and sends the backlog at once instead of skipping or spacing it out.
        let arrivals = fixed_rate(1000.0, Duration::ZERO, 20, ());
        let start = Instant::now() + Duration::from_millis(1);
        let mut seen = Vec::new();
        let report = OpenLoop::default().run(start, &arrivals, |_, scheduled| {
            if seen.is_empty() {
                std::thread::sleep(Duration::from_millis(20));
            }
            seen.push((scheduled, Instant::now()));
        });
        assert_eq!(report.sent, 20);
        let scheduled: Vec<Instant> = seen.iter().map(|s| s.0).collect();
        let planned: Vec<Instant> = arrivals.iter().map(|a| start + a.at).collect();
        assert_eq!(scheduled, planned, "the schedule does not move");
        for (i, (scheduled, sent)) in seen.iter().enumerate().skip(1) {
            // Sent after the stall, so at least (20 − i) ms after its scheduled time.
            let late = sent.duration_since(*scheduled);
            let floor = Duration::from_millis(20).saturating_sub(Duration::from_millis(i as u64));
            assert!(
                late >= floor,
                "arrival {i} was late by {late:?}, expected ≥ {floor:?}"
            );
        }
        assert!(
            report.timing_error.max_ns() >= 19e6,
            "the generator saw its own lateness"
        );
    }

    #[test]
    fn thread_cpu_time_grows_with_work() {
        let before = thread_cpu_time();
        let spin_until = Instant::now() + Duration::from_millis(20);
        while Instant::now() < spin_until {
            std::hint::spin_loop();
        }
        assert!(thread_cpu_time() > before);
    }
}
