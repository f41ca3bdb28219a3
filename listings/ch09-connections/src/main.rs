//! The experiments of Chapter 9. `client_reuse` calls the upstream at a fixed open-loop rate
//! with one shared client, a client per call, and `Connection: close`, over plain HTTP and TLS;
//! `first_calls` sends a burst of first calls through a fresh client that looks `localhost` up,
//! that is given `127.0.0.1`, and that was given the address once; `compression` asks for lists
//! of items uncompressed, compressed by tower-http's layer, and stored compressed; `keep_alive`
//! offers the upstream three-quarters of its capacity, from one client that keeps its connections
//! and from a new client for each request.
//!
//! `cargo run -p ch09-connections -- --help` lists the flags.

use ch09_connections::calls::{
    Failure, call_closing, call_shared, call_with_new_client, call_work, new_client,
    new_client_trusting_only,
};
use ch09_connections::child::UpstreamProcess;
use ch09_connections::compress::{Encoding, answer_client, check_items, decode};
use ch09_connections::names::{client_resolved_once, client_resolving};
use ch09_connections::probe::{TcpResets, process_cpu, time_wait};
use ch09_connections::tls::{CertKind, install_crypto};
use ch09_connections::upstream::{Counts, item_digest, work};
use measure::loadgen::{OpenLoop, fixed_rate};
use measure::stats::LatencyHistogram;
use measure::{Cell, Chapter, Checksum, Experiment, Harness, Measurement};
use reqwest::{Certificate, Client, header};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const CHAPTER: Chapter = Chapter {
    name: "ch09-connections",
    title: "Connections",
    about: "A service calls an upstream on 127.0.0.1 with reqwest: one shared client, a client \
            built per call and `Connection: close`, over plain HTTP and TLS (rustls, a \
            certificate made at run time), at a fixed open-loop rate; then a burst of first \
            calls to `localhost`, to 127.0.0.1, and with the address resolved once; then lists \
            of items, uncompressed, compressed per answer by tower-http's CompressionLayer \
            (gzip, brotli, zstd; default and best levels) and stored compressed; then the \
            upstream, its answers about 1 ms of work each, at three-quarters of its capacity \
            from a client that keeps its connections and from a new client per request.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &[
        "tokio",
        "reqwest",
        "hyper",
        "hyper-util",
        "rustls",
        "rustls-platform-verifier",
        "rustls-native-certs",
        "tower-http",
        "async-compression",
    ],
    headline: &[
        "p50",
        "p99",
        "client_cpu_per_call",
        "upstream_cpu_per_call",
        "connections_per_call",
        "blocking_threads_started",
    ],
    full_reps: 10,
};

/// The setup, chosen for a two-CPU machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers of the calling service, and of the upstream (a process of its own).
    workers: u32,
    upstream_workers: u32,
    /// `client_reuse`: calls per second, and calls per cell. At this rate a client per call
    /// (about 3.5 ms of CPU each on the book's machines) keeps the caller's one worker about
    /// three-quarters busy: loaded, short of saturation, where its latency would grow with the
    /// length of the run.
    rate_per_s: f64,
    calls: usize,
    /// `first_calls`: calls started at once through a fresh client.
    burst: usize,
    /// `client_build`: clients built per cell.
    builds: usize,
    /// `compression`: items per answer (each about 190 bytes of JSON: a small answer, a page of
    /// a list, a large export), answers per second and per phase of a cell.
    compress_items: [u64; 3],
    compress_rate_per_s: f64,
    compress_calls: usize,
    /// `keep_alive`: rounds of work in each answer, about a millisecond of CPU on the book's
    /// machines: twice Chapter 7's load page, so that the caller's own handshakes, on the other
    /// CPU, stay under half a core while the upstream's one worker fills. The load as a share of
    /// the upstream's capacity, where Chapter 7's curve bends; seconds per cell; and the calls
    /// kept in flight, and the seconds, that measure the capacity.
    work_rounds: u64,
    keepalive_load_percent: u32,
    keepalive_secs: f64,
    capacity_callers: usize,
    capacity_secs: f64,
}

impl Params {
    fn for_machine(quick: bool, workers: u32) -> Params {
        Params {
            workers,
            upstream_workers: 1,
            rate_per_s: 200.0,
            calls: if quick { 100 } else { 600 },
            burst: 32,
            builds: if quick { 10 } else { 50 },
            compress_items: [4, 64, 512],
            compress_rate_per_s: 50.0,
            compress_calls: if quick { 10 } else { 50 },
            work_rounds: 250_000,
            keepalive_load_percent: 75,
            keepalive_secs: if quick { 0.5 } else { 3.0 },
            capacity_callers: 4,
            capacity_secs: if quick { 0.3 } else { 1.0 },
        }
    }
}

measure::variants! {
    enum Reuse for "client_reuse" {
        Shared = "shared_client",
        PerCall = "client_per_call",
        Close = "connection_close",
    }
}

measure::variants! {
    enum Scheme for "client_reuse and keep_alive" {
        Http = "http",
        Https = "https",
    }
}

measure::variants! {
    enum Keeping for "keep_alive" {
        KeepAlive = "keep_alive",
        NewConnection = "new_connection",
    }
}

measure::variants! {
    enum Trust for "client_build" {
        SystemAndUpstream = "system_roots_and_upstream",
        UpstreamOnly = "upstream_cert_only",
    }
}

measure::variants! {
    enum Naming for "first_calls" {
        ByName = "localhost_getaddrinfo",
        Literal = "ip_literal",
        ResolvedOnce = "localhost_resolved_once",
    }
}

fn main() {
    forget_what_cargo_run_set();
    install_crypto();
    let mut h = Harness::start(CHAPTER);
    let p = Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(1));
    h.params(&p);
    // What a client built with reqwest's default verifier reads each time it is built.
    h.derived("system_roots", system_roots());
    let p = &p;
    h.run(vec![
        Experiment::new(
            "client_reuse",
            Cell::grid(Scheme::NAMES, Reuse::NAMES),
            |cell, _rep| client_reuse(p, Scheme::named(&cell.case)?, Reuse::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(p => workers, upstream_workers, rate_per_s, calls)),
        Experiment::new(
            "first_calls",
            Cell::grid([p.burst], Naming::NAMES),
            |cell, _rep| first_calls(p, Naming::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(p => workers, upstream_workers, burst)),
        Experiment::new(
            "client_build",
            Cell::grid(["build"], Trust::NAMES),
            |cell, _rep| client_build(p, Trust::named(&cell.variant)?),
        )
        .shaped_by(measure::fields!(p => builds)),
        Experiment::new(
            "compression",
            Cell::grid(p.compress_items, Encoding::NAMES),
            |cell, rep| {
                let count = cell
                    .case
                    .parse()
                    .map_err(|_| format!("items `{}`", cell.case))?;
                compression(p, count, Encoding::named(&cell.variant)?, rep)
            },
        )
        .shaped_by(measure::fields!(
            p => workers,
            upstream_workers,
            compress_rate_per_s,
            compress_calls
        )),
        Experiment::new(
            "keep_alive",
            Cell::grid(Scheme::NAMES, Keeping::NAMES),
            |cell, _rep| {
                keep_alive(
                    p,
                    Scheme::named(&cell.case)?,
                    Keeping::named(&cell.variant)?,
                )
            },
        )
        .shaped_by(measure::fields!(
            p => workers,
            upstream_workers,
            work_rounds,
            keepalive_load_percent,
            keepalive_secs,
            capacity_callers,
            capacity_secs
        )),
    ]);
}

/// `cargo run` gives this program its package's variables (CARGO_MANIFEST_DIR, CARGO_PKG_NAME,
/// ...), and ring's build script is rerun when one of them changes: the upstream's build
/// (`UpstreamProcess::start`) would inherit them and rebuild ring and every crate above it.
fn forget_what_cargo_run_set() {
    let set_by_cargo_run = |name: &str| {
        ["CARGO_PKG_", "CARGO_MANIFEST_"]
            .iter()
            .any(|p| name.starts_with(p))
            || [
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_PRIMARY_PACKAGE",
            ]
            .contains(&name)
    };
    let names: Vec<_> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| set_by_cargo_run(name))
        .collect();
    for name in names {
        // SAFETY: called first thing in `main`, before any other thread runs.
        unsafe { std::env::remove_var(name) };
    }
}

/// The root certificates a client built with reqwest's default verifier loads on this machine
/// (after deduplication), read the way it reads them: `SSL_CERT_FILE` and `SSL_CERT_DIR` apply.
fn system_roots() -> usize {
    rustls_native_certs::load_native_certs().certs.len()
}

/// How long closed connections get to reach TIME-WAIT before the sockets are counted.
const SETTLE: Duration = Duration::from_millis(100);

/// What one call returns to the cell: its latency from its scheduled time, and its digest.
type Answer = Result<(Duration, u64), Failure>;

/// Waits for every call's task.
async fn join_all(calls: Vec<tokio::task::JoinHandle<Answer>>) -> Vec<Answer> {
    let mut all = Vec::with_capacity(calls.len());
    for call in calls {
        all.push(
            call.await
                .unwrap_or_else(|e| panic!("a call panicked: {e}")),
        );
    }
    all
}

/// The latencies of `count` calls of items `0..count`, once every call succeeded and the digests
/// add up; else the first failure, named by the variant `what`.
fn tally(answers: Vec<Answer>, count: usize, what: &str) -> Result<LatencyHistogram, String> {
    tally_against(answers, (0..count as u64).map(item_digest), what)
}

/// The latencies of the calls answered (call `n` asked for item `n`), once their digests add up,
/// and how many failed on the way (timed out, refused, reset): near its capacity an upstream may
/// fail some, and they are counted, not hidden. A wrong answer, or a client that could not be
/// built, still ends the run.
fn tally_answered(answers: Vec<Answer>, what: &str) -> Result<(LatencyHistogram, usize), String> {
    let (mut latency, sum, mut asked) = (LatencyHistogram::new(), Checksum::new(), Vec::new());
    let mut failed = 0;
    for (id, answer) in answers.into_iter().enumerate() {
        match answer {
            Ok((took, digest)) => {
                latency.record(took);
                sum.add(digest);
                asked.push(item_digest(id as u64));
            }
            Err(e @ (Failure::Body(_) | Failure::Build(_))) => return Err(format!("{what}: {e}")),
            Err(_) => failed += 1,
        }
    }
    if asked.is_empty() {
        return Err(format!("{what}: no call was answered"));
    }
    sum.verify("digests", Checksum::expected(asked))
        .map_err(|e| e.to_string())?;
    Ok((latency, failed))
}

/// The latencies of the calls, once every call succeeded and their digests add up to the
/// `expected` ones'; else the first failure, named by `what`.
fn tally_against(
    answers: Vec<Answer>,
    expected: impl IntoIterator<Item = u64>,
    what: &str,
) -> Result<LatencyHistogram, String> {
    let (mut latency, sum) = (LatencyHistogram::new(), Checksum::new());
    for answer in answers {
        let (took, digest) = answer.map_err(|e| format!("{what}: {e}"))?;
        latency.record(took);
        sum.add(digest);
    }
    sum.verify("digests", Checksum::expected(expected))
        .map_err(|e| e.to_string())?;
    Ok(latency)
}

/// One cell of `client_reuse`: a fresh upstream, `calls` calls at `rate_per_s`, each sent at its
/// scheduled time whether or not earlier ones have answered.
fn client_reuse(p: &Params, scheme: Scheme, reuse: Reuse) -> Result<Measurement, String> {
    let mut upstream = UpstreamProcess::start(CertKind::Good)?;
    let (base, port) = scheme_base(&upstream, scheme);
    let cert = upstream_cert(&upstream)?;
    let rt = measure::runtime(p.workers)?;
    let shared = new_client(&cert).map_err(|e| format!("building the client: {e}"))?;
    let caller = Caller {
        reuse,
        cert,
        base: Arc::from(base),
        shared,
    };
    // One call first, untimed: the shared pool's first connection, and whatever a process
    // does once (the system's roots read, the crypto tables), stay out of the measured calls.
    rt.block_on(caller.call(u64::MAX))
        .map_err(|e| format!("the first call: {e}"))?;

    // The first call's socket, closed by now where its client is gone, is not the calls'.
    std::thread::sleep(SETTLE);
    let time_wait_before = time_wait(port)?;
    let before = upstream.counts()?;
    let resets_before = TcpResets::read()?;
    let cpu_before = process_cpu();
    let arrivals = fixed_rate(p.rate_per_s, Duration::from_millis(5), p.calls, ());
    let mut handles = Vec::with_capacity(p.calls);
    let mut next_id = 0u64;
    let report = OpenLoop::default().run(Instant::now(), &arrivals, |_, scheduled| {
        let (caller, id) = (caller.clone(), next_id);
        next_id += 1;
        handles.push(rt.spawn(async move {
            let digest = caller.call(id).await?;
            Ok::<_, Failure>((scheduled.elapsed(), digest))
        }));
    });
    let answers = rt.block_on(join_all(handles));
    let client_cpu = process_cpu()
        .saturating_sub(cpu_before)
        .saturating_sub(report.cpu);
    // Closed connections reach TIME-WAIT when their tasks have run: a moment to settle.
    std::thread::sleep(SETTLE);
    let left_in_time_wait = time_wait(port)?.saturating_sub(time_wait_before);
    let resets = TcpResets::read()?.since(&resets_before);
    let upstream_used = upstream.counts()?.since(&before);

    let latency = tally(answers, p.calls, reuse.name())?;
    let per_call = |x: f64| x / p.calls as f64;
    let mut m = Measurement::new();
    m.push("p50", "ns", latency.p50_ns())
        .push("p99", "ns", latency.p99_ns())
        .push(
            "client_cpu_per_call",
            "ns",
            per_call(client_cpu.as_nanos() as f64),
        )
        .push(
            "upstream_cpu_per_call",
            "ns",
            per_call(upstream_used.cpu_ns as f64),
        )
        .push(
            "connections_per_call",
            "count",
            per_call(upstream_used.connections as f64),
        )
        .push(
            "full_handshakes_per_call",
            "count",
            per_call(upstream_used.full_handshakes as f64),
        )
        .push(
            "resumed_handshakes_per_call",
            "count",
            per_call(upstream_used.resumed_handshakes as f64),
        )
        .push(
            "time_wait_per_call",
            "count",
            per_call(left_in_time_wait as f64),
        )
        .push("resets_per_call", "count", per_call(resets.sent as f64))
        .push(
            "aborts_on_data_per_call",
            "count",
            per_call(resets.on_data as f64),
        )
        .push(
            "aborts_on_close_per_call",
            "count",
            per_call(resets.on_close as f64),
        )
        .push("gen_error_p99", "ns", report.timing_error.p99_ns())
        .push("generator_cpu", "share", report.cpu_share());
    Ok(m)
}

/// The upstream's base URL in `scheme`, and its port.
fn scheme_base(upstream: &UpstreamProcess, scheme: Scheme) -> (String, u16) {
    let (prefix, addr) = match scheme {
        Scheme::Http => ("http", upstream.started.plain),
        Scheme::Https => ("https", upstream.started.tls),
    };
    (format!("{prefix}://{addr}"), addr.port())
}

/// The certificate the upstream presents, for the clients to trust.
fn upstream_cert(upstream: &UpstreamProcess) -> Result<Certificate, String> {
    Certificate::from_pem(upstream.started.cert_pem.as_bytes())
        .map_err(|e| format!("the upstream's certificate: {e}"))
}

/// What each call of a `client_reuse` cell needs, cloned into its task.
#[derive(Clone)]
struct Caller {
    reuse: Reuse,
    cert: Certificate,
    base: Arc<str>,
    shared: Client,
}

impl Caller {
    async fn call(&self, id: u64) -> Result<u64, Failure> {
        match self.reuse {
            Reuse::Shared => call_shared(&self.shared, &self.base, id).await,
            Reuse::PerCall => call_with_new_client(&self.cert, &self.base, id).await,
            Reuse::Close => call_closing(&self.shared, &self.base, id).await,
        }
    }
}

/// One cell of `first_calls`: a fresh runtime (its blocking pool empty) and a fresh client; `burst`
/// calls start at once; how many threads the runtime started meanwhile, and how long the calls took.
fn first_calls(p: &Params, naming: Naming) -> Result<Measurement, String> {
    let mut upstream = UpstreamProcess::start(CertKind::Good)?;
    let addr = upstream.started.plain;
    let threads = Arc::new(AtomicU64::new(0));
    let counter = threads.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(p.workers as usize)
        .enable_all()
        .on_thread_start(move || {
            counter.fetch_add(1, Ordering::Relaxed);
        })
        .build()
        .map_err(|e| format!("cannot build a runtime: {e}"))?;
    let (client, base) = match naming {
        Naming::ByName => (
            client_resolving(),
            format!("http://localhost:{}", addr.port()),
        ),
        Naming::Literal => (client_resolving(), format!("http://{addr}")),
        Naming::ResolvedOnce => (
            client_resolved_once("localhost", addr),
            format!("http://localhost:{}", addr.port()),
        ),
    };
    let client = client.map_err(|e| format!("building the client: {e}"))?;
    // The workers' threads are started by `build`; once each has run its start hook, what the
    // count adds during the burst is the blocking pool's.
    wait_for_threads(&threads, p.workers as u64)?;
    let before = (threads.load(Ordering::Relaxed), upstream.counts()?);
    let base: Arc<str> = Arc::from(base);
    let answers: Vec<Answer> = rt.block_on(async {
        let start = Instant::now();
        let calls: Vec<_> = (0..p.burst as u64)
            .map(|id| {
                let (client, base) = (client.clone(), base.clone());
                tokio::spawn(async move {
                    let digest = call_shared(&client, &base, id).await?;
                    Ok((start.elapsed(), digest))
                })
            })
            .collect();
        join_all(calls).await
    });
    let started = threads.load(Ordering::Relaxed) - before.0;
    let upstream_used = upstream.counts()?.since(&before.1);
    let latency = tally(answers, p.burst, naming.name())?;
    let mut m = Measurement::new();
    m.push("blocking_threads_started", "count", started as f64)
        .push("connections", "count", upstream_used.connections as f64)
        .push("burst_p50", "ns", latency.p50_ns())
        .push("burst_max", "ns", latency.max_ns());
    Ok(m)
}

/// Waits (a second at most) until `count` threads have run the runtime's start hook.
fn wait_for_threads(started: &AtomicU64, count: u64) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(1);
    while started.load(Ordering::Relaxed) < count {
        if Instant::now() > deadline {
            return Err(format!(
                "the runtime's {count} workers did not start within a second"
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// One cell of `client_build`: `builds` clients built one after another, each dropped at once;
/// the time per build. Both trust the upstream's certificate; one also reads the system's roots.
fn client_build(p: &Params, trust: Trust) -> Result<Measurement, String> {
    let upstream = UpstreamProcess::start(CertKind::Good)?;
    let cert = upstream_cert(&upstream)?;
    let build = || match trust {
        Trust::SystemAndUpstream => new_client(&cert),
        Trust::UpstreamOnly => new_client_trusting_only(&cert),
    };
    let start = Instant::now();
    for _ in 0..p.builds {
        drop(build().map_err(|e| format!("building the client: {e}"))?);
    }
    let mut m = Measurement::new();
    m.push(
        "ns_per_build",
        "ns",
        start.elapsed().as_nanos() as f64 / p.builds as f64,
    );
    Ok(m)
}

/// One cell of `compression`: a fresh upstream; `compress_calls` answers of `count` items at
/// `compress_rate_per_s` in `encoding`. An answer the layer compresses is measured beside the same
/// answers uncompressed, in a phase of the cell of their own, so that the CPU it added and the
/// bytes it saved come from one upstream; the plain phase comes first in even repetitions and
/// last in odd ones, so that what a process does early lands on both sides.
fn compression(
    p: &Params,
    count: u64,
    encoding: Encoding,
    rep: u32,
) -> Result<Measurement, String> {
    let mut upstream = UpstreamProcess::start(CertKind::Good)?;
    let rt = measure::runtime(p.workers)?;
    let asker = Asker {
        client: answer_client().map_err(|e| format!("building the client: {e}"))?,
        base: Arc::from(format!("http://{}", upstream.started.compress)),
        count,
    };
    let mut phase = |encoding| answer_phase(p, &rt, &mut upstream, &asker, encoding);
    let made_here = !matches!(encoding, Encoding::Identity | Encoding::Stored);
    let (this, plain) = match (made_here, rep.is_multiple_of(2)) {
        (false, _) => (phase(encoding)?, None),
        (true, true) => {
            let plain = phase(Encoding::Identity)?;
            (phase(encoding)?, Some(plain))
        }
        (true, false) => {
            let this = phase(encoding)?;
            (this, Some(phase(Encoding::Identity)?))
        }
    };
    let per_answer = |x: u64| x as f64 / p.compress_calls as f64;
    let mut m = Measurement::new();
    m.push("p50", "ns", this.latency.p50_ns())
        .push("p99", "ns", this.latency.p99_ns())
        .push(
            "upstream_cpu_per_answer",
            "ns",
            per_answer(this.upstream.cpu_ns),
        )
        .push(
            "wire_bytes_per_answer",
            "bytes",
            per_answer(this.upstream.bytes_written),
        )
        .push(
            "connections_per_answer",
            "count",
            per_answer(this.upstream.connections),
        )
        .push("gen_error_p99", "ns", this.gen_error_p99);
    if let Some(plain) = plain {
        let added_cpu_ns = per_answer(this.upstream.cpu_ns) - per_answer(plain.upstream.cpu_ns);
        let saved_bytes =
            per_answer(plain.upstream.bytes_written) - per_answer(this.upstream.bytes_written);
        m.push(
            "plain_cpu_per_answer",
            "ns",
            per_answer(plain.upstream.cpu_ns),
        )
        .push(
            "plain_wire_bytes_per_answer",
            "bytes",
            per_answer(plain.upstream.bytes_written),
        )
        .push("added_cpu_per_answer", "ns", added_cpu_ns)
        .push(
            "wire_ratio",
            "x",
            plain.upstream.bytes_written as f64 / this.upstream.bytes_written as f64,
        )
        .push(
            "break_even_mbit_s",
            "Mbit/s",
            break_even_mbit_s(saved_bytes, added_cpu_ns)?,
        );
    }
    Ok(m)
}

// ANCHOR: break_even
/// The link speed at which compressing one answer costs as much time as it saves: the saved
/// bytes' time on the link equals the CPU time compressing added. An estimate for one answer:
/// decoding on the other side, and sending while compressing, are left out. An error where
/// compressing added no CPU the process clock could see: no speed follows from that.
fn break_even_mbit_s(saved_bytes: f64, added_cpu_ns: f64) -> Result<f64, String> {
    if added_cpu_ns <= 0.0 {
        return Err(format!(
            "compressing added {added_cpu_ns} ns per answer: no break-even speed"
        ));
    }
    let saved_bits = saved_bytes * 8.0;
    Ok(saved_bits / (added_cpu_ns / 1e9) / 1e6)
}
// ANCHOR_END: break_even

/// What one phase of a `compression` cell measured.
struct AnswerPhase {
    latency: LatencyHistogram,
    upstream: Counts,
    gen_error_p99: f64,
}

/// One phase of a `compression` cell: an untimed answer first (the connection opened, a stored
/// answer compressed), then `compress_calls` answers at the fixed rate, each checked.
fn answer_phase(
    p: &Params,
    rt: &tokio::runtime::Runtime,
    upstream: &mut UpstreamProcess,
    asker: &Asker,
    encoding: Encoding,
) -> Result<AnswerPhase, String> {
    let calls = p.compress_calls as u64;
    rt.block_on(asker.ask(encoding, calls))
        .map_err(|e| format!("the first answer: {e}"))?;
    let before = upstream.counts()?;
    let arrivals = fixed_rate(
        p.compress_rate_per_s,
        Duration::from_millis(5),
        p.compress_calls,
        (),
    );
    let mut handles = Vec::with_capacity(p.compress_calls);
    let mut n = 0u64;
    let report = OpenLoop::default().run(Instant::now(), &arrivals, |_, scheduled| {
        let (asker, this) = (asker.clone(), n);
        n += 1;
        handles.push(rt.spawn(async move {
            let digest = asker.ask(encoding, this).await?;
            Ok::<_, Failure>((scheduled.elapsed(), digest))
        }));
    });
    let answers = rt.block_on(join_all(handles));
    let upstream_used = upstream.counts()?.since(&before);
    let expected = (0..calls).map(|n| asker.digest_of(encoding, n));
    let latency = tally_against(answers, expected, encoding.name())?;
    Ok(AnswerPhase {
        latency,
        upstream: upstream_used,
        gen_error_p99: report.timing_error.p99_ns(),
    })
}

/// What each answer of a `compression` cell needs, cloned into its task.
#[derive(Clone)]
struct Asker {
    client: Client,
    base: Arc<str>,
    count: u64,
}

impl Asker {
    /// Asks for the `n`th answer in `encoding`, decodes it and checks its items: their digests' sum.
    async fn ask(&self, encoding: Encoding, n: u64) -> Result<u64, Failure> {
        let first = encoding.first_item(n, self.count);
        let (path, accept) = encoding.request(first, self.count);
        let request = self
            .client
            .get(format!("{}{path}", self.base))
            .header(header::ACCEPT_ENCODING, accept);
        let response = request.send().await.map_err(Failure::classify)?;
        let response = response.error_for_status().map_err(Failure::classify)?;
        let sent_as = response
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap_or("?").to_string());
        if sent_as.as_deref().unwrap_or("identity") != accept {
            let sent = sent_as.unwrap_or("identity".into());
            return Err(Failure::Body(format!("asked for {accept}, sent {sent}")));
        }
        let body = response.bytes().await.map_err(Failure::classify)?;
        let json = decode(sent_as.as_deref(), &body)
            .await
            .map_err(Failure::Body)?;
        check_items(&json, first, self.count).map_err(Failure::Body)
    }

    /// What `ask` returns for the `n`th answer when every item is right.
    fn digest_of(&self, encoding: Encoding, n: u64) -> u64 {
        let first = encoding.first_item(n, self.count);
        (first..first + self.count)
            .map(item_digest)
            .fold(0, u64::wrapping_add)
    }
}

/// One cell of `keep_alive`: a fresh upstream whose answers each cost `work_rounds` of CPU, its
/// capacity measured first, then offered `keepalive_load_percent` of it for `keepalive_secs`,
/// open loop, by one client
/// that keeps its connections or by a new client for each request: a new connection every time,
/// and over TLS a full handshake (callers that do not come back).
fn keep_alive(p: &Params, scheme: Scheme, keeping: Keeping) -> Result<Measurement, String> {
    let mut upstream = UpstreamProcess::start(CertKind::Good)?;
    let cert = upstream_cert(&upstream)?;
    let rt = measure::runtime(p.workers)?;
    let capacity = measure_capacity(p, &rt, &upstream, &cert)?;
    let rate = capacity * f64::from(p.keepalive_load_percent) / 100.0;
    let calls = (rate * p.keepalive_secs).round() as usize;
    let visitor = Visitor {
        keeping,
        shared: new_client_trusting_only(&cert).map_err(|e| format!("building the client: {e}"))?,
        cert,
        base: Arc::from(scheme_base(&upstream, scheme).0),
        work: (p.work_rounds, work(p.work_rounds)),
    };
    // One call first, untimed, as in `client_reuse`: the shared client's first connection.
    rt.block_on(visitor.call(u64::MAX))
        .map_err(|e| format!("the first call: {e}"))?;

    let before = upstream.counts()?;
    let cpu_before = process_cpu();
    let arrivals = fixed_rate(rate, Duration::from_millis(5), calls, ());
    let mut handles = Vec::with_capacity(calls);
    let mut next_id = 0u64;
    let start = Instant::now();
    let report = OpenLoop::default().run(start, &arrivals, |_, scheduled| {
        let (visitor, id) = (visitor.clone(), next_id);
        next_id += 1;
        handles.push(rt.spawn(async move {
            let digest = visitor.call(id).await?;
            Ok::<_, Failure>((scheduled.elapsed(), digest))
        }));
    });
    let answers = rt.block_on(join_all(handles));
    let took = start.elapsed();
    let client_cpu = process_cpu()
        .saturating_sub(cpu_before)
        .saturating_sub(report.cpu);
    let used = upstream.counts()?.since(&before);

    let (latency, failed) = tally_answered(answers, keeping.name())?;
    let per_call = |x: u64| x as f64 / calls as f64;
    let mut m = Measurement::new();
    let throughput = (calls - failed) as f64 / took.as_secs_f64();
    m.push("capacity_per_s", "/s", capacity)
        .push("offered_per_s", "/s", rate)
        .push("throughput_per_s", "/s", throughput)
        .push("answered_share", "share", throughput / rate)
        .push("failed_share", "share", per_call(failed as u64))
        .push("p50", "ns", latency.p50_ns())
        .push("p99", "ns", latency.p99_ns())
        .push(
            "upstream_busy",
            "cores",
            used.cpu_ns as f64 / took.as_nanos() as f64,
        )
        .push("upstream_cpu_per_call", "ns", per_call(used.cpu_ns))
        .push(
            "client_cpu_per_call",
            "ns",
            per_call(client_cpu.as_nanos() as u64),
        )
        .push("connections_per_call", "count", per_call(used.connections))
        .push(
            "full_handshakes_per_call",
            "count",
            per_call(used.full_handshakes),
        )
        .push("gen_error_p99", "ns", report.timing_error.p99_ns())
        .push("generator_cpu", "share", report.cpu_share());
    Ok(m)
}

/// What each call of a `keep_alive` cell needs, cloned into its task.
#[derive(Clone)]
struct Visitor {
    keeping: Keeping,
    cert: Certificate,
    base: Arc<str>,
    shared: Client,
    /// The rounds of work asked for, and their result.
    work: (u64, u64),
}

impl Visitor {
    async fn call(&self, id: u64) -> Result<u64, Failure> {
        match self.keeping {
            Keeping::KeepAlive => call_work(&self.shared, &self.base, self.work, id).await,
            Keeping::NewConnection => {
                // Its own pool and session cache: nothing to reuse, nothing to resume.
                let client = new_client_trusting_only(&self.cert).map_err(Failure::Build)?;
                call_work(&client, &self.base, self.work, id).await
            }
        }
    }
}

/// The upstream's capacity for `/work` answers, the rate `keep_alive` offers a share of:
/// answers a second over its plain listener with `capacity_callers` calls always in flight
/// through one client (its connections kept), back to back for `capacity_secs`, after one call
/// each. Measured on each cell's own upstream, just before the cell, so that the share holds
/// where the machine's speed drifts (beside a busy neighbour, most).
fn measure_capacity(
    p: &Params,
    rt: &tokio::runtime::Runtime,
    upstream: &UpstreamProcess,
    cert: &Certificate,
) -> Result<f64, String> {
    let base: Arc<str> = Arc::from(scheme_base(upstream, Scheme::Http).0);
    let client = new_client_trusting_only(cert).map_err(|e| format!("building the client: {e}"))?;
    let work = (p.work_rounds, work(p.work_rounds));
    let caller = |deadline: Option<Instant>| {
        let (client, base) = (client.clone(), base.clone());
        rt.spawn(async move {
            let mut answered = 0u64;
            loop {
                call_work(&client, &base, work, answered).await?;
                answered += 1;
                if deadline.is_none_or(|d| Instant::now() >= d) {
                    return Ok::<_, Failure>(answered);
                }
            }
        })
    };
    let run = |deadline| {
        let callers: Vec<_> = (0..p.capacity_callers).map(|_| caller(deadline)).collect();
        rt.block_on(async {
            let mut answered = 0;
            for c in callers {
                answered += c
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| e.to_string())?;
            }
            Ok::<u64, String>(answered)
        })
    };
    run(None).map_err(|e| format!("the capacity's first calls: {e}"))?;
    let start = Instant::now();
    let answered = run(Some(start + Duration::from_secs_f64(p.capacity_secs)))
        .map_err(|e| format!("measuring the capacity: {e}"))?;
    Ok(answered as f64 / start.elapsed().as_secs_f64())
}
