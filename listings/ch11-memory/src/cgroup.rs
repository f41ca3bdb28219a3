//! A memory cgroup of the experiment's own, with a limit, for one service process: a container's
//! memory limit, which counts the pages a process has made resident (and the page cache it
//! reads), not the address space it reserved. Needs root, and the memory controller either on a
//! cgroup v1 hierarchy or on v2 with the controller enabled for the children of this process's
//! cgroup.

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Which of the kernel's two interfaces the memory controller is on: its files are named
/// differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

/// A cgroup made by `MemoryCgroup::create`, removed when dropped.
pub struct MemoryCgroup {
    dir: PathBuf,
    version: Version,
    limit: u64,
}

impl MemoryCgroup {
    /// A new cgroup below this process's own, limited to `limit` bytes and no swap.
    pub fn create(limit: u64) -> Result<MemoryCgroup, String> {
        let (parent, version) =
            memory_controller(&read("/proc/self/mountinfo")?, &read("/proc/self/cgroup")?)?;
        static MADE: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "ch11-memory-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        if version == Version::V2 {
            enable_memory_for_children(&parent)?;
        }
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| {
            format!(
                "cannot make a memory cgroup in {}: {e} (it needs root)",
                parent.display()
            )
        })?;
        let cgroup = MemoryCgroup {
            dir,
            version,
            limit,
        };
        let (limit_file, swap_file, swap_value) = match version {
            Version::V1 => (
                "memory.limit_in_bytes",
                "memory.memsw.limit_in_bytes",
                limit.to_string(),
            ),
            Version::V2 => ("memory.max", "memory.swap.max", "0".into()),
        };
        cgroup.write(limit_file, &limit.to_string())?;
        // Without swap the limit ends the process; with swap it would page instead.
        if cgroup.dir.join(swap_file).exists() {
            cgroup.write(swap_file, &swap_value)?;
        }
        Ok(cgroup)
    }

    /// Makes `command`'s process join this cgroup before it runs its program.
    pub fn enter_on_exec(&self, command: &mut Command) {
        let procs = CString::new(
            self.dir
                .join("cgroup.procs")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .expect("a cgroup's path has no NUL");
        // SAFETY: open, write and close are async-signal-safe; the closure allocates nothing.
        unsafe {
            command.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // "0": the process that writes.
                let wrote = libc::write(fd, b"0".as_ptr().cast(), 1);
                let error = std::io::Error::last_os_error();
                libc::close(fd);
                if wrote != 1 {
                    return Err(error);
                }
                Ok(())
            });
        }
    }

    /// Processes the kernel's OOM killer has ended in this cgroup (for its own limit, or for a
    /// parent's or the whole machine's: `limit_reached` tells which).
    pub fn oom_kills(&self) -> Result<u64, String> {
        match self.version {
            Version::V1 => self.counter("memory.oom_control", "oom_kill"),
            Version::V2 => self.counter("memory.events", "oom_kill"),
        }
    }

    /// Whether this cgroup's own limit was reached: its peak charge came within a megabyte of it
    /// (charges come in batches of up to 64 pages; v1's `failcnt` is not kept on recent kernels),
    /// or, on v2 without `memory.peak`, a `max` event was counted.
    pub fn limit_reached(&self) -> Result<bool, String> {
        match (self.peak(), self.version) {
            (Some(peak), _) => Ok(peak + (1 << 20) >= self.limit),
            (None, Version::V2) => Ok(self.counter("memory.events", "max")? > 0),
            (None, Version::V1) => Err(format!(
                "cannot read memory.max_usage_in_bytes in {}",
                self.dir.display()
            )),
        }
    }

    fn counter(&self, file: &str, name: &str) -> Result<u64, String> {
        let path = self.dir.join(file);
        counter(&read(&path)?, name).ok_or_else(|| format!("no {name} in {}", path.display()))
    }

    /// The most memory the cgroup was charged at once (None where the kernel does not say:
    /// v2's `memory.peak` is Linux 5.19 on).
    pub fn peak(&self) -> Option<u64> {
        let file = match self.version {
            Version::V1 => "memory.max_usage_in_bytes",
            Version::V2 => "memory.peak",
        };
        read(self.dir.join(file)).ok()?.trim().parse().ok()
    }

    fn write(&self, file: &str, value: &str) -> Result<(), String> {
        let path = self.dir.join(file);
        std::fs::write(&path, value)
            .map_err(|e| format!("cannot write {value} to {}: {e}", path.display()))
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        // Its one process has ended; an empty cgroup can be removed.
        if let Err(e) = std::fs::remove_dir(&self.dir) {
            eprintln!("cannot remove {}: {e}", self.dir.display());
        }
    }
}

/// On cgroup v2 a child cgroup has a `memory.max` only where its parent enables the controller
/// for its children (`+memory` in `cgroup.subtree_control`).
fn enable_memory_for_children(parent: &Path) -> Result<(), String> {
    let control = parent.join("cgroup.subtree_control");
    if read(&control)?.split_whitespace().any(|c| c == "memory") {
        return Ok(());
    }
    std::fs::write(&control, "+memory").map_err(|e| {
        format!(
            "cannot enable the memory controller for {}'s children: {e} (cgroup v2 lets a \
             cgroup that has processes of its own, as this one has this program, enable no \
             controller for its children: run the listing from a cgroup whose \
             cgroup.subtree_control already lists memory)",
            parent.display()
        )
    })
}

fn read(path: impl AsRef<Path>) -> Result<String, String> {
    let path = path.as_ref();
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Which interface this process's memory cgroup is on, or why there is none.
pub fn version_here() -> Result<Version, String> {
    memory_controller(&read("/proc/self/mountinfo")?, &read("/proc/self/cgroup")?).map(|(_, v)| v)
}

/// `name N` from a file of such lines (`memory.oom_control`, `memory.events`).
fn counter(text: &str, name: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (key, value) = l.split_once(' ')?;
        (key == name).then(|| value.trim().parse().ok())?
    })
}

/// The folder of this process's cgroup in the hierarchy that has the memory controller, from
/// `/proc/self/mountinfo` and `/proc/self/cgroup`: a v1 hierarchy mounted with `memory` first,
/// else the v2 hierarchy if its `cgroup.controllers` lists `memory`.
pub fn memory_controller(mountinfo: &str, cgroups: &str) -> Result<(PathBuf, Version), String> {
    let mounts: Vec<Mount> = mountinfo.lines().filter_map(Mount::parse).collect();
    let v1 = mounts
        .iter()
        .find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == "memory"));
    if let Some(mount) = v1 {
        let path = cgroups
            .lines()
            .filter_map(|l| l.splitn(3, ':').collect::<Vec<_>>().try_into().ok())
            .find_map(|[_, controllers, path]: [&str; 3]| {
                controllers
                    .split(',')
                    .any(|c| c == "memory")
                    .then_some(path)
            })
            .ok_or("the memory controller is mounted but this process is in no memory cgroup")?;
        return Ok((mount.dir_of(path), Version::V1));
    }
    let unified = mounts.iter().find(|m| m.fstype == "cgroup2");
    let path = cgroups.lines().find_map(|l| l.strip_prefix("0::"));
    if let (Some(mount), Some(path)) = (unified, path) {
        let dir = mount.dir_of(path);
        let controllers = read(dir.join("cgroup.controllers")).unwrap_or_default();
        if controllers.split_whitespace().any(|c| c == "memory") {
            return Ok((dir, Version::V2));
        }
    }
    Err("no cgroup hierarchy with the memory controller is mounted here".into())
}

/// A line of `/proc/self/mountinfo`: the mount's root within its filesystem, where it is
/// mounted, its type and its filesystem's options.
struct Mount<'a> {
    root: &'a str,
    point: &'a str,
    fstype: &'a str,
    options: &'a str,
}

impl<'a> Mount<'a> {
    fn parse(line: &'a str) -> Option<Mount<'a>> {
        let (before, after) = line.split_once(" - ")?;
        let fields: Vec<&str> = before.split(' ').collect();
        let mut after = after.split(' ');
        Some(Mount {
            root: fields.get(3)?,
            point: fields.get(4)?,
            fstype: after.next()?,
            options: after.nth(1)?,
        })
    }

    /// The folder of the cgroup at `path` (as `/proc/self/cgroup` names it) under this mount.
    fn dir_of(&self, path: &str) -> PathBuf {
        let inside = path.strip_prefix(self.root).unwrap_or(path);
        Path::new(self.point).join(inside.trim_start_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS_V1: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";

    #[test]
    fn a_v1_memory_hierarchy_is_found_with_this_process_s_cgroup() {
        let cgroups = "8:pids:/\n4:memory:/process_api/7df1\n1:cpu:/\n0::/\n";
        let (dir, version) = memory_controller(MOUNTS_V1, cgroups).unwrap();
        assert_eq!(version, Version::V1);
        assert_eq!(dir, Path::new("/sys/fs/cgroup/memory/process_api/7df1"));
    }

    #[test]
    fn a_mount_of_a_sub_tree_takes_its_root_off_the_path() {
        let mounts = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory";
        let (dir, _) = memory_controller(mounts, "4:memory:/docker/abc/inner\n").unwrap();
        assert_eq!(dir, Path::new("/sys/fs/cgroup/memory/inner"));
    }

    #[test]
    fn without_a_memory_controller_the_error_says_so() {
        let mounts = "41 31 0:38 / /nonexistent/unified rw - cgroup2 cgroup2 rw";
        let e = memory_controller(mounts, "0::/\n").unwrap_err();
        assert!(
            e.contains("no cgroup hierarchy with the memory controller"),
            "{e}"
        );
    }

    #[test]
    fn the_oom_kill_counter_is_read_by_name_not_by_prefix() {
        let v1 = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(counter(v1, "oom_kill"), Some(3));
        let v2 = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(counter(v2, "oom_kill"), Some(1));
        assert_eq!(counter("oom 1\n", "oom_kill"), None);
    }
}
