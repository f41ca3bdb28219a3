//! Noise: how much CPU the machine took away while a cell ran. A shared virtual machine has
//! its CPUs stolen by the hypervisor (steal time) and shares them with other processes; both
//! slow a measurement without changing the code under test. The runner samples both around every
//! cell and stores them as two more metrics of the cell, in percent of one core:
//!
//! - `noise_steal`: time the hypervisor ran something else on our virtual CPUs (`/proc/stat`);
//! - `noise_others`: CPU used by every other process (all CPUs' busy time in `/proc/stat`, less
//!   this process's and its children's, from `getrusage`).
//!
//! `/proc/stat` counts in clock ticks (usually 10 ms), too coarse for a cell of a few
//! milliseconds, so the figure covers the cell or, when the cell was shorter than
//! [`MIN_WINDOW`], the last [`MIN_WINDOW`] up to its end (the cells just before it included): the
//! machine's noise around that cell. Elsewhere than Linux the metrics are left out and the
//! reports say "not available".

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The shortest stretch of time a noise figure covers: 50 ticks per CPU at 100 ticks a second,
/// so one tick more or less moves the figure by 2% of a core.
pub const MIN_WINDOW: Duration = Duration::from_millis(500);

/// Above this share of one core (steal and other processes together), a cell ran on a noisy
/// machine and the reports say so.
pub const NOISY_PERCENT_OF_A_CORE: f64 = 10.0;

/// The metric names the runner adds to every cell.
pub const STEAL: &str = "noise_steal";
pub const OTHERS: &str = "noise_others";

/// Whether a metric is one of the noise metrics (hidden from results tables unless asked for).
pub fn is_noise_metric(metric: &str) -> bool {
    metric == STEAL || metric == OTHERS
}

/// Counters read at cell boundaries.
#[derive(Clone, Copy)]
struct Mark {
    machine: CpuTicks,
    own: Duration,
    at: Instant,
}

impl Mark {
    fn now() -> Option<Mark> {
        Some(Mark {
            machine: read_proc_stat()?,
            own: own_cpu(),
            at: Instant::now(),
        })
    }
}

/// The process's sampler: marks persist across experiments, so a short cell early in an
/// experiment still looks back over [`MIN_WINDOW`].
static SAMPLER: std::sync::Mutex<Option<Sampler>> = std::sync::Mutex::new(None);

fn with_sampler<T>(f: impl FnOnce(&mut Sampler) -> Option<T>) -> Option<T> {
    let mut guard = SAMPLER.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        *guard = Sampler::new();
    }
    f(guard.as_mut()?)
}

/// A cell (or the whole run) starts: mark the machine's counters.
pub fn begin() {
    with_sampler(|s| {
        s.begin();
        Some(())
    });
}

/// A cell ended: the machine's noise over it, or over at least [`MIN_WINDOW`] up to now (waiting
/// out the rest of that window the first time, when there is no history yet). `None` where
/// `/proc/stat` cannot be read.
pub fn end() -> Option<Noise> {
    with_sampler(|s| {
        let oldest = s.marks.front()?.at;
        if let Some(rest) = MIN_WINDOW.checked_sub(oldest.elapsed()) {
            std::thread::sleep(rest);
        }
        s.end()
    })
}

/// Samples the machine at every cell's start and end; a cell's noise spans the cell, or at
/// least [`MIN_WINDOW`] back from its end.
pub struct Sampler {
    marks: VecDeque<Mark>,
    hz: f64,
}

impl Sampler {
    /// `None` where `/proc/stat` cannot be read.
    pub fn new() -> Option<Sampler> {
        Some(Sampler {
            marks: VecDeque::from([Mark::now()?]),
            hz: ticks_per_second(),
        })
    }

    /// A cell starts.
    pub fn begin(&mut self) {
        if let Some(m) = Mark::now() {
            self.marks.push_back(m);
        }
    }

    /// A cell ended: the noise over it, or over the last [`MIN_WINDOW`] if it was shorter.
    pub fn end(&mut self) -> Option<Noise> {
        let now = Mark::now()?;
        let cutoff = now.at.checked_sub(MIN_WINDOW);
        // The newest mark at least MIN_WINDOW old, else the oldest there is.
        let from = match cutoff {
            Some(c) => self.marks.iter().rposition(|m| m.at <= c).unwrap_or(0),
            None => 0,
        };
        self.marks.drain(..from);
        let start = *self.marks.front()?;
        self.marks.push_back(now);
        let wall = now.at.duration_since(start.at).as_secs_f64();
        let own = now.own.saturating_sub(start.own).as_secs_f64();
        Some(noise_between(
            start.machine,
            now.machine,
            own,
            wall,
            self.hz,
        ))
    }
}

/// What the machine took away while a cell ran, in percent of one core.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    pub steal: f64,
    pub others: f64,
}

impl Noise {
    pub fn total(&self) -> f64 {
        self.steal + self.others
    }

    pub fn is_noisy(&self) -> bool {
        self.total() > NOISY_PERCENT_OF_A_CORE
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct CpuTicks {
    busy: u64,
    steal: u64,
}

/// The arithmetic, apart from the reading, so that it can be tested on known counters.
fn noise_between(before: CpuTicks, after: CpuTicks, own_s: f64, wall_s: f64, hz: f64) -> Noise {
    if wall_s <= 0.0 {
        return Noise {
            steal: 0.0,
            others: 0.0,
        };
    }
    let busy_s = after.busy.saturating_sub(before.busy) as f64 / hz;
    let steal_s = after.steal.saturating_sub(before.steal) as f64 / hz;
    Noise {
        steal: 100.0 * steal_s / wall_s,
        others: (100.0 * (busy_s - own_s) / wall_s).max(0.0),
    }
}

/// The machine-wide `cpu` line of `/proc/stat`: busy ticks (user, nice, system, irq, softirq)
/// and steal ticks.
fn read_proc_stat() -> Option<CpuTicks> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_cpu_line(text.lines().next()?)
}

fn parse_cpu_line(line: &str) -> Option<CpuTicks> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let v: Vec<u64> = fields.map(|f| f.parse().unwrap_or(0)).collect();
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(CpuTicks {
        busy: at(0) + at(1) + at(2) + at(5) + at(6),
        steal: at(7),
    })
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

/// CPU time of this process and of its children that have been waited for.
fn own_cpu() -> Duration {
    let usage = |who| {
        // SAFETY: getrusage writes one rusage through a valid pointer.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut ru) } != 0 {
            return Duration::ZERO;
        }
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(ru.ru_utime) + tv(ru.ru_stime)
    };
    usage(libc::RUSAGE_SELF) + usage(libc::RUSAGE_CHILDREN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_cell_is_measured_over_the_last_half_second() {
        let Some(mut sampler) = Sampler::new() else {
            return; // not Linux
        };
        let mark = *sampler.marks.front().unwrap();
        let ago = |ms| Mark {
            at: mark.at - Duration::from_millis(ms),
            ..mark
        };
        sampler.marks = VecDeque::from([ago(3000), ago(2000), ago(800), ago(100)]);
        sampler.begin();
        assert!(sampler.end().is_some());
        // The window starts at the newest mark at least half a second old (800 ms ago); older
        // marks are let go.
        assert_eq!(sampler.marks.front().unwrap().at, ago(800).at);
        assert_eq!(sampler.marks.len(), 4, "800, 100, begin, end");
    }

    #[test]
    fn reads_the_machine_line_of_proc_stat() {
        let t = parse_cpu_line("cpu  33460 7 4758 26387 692 3 33 50 0 0").unwrap();
        assert_eq!(t.busy, 33460 + 7 + 4758 + 3 + 33);
        assert_eq!(t.steal, 50);
        assert!(parse_cpu_line("cpu0 1 2 3").is_none());
    }

    #[test]
    fn steal_and_other_processes_in_percent_of_a_core() {
        let before = CpuTicks { busy: 0, steal: 0 };
        // 2 s of wall time at 100 ticks/s: 150 busy ticks (1.5 CPU-seconds), 1.2 of them ours;
        // 20 ticks stolen.
        let after = CpuTicks {
            busy: 150,
            steal: 20,
        };
        let n = noise_between(before, after, 1.2, 2.0, 100.0);
        assert!((n.steal - 10.0).abs() < 1e-9, "{n:?}");
        assert!((n.others - 15.0).abs() < 1e-9, "{n:?}");
        assert!(n.is_noisy());
        // Our own CPU measured finer than the ticks can exceed them: never below zero.
        let quiet = noise_between(
            before,
            CpuTicks {
                busy: 100,
                steal: 0,
            },
            1.05,
            1.0,
            100.0,
        );
        assert_eq!(quiet.others, 0.0);
        assert!(!quiet.is_noisy());
    }
}
