//! What the kernel says about this process and its sockets: CPU time, and sockets in TIME-WAIT.

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

/// The kernel's count of TCP resets this machine has sent, and of two of their causes. A
/// connection closed with data its side never read, or that receives data after it closed, ends
/// with a reset instead of the FIN exchange and TIME-WAIT. Machine-wide counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpResets {
    /// `OutRsts` in /proc/net/snmp: every reset sent.
    pub sent: u64,
    /// `TCPAbortOnData` in /proc/net/netstat: data arrived after the socket was closed
    /// (`tcp_rcv_state_process` in Linux's tcp_input.c).
    pub on_data: u64,
    /// `TCPAbortOnClose`: the socket was closed with data unread (`__tcp_close` in tcp.c).
    pub on_close: u64,
}

impl TcpResets {
    /// The counters now.
    pub fn read() -> Result<TcpResets, String> {
        Ok(TcpResets {
            sent: counter("/proc/net/snmp", "Tcp:", "OutRsts")?,
            on_data: counter("/proc/net/netstat", "TcpExt:", "TCPAbortOnData")?,
            on_close: counter("/proc/net/netstat", "TcpExt:", "TCPAbortOnClose")?,
        })
    }

    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &TcpResets) -> TcpResets {
        TcpResets {
            sent: self.sent - earlier.sent,
            on_data: self.on_data - earlier.on_data,
            on_close: self.on_close - earlier.on_close,
        }
    }
}

/// One counter of a /proc/net table, where a row of names (starting `prefix`) is followed by a
/// row of values.
fn counter(file: &str, prefix: &str, name: &str) -> Result<u64, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let mut rows = text.lines().filter(|l| l.starts_with(prefix));
    let (Some(names), Some(values)) = (rows.next(), rows.next()) else {
        return Err(format!("{file} has no {prefix} rows"));
    };
    names
        .split_whitespace()
        .zip(values.split_whitespace())
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v.parse().ok())
        .ok_or_else(|| format!("{file} has no {name}"))
}

/// TCP sockets in TIME-WAIT with `port` at either end, from /proc/net/tcp and tcp6: the sockets
/// a closed connection leaves behind for 60 seconds on Linux.
pub fn time_wait(port: u16) -> Result<usize, String> {
    let mut count = 0;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = match std::fs::read_to_string(table) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{table}: {e}")),
        };
        count += count_time_wait(&text, port)?;
    }
    Ok(count)
}

/// The TIME-WAIT rows (state 06) of one /proc/net/tcp table whose local or remote port is `port`.
pub fn count_time_wait(table: &str, port: u16) -> Result<usize, String> {
    let mut count = 0;
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, local, remote, state, ..] = fields[..] else {
            return Err(format!(
                "a row of /proc/net/tcp without its fields: {line:?}"
            ));
        };
        let port_of = |addr: &str| {
            addr.rsplit_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("an address without a port in /proc/net/tcp: {addr:?}"))
        };
        if state == "06" && (port_of(local)? == port || port_of(remote)? == port) {
            count += 1;
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_wait_rows_are_counted_by_port_at_either_end() {
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1
   1: 0100007F:1F90 0100007F:C350 06 00000000:00000000 03:00001770 00000000     0        0 0 3
   2: 0100007F:C351 0100007F:1F90 06 00000000:00000000 03:00001770 00000000     0        0 0 3
   3: 0100007F:C352 0100007F:1F91 06 00000000:00000000 03:00001770 00000000     0        0 0 3
   4: 0100007F:C353 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 2 1";
        assert_eq!(count_time_wait(table, 0x1F90), Ok(2));
        assert_eq!(count_time_wait(table, 0x1F91), Ok(1));
        assert!(count_time_wait("header\n 0: broken", 80).is_err());
    }

    #[test]
    fn the_kernel_counters_are_read() {
        let now = TcpResets::read().unwrap();
        assert!(
            now.on_data <= now.sent && now.on_close <= now.sent,
            "{now:?}"
        );
        assert_eq!(now.since(&now), TcpResets::default());
        assert!(counter("/proc/net/snmp", "Tcp:", "NoSuchCounter").is_err());
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let before = process_cpu();
        let until = std::time::Instant::now() + Duration::from_millis(30);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        assert!(process_cpu() > before);
    }
}
