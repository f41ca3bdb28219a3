//! What the process did, from Linux's own accounting: its thread count (`/proc/self/task`),
//! its read syscalls and the bytes it fetched from storage (`/proc/self/io`), and which
//! filesystem a directory lives on (`/proc/self/mounts`). Elsewhere these read as unknown.

use std::path::Path;

/// The process's threads right now: the entries of `/proc/self/task`, listed with `getdents`,
/// so that counting them adds nothing to the read syscalls the experiment counts.
pub fn threads() -> Option<u64> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count() as u64)
}

/// (read syscalls, bytes fetched from storage) so far, for the whole process.
pub fn io_counters() -> Option<(u64, u64)> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    let field = |key: &str| -> Option<u64> {
        io.lines()
            .find_map(|l| l.strip_prefix(key))?
            .trim()
            .parse()
            .ok()
    };
    Some((field("syscr:")?, field("read_bytes:")?))
}

/// Minor page faults of the process so far (`/proc/self/stat`): first touches of fresh memory.
pub fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces; minflt is
    // the 10th field of the line, the 8th after the name.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(7)?
        .parse()
        .ok()
}

/// The filesystem type and device of the mount that holds `dir` ("ext4 on /dev/vda").
pub fn filesystem(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3 && dir.starts_with(f[1]))
                .then(|| (f[1].len(), format!("{} on {}", f[2], f[0])))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, what)| what)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn counts_threads_and_reads() {
        // Other tests run on threads of their own, so only a floor can be asserted.
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let other = std::thread::spawn(move || rx.recv());
        assert!(
            threads().unwrap() >= 2,
            "this thread and the other are counted"
        );
        drop(tx);
        let _ = other.join();
        let (r0, _) = io_counters().unwrap();
        let _ = std::fs::read("/proc/self/stat").unwrap();
        let (r1, _) = io_counters().unwrap();
        assert!(r1 > r0, "a read is counted");
        assert!(filesystem(Path::new("/")).is_some());
        let f0 = minor_faults().unwrap();
        let fresh = std::hint::black_box(vec![1u8; 1 << 22]);
        assert!(
            minor_faults().unwrap() > f0,
            "touching {} fresh bytes faults",
            fresh.len()
        );
    }
}
