//! Noise: how much CPU the machine took away while a cell ran. A shared virtual machine has
//! its CPUs stolen by the hypervisor (steal time) and shares them with other processes; both
//! slow a measurement without changing the code under test. The runner samples both around every
//! cell and stores them as two more metrics of the cell, in percent of one core:
//!
//! - `noise_steal`: time the hypervisor ran something else on our virtual CPUs (`/proc/stat`);
//! - `noise_others`: CPU used by every other process: the sum of `utime + stime` in every
//!   `/proc/<pid>/stat` but ours and our children's. Per-process times are accumulated
//!   precisely by the scheduler; the machine-wide busy time in `/proc/stat` is sampled at each
//!   tick and misjudges a process that wakes and sleeps often (a load generator, a runtime's
//!   timer) by tens of percent of a core. A process that ends within a window is left out (its
//!   last reading is lost), so short-lived processes are undercounted, never charged twice.
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

pub use records::noise::{NOISY_PERCENT_OF_A_CORE, Noise, OTHERS, STEAL, is_noise_metric};

/// Counters read at cell boundaries.
#[derive(Clone)]
struct Mark {
    machine: CpuTicks,
    at: Instant,
}

impl Mark {
    fn now() -> Option<Mark> {
        Some(Mark {
            machine: read_ticks()?,
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
        let start = self.marks.front()?.clone();
        let wall = now.at.duration_since(start.at).as_secs_f64();
        let noise = noise_between(start.machine, now.machine.clone(), wall, self.hz);
        self.marks.push_back(now);
        Some(noise)
    }
}

/// Clock ticks: CPU used by other processes, each read by pid, and stolen from the machine.
#[derive(Clone, Debug, Default, PartialEq)]
struct CpuTicks {
    others: std::collections::HashMap<u32, u64>,
    steal: u64,
}

impl CpuTicks {
    /// Ticks the other processes used since `before`: a process that appeared since counts
    /// from zero, one that ended is left out (its parent's reaped-children time has it).
    fn others_since(&self, before: &CpuTicks) -> u64 {
        self.others
            .iter()
            .map(|(pid, now)| now.saturating_sub(before.others.get(pid).copied().unwrap_or(0)))
            .sum()
    }
}

/// The arithmetic, apart from the reading, so that it can be tested on known counters.
fn noise_between(before: CpuTicks, after: CpuTicks, wall_s: f64, hz: f64) -> Noise {
    if wall_s <= 0.0 {
        return Noise {
            steal: 0.0,
            others: 0.0,
        };
    }
    let others_s = after.others_since(&before) as f64 / hz;
    let steal_s = after.steal.saturating_sub(before.steal) as f64 / hz;
    Noise {
        steal: 100.0 * steal_s / wall_s,
        others: 100.0 * others_s / wall_s,
    }
}

/// Steal from `/proc/stat` and every other process's CPU from `/proc/<pid>/stat`.
fn read_ticks() -> Option<CpuTicks> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let steal = parse_steal(stat.lines().next()?)?;
    let me = std::process::id();
    let mut others = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // it ended meanwhile
        };
        if let Some((ppid, ticks)) = parse_pid_stat(&text)
            && ppid != me
        {
            others.insert(pid, ticks);
        }
    }
    Some(CpuTicks { others, steal })
}

/// The steal field of the machine-wide `cpu` line of `/proc/stat`.
fn parse_steal(line: &str) -> Option<u64> {
    let mut fields = line.split_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    // user nice system idle iowait irq softirq steal
    fields.nth(7)?.parse().ok()
}

/// (parent pid, utime + stime) from a `/proc/<pid>/stat` line. The command name in
/// parentheses may hold spaces, so fields are counted after its closing parenthesis. Reaped
/// children's time (cutime, cstime) is left out: it would charge a child's whole life to the
/// window in which its parent waited for it.
fn parse_pid_stat(text: &str) -> Option<(u32, u64)> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) ... utime(11) stime(12).
    let num = |i: usize| f.get(i)?.parse::<u64>().ok();
    let ppid = f.get(1)?.parse().ok()?;
    Some((ppid, num(11)? + num(12)?))
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 { hz as f64 } else { 100.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_cell_is_measured_over_the_last_half_second() {
        let Some(mut sampler) = Sampler::new() else {
            return; // not Linux
        };
        let mark = sampler.marks.front().unwrap().clone();
        let ago = |ms| Mark {
            at: mark.at - Duration::from_millis(ms),
            ..mark.clone()
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
    fn reads_steal_and_a_processs_cpu() {
        assert_eq!(
            parse_steal("cpu  33460 7 4758 26387 692 3 33 50 0 0"),
            Some(50)
        );
        assert!(parse_steal("cpu0 1 2 3").is_none());
        let line = "1234 (my (odd) prog) S 77 1234 1234 0 -1 4194560 100 0 0 0 250 30 4 6 20 0 1 0 55 1000 10";
        assert_eq!(parse_pid_stat(line), Some((77, 250 + 30)));
    }

    #[test]
    fn steal_and_other_processes_in_percent_of_a_core() {
        let ticks = |others: &[(u32, u64)], steal| CpuTicks {
            others: others.iter().copied().collect(),
            steal,
        };
        // 2 s at 100 ticks/s: process 7 used 0.5 s, process 9 appeared and used 0.1 s, process
        // 8 ended (left out); 20 ticks stolen.
        let before = ticks(&[(7, 1000), (8, 40)], 0);
        let after = ticks(&[(7, 1050), (9, 10)], 20);
        let n = noise_between(before, after, 2.0, 100.0);
        assert!((n.steal - 10.0).abs() < 1e-9, "{n:?}");
        assert!((n.others - 30.0).abs() < 1e-9, "{n:?}");
        assert!(n.is_noisy());
        let quiet = noise_between(ticks(&[(7, 5)], 3), ticks(&[(7, 6)], 3), 1.0, 100.0);
        assert!(!quiet.is_noisy(), "{quiet:?}");
    }
}
