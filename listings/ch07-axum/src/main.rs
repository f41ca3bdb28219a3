//! The experiments of Chapter 7. Every cell starts the service as a child process
//! (this program's `serve`, `ch07-mimalloc serve`, or this program built with another
//! release profile), loads it over HTTP from this process, and stops it:
//! `ping` (/ping while clients keep /hash/inline or /hash busy), `allocator` (the
//! system allocator and mimalloc on /books and /hash), `counters` (one mutex and
//! sharded view counters), `profile` (the default release profile and the
//! chapter's), `generators` (this generator and oha on the same scenario).
//!
//! `cargo run -p ch07-axum -- --help` lists the flags; `-- serve --help` the server's.

use ch07_axum::faults;
use ch07_axum::load::{Errors, Expect, Generator, OpenLoopRun, Request};
use ch07_axum::server::Stopped;
use ch07_axum::service::{MAX_PAGE, catalogue, cover_image, hash};
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// The service's Tokio workers (and hash permits): every core.
    workers: u32,
    /// How long each cell offers its load.
    run_ms: u64,
    /// `ping`: background clients sending /hash/inline or /hash back to back
    /// (two for each worker), and /ping's open-loop rate and connections.
    hash_clients: usize,
    ping_per_s: f64,
    ping_connections: usize,
    /// `allocator`, `profile`: /books?limit=N at this rate; /hash at this rate.
    books_per_page: u32,
    books_per_s: f64,
    hashes_per_s: f64,
    /// `counters`: views of this many books at this rate.
    books_viewed: u32,
    views_per_s: f64,
    /// Connections for the open-loop scenarios other than /ping.
    connections: usize,
    /// `curve`, `overload`, `shutdown`, `bodies`: /books?limit=N, a page whose cost
    /// is the server's (building and serialising it) far more than the generator's
    /// (comparing it), so that the server saturates first.
    load_page: u32,
    /// `curve`: that page at these percentages of the capacity measured in the
    /// repetition (`capacity_per_s`), each for `curve_run_ms`.
    curve_loads: Vec<u32>,
    curve_run_ms: u64,
    /// `overload`: /books (or /hash) at this percentage of its capacity, over this
    /// many connections; the limit of the `shed` variant (requests in the handlers at
    /// once: a few per worker keep every worker busy); answers later than the
    /// deadline do not count as goodput.
    overload_load: u32,
    overload_connections: usize,
    concurrency_limit: usize,
    goodput_deadline_ms: u64,
    /// `slow_clients`: connections sending headers a byte at a time, and the
    /// hardened server's header-read timeout.
    slow_clients: usize,
    slow_pace_ms: u64,
    header_read_timeout_ms: u64,
    /// `slow_clients`: /ping's connections, few enough that none sits idle for as
    /// long as the header-read timeout, which hyper also applies between requests.
    slow_ping_connections: usize,
    /// `fd_flood`, `shutdown`: the hardened loop's header-read timeout there, longer
    /// than a flood is held.
    long_header_timeout_ms: u64,
    /// `shutdown`: /hash's load in percent of its capacity (a queue of hashes in
    /// flight at the signal), and a drain deadline shorter than that queue's work.
    queue_load: u32,
    short_drain_ms: u64,
    /// `fd_flood`: the server's open-file limit, idle connections opened against it,
    /// the hardened server's connection limit, and floods per cell.
    open_files: u64,
    flood_connections: usize,
    max_connections: usize,
    floods: usize,
    /// `bodies`: bad requests a second (oversized, malformed), slow-body clients,
    /// and the request deadline those get 504 at; /books at `bodies_load` percent of
    /// the capacity beside them.
    bad_per_s: f64,
    slow_bodies: usize,
    bodies_deadline_ms: u64,
    bodies_load: u32,
    /// `cover`: /cover at this rate.
    covers_per_s: f64,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            run_ms: if quick { 600 } else { 3000 },
            hash_clients: 2 * workers as usize,
            ping_per_s: 100.0,
            ping_connections: 32,
            books_per_page: 200,
            books_per_s: 500.0,
            hashes_per_s: 10.0 * workers as f64,
            books_viewed: 1000,
            views_per_s: 2000.0,
            connections: 32,
            load_page: MAX_PAGE,
            curve_loads: vec![25, 50, 75, 100, 125, 150, 200],
            curve_run_ms: if quick { 300 } else { 1500 },
            overload_load: 200,
            overload_connections: 256,
            concurrency_limit: 4 * workers as usize,
            goodput_deadline_ms: 250,
            slow_clients: 200,
            slow_pace_ms: 50,
            header_read_timeout_ms: if quick { 200 } else { 1000 },
            slow_ping_connections: 4,
            long_header_timeout_ms: 5000,
            queue_load: 150,
            short_drain_ms: 50,
            open_files: 64,
            flood_connections: 128,
            max_connections: 32,
            floods: if quick { 1 } else { 3 },
            bad_per_s: 100.0,
            slow_bodies: 50,
            bodies_deadline_ms: if quick { 300 } else { 1000 },
            bodies_load: 25,
            covers_per_s: 500.0,
        }
    }

    fn length(&self) -> Duration {
        Duration::from_millis(self.run_ms)
    }

    fn curve_length(&self) -> Duration {
        Duration::from_millis(self.curve_run_ms)
    }
}

const PASSWORD: &str = "correct horse battery staple";

/// The requests, each with its checked answer.
struct Requests {
    ping: Request,
    hash_inline: Request,
    hash: Request,
    books: Request,
    full_page: Request,
    cover: Request,
    cover_copied: Request,
}

impl Requests {
    fn new(p: &Params) -> Result<Requests, String> {
        let hashed = hash(PASSWORD).map_err(|s| format!("hash: {s}"))?;
        let page = serde_json::to_vec(&catalogue(p.books_per_page))
            .map_err(|e| e.to_string())?;
        let answer = Expect::Body(hashed.into());
        Ok(Requests {
            ping: Request::get("/ping", Expect::Body("pong\n".into())),
            hash_inline: Request::post("/hash/inline", PASSWORD, answer.clone()),
            hash: Request::post("/hash", PASSWORD, answer),
            books: Request::get(
                &format!("/books?limit={}", p.books_per_page),
                Expect::Body(page.into()),
            ),
            full_page: Request::get(
                &format!("/books?limit={}", p.load_page),
                Expect::Body(
                    serde_json::to_vec(&catalogue(p.load_page))
                        .map_err(|e| e.to_string())?
                        .into(),
                ),
            ),
            cover: Request::get("/cover", Expect::Body(cover_image().into())),
            cover_copied: Request::get(
                "/cover/copy",
                Expect::Body(cover_image().into()),
            ),
        })
    }
}

// ANCHOR: server_process
/// The service in a child process: started per cell, stopped by closing its stdin.
struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    addr: SocketAddr,
    internal: SocketAddr,
}

impl Server {
    fn start(
        binary: &Path,
        workers: u32,
        extra: &[&str],
    ) -> Result<Server, String> {
        Server::start_limited(binary, workers, extra, None)
    }

    /// `start`, with at most `open_files` file descriptors if given.
    fn start_limited(
        binary: &Path,
        workers: u32,
        extra: &[&str],
        open_files: Option<u64>,
    ) -> Result<Server, String> {
        Server::start_in(Command::new(binary), workers, extra, open_files)
    }

    /// `start`, with this command (its binary and environment).
    fn start_in(
        mut command: Command,
        workers: u32,
        extra: &[&str],
        open_files: Option<u64>,
    ) -> Result<Server, String> {
        let binary = PathBuf::from(command.get_program());
        lower_priority(&mut command);
        if let Some(n) = open_files {
            limit_open_files(&mut command, n);
        }
        let mut child = command
            .args(["serve", "--port", "0", "--internal-port", "0"])
            .args(["--until-stdin-closes", "--workers", &workers.to_string()])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        stdout.read_line(&mut line).map_err(|e| e.to_string())?;
        let addrs: Vec<SocketAddr> = line
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("http://")?.parse().ok())
            .collect();
        match addrs[..] {
            [addr, internal] => Ok(Server {
                child,
                stdout,
                addr,
                internal,
            }),
            _ => Err(format!("the server printed {line:?}")),
        }
    }

    /// A number from the internal port: `/debug/cpu` (CPU time so far, µs),
    /// `/debug/faults` (minor page faults so far), `/debug/views` (views counted).
    fn read(&self, path: &str) -> Result<f64, String> {
        let text = Generator::new(self.internal)?
            .fetch(&Request::get(path, Expect::Count))?;
        String::from_utf8_lossy(&text)
            .trim()
            .parse()
            .map_err(|e| format!("{path}: {e}"))
    }

    /// The server's anonymous memory in transparent huge pages now, in MiB
    /// (`AnonHugePages`): what a page fault there maps is 2 MiB, not 4 KiB.
    fn huge_pages_mib(&self) -> Result<f64, String> {
        proc_field_mib(
            &format!("/proc/{}/smaps_rollup", self.child.id()),
            "AnonHugePages:",
        )
    }

    /// The server's peak resident memory so far, in MiB (`VmHWM`).
    fn peak_memory_mib(&self) -> Result<f64, String> {
        proc_field_mib(&format!("/proc/{}/status", self.child.id()), "VmHWM:")
    }

    /// The server's threads now (`Threads` in its status): the workers, the main
    /// thread, and the blocking pool's, which stay idle for ten seconds after a task.
    fn threads(&self) -> Result<f64, String> {
        let path = format!("/proc/{}/status", self.child.id());
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        text.lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .ok_or(format!("{path} has no Threads"))
    }

    /// The stop signal, without waiting: `stop` waits.
    fn signal_stop(&mut self) {
        drop(self.child.stdin.take());
    }

    /// Graceful shutdown; the requests the server counted as it stopped; an error
    /// if it did not exit cleanly.
    fn stop(mut self) -> Result<Stopped, String> {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.child.try_wait().map_err(|e| e.to_string())? {
                Some(status) if status.success() => break,
                Some(status) => {
                    return Err(format!("the server exited with {status}"));
                }
                None if Instant::now() > deadline => {
                    return Err("the server did not stop within 20 s".into());
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let mut last = String::new();
        self.stdout
            .read_to_string(&mut last)
            .map_err(|e| e.to_string())?;
        last.parse()
    }
}

/// The server runs at nice 10: where it and the load generator want the same CPU,
/// the scheduler gives the generator (the instrument) about nine times the
/// server's share (weights 1024 and 110), though not always the CPU first; the
/// server's threads still compete with each other as equals.
fn lower_priority(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setpriority is one system call on the child's own process, made
        // between fork and exec; it allocates nothing.
        unsafe {
            command.pre_exec(|| {
                if libc::setpriority(libc::PRIO_PROCESS, 0, 10) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

/// A `key: N kB` line of a `/proc` file, in MiB.
fn proc_field_mib(path: &str, key: &str) -> Result<f64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
        .ok_or(format!("{path} has no {key}"))
}

/// At most `n` open files in the child (`RLIMIT_NOFILE`), as a container's limit
/// would set.
fn limit_open_files(command: &mut Command, n: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is one system call on the child's own process, made
    // between fork and exec; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: n as libc::rlim_t,
                rlim_max: n as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
// ANCHOR_END: server_process

/// The latency figures every open-loop cell reports, its throughput, and the
/// generator's own timing error beside them.
fn latencies(m: &mut Measurement, run: &OpenLoopRun, length: Duration) {
    let h = &run.tally.latency;
    let answered_per_s = run.tally.ok as f64 / length.as_secs_f64();
    m.push("p50", "ns", h.p50_ns())
        .push("p99", "ns", h.p99_ns())
        .push("p999", "ns", h.p999_ns())
        .push("mean", "ns", h.mean_ns())
        .push("requests", "count", run.tally.ok as f64)
        .push("answered_per_s", "/s", answered_per_s)
        .push("gen_error_p99", "ns", run.generator.timing_error.p99_ns())
        .push("client_wait_p99", "ns", run.tally.waited.p99_ns());
}

fn errors(m: &mut Measurement, e: &Errors) {
    m.push("errors", "count", e.total() as f64)
        .push("errors_status", "count", e.statuses() as f64)
        .push("errors_transport", "count", e.transport as f64)
        .push("errors_timeout", "count", e.timeout as f64);
    if e.total() > 0 {
        eprintln!("  unexpected answers: {}", e.describe());
    }
}

measure::variants! {
    /// What the hash clients send beside /ping, back to back, in `ping` and `h2c`.
    enum HashLoad for "ping and h2c" {
        /// Nothing: /ping alone.
        Nothing = "none",
        /// /hash/inline: argon2 on the workers.
        Inline = "inline",
        /// /hash: argon2 on the blocking pool.
        Offloaded = "offloaded",
    }
}

/// How the generator's clients reach the service.
#[derive(Clone, Copy)]
enum Protocol {
    /// HTTP/1.1, a connection per client (`ping`).
    Http1,
    /// HTTP/2 without TLS, every client's requests streams of one connection (`h2c`).
    H2c,
}

// ANCHOR: ping_cell
/// Experiments `ping` and `h2c`: /ping at a constant rate while `hash_clients`
/// clients send the hash `load` back to back.
fn ping_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    protocol: Protocol,
    load: HashLoad,
) -> Result<Measurement, String> {
    let server = Server::start(binary, p.workers, &[])?;
    let generator = match protocol {
        Protocol::Http1 => Generator::new(server.addr)?,
        Protocol::H2c => Generator::h2c(server.addr)?,
    };
    let background = match load {
        HashLoad::Nothing => None,
        HashLoad::Inline => Some(&r.hash_inline),
        HashLoad::Offloaded => Some(&r.hash),
    };
    let (cpu, started) = (CpuShares::start(&server)?, Instant::now());
    let busy = background.map(|req| generator.busy(req, p.hash_clients));
    let run = generator.open_loop(
        &r.ping,
        p.ping_per_s,
        p.length(),
        p.ping_connections,
    )?;
    let mut m = Measurement::new();
    let mut errs = run.tally.errors.clone();
    if let Some(busy) = busy {
        let (hashed, took) = generator.finish(busy)?;
        m.push("hashes_per_s", "/s", hashed.ok as f64 / took.as_secs_f64());
        errs.add(&hashed.errors);
    }
    cpu.push(&mut m, &server, started.elapsed())?;
    latencies(&mut m, &run, p.length());
    errors(&mut m, &errs);
    server.stop()?;
    Ok(m)
}
// ANCHOR_END: ping_cell

/// One open-loop scenario on a fresh server: latencies, errors, and the server's
/// CPU time and page faults per answered request, over the whole run and (the
/// faults) in each half of it.
fn steady_cell(
    server: Server,
    request: &Request,
    rate: f64,
    p: &Params,
) -> Result<(Measurement, Server, u64), String> {
    let generator = Generator::new(server.addr)?;
    generator.fetch(request)?; // warm up: first allocations, first connection
    let half = p.length() / 2;
    let cpu_before = server.read("/debug/cpu")?;
    let faults_before = server.read("/debug/faults")?;
    let first = generator.open_loop(request, rate, half, p.connections)?;
    let faults_half = server.read("/debug/faults")?;
    let second = generator.open_loop(request, rate, half, p.connections)?;
    let faults_after = server.read("/debug/faults")?;
    let cpu = server.read("/debug/cpu")? - cpu_before;
    let per = |n: f64, run: &OpenLoopRun| n / run.tally.ok.max(1) as f64;
    let early = per(faults_half - faults_before, &first);
    let late = per(faults_after - faults_half, &second);
    let run = first.and(second);
    let mut m = Measurement::new();
    m.push("cpu_per_request", "µs", per(cpu, &run))
        .push(
            "page_faults_per_request",
            "count",
            per(faults_after - faults_before, &run),
        )
        .push("page_faults_first_half", "count", early)
        .push("page_faults_second_half", "count", late);
    latencies(&mut m, &run, p.length());
    errors(&mut m, &run.tally.errors);
    Ok((m, server, run.tally.ok))
}

/// Experiments `allocator` and `profile`: /books or /hash at a constant rate.
fn route_cell(
    p: &Params,
    r: &Requests,
    command: Command,
    route: &str,
) -> Result<Measurement, String> {
    let (request, rate) = match route {
        "books" => (&r.books, p.books_per_s),
        "hash" => (&r.hash, p.hashes_per_s),
        other => return Err(format!("unknown route {other:?}")),
    };
    let server = Server::start_in(command, p.workers, &[], None)?;
    let (mut m, server, _) = steady_cell(server, request, rate, p)?;
    // What the allocator kept resident at its peak: /hash's 19 MiB blocks; and how
    // much of it is in 2 MiB pages, whose faults each map 512 small pages' worth.
    m.push("peak_memory", "MiB", server.peak_memory_mib()?)
        .push("huge_pages", "MiB", server.huge_pages_mib()?);
    server.stop()?;
    Ok(m)
}

/// Experiment `counters`: a view of a book chosen in turn from `books_viewed`,
/// counted by one mutex or by shards. Checksum: the server counted every view.
fn counters_cell(
    p: &Params,
    binary: &Path,
    counters: &str,
) -> Result<Measurement, String> {
    let kind = counters.replace('_', "-");
    let server = Server::start(binary, p.workers, &["--counters", &kind])?;
    let request = Request::post("/books/{n}/views", "", Expect::Count)
        .spread_over(p.books_viewed);
    let (m, server, ok) = steady_cell(server, &request, p.views_per_s, p)?;
    let counted = server.read("/debug/views")? as u64;
    if counted != ok + 1 {
        return Err(format!("{counted} views counted, {} answered", ok + 1));
    }
    server.stop()?;
    Ok(m)
}

measure::variants! {
    /// Who measures /ping in `generators`.
    enum Measurer for "generators" {
        /// This listing's generator (`load.rs`), as every other experiment.
        Listing = "listing",
        /// oha, rate-limited, with its latency correction.
        Oha = "oha",
    }
}

measure::variants! {
    /// The service's allocator in `allocator`.
    enum Allocator for "allocator" {
        /// glibc's malloc, the system allocator.
        System = "system",
        /// The same, its mmap threshold fixed at its default 128 KiB
        /// (`MALLOC_MMAP_THRESHOLD_`): glibc then no longer raises it when a large
        /// block is freed (`__libc_free`), so every hash's blocks are mapped and
        /// unmapped afresh.
        SystemFixedThreshold = "system_fixed_threshold",
        /// The same, its thread cache off (`glibc.malloc.tcache_count=0`): the
        /// slivers `posix_memalign` trims off argon2's 64-byte-aligned blocks
        /// (`_int_memalign`) then go to the fast bins, which the next large request
        /// consolidates, instead of staying in the cache marked in use.
        SystemNoThreadCache = "system_no_tcache",
        /// mimalloc, the `ch07-mimalloc` build: v3, which asks for transparent huge
        /// pages (`madvise`) on its arenas.
        Mimalloc = "mimalloc",
        /// The same build with that turned off (`MIMALLOC_ALLOW_THP=0`): 4 KiB pages, as
        /// glibc's, so that the two allocators' page faults count the same thing.
        MimallocNoThp = "mimalloc_no_thp",
    }
}

/// Experiment `generators`: /ping under inline hash load, measured by this
/// generator or by oha (rate-limited, latency correction on).
fn generators_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    which: Measurer,
    oha: Option<&Path>,
) -> Result<Measurement, String> {
    if which == Measurer::Listing {
        return ping_cell(p, r, binary, Protocol::Http1, HashLoad::Inline);
    }
    let oha = oha.ok_or("oha is not installed")?;
    let server = Server::start(binary, p.workers, &[])?;
    let generator = Generator::new(server.addr)?;
    let busy = generator.busy(&r.hash_inline, p.hash_clients);
    let report = run_oha(oha, server.addr, p)?;
    let (hashed, _) = generator.finish(busy)?;
    let mut m = Measurement::new();
    m.push("p50", "ns", report.p50_ns)
        .push("p99", "ns", report.p99_ns)
        .push("mean", "ns", report.mean_ns)
        .push("requests", "count", report.ok as f64);
    let mut errs = hashed.errors.clone();
    errs.transport += report.failed + report.unsent;
    for (code, n) in &report.statuses {
        *errs.status.entry(*code).or_default() += n;
    }
    errors(&mut m, &errs);
    server.stop()?;
    Ok(m)
}

/// A capacity as calibrated: the throughput under the offer that found it, that offer,
/// and how many offers it took (one where twice the first guess was enough).
#[derive(Clone, Copy)]
struct Calibration {
    per_s: f64,
    offered_per_s: f64,
    offers: usize,
}

impl Calibration {
    /// How the capacity was found, beside the cells that are offered shares of it.
    fn push_offers(&self, m: &mut Measurement) {
        m.push("calibration_offered_per_s", "/s", self.offered_per_s)
            .push("calibration_offers", "count", self.offers as f64);
    }

    /// The capacity and how it was found, in a cell offered a share of it.
    fn push(&self, m: &mut Measurement) {
        m.push("capacity_per_s", "/s", self.per_s);
        self.push_offers(m);
    }
}

/// The service's capacity on the load page over `connections`: its throughput
/// (answers a second, until the last answer) when offered at least a quarter more than
/// it serves for `window`, open loop, on a fresh server. The load scenarios offer percentages of it.
fn books_capacity(
    p: &Params,
    r: &Requests,
    binary: &Path,
    connections: usize,
    window: Duration,
) -> Result<Calibration, String> {
    let server = Server::start(binary, p.workers, &[])?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(&r.full_page)?;
    // A first guess, closed loop; then open loop at twice that, doubled until a backlog
    // forms: a service that kept up answered the offer, and measured the offer.
    let guess = closed_loop_capacity(
        &generator,
        &r.full_page,
        connections,
        Duration::from_millis(300),
    )?;
    let mut offered = 2.0 * guess;
    for offers in 1..=CALIBRATION_OFFERS {
        let started = Instant::now();
        let run =
            generator.open_loop(&r.full_page, offered, window, connections)?;
        let served = run.tally.ok as f64 / started.elapsed().as_secs_f64();
        if let n @ 1.. = run.tally.errors.total() {
            return Err(format!("calibration: {n} unexpected answers"));
        }
        if served <= SATURATED * offered {
            server.stop()?;
            return Ok(Calibration {
                per_s: served,
                offered_per_s: offered,
                offers,
            });
        }
        offered *= 2.0;
    }
    Err(format!(
        "calibration: the service kept up with every offer, up to {:.0} a second",
        offered / 2.0
    ))
}

/// A calibration's offers, each twice the last, before it gives up.
const CALIBRATION_OFFERS: usize = 4;

/// The share of its offer a saturated service answers at most: offered a quarter more
/// than it serves, its queue grows by a quarter of a second each second (as the
/// invariant overload-saturated asks of the overload cells).
const SATURATED: f64 = 0.8;

/// The load page's capacity over the curve's connections and window (the curve, the
/// shutdown and the bodies experiments offer shares of it).
fn curve_capacity(
    p: &Params,
    r: &Requests,
    binary: &Path,
) -> Result<Calibration, String> {
    books_capacity(p, r, binary, p.connections, p.curve_length())
}

/// The overload cells' capacity on the load page: the higher of two calibrations, each
/// as long as a cell; a low capacity would offer the cells less than overload
/// (invariant overload-saturated).
fn overload_capacity(
    p: &Params,
    r: &Requests,
    binary: &Path,
) -> Result<Calibration, String> {
    higher_of_two(
        || books_capacity(p, r, binary, p.overload_connections, p.length()),
        |c| c.per_s,
    )
}

/// The higher of two calibrations: a neighbour only takes CPU from the service, so
/// a calibration it disturbed measures low.
fn higher_of_two<T>(
    once: impl Fn() -> Result<T, String>,
    rate: impl Fn(&T) -> f64,
) -> Result<T, String> {
    let (a, b) = (once()?, once()?);
    Ok(if rate(&a) >= rate(&b) { a } else { b })
}

/// A case of the curve: a percentage of the capacity.
fn load_percent(case: &str) -> Result<u32, String> {
    case.parse().map_err(|_| format!("not a load: {case:?}"))
}

/// An open-loop run's throughput: answers a second from the first request's
/// schedule to the last answer, however long past the offered window that was.
fn throughput(
    m: &mut Measurement,
    run: &OpenLoopRun,
    offered: f64,
    took: Duration,
) {
    m.push("offered_per_s", "/s", offered).push(
        "throughput_per_s",
        "/s",
        run.tally.ok as f64 / took.as_secs_f64(),
    );
}

/// The service's own latency quantiles over the cell (its histogram, from the
/// router's first layer to the response): what a dashboard of the server shows.
fn server_latency(m: &mut Measurement, server: &Server) -> Result<(), String> {
    m.push("server_p50", "ns", server.read("/debug/latency_p50_ns")?)
        .push("server_p99", "ns", server.read("/debug/latency_p99_ns")?);
    Ok(())
}

/// CPU time used by the server and by this process (the generator), each as a
/// share of one core over the run: which of the two saturated.
struct CpuShares {
    server_us: f64,
    generator_us: f64,
}

impl CpuShares {
    fn start(server: &Server) -> Result<CpuShares, String> {
        Ok(CpuShares {
            server_us: server.read("/debug/cpu")?,
            generator_us: ch07_axum::service::usage().0 as f64,
        })
    }

    fn push(
        self,
        m: &mut Measurement,
        server: &Server,
        took: Duration,
    ) -> Result<(), String> {
        let us = took.as_secs_f64() * 1e6;
        let server_us = server.read("/debug/cpu")? - self.server_us;
        let generator_us = ch07_axum::service::usage().0 as f64 - self.generator_us;
        m.push("server_cpu", "cores", server_us / us).push(
            "generator_cpu",
            "cores",
            generator_us / us,
        );
        Ok(())
    }
}

/// Experiment `curve`: the load page at a percentage of the capacity, open loop.
fn curve_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    capacity: Calibration,
    load: &str,
) -> Result<Measurement, String> {
    let rate = capacity.per_s * load_percent(load)? as f64 / 100.0;
    let server = Server::start(binary, p.workers, &[])?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(&r.full_page)?;
    let cpu = CpuShares::start(&server)?;
    let started = Instant::now();
    let run =
        generator.open_loop(&r.full_page, rate, p.curve_length(), p.connections)?;
    let took = started.elapsed();
    let mut m = Measurement::new();
    capacity.push(&mut m);
    cpu.push(&mut m, &server, took)?;
    server_latency(&mut m, &server)?;
    throughput(&mut m, &run, rate, took);
    latencies(&mut m, &run, p.curve_length());
    // A queue that grows for as long as the load lasts shows as a later third slower.
    let [first, _, last] = &run.tally.by_third;
    m.push("p50_first_third", "ns", first.p50_ns()).push(
        "p50_last_third",
        "ns",
        last.p50_ns(),
    );
    errors(&mut m, &run.tally.errors);
    server.stop()?;
    Ok(m)
}

/// A route's capacity on a running server: answers a second from `clients` clients,
/// closed loop, over `window`.
fn closed_loop_capacity(
    generator: &Generator,
    request: &Request,
    clients: usize,
    window: Duration,
) -> Result<f64, String> {
    let busy = generator.busy(request, clients);
    std::thread::sleep(window);
    let (tally, took) = generator.finish(busy)?;
    match tally.errors.total() {
        0 => Ok(tally.ok as f64 / took.as_secs_f64()),
        n => Err(format!("calibration: {n} unexpected answers")),
    }
}

/// /hash's capacity on a fresh server without a limit, measured once a repetition so
/// that both protections are offered the same rate: closed loop with one client more
/// than its hash permits (one per worker), so that a permit freed finds the next
/// request already waiting. The higher of two (`higher_of_two`), as for /books.
fn hash_capacity(
    p: &Params,
    request: &Request,
    binary: &Path,
) -> Result<f64, String> {
    let once = || -> Result<f64, String> {
        let server = Server::start(binary, p.workers, &[])?;
        let generator = Generator::new(server.addr)?;
        generator.fetch(request)?;
        let clients = p.workers as usize + 1;
        let capacity =
            closed_loop_capacity(&generator, request, clients, p.curve_length())?;
        server.stop()?;
        Ok(capacity)
    };
    higher_of_two(once, |c| *c)
}

/// A route's capacity, measured once a repetition at the first cell that asks: a
/// calibration the hypervisor stole time from spoils that repetition, not the run,
/// and its noise is counted in that cell's.
struct PerRepetition<F, T> {
    calibrate: F,
    last: Option<(u32, T)>,
}

impl<T: Copy, F: FnMut() -> Result<T, String>> PerRepetition<F, T> {
    fn new(calibrate: F) -> PerRepetition<F, T> {
        PerRepetition {
            calibrate,
            last: None,
        }
    }

    fn in_repetition(&mut self, rep: u32) -> Result<T, String> {
        match self.last {
            Some((at, rate)) if at == rep => Ok(rate),
            _ => {
                let rate = (self.calibrate)()?;
                self.last = Some((rep, rate));
                Ok(rate)
            }
        }
    }
}

// ANCHOR: overload_cell
/// Experiment `overload`: a route at `overload_load` percent of its capacity over
/// `overload_connections`, to the service as it was (`unprotected`) or with a
/// concurrency limit that sheds the excess with 503 (`shed`). `books` never awaits;
/// `hash` awaits its hash on the blocking pool.
fn overload_cell(
    p: &Params,
    binary: &Path,
    (request, capacity): (&Request, f64),
    variant: &str,
) -> Result<Measurement, String> {
    let limit = p.concurrency_limit.to_string();
    let extra: &[&str] = match variant {
        "unprotected" => &[],
        "shed" => &["--concurrency-limit", &limit],
        other => return Err(format!("unknown protection {other:?}")),
    };
    let server = Server::start(binary, p.workers, extra)?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(request)?;
    let rate = capacity * p.overload_load as f64 / 100.0;
    let cpu = CpuShares::start(&server)?;
    let started = Instant::now();
    let run =
        generator.open_loop(request, rate, p.length(), p.overload_connections)?;
    let took = started.elapsed();
    let deadline = Duration::from_millis(p.goodput_deadline_ms);
    let on_time =
        run.tally.ok as f64 * (1.0 - run.tally.latency.share_above(deadline));
    let scheduled = (rate * p.length().as_secs_f64()).round();
    // /hash's own permit queue answers 503 too, after its queue timeout.
    let shed = run.tally.errors.status.get(&503).copied().unwrap_or(0) as f64;
    let mut m = Measurement::new();
    m.push("capacity_per_s", "/s", capacity)
        .push("goodput_per_s", "/s", on_time / p.length().as_secs_f64())
        .push("shed_share", "ratio", shed / scheduled)
        // What a client with the goodput deadline loses besides the 503s: late answers.
        .push(
            "late_share",
            "ratio",
            (run.tally.ok as f64 - on_time) / scheduled,
        )
        .push("peak_memory", "MiB", server.peak_memory_mib()?)
        .push("server_threads", "count", server.threads()?);
    cpu.push(&mut m, &server, took)?;
    server_latency(&mut m, &server)?;
    throughput(&mut m, &run, rate, took);
    latencies(&mut m, &run, p.length());
    let mut unexpected = run.tally.errors.clone();
    // A 503 is expected where something sheds: the limit, or /hash's permit queue.
    if variant == "shed" || request.path == "/hash" {
        unexpected.status.remove(&503);
    }
    errors(&mut m, &unexpected);
    server.stop()?;
    Ok(m)
}
// ANCHOR_END: overload_cell

/// The hardened accept loop's flags for a cell.
fn hardened(
    header_read_timeout_ms: u64,
    max_connections: Option<usize>,
) -> Vec<String> {
    let mut flags = vec![
        "--hardened".to_string(),
        "--header-read-timeout-ms".into(),
        header_read_timeout_ms.to_string(),
    ];
    if let Some(n) = max_connections {
        flags.extend(["--max-connections".into(), n.to_string()]);
    }
    flags
}

fn as_strs(flags: &[String]) -> Vec<&str> {
    flags.iter().map(String::as_str).collect()
}

/// Experiment `slow_clients`: /ping at its rate while `slow_clients` connections
/// send their headers a byte at a time, to `axum::serve` or to the hardened loop
/// with a header-read timeout.
fn slow_clients_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    variant: &str,
) -> Result<Measurement, String> {
    let flags = match variant {
        "axum_serve" => vec![],
        "header_timeout" => hardened(p.header_read_timeout_ms, None),
        other => return Err(format!("unknown server {other:?}")),
    };
    let server = Server::start(binary, p.workers, &as_strs(&flags))?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(&r.ping)?;
    let cpu = CpuShares::start(&server)?;
    let started = Instant::now();
    let slow = generator.spawn(faults::slow_headers(
        server.addr,
        p.slow_clients,
        Duration::from_millis(p.slow_pace_ms),
        p.length(),
    ));
    let run = generator.open_loop(
        &r.ping,
        p.ping_per_s,
        p.length(),
        p.slow_ping_connections,
    )?;
    let slow = generator.join(slow)?;
    let mut m = Measurement::new();
    m.push("slow_held", "count", slow.held as f64).push(
        "slow_closed",
        "count",
        slow.closed as f64,
    );
    cpu.push(&mut m, &server, started.elapsed())?;
    latencies(&mut m, &run, p.length());
    errors(&mut m, &run.tally.errors);
    server.stop()?;
    Ok(m)
}

// ANCHOR: flood_cell
/// Experiment `fd_flood`: a server with `open_files` descriptors, flooded
/// `floods` times with `flood_connections` idle connections while a client on a
/// connection opened before keeps sending /ping; after each flood is released, how
/// long until a new connection is answered, and how many accepts failed.
fn flood_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    variant: &str,
) -> Result<Measurement, String> {
    let flags = match variant {
        "axum_serve" => vec![],
        "connection_limit" => {
            hardened(p.long_header_timeout_ms, Some(p.max_connections))
        }
        // The hardened loop's 10 ms retry alone: a limit above the open-file limit.
        "retry_only" => {
            hardened(p.long_header_timeout_ms, Some(4 * p.open_files as usize))
        }
        other => return Err(format!("unknown server {other:?}")),
    };
    let server = Server::start_limited(
        binary,
        p.workers,
        &as_strs(&flags),
        Some(p.open_files),
    )?;
    let generator = Generator::new(server.addr)?;
    let in_flight = generator.busy_every(&r.ping, 1, Duration::from_millis(10));
    std::thread::sleep(Duration::from_millis(100));
    let (mut recoveries, mut answered_during) = (Vec::new(), 0);
    for _ in 0..p.floods {
        let flood = generator.join(
            generator.spawn(faults::flood(server.addr, p.flood_connections)),
        )?;
        let flood = flood.map_err(|e| format!("flood: {e}"))?;
        // A new connection while the flood holds every descriptor.
        let probe =
            faults::ping_new_connection(server.addr, Duration::from_millis(300));
        answered_during += generator.join(generator.spawn(probe))?.is_some() as u32;
        let released = Instant::now();
        drop(flood);
        let probe =
            faults::ping_new_connection(server.addr, Duration::from_secs(5));
        generator.join(generator.spawn(probe))?.ok_or(
            "no new connection was answered within 5 s of the flood's end",
        )?;
        recoveries.push(released.elapsed().as_secs_f64() * 1e3);
    }
    let (tally, _) = generator.finish(in_flight)?;
    let mean = recoveries.iter().sum::<f64>() / recoveries.len() as f64;
    let worst = recoveries.iter().copied().fold(0.0, f64::max);
    let stopped = server.stop()?;
    let mut m = Measurement::new();
    m.push("recovery_ms", "ms", mean)
        .push("recovery_max_ms", "ms", worst)
        .push("answered_during_flood", "count", answered_during as f64)
        .push(
            "accept_errors_per_flood",
            "count",
            stopped.accept_errors as f64 / p.floods as f64,
        )
        .push("in_flight_answered", "count", tally.ok as f64)
        .push("in_flight_p99", "ns", tally.latency.p99_ns());
    errors(&mut m, &tally.errors);
    Ok(m)
}
// ANCHOR_END: flood_cell

/// Experiment `shutdown`: halfway through a run, the stop signal, to `axum::serve`,
/// the hardened loop (its drain deadline ten seconds) or the hardened loop with a
/// short deadline. `under_load`: /books at half the capacity, about one request in
/// flight; `hash_queue`: /hash past its capacity, a queue of hashes in flight.
fn shutdown_cell(
    p: &Params,
    binary: &Path,
    (request, rate): (&Request, f64),
    variant: &str,
) -> Result<Measurement, String> {
    let mut flags = match variant {
        "axum_serve" => vec![],
        "hardened" | "short_drain" => hardened(p.long_header_timeout_ms, None),
        other => return Err(format!("unknown server {other:?}")),
    };
    if variant == "short_drain" {
        flags.extend(["--drain-deadline-ms".into(), p.short_drain_ms.to_string()]);
    }
    let mut server = Server::start(binary, p.workers, &as_strs(&flags))?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(request)?;
    let half = p.length() / 2;
    let run = std::thread::scope(|s| {
        let load = s.spawn(|| {
            generator.open_loop(request, rate, p.length(), p.connections)
        });
        std::thread::sleep(half);
        server.signal_stop();
        load.join()
            .map_err(|_| "the load thread panicked".to_string())?
    })?;
    let stopped = server.stop()?;
    let e = &run.tally.errors;
    // The warm-up request was begun and answered too.
    let answered = (run.tally.ok + e.statuses() + 1) as f64;
    let mut m = Measurement::new();
    let started = stopped.started as f64;
    m.push("started", "count", started)
        .push("answered", "count", answered)
        .push("lost", "count", started - answered)
        .push(
            "unanswered_by_server",
            "count",
            started - stopped.answered as f64,
        )
        .push("refused", "count", (e.transport + e.timeout) as f64)
        .push(
            "in_flight_at_signal",
            "count",
            stopped.in_flight_at_signal as f64,
        )
        .push("drain_ms", "ms", stopped.drained_ms);
    latencies(&mut m, &run, p.length());
    Ok(m)
}

measure::variants! {
    /// What the bad clients send in `bodies`, beside /books at a share of the capacity.
    enum BadBody for "bodies" {
        /// No bad client: /books alone.
        Nothing = "none",
        /// A body twice the limit: 413.
        Oversized = "oversized",
        /// JSON cut short, or bytes that are not UTF-8: 400.
        Malformed = "malformed",
        /// A thousand bytes promised and sent a byte at a time: the deadline's 504.
        Slow = "slow",
    }
}

/// A bad request of a kind, the status it should get, and whether it is sent a
/// byte at a time; none for `none`.
fn bad_request(
    kind: BadBody,
    i: usize,
    body_limit: usize,
) -> Option<(Vec<u8>, u16, bool)> {
    let path = if i.is_multiple_of(2) {
        "/books"
    } else {
        "/hash"
    };
    let json = "application/json";
    Some(match kind {
        BadBody::Nothing => return None,
        BadBody::Oversized => {
            let body = vec![b'a'; 2 * body_limit];
            (faults::post(path, json, &body, body.len()), 413, false)
        }
        BadBody::Malformed if path == "/books" => {
            let body = br#"{"title": "Dune", "author": "#;
            (faults::post(path, json, body, body.len()), 400, false)
        }
        BadBody::Malformed => (
            faults::post(path, "text/plain", &[0xff, 0xfe], 2),
            400,
            false,
        ),
        BadBody::Slow => (faults::post(path, json, &[b' '; 1000], 1000), 504, true),
    })
}

/// Experiment `bodies`: /books at `bodies_load` percent of the capacity while
/// clients send oversized, malformed or slow bodies to POST /books and /hash.
fn bodies_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    capacity: f64,
    kind: BadBody,
) -> Result<Measurement, String> {
    let deadline = p.bodies_deadline_ms.to_string();
    let server = Server::start(binary, p.workers, &["--deadline-ms", &deadline])?;
    let generator = Generator::new(server.addr)?;
    generator.fetch(&r.full_page)?;
    let (addr, length) = (server.addr, p.length());
    let (clients, pause) = match kind {
        BadBody::Slow => (p.slow_bodies, Duration::ZERO),
        _ => (4, Duration::from_secs_f64(4.0 / p.bad_per_s)),
    };
    let bad: Vec<_> = (0..clients)
        .filter(|_| kind != BadBody::Nothing)
        .map(|client| {
            generator.spawn(async move {
                let (mut right, mut wrong) = (0u64, 0u64);
                let until = Instant::now() + length;
                let mut i = client;
                while Instant::now() < until {
                    let Some((bytes, expected, slow)) =
                        bad_request(kind, i, 64 * 1024)
                    else {
                        break;
                    };
                    let pace = slow.then_some(Duration::from_millis(10));
                    match faults::raw_request(
                        addr,
                        &bytes,
                        pace,
                        Duration::from_secs(15),
                    )
                    .await
                    {
                        Some(status) if status == expected => right += 1,
                        _ => wrong += 1,
                    }
                    i += 1;
                    tokio::time::sleep(pause).await;
                }
                Ok::<_, String>((right, wrong))
            })
        })
        .collect();
    let run = generator.open_loop(
        &r.full_page,
        capacity * p.bodies_load as f64 / 100.0,
        p.length(),
        p.connections,
    )?;
    let (mut right, mut wrong) = (0, 0);
    for client in bad {
        let (r, w) = generator.join(client)??;
        (right, wrong) = (right + r, wrong + w);
    }
    let mut m = Measurement::new();
    m.push("bad_right_status", "count", right as f64).push(
        "bad_wrong_status",
        "count",
        wrong as f64,
    );
    latencies(&mut m, &run, p.length());
    errors(&mut m, &run.tally.errors);
    server.stop()?;
    Ok(m)
}

/// Experiment `cover`: /cover (the shared `Bytes`) or /cover/copy at a constant
/// rate, with Nagle's algorithm on (`axum::serve`'s default) or TCP_NODELAY.
fn cover_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    case: &str,
    variant: &str,
) -> Result<Measurement, String> {
    let request = match case {
        "shared" => &r.cover,
        "copied" => &r.cover_copied,
        other => return Err(format!("unknown cover {other:?}")),
    };
    let extra: &[&str] = match variant {
        "nagle" => &[],
        "nodelay" => &["--nodelay"],
        other => return Err(format!("unknown socket option {other:?}")),
    };
    let server = Server::start(binary, p.workers, extra)?;
    let (m, server, _) = steady_cell(server, request, p.covers_per_s, p)?;
    server.stop()?;
    Ok(m)
}

struct OhaReport {
    p50_ns: f64,
    p99_ns: f64,
    mean_ns: f64,
    /// 2xx answers, other statuses, transport errors, requests never sent.
    ok: u64,
    statuses: BTreeMap<u16, u64>,
    failed: u64,
    unsent: u64,
}

/// oha's JSON summary of /ping at `ping_per_s` for `run_ms`.
fn run_oha(oha: &Path, addr: SocketAddr, p: &Params) -> Result<OhaReport, String> {
    let out = Command::new(oha)
        .args(oha_args(addr, p))
        .output()
        .map_err(|e| format!("cannot run oha: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "oha failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("oha's JSON: {e}"))?;
    let seconds = |ptr: &str| {
        v.pointer(ptr)
            .and_then(|x| x.as_f64())
            .map(|s| s * 1e9)
            .ok_or(format!("oha's JSON has no {ptr}"))
    };
    let codes = v
        .pointer("/statusCodeDistribution")
        .and_then(|c| c.as_object());
    let count = |ok: bool| {
        codes.map_or(0, |c| {
            c.iter()
                .filter(|(code, _)| code.starts_with('2') == ok)
                .filter_map(|(_, n)| n.as_u64())
                .sum()
        })
    };
    let ok = count(true);
    let statuses: BTreeMap<u16, u64> = codes
        .into_iter()
        .flatten()
        .filter(|(code, _)| !code.starts_with('2'))
        .filter_map(|(code, n)| Some((code.parse().ok()?, n.as_u64()?)))
        .collect();
    let failed: u64 = v
        .pointer("/errorDistribution")
        .and_then(|e| e.as_object())
        .map_or(0, |e| e.values().filter_map(|n| n.as_u64()).sum());
    // oha stops at its deadline: requests it never sent are missing answers too.
    let scheduled = (p.ping_per_s * p.run_ms as f64 / 1e3).round() as u64;
    Ok(OhaReport {
        p50_ns: seconds("/latencyPercentiles/p50")?,
        p99_ns: seconds("/latencyPercentiles/p99")?,
        mean_ns: seconds("/summary/average")?,
        ok,
        unsent: scheduled
            .saturating_sub(ok + statuses.values().sum::<u64>() + failed),
        statuses,
        failed,
    })
}

/// The oha command the experiment runs (and `outputs/oha-ping.txt` shows).
fn oha_args(addr: SocketAddr, p: &Params) -> Vec<String> {
    vec![
        "--no-tui".into(),
        "--output-format".into(),
        "json".into(),
        "-z".into(),
        format!("{}ms", p.run_ms),
        "-q".into(),
        p.ping_per_s.to_string(),
        "--latency-correction".into(),
        "--wait-ongoing-requests-after-deadline".into(),
        "-c".into(),
        p.ping_connections.to_string(),
        format!("http://{addr}/ping"),
    ]
}

/// oha on the PATH, or where `cargo install` puts it.
fn find_oha() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("oha"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let home =
            std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .map(|h| PathBuf::from(h).join(".cargo"))
                })?;
        Some(home.join("bin/oha")).filter(|p| p.is_file())
    })
}

measure::variants! {
    /// The builds of the service that `profile` compares.
    enum Build for "profile" {
        /// Cargo's default release profile, spelled out in the workspace's Cargo.toml.
        ReleaseDefault = "release_default",
        /// The chapter's: thin LTO, one codegen unit, line tables, unwinding panics.
        Tuned = "tuned",
        /// Cargo's default dev profile, as `cargo run` without `--release` builds: opt-level 0.
        DevDefault = "dev_default",
    }
}

impl Build {
    /// The service built this way: built once, brought up to date when cargo runs this program.
    fn binary(self) -> Result<PathBuf, String> {
        let profile = |name| {
            measure::child::binary_in_profile("ch07-axum", "ch07-axum", Some(name))
        };
        match self {
            Build::ReleaseDefault => profile("ch07-release-default"),
            Build::Tuned => profile("ch07-tuned"),
            Build::DevDefault => unoptimised_binary(),
        }
    }
}

// ANCHOR: dev_defaults
/// Cargo's own dev profile. The workspace optimises its dev profile (`cargo run -p chNN` must
/// measure optimised code), so these put Cargo's defaults back, for this one build.
const CARGO_DEV_DEFAULTS: [(&str, &str); 4] = [
    ("CARGO_PROFILE_DEV_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_DEV_DEBUG", "true"),
    ("CARGO_PROFILE_DEV_DEBUG_ASSERTIONS", "true"),
    ("CARGO_PROFILE_DEV_OVERFLOW_CHECKS", "true"),
];
// ANCHOR_END: dev_defaults

/// The service built with Cargo's default dev profile, in a target folder of its own
/// (`target/ch07-unoptimised`), so that the overrides rebuild no other build.
fn unoptimised_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find this program: {e}"))?;
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("cannot find the target folder")?
        .join("ch07-unoptimised");
    let path = dir.join("debug").join("ch07-axum");
    let Ok(cargo) = std::env::var("CARGO") else {
        return Some(path.clone()).filter(|p| p.is_file()).ok_or(format!(
            "{} is missing: build it with `CARGO_PROFILE_DEV_OPT_LEVEL=0 \
             CARGO_PROFILE_DEV_DEBUG=true CARGO_PROFILE_DEV_DEBUG_ASSERTIONS=true \
             CARGO_PROFILE_DEV_OVERFLOW_CHECKS=true cargo build -p ch07-axum --bin ch07-axum \
             --target-dir {}`",
            path.display(),
            dir.display()
        ));
    };
    if !path.is_file() {
        eprintln!(
            "building ch07-axum with Cargo's default dev profile, opt-level 0 (once)"
        );
    }
    let ok = Command::new(cargo)
        .args([
            "build",
            "-q",
            "-p",
            "ch07-axum",
            "--bin",
            "ch07-axum",
            "--target-dir",
        ])
        .arg(&dir)
        .envs(CARGO_DEV_DEFAULTS)
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !path.is_file() {
        return Err(format!("could not build {}", path.display()));
    }
    Ok(path)
}

const CHAPTER: Chapter = Chapter {
    name: "ch07-axum",
    title: "Tuning an axum service",
    about: "The Bookshelf service (axum 0.8) on 127.0.0.1, one child process per \
            cell, loaded over HTTP/1.1 keep-alive connections by an open-loop \
            generator (latency from each request's scheduled time, every answer \
            checked, every non-2xx and transport error counted): /ping while \
            clients keep /hash/inline or /hash (argon2, default cost) busy; the \
            system allocator and mimalloc on /books (200 books as JSON) and /hash; \
            one mutex and sharded view counters; Cargo's default release profile, \
            the chapter's and Cargo's default dev profile (opt-level 0); and the \
            same /ping scenario measured by oha, when it is installed.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &[
        "tokio",
        "axum",
        "hyper",
        "tower-http",
        "argon2",
        "mimalloc",
        "serde_json",
    ],
    headline: &[
        "p50",
        "p99",
        "hashes_per_s",
        "cpu_per_request",
        "errors",
        "client_wait_p99",
    ],
    full_reps: 10,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        std::process::exit(ch07_axum::server::main(&args[1..]));
    }
    let mut h = Harness::start(CHAPTER);
    let p =
        Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(h.cores()));
    assert!(p.books_per_page <= MAX_PAGE);
    h.params(&p);
    let oha = find_oha();
    h.derived("oha", oha.is_some());
    let fail = |e: String| -> ! {
        eprintln!("error: {e}");
        std::process::exit(1)
    };
    let requests = Requests::new(&p).unwrap_or_else(|e| fail(e));
    let this = std::env::current_exe().unwrap_or_else(|e| fail(e.to_string()));
    let with_mimalloc =
        measure::child::sibling_binary("ch07-axum", "ch07-mimalloc")
            .unwrap_or_else(|e| fail(e));
    // `--filter profile` selects the experiment by name; a case or variant, its cells. Only
    // the builds a run measures are built.
    let whole_profile = h.cli().filter.iter().any(|f| f == "profile");
    let builds: BTreeMap<&str, PathBuf> = Build::NAMES
        .iter()
        .filter(|v| whole_profile || h.cli().selects("books", v))
        .map(|v| {
            let binary = Build::named(v).and_then(Build::binary);
            (*v, binary.unwrap_or_else(|e| fail(e)))
        })
        .collect();
    if oha.is_none() {
        eprintln!(
            "note: oha is not installed, so `generators` runs this generator only"
        );
    }
    let generator_variants: &[&str] = if oha.is_some() {
        Measurer::NAMES
    } else {
        &[Measurer::Listing.name()]
    };
    let (p, r) = (&p, &requests);
    let (this, with_mimalloc, oha) = (&this, &with_mimalloc, oha.as_deref());
    // What shapes /ping under hash load, measured by this generator (`ping`) or by oha (`generators`).
    let ping_under_hash_load = measure::fields!(p => workers, run_ms, hash_clients, ping_per_s, ping_connections);
    h.run(vec![
        Experiment::new(
            "ping",
            Cell::grid(["hash_load"], HashLoad::NAMES),
            |cell, _| ping_cell(p, r, this, Protocol::Http1, HashLoad::named(&cell.variant)?),
        )
        .shaped_by(ping_under_hash_load),
        Experiment::new(
            "allocator",
            Cell::grid(["books", "hash"], Allocator::NAMES),
            |cell, _| {
                let command = match Allocator::named(&cell.variant)? {
                    Allocator::System => Command::new(this),
                    Allocator::SystemFixedThreshold => {
                        let mut command = Command::new(this);
                        command.env("MALLOC_MMAP_THRESHOLD_", "131072");
                        command
                    }
                    Allocator::SystemNoThreadCache => {
                        let mut command = Command::new(this);
                        command.env("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0");
                        command
                    }
                    Allocator::Mimalloc => Command::new(with_mimalloc),
                    Allocator::MimallocNoThp => {
                        let mut command = Command::new(with_mimalloc);
                        command.env("MIMALLOC_ALLOW_THP", "0");
                        command
                    }
                };
                route_cell(p, r, command, &cell.case)
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, books_per_page, books_per_s, hashes_per_s, connections))
        .repetitions(20),
        Experiment::new(
            "counters",
            Cell::grid(["views"], ["one_mutex", "sharded"]),
            |cell, _| counters_cell(p, this, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, run_ms, views_per_s, connections)),
        Experiment::new(
            "profile",
            Cell::grid(["books"], Build::NAMES),
            |cell, _| {
                let build = Build::named(&cell.variant)?;
                let binary = builds.get(build.name()).ok_or("that build was not made")?;
                route_cell(p, r, Command::new(binary), "books")
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, books_per_page, books_per_s, connections))
        .repetitions(20),
        Experiment::new(
            "generators",
            Cell::grid(["ping_inline"], generator_variants),
            |cell, _| generators_cell(p, r, this, Measurer::named(&cell.variant)?, oha),
        )
        .shaped_by(ping_under_hash_load),
        Experiment::new(
            "curve",
            Cell::grid(p.curve_loads.iter().map(u32::to_string), ["books"]),
            {
                let mut books = PerRepetition::new(|| curve_capacity(p, r, this));
                move |cell, rep| curve_cell(p, r, this, books.in_repetition(rep)?, &cell.case)
            },
        )
        .shaped_by(measure::fields!(p => workers, curve_run_ms, load_page, curve_loads, connections))
        .repetitions(5),
        Experiment::new(
            "overload",
            Cell::grid(["books", "hash"], ["unprotected", "shed"]),
            {
                // Over the connections the cells use: more connections cost the service
                // CPU of their own.
                let mut books = PerRepetition::new(|| overload_capacity(p, r, this));
                let mut hash = PerRepetition::new(|| hash_capacity(p, &r.hash, this));
                move |cell, rep| match cell.case.as_str() {
                    "books" => {
                        let books = books.in_repetition(rep)?;
                        let route = (&r.full_page, books.per_s);
                        let mut m = overload_cell(p, this, route, &cell.variant)?;
                        books.push_offers(&mut m);
                        Ok(m)
                    }
                    "hash" => {
                        let route = (&r.hash, hash.in_repetition(rep)?);
                        overload_cell(p, this, route, &cell.variant)
                    }
                    other => Err(format!("unknown route {other:?}")),
                }
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, load_page, overload_load, overload_connections, concurrency_limit, goodput_deadline_ms))
        .repetitions(5),
        Experiment::new(
            "slow_clients",
            Cell::grid(["slowloris"], ["axum_serve", "header_timeout"]),
            |cell, _| slow_clients_cell(p, r, this, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, run_ms, ping_per_s, slow_ping_connections, slow_clients, slow_pace_ms, header_read_timeout_ms))
        .repetitions(5),
        Experiment::new(
            "fd_flood",
            Cell::grid(["flood"], ["axum_serve", "connection_limit", "retry_only"]),
            |cell, _| flood_cell(p, r, this, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, open_files, flood_connections, max_connections, floods, long_header_timeout_ms))
        .repetitions(5),
        Experiment::new(
            "shutdown",
            Cell::grid(
                ["under_load", "hash_queue"],
                ["axum_serve", "hardened", "short_drain"],
            ),
            {
                let mut books = PerRepetition::new(|| curve_capacity(p, r, this));
                let mut hash = PerRepetition::new(|| hash_capacity(p, &r.hash, this));
                // Each cell records the capacity it was offered a share of.
                move |cell, rep| match cell.case.as_str() {
                    "under_load" => {
                        let books = books.in_repetition(rep)?;
                        let load = (&r.full_page, books.per_s / 2.0);
                        let mut m = shutdown_cell(p, this, load, &cell.variant)?;
                        books.push(&mut m);
                        Ok(m)
                    }
                    "hash_queue" => {
                        let rate = hash.in_repetition(rep)?;
                        let load = (&r.hash, rate * p.queue_load as f64 / 100.0);
                        let mut m = shutdown_cell(p, this, load, &cell.variant)?;
                        m.push("capacity_per_s", "/s", rate);
                        Ok(m)
                    }
                    other => Err(format!("unknown load {other:?}")),
                }
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, load_page, connections, long_header_timeout_ms, queue_load, short_drain_ms))
        .repetitions(5),
        Experiment::new(
            "bodies",
            Cell::grid(["bad_bodies"], BadBody::NAMES),
            {
                let mut books = PerRepetition::new(|| curve_capacity(p, r, this));
                move |cell, rep| {
                    let kind = BadBody::named(&cell.variant)?;
                    let books = books.in_repetition(rep)?;
                    let mut m = bodies_cell(p, r, this, books.per_s, kind)?;
                    books.push(&mut m);
                    Ok(m)
                }
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, load_page, bad_per_s, slow_bodies, bodies_deadline_ms, bodies_load, connections))
        .repetitions(5),
        Experiment::new(
            "h2c",
            Cell::grid(["hash_load"], HashLoad::NAMES),
            |cell, _| ping_cell(p, r, this, Protocol::H2c, HashLoad::named(&cell.variant)?),
        )
        .shaped_by(ping_under_hash_load)
        .repetitions(5),
        Experiment::new(
            "cover",
            Cell::grid(["shared", "copied"], ["nagle", "nodelay"]),
            |cell, _| cover_cell(p, r, this, &cell.case, &cell.variant),
        )
        .shaped_by(measure::fields!(p => workers, run_ms, covers_per_s, connections))
        .repetitions(5),
    ]);
}
