//! CPUs: how many the machine has, and pinning a process to some of them before any
//! thread starts (a child that measures on a given number of CPUs).

/// The CPUs this machine has online.
pub fn host_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Restricts this thread, and the threads it starts afterwards, to the first `cpus`
/// CPUs it may use (what `taskset` does for a whole process).
#[cfg(target_os = "linux")]
pub fn pin_to_cpus(cpus: usize) -> Result<(), String> {
    // SAFETY: cpu_set_t is plain data; the calls get its size and a valid pointer.
    unsafe {
        let size = size_of::<libc::cpu_set_t>();
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return Err(format!(
                "sched_getaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mut mask: libc::cpu_set_t = std::mem::zeroed();
        let mut taken = 0;
        for cpu in 0..libc::CPU_SETSIZE as usize {
            if taken < cpus && libc::CPU_ISSET(cpu, &allowed) {
                libc::CPU_SET(cpu, &mut mask);
                taken += 1;
            }
        }
        if taken < cpus {
            return Err(format!(
                "asked for {cpus} CPUs, this process may use {taken}"
            ));
        }
        if libc::sched_setaffinity(0, size, &mask) != 0 {
            return Err(format!(
                "sched_setaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn pin_to_cpus(_: usize) -> Result<(), String> {
    Err("CPU affinity masks are set here on Linux only".into())
}
