//! Thread budgets: the CPUs a process may use (an affinity mask, a cgroup CPU
//! quota), what `available_parallelism()` reports under each, and the process's
//! thread count. Linux only; elsewhere these report that they cannot.

use std::path::{Path, PathBuf};

/// The process's threads right now (`/proc/self/task`).
pub fn threads() -> Option<u64> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count() as u64)
}

pub use measure::affinity::host_cpus;

/// `std::thread::available_parallelism()`, or 1.
pub fn available_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub use measure::affinity::pin_to_cpus;

/// A cgroup with a CPU quota, made for one child process and removed when dropped:
/// cgroup v1 (`cpu.cfs_quota_us` under the `cpu` controller), or v2 (`cpu.max`)
/// where the cpu controller is already enabled for this process's children (rarely:
/// a cgroup that holds processes may not enable it). Making one usually needs root.
pub struct CpuQuota {
    dir: PathBuf,
    v2: bool,
}

impl CpuQuota {
    /// A new cgroup inside this process's own, limited to `cpus` CPUs' worth of
    /// time per 100 ms period.
    pub fn new(cpus: usize) -> Result<CpuQuota, String> {
        let cgroups = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
        let name = format!("ch05-rayon-lanes-{}", std::process::id());
        let period = 100_000;
        // cgroup v1: a line like `4:cpu,cpuacct:/path`.
        let v1 = cgroups.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) =
                (parts.next()?, parts.next()?, parts.next()?);
            controllers.split(',').any(|c| c == "cpu").then_some(path)
        });
        let (dir, v2) = match v1 {
            Some(path) => {
                let (root, mount) = cpu_controller_mount()
                    .ok_or("no cgroup v1 cpu controller in /proc/self/mountinfo")?;
                // The mount shows the hierarchy from `root` down (a container sees
                // its own).
                let inside = path.strip_prefix(root.as_str()).unwrap_or(path);
                (
                    mount.join(inside.trim_start_matches('/')).join(&name),
                    false,
                )
            }
            None => {
                let path = cgroups
                    .lines()
                    .find_map(|l| l.strip_prefix("0::"))
                    .ok_or("no cgroup found in /proc/self/cgroup")?;
                let parent =
                    Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
                (parent.join(&name), true)
            }
        };
        if let Some(parent) = dir.parent() {
            sweep(parent);
        }
        std::fs::create_dir(&dir).map_err(|e| {
            format!("cannot make the cgroup {}: {e}", dir.display())
        })?;
        let quota = CpuQuota { dir, v2 };
        let quota_us = cpus * period;
        if quota.v2 {
            quota.write("cpu.max", &format!("{quota_us} {period}"))?;
        } else {
            quota.write("cpu.cfs_period_us", &period.to_string())?;
            quota.write("cpu.cfs_quota_us", &quota_us.to_string())?;
        }
        Ok(quota)
    }

    fn write(&self, file: &str, value: &str) -> Result<(), String> {
        let path = self.dir.join(file);
        std::fs::write(&path, value).map_err(|e| {
            format!("cannot write {value:?} to {}: {e}", path.display())
        })
    }

    /// The file a process writes its pid to, to join.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// How many 100 ms periods the cgroup's processes were throttled in so far.
    pub fn throttled_periods(&self) -> Option<u64> {
        let stat = std::fs::read_to_string(self.dir.join("cpu.stat")).ok()?;
        stat.lines()
            .find_map(|l| l.strip_prefix("nr_throttled "))?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for CpuQuota {
    // The child has exited by now; an empty cgroup is removed with rmdir.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// (the root of the hierarchy it shows, where it is mounted) for the cgroup v1
/// `cpu` controller, from `/proc/self/mountinfo`.
fn cpu_controller_mount() -> Option<(String, PathBuf)> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mountinfo.lines().find_map(|line| {
        let (mount, fs) = line.split_once(" - ")?;
        let mut fs = fs.split_whitespace();
        let (kind, _, options) = (fs.next()?, fs.next()?, fs.next()?);
        if kind != "cgroup" || !options.split(',').any(|o| o == "cpu") {
            return None;
        }
        let fields: Vec<&str> = mount.split_whitespace().collect();
        Some((fields.get(3)?.to_string(), PathBuf::from(fields.get(4)?)))
    })
}

/// Removes the cgroups a killed run of this listing left behind (empty once their
/// processes have exited), named after a process that no longer exists.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("ch05-rayon-lanes-") else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// Moves this process into the cgroup whose `cgroup.procs` is `procs`.
pub fn join_cgroup(procs: &Path) -> Result<(), String> {
    std::fs::write(procs, std::process::id().to_string())
        .map_err(|e| format!("cannot join {}: {e}", procs.display()))
}
