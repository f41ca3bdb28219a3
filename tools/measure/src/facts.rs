//! What in this machine can shape a result ([`Facts`]), read as a run starts and written into
//! its record. The harness reads them before any cell runs; nothing here runs while a cell is
//! measured, so they stay outside freshness with the rest of the provenance. Everything is read
//! from /proc and /sys as the guest sees it; what the machine does not expose stays `None`.

use records::record::{Cache, Facts, Timer};
use records::summary::Summary;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// This machine's facts.
pub fn here() -> Facts {
    let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| cpuinfo_field(&cpuinfo, name);
    let online = read("/sys/devices/system/cpu/online").unwrap_or_default();
    let cpus = cpu_list(&online);
    let (sockets, cores, threads_per_core) = topology(&cpus);
    let config = kernel_config().unwrap_or_default();
    Facts {
        vendor: field("vendor_id").unwrap_or_else(|| std::env::consts::ARCH.into()),
        family_model: format!(
            "family {}, model {}, stepping {}",
            field("cpu family").unwrap_or_default(),
            field("model").unwrap_or_default(),
            field("stepping").unwrap_or_default()
        ),
        mhz: field("cpu MHz").and_then(|m| m.parse().ok()),
        cpus_online: online,
        sockets,
        cores,
        threads_per_core,
        thread_siblings: cpus
            .iter()
            .map(|c| cpu_file(*c, "topology/thread_siblings_list").unwrap_or_default())
            .collect(),
        caches: caches(),
        hypervisor: hypervisor(&cpuinfo),
        clocksource: read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap_or_else(|| "unknown".into()),
        clocksources: read("/sys/devices/system/clocksource/clocksource0/available_clocksource")
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect(),
        timer: timer(),
        spin_loop_ns: Some(per_call_ns(std::hint::spin_loop)),
        line_handoff_ns: line_handoff_ns(),
        tick_hz: config_value(&config, "CONFIG_HZ").and_then(|hz| hz.parse().ok()),
        preemption: preemption(&config),
        scheduler: settings("/proc/sys/kernel", |name| name.starts_with("sched_")),
        base_slice_ns: read("/sys/kernel/debug/sched/base_slice_ns").and_then(|s| s.parse().ok()),
        cpuidle: cpuidle(),
        vulnerabilities: settings("/sys/devices/system/cpu/vulnerabilities", |_| true),
        cmdline: kernel_cmdline(&read("/proc/cmdline").unwrap_or_default()),
        cpu_max: read("/sys/fs/cgroup/cpu.max"),
        thp: read("/sys/kernel/mm/transparent_hugepage/enabled").and_then(|s| chosen(&s)),
        libc: libc_version(),
        procs_running: read("/proc/stat").and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("procs_running "))
                .and_then(|n| n.trim().parse().ok())
        }),
    }
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

fn cpu_file(cpu: u32, file: &str) -> Option<String> {
    read(format!("/sys/devices/system/cpu/cpu{cpu}/{file}"))
}

/// The first `name : value` line of /proc/cpuinfo (CPU 0's).
fn cpuinfo_field(cpuinfo: &str, name: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        (key.trim() == name).then(|| value.trim().to_string())
    })
}

/// "0-1,4" → [0, 1, 4].
fn cpu_list(list: &str) -> Vec<u32> {
    list.split(',')
        .filter_map(|part| {
            let part = part.trim();
            match part.split_once('-') {
                Some((a, b)) => Some((a.parse().ok()?..=b.parse().ok()?).collect::<Vec<u32>>()),
                None => part.parse().ok().map(|c| vec![c]),
            }
        })
        .flatten()
        .collect()
}

/// Sockets, cores and threads per core among `cpus`, from each CPU's package and core ids.
fn topology(cpus: &[u32]) -> (u32, u32, u32) {
    let id = |cpu, file| cpu_file(cpu, file).and_then(|s| s.parse::<i64>().ok());
    let mut sockets = std::collections::BTreeSet::new();
    let mut cores = std::collections::BTreeSet::new();
    for &cpu in cpus {
        let package = id(cpu, "topology/physical_package_id");
        sockets.insert(package);
        cores.insert((package, id(cpu, "topology/core_id")));
    }
    let (s, c) = (sockets.len() as u32, cores.len() as u32);
    (s, c, (cpus.len() as u32).checked_div(c).unwrap_or(0))
}

/// CPU 0's caches, by level.
fn caches() -> Vec<Cache> {
    let mut out = Vec::new();
    for index in 0.. {
        let file = |f: &str| cpu_file(0, &format!("cache/index{index}/{f}"));
        let Some(level) = file("level").and_then(|l| l.parse().ok()) else {
            break;
        };
        out.push(Cache {
            level,
            kind: file("type").unwrap_or_default(),
            size_bytes: file("size").map_or(0, |s| size_bytes(&s)),
            shared_with: file("shared_cpu_list").unwrap_or_default(),
        });
    }
    out
}

/// "512K" → 524288, "32M" → 33554432, as sysfs writes cache sizes.
fn size_bytes(s: &str) -> u64 {
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().unwrap_or(0);
    match unit.trim() {
        "K" => n << 10,
        "M" => n << 20,
        "G" => n << 30,
        _ => n,
    }
}

/// The hypervisor's CPUID signature (leaf 0x4000_0000), where the CPU says one is present.
fn hypervisor(cpuinfo: &str) -> Option<String> {
    let flags = cpuinfo_field(cpuinfo, "flags").unwrap_or_default();
    if !flags.split_whitespace().any(|f| f == "hypervisor") {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID exists on every x86_64 CPU; leaf 0x4000_0000 is reserved for hypervisors.
        #[allow(unused_unsafe)]
        let r = unsafe { std::arch::x86_64::__cpuid(0x4000_0000) };
        let bytes: Vec<u8> = [r.ebx, r.ecx, r.edx]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .filter(|b| *b != 0)
            .collect();
        let name = String::from_utf8_lossy(&bytes).trim().to_string();
        Some(if name.is_empty() {
            "present".into()
        } else {
            name
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Some(read("/sys/hypervisor/type").unwrap_or_else(|| "present".into()))
}

/// What one call of `op` costs, in ns: the median of 31 batches of 10,000 calls.
fn per_call_ns(op: impl Fn()) -> f64 {
    const CALLS: u32 = 10_000;
    let batches: Vec<f64> = (0..31)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..CALLS {
                op();
            }
            start.elapsed().as_nanos() as f64 / f64::from(CALLS)
        })
        .collect();
    Summary::of(&batches).map_or(0.0, |s| s.median)
}

/// What handing one cache line from one CPU to another and back costs, in ns (half a round
/// trip): two threads, each pinned to one of the first two CPUs this process may run on, take
/// turns writing a shared counter, the median of 15 batches of 20,000 round trips. A lock or a
/// queue index that a sender and a receiver both write pays this on every message. `None` with
/// fewer than two CPUs.
fn line_handoff_ns() -> Option<f64> {
    use std::sync::atomic::{AtomicU64, Ordering};
    const TRIPS: u64 = 20_000;
    let cpus = allowed_cpus();
    let (&a, &b) = (cpus.first()?, cpus.get(1)?);
    let line = AtomicU64::new(0);
    // Both sides run on threads of their own: pinning the caller would pin the whole run, and
    // every child process it starts.
    let batches = std::thread::scope(|s| {
        let line = &line;
        s.spawn(move || {
            pin_to(b);
            // Answers every odd value with the next even one, until the last round trip.
            for n in 0..15 * TRIPS {
                while line.load(Ordering::Acquire) != 2 * n + 1 {}
                line.store(2 * n + 2, Ordering::Release);
            }
        });
        s.spawn(move || {
            pin_to(a);
            (0..15)
                .map(|batch| {
                    let start = Instant::now();
                    for n in batch * TRIPS..(batch + 1) * TRIPS {
                        line.store(2 * n + 1, Ordering::Release);
                        while line.load(Ordering::Acquire) != 2 * n + 2 {}
                    }
                    start.elapsed().as_nanos() as f64 / (2 * TRIPS) as f64
                })
                .collect::<Vec<f64>>()
        })
        .join()
        .unwrap_or_default()
    });
    Summary::of(&batches).map(|s| s.median)
}

/// The CPUs this process may run on, in order (its affinity mask).
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Pins the calling thread to `cpu` (best effort: unpinned, the figure is an upper bound).
#[cfg(target_os = "linux")]
fn pin_to(cpu: usize) {
    // SAFETY: as above; the set names one CPU of the process's own mask.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_to(_: usize) {}

/// What one `Instant::now()` costs and the smallest step between two consecutive readings
/// (over 100,000 pairs).
fn timer() -> Timer {
    let now_cost_ns = per_call_ns(|| {
        std::hint::black_box(Instant::now());
    });
    let resolution = (0..100_000)
        .map(|_| {
            let (a, b) = (Instant::now(), Instant::now());
            b.duration_since(a).as_nanos() as f64
        })
        .filter(|step| *step > 0.0)
        .fold(f64::INFINITY, f64::min);
    Timer {
        now_cost_ns,
        resolution_ns: if resolution.is_finite() {
            resolution
        } else {
            0.0
        },
    }
}

/// The running kernel's configuration (/proc/config.gz, read with `zcat`, or
/// /boot/config-<release>).
fn kernel_config() -> Option<String> {
    std::process::Command::new("zcat")
        .arg("/proc/config.gz")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .or_else(|| {
            let release = read("/proc/sys/kernel/osrelease")?;
            read(format!("/boot/config-{release}"))
        })
}

/// The value of a `CONFIG_X=value` line.
fn config_value(config: &str, key: &str) -> Option<String> {
    config
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .map(String::from)
}

/// The preemption model: the one chosen at boot where the kernel says (debugfs), else the one
/// it was built with, and whether it can be chosen at boot.
fn preemption(config: &str) -> Option<String> {
    if let Some(chosen) = read("/sys/kernel/debug/sched/preempt").and_then(|s| chosen(&s)) {
        return Some(format!("{chosen} (chosen at boot)"));
    }
    let built = [
        "PREEMPT_NONE",
        "PREEMPT_VOLUNTARY",
        "PREEMPT_LAZY",
        "PREEMPT_RT",
    ]
    .into_iter()
    .chain(std::iter::once("PREEMPT"))
    .find(|m| config_value(config, &format!("CONFIG_{m}")).as_deref() == Some("y"))?;
    let dynamic = config_value(config, "CONFIG_PREEMPT_DYNAMIC").as_deref() == Some("y");
    Some(if dynamic {
        format!("built default {built}, choosable at boot (PREEMPT_DYNAMIC)")
    } else {
        built.to_string()
    })
}

/// The bracketed choice of a sysfs selector: "always [madvise] never" → "madvise".
fn chosen(selector: &str) -> Option<String> {
    let start = selector.find('[')?;
    let end = selector[start..].find(']')?;
    Some(selector[start + 1..start + end].to_string())
}

/// Every file in `dir` whose name `keep` accepts, as name → its first line.
fn settings(dir: &str, keep: impl Fn(&str) -> bool) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if !keep(&name) {
                return None;
            }
            let value = read(e.path())?;
            Some((name, value.lines().next().unwrap_or("").to_string()))
        })
        .collect()
}

fn cpuidle() -> Option<String> {
    let driver = read("/sys/devices/system/cpu/cpuidle/current_driver")?;
    let governor = read("/sys/devices/system/cpu/cpuidle/current_governor_ro")
        .or_else(|| read("/sys/devices/system/cpu/cpuidle/current_governor"));
    Some(match governor {
        Some(g) => format!("driver {driver}, governor {g}"),
        None => format!("driver {driver}"),
    })
}

/// The kernel's own parameters: the command line up to ` -- `, after which come the init's.
fn kernel_cmdline(cmdline: &str) -> String {
    cmdline
        .split_once(" -- ")
        .map_or(cmdline, |(kernel, _)| kernel)
        .trim()
        .to_string()
}

fn libc_version() -> Option<String> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
        let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        Some(format!("glibc {}", v.to_string_lossy()))
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_ranges_and_singles() {
        assert_eq!(cpu_list("0-1"), vec![0, 1]);
        assert_eq!(cpu_list("0-2,5,7-8"), vec![0, 1, 2, 5, 7, 8]);
        assert_eq!(cpu_list(""), Vec::<u32>::new());
    }

    #[test]
    fn sizes_as_sysfs_writes_them() {
        assert_eq!(size_bytes("512K"), 512 << 10);
        assert_eq!(size_bytes("32M"), 32 << 20);
        assert_eq!(size_bytes("64"), 64);
    }

    #[test]
    fn selectors_and_config_lines() {
        assert_eq!(chosen("always [madvise] never").as_deref(), Some("madvise"));
        assert_eq!(chosen("none"), None);
        let config = "# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n";
        assert_eq!(config_value(config, "CONFIG_HZ").as_deref(), Some("250"));
        assert_eq!(config_value(config, "CONFIG_HZ_250").as_deref(), Some("y"));
        assert_eq!(config_value(config, "CONFIG_HZ_100"), None);
    }

    #[test]
    fn the_init_arguments_are_not_the_kernels() {
        assert_eq!(
            kernel_cmdline("quiet panic=1 rdinit=/init -- --addr 0.0.0.0:1 --auth-required"),
            "quiet panic=1 rdinit=/init"
        );
        assert_eq!(kernel_cmdline("quiet"), "quiet");
    }

    #[test]
    fn the_cpuinfo_field_is_cpu_zeros() {
        let info = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nvendor_id\t: Other\n";
        assert_eq!(
            cpuinfo_field(info, "vendor_id").as_deref(),
            Some("AuthenticAMD")
        );
        // "model" is not "model name".
        assert_eq!(cpuinfo_field(info, "model").as_deref(), Some("1"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_has_a_vendor_a_topology_and_a_working_clock() {
        let f = here();
        assert!(!f.vendor.is_empty());
        assert!(f.cores >= 1 && f.threads_per_core >= 1, "{f:?}");
        assert_eq!(f.thread_siblings.len() as u32, f.cores * f.threads_per_core);
        assert!(f.timer.now_cost_ns > 0.0 && f.timer.resolution_ns > 0.0);
        assert!(f.spin_loop_ns.is_some_and(|ns| ns > 0.0), "{f:?}");
        if allowed_cpus().len() >= 2 {
            assert!(f.line_handoff_ns.is_some_and(|ns| ns > 0.0), "{f:?}");
        }
    }

    #[test]
    fn reading_the_facts_leaves_the_callers_cpus_as_they_were() {
        let before = allowed_cpus();
        let _ = super::here();
        assert_eq!(allowed_cpus(), before);
    }
}
