//! The experiments of Chapter 7. Every cell starts the service as a child process
//! (this program's `serve`, `ch07-mimalloc serve`, or this program built with another
//! release profile), loads it over HTTP from this process, and stops it:
//! `ping` (/ping while clients keep /hash/inline or /hash busy), `allocator` (the
//! system allocator and mimalloc on /books and /hash), `counters` (one mutex and
//! sharded view counters), `profile` (the default release profile and the
//! chapter's), `generators` (this generator and oha on the same scenario).
//!
//! `cargo run -p ch07-axum -- --help` lists the flags; `-- serve --help` the server's.

use ch07_axum::load::{Errors, Expect, Generator, OpenLoopRun, Request};
use ch07_axum::service::{MAX_PAGE, catalogue, hash};
use measure::{Cell, Chapter, Experiment, Harness, Measurement};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
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
        }
    }

    fn length(&self) -> Duration {
        Duration::from_millis(self.run_ms)
    }
}

const PASSWORD: &str = "correct horse battery staple";

/// The requests, each with its checked answer.
struct Requests {
    ping: Request,
    hash_inline: Request,
    hash: Request,
    books: Request,
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
        })
    }
}

// ANCHOR: server_process
/// The service in a child process: started per cell, stopped by closing its stdin.
struct Server {
    child: Child,
    addr: SocketAddr,
    internal: SocketAddr,
}

impl Server {
    fn start(
        binary: &Path,
        workers: u32,
        extra: &[&str],
    ) -> Result<Server, String> {
        let mut command = Command::new(binary);
        lower_priority(&mut command);
        let mut child = command
            .args(["serve", "--port", "0", "--internal-port", "0"])
            .args(["--until-stdin-closes", "--workers", &workers.to_string()])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let mut line = String::new();
        let stdout = child.stdout.take().ok_or("no stdout")?;
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        let addrs: Vec<SocketAddr> = line
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("http://")?.parse().ok())
            .collect();
        match addrs[..] {
            [addr, internal] => Ok(Server {
                child,
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

    /// Graceful shutdown; an error if the server did not exit cleanly.
    fn stop(mut self) -> Result<(), String> {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.child.try_wait().map_err(|e| e.to_string())? {
                Some(status) if status.success() => return Ok(()),
                Some(status) => {
                    return Err(format!("the server exited with {status}"));
                }
                None if Instant::now() > deadline => {
                    return Err("the server did not stop within 20 s".into());
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }
}

/// The server runs at nice 10, so that where it and the load generator want the
/// same CPU, the generator (the instrument) goes first, as if it ran on another
/// machine; the server's threads still compete with each other as equals.
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

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
// ANCHOR_END: server_process

/// The latency figures every open-loop cell reports, its throughput, and the
/// generator's own timing error beside them.
fn latencies(m: &mut Measurement, run: &OpenLoopRun, p: &Params) {
    let h = &run.tally.latency;
    let answered_per_s = run.tally.ok as f64 / p.length().as_secs_f64();
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

// ANCHOR: ping_cell
/// Experiment `ping`: /ping at a constant rate while `hash_clients` clients send
/// /hash/inline (`inline`), /hash (`offloaded`) or nothing (`none`) back to back.
fn ping_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    load: &str,
) -> Result<Measurement, String> {
    let server = Server::start(binary, p.workers, &[])?;
    let generator = Generator::new(server.addr)?;
    let background = match load {
        "inline" => Some(&r.hash_inline),
        "offloaded" => Some(&r.hash),
        "none" => None,
        other => return Err(format!("unknown hash load {other:?}")),
    };
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
    latencies(&mut m, &run, p);
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
    latencies(&mut m, &run, p);
    errors(&mut m, &run.tally.errors);
    Ok((m, server, run.tally.ok))
}

/// Experiments `allocator` and `profile`: /books or /hash at a constant rate.
fn route_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    route: &str,
) -> Result<Measurement, String> {
    let (request, rate) = match route {
        "books" => (&r.books, p.books_per_s),
        "hash" => (&r.hash, p.hashes_per_s),
        other => return Err(format!("unknown route {other:?}")),
    };
    let server = Server::start(binary, p.workers, &[])?;
    let (m, server, _) = steady_cell(server, request, rate, p)?;
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

/// Experiment `generators`: /ping under inline hash load, measured by this
/// generator or by oha (rate-limited, latency correction on).
fn generators_cell(
    p: &Params,
    r: &Requests,
    binary: &Path,
    which: &str,
    oha: Option<&Path>,
) -> Result<Measurement, String> {
    if which == "listing" {
        return ping_cell(p, r, binary, "inline");
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

// ANCHOR: profiles
/// The release profiles compared (workspace Cargo.toml): Cargo's defaults, and the
/// chapter's (thin LTO, one codegen unit, line tables, unwinding panics).
const PROFILES: [(&str, &str); 2] = [
    ("release_default", "ch07-release-default"),
    ("tuned", "ch07-tuned"),
];
// ANCHOR_END: profiles

const CHAPTER: Chapter = Chapter {
    name: "ch07-axum",
    title: "Tuning an axum service",
    about: "The Bookshelf service (axum 0.8) on 127.0.0.1, one child process per \
            cell, loaded over HTTP/1.1 keep-alive connections by an open-loop \
            generator (latency from each request's scheduled time, every answer \
            checked, every non-2xx and transport error counted): /ping while \
            clients keep /hash/inline or /hash (argon2, default cost) busy; the \
            system allocator and mimalloc on /books (200 books as JSON) and /hash; \
            one mutex and sharded view counters; Cargo's default release profile \
            and the chapter's; and the same /ping scenario measured by oha, when \
            it is installed.",
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
    // `--filter profile` selects the experiment by name; a case or variant, its cells.
    let profiles_run = h.cli().filter.iter().any(|f| f == "profile")
        || PROFILES.iter().any(|(v, _)| h.cli().selects("books", v));
    let profiles: Vec<PathBuf> = if profiles_run {
        PROFILES
            .iter()
            .map(|(_, name)| {
                measure::child::binary_in_profile(
                    "ch07-axum",
                    "ch07-axum",
                    Some(name),
                )
                .unwrap_or_else(|e| fail(e))
            })
            .collect()
    } else {
        Vec::new()
    };
    if oha.is_none() {
        eprintln!(
            "note: oha is not installed, so `generators` runs this generator only"
        );
    }
    let generator_variants: &[&str] = if oha.is_some() {
        &["listing", "oha"]
    } else {
        &["listing"]
    };
    let (p, r) = (&p, &requests);
    let (this, with_mimalloc, oha) = (&this, &with_mimalloc, oha.as_deref());
    // What shapes /ping under hash load, measured by this generator (`ping`) or by oha (`generators`).
    let ping_under_hash_load = measure::fields!(p => workers, run_ms, hash_clients, ping_per_s, ping_connections);
    h.run(vec![
        Experiment::new(
            "ping",
            Cell::grid(["hash_load"], ["none", "inline", "offloaded"]),
            |cell, _| ping_cell(p, r, this, &cell.variant),
        )
        .shaped_by(ping_under_hash_load),
        Experiment::new(
            "allocator",
            Cell::grid(["books", "hash"], ["system", "mimalloc"]),
            |cell, _| {
                let binary = if cell.variant == "mimalloc" {
                    with_mimalloc
                } else {
                    this
                };
                route_cell(p, r, binary, &cell.case)
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
            Cell::grid(["books"], ["release_default", "tuned"]),
            |cell, _| {
                let i = PROFILES.iter().position(|(v, _)| *v == cell.variant);
                let binary =
                    i.and_then(|i| profiles.get(i)).ok_or("no such profile")?;
                route_cell(p, r, binary, "books")
            },
        )
        .shaped_by(measure::fields!(p => workers, run_ms, books_per_page, books_per_s, connections))
        .repetitions(20),
        Experiment::new(
            "generators",
            Cell::grid(["ping_inline"], generator_variants),
            |cell, _| generators_cell(p, r, this, &cell.variant, oha),
        )
        .shaped_by(ping_under_hash_load),
    ]);
}
