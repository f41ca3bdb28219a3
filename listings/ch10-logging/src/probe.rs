//! What the kernel says about this process: its CPU time, and the write system calls it made.

use std::time::Duration;

/// CPU time (user and system) of every thread of this process so far.
pub fn process_cpu() -> Duration {
    // SAFETY: getrusage fills the struct it is given; a zeroed rusage is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid pointer.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The process's resident memory now, in bytes (`VmRSS` in /proc/self/status).
pub fn resident_bytes() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .ok_or_else(|| "no VmRSS in /proc/self/status".to_string())
}

/// Write system calls this process has made (`syscw` in /proc/self/io; every thread, the
/// ones that have exited included).
pub fn write_syscalls() -> Result<u64, String> {
    let io = std::fs::read_to_string("/proc/self/io")
        .map_err(|e| format!("cannot read /proc/self/io: {e}"))?;
    io.lines()
        .find_map(|l| l.strip_prefix("syscw:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| "no syscw in /proc/self/io".to_string())
}
