//! What a record says about where and how it was measured, read while the run is on: the
//! machine, the commit (dirty or not), the crate versions built, the time.

use records::record::Machine;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The short commit, with `-dirty` when anything that shapes `chapter`'s runs (the paths
/// [`records::freshness::shaping_paths`] names) has uncommitted changes.
pub fn git_commit(root: &Path, chapter: &str) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown".into();
    };
    let paths = records::freshness::shaping_paths(root, chapter);
    let mut args = vec!["status", "--porcelain", "--"];
    args.extend(paths.iter().map(String::as_str));
    match git(&args) {
        Some(s) if s.is_empty() => head,
        _ => format!("{head}-dirty"),
    }
}

/// Versions of `names` in the workspace's Cargo.lock as built (see `records::lockfile`).
pub fn locked_versions(names: &[&str]) -> BTreeMap<String, String> {
    env!("MEASURE_LOCKED")
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(n, _)| names.contains(n))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

/// Reads this machine's description; `load_after` is filled in by [`finish`].
pub fn machine_here(name: Option<String>) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split(':').nth(1))
        })
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    let cores_seen = u32::try_from(online).unwrap_or(1).max(1);
    let available_parallelism = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1);
    let memory_bytes = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|r| r.split_whitespace().next())
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let name = name.unwrap_or_else(|| default_machine_name(&cpu_model, available_parallelism));
    Machine {
        name,
        cpu_model,
        cores_seen,
        available_parallelism,
        memory_bytes,
        os: std::env::consts::OS.into(),
        kernel,
        load_before: load_average(),
        load_after: [0.0; 3],
        facts: Some(crate::facts::here()),
    }
}

/// The load averages after the run.
pub fn finish(machine: &mut Machine) {
    machine.load_after = load_average();
}

/// `amd-epyc-2c`: the CPU model's first words and the usable core count.
pub fn default_machine_name(cpu_model: &str, cores: u32) -> String {
    let words: Vec<String> = cpu_model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            !w.is_empty()
                && !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "r" | "tm" | "cpu" | "processor"
                )
        })
        .take(3)
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let model = if words.is_empty() {
        "cpu".to_string()
    } else {
        words.join("-")
    };
    format!("{model}-{cores}c")
}

fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut it = text.split_whitespace().map(|x| x.parse().unwrap_or(0.0));
    [
        it.next().unwrap_or(0.0),
        it.next().unwrap_or(0.0),
        it.next().unwrap_or(0.0),
    ]
}

/// Now, as RFC 3339 UTC (no dependency needed for a date).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_names() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(default_machine_name("AMD EPYC", 2), "amd-epyc-2c");
        assert_eq!(
            default_machine_name("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", 16),
            "intel-xeon-e5-16c"
        );
    }
}
