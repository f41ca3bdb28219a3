//! The experiments of Chapter 8, against a PostgreSQL server the run starts and
//! removes itself: `pool_wait` (a pool smaller than the requests in flight),
//! `arrivals` (the same requests evenly spaced or at random moments),
//! `held` (a connection held across an upstream call), `round_trip` and
//! `n_plus_one` (a page of books with their authors), `sync_driver` (a synchronous
//! client in an async handler), `fail_fast` (acquire_timeout), `pool_size` (a
//! pool larger than the machine) and `dropped_query` (a request's deadline, which does
//! not end its query, against PostgreSQL's `statement_timeout`).
//!
//! `cargo run -p ch08-database -- --help` lists the flags.

use ch08_database::database::{Options, Postgres, stop_on_signal};
use ch08_database::handlers::*;
use ch08_database::shelf::{STARS_AT_LEAST, Shelf};
use ch08_database::sync_client::SyncClients;
use measure::loadgen::{Arrival, OpenLoop, fixed_rate};
use measure::{Cell, Chapter, Experiment, Harness, LatencyHistogram, Measurement};
use serde::Serialize;
use sqlx::PgPool;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;

#[derive(clap::Args)]
struct Extra {
    /// Run PostgreSQL on this port of 127.0.0.1 [default: a free one]
    #[arg(long, value_name = "PORT")]
    pg_port: Option<u16>,
    /// Use (and keep) this data directory, initialised if empty [default: a fresh
    /// temporary cluster, removed at the end]
    #[arg(long, value_name = "DIR")]
    pg_data: Option<PathBuf>,
}

/// The setup, chosen for this machine (see `Params::for_machine`).
#[derive(Serialize)]
struct Params {
    /// Tokio workers of the service: every core, shared with PostgreSQL and the
    /// load generator.
    workers: u32,
    /// The machine's CPUs, which PostgreSQL's backends share: `pool_size`'s pools
    /// are sized from them, whatever `--workers` says.
    cpus: u32,
    /// The bookshelf's rows.
    authors: i32,
    books: i32,
    reviews: i32,
    /// Open-loop runs offer requests for this long.
    window_ms: u64,
    /// `pool_wait`: requests a second, each a query that waits `db_wait_ms` in
    /// the database, through pools of these sizes.
    pool_rate_per_s: f64,
    db_wait_ms: f64,
    pool_sizes: Vec<u32>,
    /// `arrivals`: the same requests through pools of these sizes, evenly spaced or at
    /// random moments (a Poisson process) at the same mean rate.
    arrival_pools: Vec<u32>,
    /// `held`: a pool of `held_pool` connections; each request queries, then
    /// awaits an upstream call of `upstream_ms`.
    held_pool: u32,
    held_rate_per_s: f64,
    upstream_ms: u64,
    /// `round_trip`: `SELECT 1` this many times; `n_plus_one`: pages of these
    /// sizes, `pages` of each.
    round_trips: u32,
    page_sizes: Vec<i32>,
    pages: u32,
    /// `sync_driver`: queries a second (each waiting `sync_wait_ms` in the
    /// database) through `sync_connections` connections, pings a second beside
    /// them, and a ticker every `tick_ms`.
    sync_rate_per_s: f64,
    sync_wait_ms: f64,
    sync_connections: u32,
    ping_per_s: f64,
    tick_ms: u64,
    /// `fail_fast`: a pool of `fail_pool`, queries waiting `fail_wait_ms`,
    /// offered at `fail_rate_per_s`; the short acquire timeout.
    fail_pool: u32,
    fail_wait_ms: f64,
    fail_rate_per_s: f64,
    short_timeout_ms: u64,
    /// `pool_size`: `cpu_clients` tasks send the CPU-bound query back to back
    /// for `cpu_window_ms` through pools of these sizes.
    cpu_pools: Vec<u32>,
    cpu_clients: u32,
    cpu_window_ms: u64,
    /// `dropped_query`: a request with a deadline of `request_deadline_ms` sends a
    /// query that waits `slow_query_ms` in the database, through a pool of one
    /// connection; the fix's `statement_timeout` is `statement_timeout_ms`, between the
    /// two (the deadline fires first), or `short_statement_timeout_ms`, below the
    /// deadline (the handler gets PostgreSQL's cancel).
    request_deadline_ms: u64,
    slow_query_ms: u64,
    statement_timeout_ms: u64,
    short_statement_timeout_ms: u64,
}

impl Params {
    /// `cpus` sizes the CPU-bound pools: PostgreSQL's CPUs, not the service's workers.
    fn for_machine(quick: bool, workers: u32, cpus: u32) -> Params {
        let shelf = Shelf::standard(0);
        Params {
            workers,
            cpus,
            authors: shelf.authors,
            books: shelf.books,
            reviews: shelf.reviews,
            window_ms: if quick { 300 } else { 2_000 },
            pool_rate_per_s: 400.0,
            db_wait_ms: 4.0,
            pool_sizes: if quick {
                vec![1, 8]
            } else {
                vec![1, 2, 4, 8, 16]
            },
            arrival_pools: if quick { vec![2, 4] } else { vec![2, 4, 8] },
            held_pool: 4,
            held_rate_per_s: 500.0,
            upstream_ms: 10,
            round_trips: if quick { 200 } else { 2_000 },
            page_sizes: if quick { vec![10] } else { vec![1, 10, 50] },
            pages: if quick { 10 } else { 100 },
            sync_rate_per_s: 300.0,
            sync_wait_ms: 5.0,
            sync_connections: 8,
            ping_per_s: 600.0,
            tick_ms: 1,
            fail_pool: 2,
            fail_wait_ms: 10.0,
            fail_rate_per_s: 300.0,
            short_timeout_ms: 50,
            cpu_pools: if quick {
                vec![1, 16 * cpus]
            } else {
                vec![1, cpus, 2 * cpus, 4 * cpus, 16 * cpus]
            },
            cpu_clients: 16 * cpus,
            cpu_window_ms: if quick { 300 } else { 1_000 },
            request_deadline_ms: 100,
            slow_query_ms: 1_000,
            statement_timeout_ms: 200,
            short_statement_timeout_ms: 50,
        }
    }

    fn window(&self) -> Duration {
        Duration::from_millis(self.window_ms)
    }
}

/// What one request of an open-loop run saw.
struct Outcome {
    scheduled: Instant,
    /// When the pool handed over a connection, where the handler says.
    acquired: Option<Instant>,
    done: Instant,
    result: Result<(), Failure>,
}

/// Why a request got no answer.
enum Failure {
    /// sqlx's `PoolTimedOut`: no connection within `acquire_timeout`.
    PoolTimedOut,
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::PoolTimedOut => {
                f.write_str("no connection within acquire_timeout")
            }
            Failure::Other(e) => f.write_str(e),
        }
    }
}

impl From<sqlx::Error> for Failure {
    fn from(e: sqlx::Error) -> Failure {
        match e {
            sqlx::Error::PoolTimedOut => Failure::PoolTimedOut,
            e => Failure::Other(e.to_string()),
        }
    }
}

/// `rate × window` arrivals evenly spaced.
fn even(rate: f64, window: Duration) -> Vec<Arrival<()>> {
    let n = (rate * window.as_secs_f64()).round() as usize;
    fixed_rate(rate, Duration::ZERO, n, ())
}

/// As many arrivals as `even`, at random moments at the same mean rate: a Poisson
/// process (independent clients), its gaps drawn from an exponential distribution.
fn random(rate: f64, window: Duration, seed: u64) -> Vec<Arrival<()>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut at = 0.0_f64;
    (0..even(rate, window).len())
        .map(|_| {
            let arrival = Arrival {
                at: Duration::from_secs_f64(at),
                what: (),
            };
            at += -(1.0 - rng.f64()).ln() / rate; // 1 - u: never ln(0)
            arrival
        })
        .collect()
}

/// Sends a request at each arrival, `request(k)` spawned on the service's runtime at
/// its scheduled time, and waits for every one.
fn open_loop<F, Fut>(
    rt: &Runtime,
    arrivals: &[Arrival<()>],
    mut request: F,
) -> Vec<Outcome>
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = Result<Option<Instant>, Failure>> + Send + 'static,
{
    let n = arrivals.len();
    let mut handles = Vec::with_capacity(n);
    let start = Instant::now() + Duration::from_millis(5);
    OpenLoop::default().run(start, arrivals, |_, scheduled| {
        let work = request(handles.len());
        handles.push(rt.spawn(async move {
            let result = work.await;
            let done = Instant::now();
            match result {
                Ok(acquired) => Outcome {
                    scheduled,
                    acquired,
                    done,
                    result: Ok(()),
                },
                Err(f) => Outcome {
                    scheduled,
                    acquired: None,
                    done,
                    result: Err(f),
                },
            }
        }));
    });
    rt.block_on(async {
        let mut out = Vec::with_capacity(handles.len());
        for h in handles {
            out.push(h.await.expect("a request task panicked"));
        }
        out
    })
}

/// Fails the cell on any failure but a pool timeout, which `allowed` says may happen.
fn check_failures(
    outcomes: &[Outcome],
    timeouts_allowed: bool,
) -> Result<(), String> {
    for o in outcomes {
        match &o.result {
            Err(Failure::Other(e)) => return Err(format!("a request failed: {e}")),
            Err(Failure::PoolTimedOut) if !timeouts_allowed => {
                return Err("a request timed out waiting for a connection".into());
            }
            _ => {}
        }
    }
    Ok(())
}

fn histogram<'a>(
    durations: impl Iterator<Item = Duration> + 'a,
) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    durations.for_each(|d| h.record(d));
    h
}

/// p50 and p99 of the served requests (from their scheduled time), and their rate
/// over the run: from the first scheduled request to the last answer, served or not,
/// so that a pool that stops serving before the end counts the time it served none.
fn push_latency(m: &mut Measurement, outcomes: &[Outcome]) {
    let served: Vec<&Outcome> =
        outcomes.iter().filter(|o| o.result.is_ok()).collect();
    let h = histogram(served.iter().map(|o| o.done - o.scheduled));
    let first = outcomes.iter().map(|o| o.scheduled).min();
    let last = outcomes.iter().map(|o| o.done).max();
    let span = match (first, last) {
        (Some(f), Some(l)) => (l - f).as_secs_f64(),
        _ => 0.0,
    };
    m.push("p50", "ns", h.p50_ns())
        .push("p99", "ns", h.p99_ns())
        .push(
            "served_per_s",
            "/s",
            if span > 0.0 {
                served.len() as f64 / span
            } else {
                0.0
            },
        );
}

/// The database's CPU over a run: per request, and as a share of one CPU.
fn push_database_cpu(
    m: &mut Measurement,
    cpu: Duration,
    wall: Duration,
    requests: usize,
) {
    m.push(
        "db_cpu_per_request",
        "ns",
        cpu.as_nanos() as f64 / requests.max(1) as f64,
    )
    .push(
        "db_cpu_share",
        "%",
        100.0 * cpu.as_secs_f64() / wall.as_secs_f64().max(1e-9),
    );
}

/// Book ids for request `k`: spread over the shelf, the same in every run.
fn book_id(p: &Params, k: usize) -> i32 {
    1 + ((k as i64 * 7919) % p.books as i64) as i32
}

fn check_book(
    shelf: &Shelf,
    got: &ch08_database::shelf::Book,
) -> Result<(), Failure> {
    if got.digest() == shelf.book(got.id).digest() {
        Ok(())
    } else {
        Err(Failure::Other(format!(
            "wrong answer for book {}: {got:?}",
            got.id
        )))
    }
}

struct Ctx<'a> {
    p: &'a Params,
    pg: &'a Postgres,
    rt: &'a Runtime,
    shelf: Shelf,
}

impl Ctx<'_> {
    fn pool(&self, size: u32, timeout: Option<Duration>) -> Result<PgPool, String> {
        self.rt
            .block_on(ch08_database::pool(&self.pg.url(), size, timeout))
            .map_err(|e| format!("cannot open a pool of {size}: {e}"))
    }

    /// A connection of its own, outside every pool: for the statistics.
    fn connect(&self) -> Result<sqlx::PgConnection, String> {
        self.rt
            .block_on(<sqlx::PgConnection as sqlx::Connection>::connect(
                &self.pg.url(),
            ))
            .map_err(|e| format!("cannot connect: {e}"))
    }

    /// Closes the pool and waits (up to a second) for its backends to exit, so that
    /// the noise sampler and `OwnServers`, which both count the processes
    /// alive at the cell's end, count the same ones.
    fn close(&self, pool: PgPool) {
        self.rt.block_on(pool.close());
        self.pg.wait_for_no_clients(Duration::from_secs(1));
    }
}

/// Experiment 1: a pool of `size` under `pool_rate_per_s` requests a second, at
/// these arrivals (`arrivals`: evenly spaced or at random).
fn pool_wait_cell(
    c: &Ctx,
    size: u32,
    arrivals: &[Arrival<()>],
) -> Result<Measurement, String> {
    let p = c.p;
    let pool = c.pool(size, None)?;
    let wait_s = p.db_wait_ms / 1e3;
    let (cpu0, t0) = (c.pg.cpu_time(), Instant::now());
    let outcomes = open_loop(c.rt, arrivals, |k| {
        let (pool, shelf, id) = (pool.clone(), c.shelf, book_id(p, k));
        async move {
            let (book, acquired) = lookup(&pool, id, wait_s).await?;
            check_book(&shelf, &book)?;
            Ok(Some(acquired))
        }
    });
    let (cpu, wall) = (c.pg.cpu_time().saturating_sub(cpu0), t0.elapsed());
    c.close(pool);
    check_failures(&outcomes, false)?;
    let waited: Duration = outcomes
        .iter()
        .map(|o| o.acquired.unwrap() - o.scheduled)
        .sum();
    let total: Duration = outcomes.iter().map(|o| o.done - o.scheduled).sum();
    let mut m = Measurement::new();
    push_latency(&mut m, &outcomes);
    m.push(
        "acquire_p50",
        "ns",
        histogram(outcomes.iter().map(|o| o.acquired.unwrap() - o.scheduled))
            .p50_ns(),
    )
    .push(
        "query_p50",
        "ns",
        histogram(outcomes.iter().map(|o| o.done - o.acquired.unwrap())).p50_ns(),
    )
    .push(
        "acquire_share",
        "%",
        100.0 * waited.as_secs_f64() / total.as_secs_f64(),
    );
    push_database_cpu(&mut m, cpu, wall, outcomes.len());
    Ok(m)
}

measure::variants! {
    /// Experiment `arrivals`: when the requests come, at the same mean rate.
    enum Schedule for "arrivals" {
        /// Evenly spaced, as in `pool_wait`.
        Even = "even",
        /// At random moments: independent clients, a Poisson process.
        Random = "random",
    }
}

measure::variants! {
    /// Experiment `held`: the connection kept across the upstream call, or returned first.
    enum Hold for "held" {
        Held = "held",
        Released = "released",
    }
}

measure::variants! {
    /// Experiment `round_trip`: `SELECT 1` on a connection kept, or through the pool.
    enum RoundTrip for "round_trip" {
        Connection = "connection",
        Pool = "pool",
    }
}

measure::variants! {
    /// Experiment `n_plus_one`: how a page of books is fetched.
    enum PageQuery for "n_plus_one" {
        /// One query for the page, then one a book.
        NPlusOne = "n_plus_one",
        /// Two queries: the page, then its authors together with `= ANY($1)`.
        Any = "any",
        /// One join.
        Join = "join",
    }
}

measure::variants! {
    /// Experiment `sync_driver`: who runs a query.
    enum Driver for "sync_driver" {
        /// sqlx, asynchronous.
        Sqlx = "sqlx",
        /// The synchronous client, called on the worker.
        SyncOnWorker = "sync_on_worker",
        SyncBlockInPlace = "sync_block_in_place",
        SyncSpawnBlocking = "sync_spawn_blocking",
    }
}

measure::variants! {
    /// Experiment `fail_fast`: the pool's acquire timeout.
    enum AcquireTimeout for "fail_fast" {
        /// `short_timeout_ms`.
        Short = "timeout_short",
        /// sqlx's default, 30 s.
        Default = "timeout_default",
    }
}

measure::variants! {
    /// Experiment `dropped_query`: whether PostgreSQL bounds each statement.
    enum StatementTimeout for "dropped_query" {
        /// PostgreSQL's default: no bound.
        Unbounded = "no_statement_timeout",
        /// `statement_timeout_ms` on every connection, above the request's deadline.
        AboveDeadline = "statement_timeout",
        /// `short_statement_timeout_ms` on every connection, below the deadline.
        BelowDeadline = "statement_timeout_below",
    }
}

/// Experiment 2: the connection held across the upstream call, or returned first.
fn held_cell(c: &Ctx, variant: &str) -> Result<Measurement, String> {
    let p = c.p;
    let pool = c.pool(p.held_pool, None)?;
    let upstream = Duration::from_millis(p.upstream_ms);
    let held = Hold::named(variant)? == Hold::Held;
    let outcomes = open_loop(c.rt, &even(p.held_rate_per_s, p.window()), |k| {
        let (pool, shelf, id) = (pool.clone(), c.shelf, book_id(p, k));
        async move {
            let book = if held {
                book_then_upstream_held(&pool, id, upstream).await?
            } else {
                book_then_upstream_released(&pool, id, upstream).await?
            };
            check_book(&shelf, &book)?;
            Ok(None)
        }
    });
    c.close(pool);
    check_failures(&outcomes, false)?;
    let mut m = Measurement::new();
    push_latency(&mut m, &outcomes);
    Ok(m)
}

/// `SELECT 1` on one connection, or through a pool of one (acquire included).
fn round_trip_cell(c: &Ctx, variant: &str) -> Result<Measurement, String> {
    let pool = c.pool(1, None)?;
    let n = c.p.round_trips;
    let via_pool = RoundTrip::named(variant)? == RoundTrip::Pool;
    let h = c.rt.block_on(async {
        let mut conn = (!via_pool).then_some(pool.acquire().await?);
        let mut h = LatencyHistogram::new();
        for _ in 0..n {
            let t = Instant::now();
            let one: i32 = match conn.as_mut() {
                Some(conn) => {
                    sqlx::query_scalar("SELECT 1")
                        .fetch_one(&mut **conn)
                        .await?
                }
                None => sqlx::query_scalar("SELECT 1").fetch_one(&pool).await?,
            };
            h.record(t.elapsed());
            if one != 1 {
                return Err(sqlx::Error::Protocol(
                    "SELECT 1 answered something else".into(),
                ));
            }
        }
        Ok::<_, sqlx::Error>(h)
    });
    c.close(pool);
    let h = h.map_err(|e| e.to_string())?;
    let mut m = Measurement::new();
    m.push("rtt_p50", "ns", h.p50_ns())
        .push("rtt_p99", "ns", h.p99_ns());
    Ok(m)
}

/// Experiment 3: `pages` pages of `n` books, one after another on one connection.
fn n_plus_one_cell(c: &Ctx, n: i32, variant: &str) -> Result<Measurement, String> {
    let p = c.p;
    let query = PageQuery::named(variant)?;
    let pool = c.pool(1, None)?;
    let shelf = c.shelf;
    let result = c.rt.block_on(async {
        let mut conn = pool.acquire().await?;
        let page = |first: i32| -> Vec<ch08_database::shelf::Book> {
            (first..first + n).map(|id| shelf.book(id)).collect()
        };
        let mut h = LatencyHistogram::new();
        let run = async |conn: &mut sqlx::PgConnection, first: i32| match query {
            PageQuery::NPlusOne => page_n_plus_one(conn, first, n).await,
            PageQuery::Any => page_any(conn, first, n).await,
            PageQuery::Join => page_join(conn, first, n).await,
        };
        run(&mut conn, 1).await?; // prepares the statements on this connection
        let calls0 = statement_calls(&mut conn).await?;
        let cpu0 = c.pg.cpu_time();
        for k in 0..p.pages {
            let first = 1 + ((k as i64 * 997) % (p.books - n) as i64) as i32;
            let t = Instant::now();
            let digest = run(&mut conn, first).await?;
            h.record(t.elapsed());
            if digest != ch08_database::shelf::page_digest(&page(first)) {
                return Err(sqlx::Error::Protocol(format!(
                    "wrong page at book {first}"
                )));
            }
        }
        let cpu = c.pg.cpu_time().saturating_sub(cpu0);
        let calls = statement_calls(&mut conn).await? - calls0 - 1; // the count query itself
        Ok::<_, sqlx::Error>((h, cpu, calls))
    });
    c.close(pool);
    let (h, cpu, calls) = result.map_err(|e| e.to_string())?;
    let mut m = Measurement::new();
    m.push("page_p50", "ns", h.p50_ns())
        .push("page_p99", "ns", h.p99_ns())
        .push("queries_per_page", "count", calls as f64 / p.pages as f64)
        .push(
            "db_cpu_per_page",
            "ns",
            cpu.as_nanos() as f64 / p.pages as f64,
        );
    Ok(m)
}

/// How often PostgreSQL has executed `sql` so far, and for how many milliseconds in
/// all (pg_stat_statements' `calls`, `total_exec_time`). The view keeps a statement's
/// text with its constants made parameters, so the match is on the text from `FROM` on.
async fn executed(
    conn: &mut sqlx::PgConnection,
    sql: &str,
) -> Result<(i64, f64), String> {
    let tail = sql.split_once(" FROM ").map_or(sql, |(_, tail)| tail);
    sqlx::query_as(
        "SELECT coalesce(sum(calls), 0)::int8, coalesce(sum(total_exec_time), 0)::float8 \
         FROM pg_stat_statements WHERE right(query, length($1)) = $1",
    )
    .bind(tail)
    .fetch_one(conn)
    .await
    .map_err(|e| format!("pg_stat_statements: {e}"))
}

/// Statements this database has run so far, from pg_stat_statements.
async fn statement_calls(
    conn: &mut sqlx::PgConnection,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
    )
    .fetch_one(conn)
    .await
}

// ANCHOR: tick_lag
/// Wakes every `period` and records how late each tick ran: a worker held by a
/// blocking call shows here first.
async fn tick_lag(period: Duration, stop: Arc<AtomicBool>) -> LatencyHistogram {
    let mut lag = LatencyHistogram::new();
    let mut next = Instant::now() + period;
    while !stop.load(Ordering::Relaxed) {
        tokio::time::sleep_until(next.into()).await;
        lag.record(Instant::now().saturating_duration_since(next));
        next += period;
    }
    lag
}
// ANCHOR_END: tick_lag

/// Experiment 4: queries through the synchronous client (three ways) or sqlx, with
/// pings and a ticker beside them.
fn sync_driver_cell(c: &Ctx, variant: &str) -> Result<Measurement, String> {
    let p = c.p;
    let driver = Driver::named(variant)?;
    let url = c.pg.url();
    let (clients, threads) =
        SyncClients::connect(&url, p.sync_connections as usize)?;
    let pool = c.pool(p.sync_connections, None)?;
    let wait_s = p.sync_wait_ms / 1e3;
    let stop = Arc::new(AtomicBool::new(false));
    let ticker =
        c.rt.spawn(tick_lag(Duration::from_millis(p.tick_ms), stop.clone()));
    // Every `per` arrivals, one is a query and the rest are pings.
    let pings = (p.ping_per_s / p.sync_rate_per_s).round() as usize;
    if pings == 0 || pings as f64 * p.sync_rate_per_s != p.ping_per_s {
        return Err("ping_per_s must be a whole multiple of sync_rate_per_s".into());
    }
    let per = pings + 1;
    let rate = p.sync_rate_per_s * per as f64;
    let outcomes = open_loop(c.rt, &even(rate, p.window()), |k| {
        let (clients, pool, shelf, id) =
            (clients.clone(), pool.clone(), c.shelf, book_id(p, k));
        let query = k % per == 0;
        async move {
            if !query {
                return Ok(None); // a ping: it only has to be run
            }
            let book = match driver {
                Driver::SyncOnWorker => {
                    book_sync_on_worker(&clients, id, wait_s).await
                }
                Driver::SyncBlockInPlace => {
                    book_sync_block_in_place(&clients, id, wait_s).await
                }
                Driver::SyncSpawnBlocking => {
                    book_sync_spawn_blocking(&clients, id, wait_s).await
                }
                Driver::Sqlx => book_sqlx(&pool, id, wait_s).await,
            }
            .map_err(Failure::Other)?;
            check_book(&shelf, &book)?;
            Ok(Some(Instant::now()))
        }
    });
    stop.store(true, Ordering::Relaxed);
    let ticks = c.rt.block_on(ticker).map_err(|e| e.to_string())?;
    drop(clients);
    threads.join();
    c.close(pool); // last: it waits for every client's backend to exit
    check_failures(&outcomes, false)?;
    let (queries, pings): (Vec<&Outcome>, Vec<&Outcome>) =
        outcomes.iter().partition(|o| o.acquired.is_some());
    let q = histogram(queries.iter().map(|o| o.done - o.scheduled));
    let g = histogram(pings.iter().map(|o| o.done - o.scheduled));
    let mut m = Measurement::new();
    m.push("query_p50", "ns", q.p50_ns())
        .push("query_p99", "ns", q.p99_ns())
        .push("ping_p50", "ns", g.p50_ns())
        .push("ping_p99", "ns", g.p99_ns())
        .push("tick_lag_p99", "ns", ticks.p99_ns())
        .push("tick_lag_max", "ns", ticks.max_ns());
    Ok(m)
}

/// Experiment 5: an exhausted pool, with a short acquire timeout or sqlx's default.
fn fail_fast_cell(c: &Ctx, variant: &str) -> Result<Measurement, String> {
    let p = c.p;
    let timeout = (AcquireTimeout::named(variant)? == AcquireTimeout::Short)
        .then(|| Duration::from_millis(p.short_timeout_ms));
    let (pool, opened) =
        c.rt.block_on(ch08_database::counting_pool(
            &c.pg.url(),
            p.fail_pool,
            timeout,
        ))
        .map_err(|e| format!("cannot open a pool of {}: {e}", p.fail_pool))?;
    let received = c.pg.connections_received()?;
    let wait_s = p.fail_wait_ms / 1e3;
    let outcomes = open_loop(c.rt, &even(p.fail_rate_per_s, p.window()), |k| {
        let (pool, shelf, id) = (pool.clone(), c.shelf, book_id(p, k));
        async move {
            let (book, acquired) = lookup(&pool, id, wait_s).await?;
            check_book(&shelf, &book)?;
            Ok(Some(acquired))
        }
    });
    c.close(pool);
    // Every backend has exited, so each connect that reached the server is in its log.
    let attempts = c.pg.connections_received()? - received;
    let opened = opened.load(Ordering::Relaxed);
    check_failures(&outcomes, true)?;
    let failed: Vec<&Outcome> =
        outcomes.iter().filter(|o| o.result.is_err()).collect();
    let mut m = Measurement::new();
    push_latency(&mut m, &outcomes);
    m.push("connections_opened", "count", opened as f64)
        // Begun and dropped unfinished: the waiter's deadline passed during the connect.
        .push(
            "connects_failed",
            "count",
            attempts.saturating_sub(opened) as f64,
        )
        .push(
            "timed_out",
            "%",
            100.0 * failed.len() as f64 / outcomes.len() as f64,
        );
    if !failed.is_empty() {
        let to_error = histogram(failed.iter().map(|o| o.done - o.scheduled));
        m.push("failed_p99", "ns", to_error.p99_ns());
    }
    Ok(m)
}

/// Experiment 6: `cpu_clients` tasks send the CPU-bound query back to back through
/// a pool of `size`.
fn pool_size_cell(c: &Ctx, size: u32) -> Result<Measurement, String> {
    let p = c.p;
    let pool = c.pool(size, None)?;
    let expected: Vec<(i64, i64)> =
        (1..=5).map(|min| c.shelf.stars_at_least(min)).collect();
    let expected = Arc::new(expected);
    let window = Duration::from_millis(p.cpu_window_ms);
    let mut stats = c.connect()?;
    let before = c.rt.block_on(executed(&mut stats, STARS_AT_LEAST));
    let (cpu0, t0) = (c.pg.cpu_time(), Instant::now());
    let result = c.rt.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for client in 0..p.cpu_clients {
            let (pool, expected) = (pool.clone(), expected.clone());
            tasks.spawn(async move {
                let (mut h, mut q) =
                    (LatencyHistogram::new(), LatencyHistogram::new());
                let mut k = client as usize;
                while t0.elapsed() < window {
                    let min = 1 + (k % 5) as i32;
                    let t = Instant::now();
                    let mut conn =
                        pool.acquire().await.map_err(|e| e.to_string())?;
                    let acquired = Instant::now();
                    let got = stars_at_least(&mut conn, min)
                        .await
                        .map_err(|e| e.to_string())?;
                    q.record(acquired.elapsed());
                    h.record(t.elapsed());
                    if got != expected[k % 5] {
                        return Err(format!(
                            "wrong answer for stars >= {min}: {got:?}"
                        ));
                    }
                    k += 1;
                }
                Ok::<_, String>((h, q))
            });
        }
        let (mut all, mut queries) =
            (LatencyHistogram::new(), LatencyHistogram::new());
        while let Some(r) = tasks.join_next().await {
            let (h, q) = r.map_err(|e| e.to_string())??;
            all.merge(&h);
            queries.merge(&q);
        }
        Ok::<_, String>((all, queries))
    });
    let (cpu, wall) = (c.pg.cpu_time().saturating_sub(cpu0), t0.elapsed());
    let after = c.rt.block_on(async {
        let after = executed(&mut stats, STARS_AT_LEAST).await;
        let _ = sqlx::Connection::close(stats).await;
        after
    });
    c.close(pool); // last: it waits for every client's backend to exit
    let (h, queries) = result?;
    let ((calls0, ms0), (calls, ms)) = (before?, after?);
    if calls - calls0 != h.len() as i64 {
        return Err(format!(
            "pg_stat_statements counted {} queries, the clients {}",
            calls - calls0,
            h.len()
        ));
    }
    let mut m = Measurement::new();
    m.push("queries_per_s", "/s", h.len() as f64 / wall.as_secs_f64())
        .push("p50", "ns", h.p50_ns())
        .push("p99", "ns", h.p99_ns())
        .push("query_p50", "ns", queries.p50_ns())
        .push("query_p99", "ns", queries.p99_ns())
        // PostgreSQL's own clock, from the executor's start to its end: the part of a
        // query's time spent in the database (waiting for a CPU there included).
        .push(
            "exec_mean",
            "ns",
            1e6 * (ms - ms0) / (calls - calls0).max(1) as f64,
        );
    push_database_cpu(&mut m, cpu, wall, h.len() as usize);
    Ok(m)
}

/// Experiment 7: a request whose deadline fires while its query waits in the
/// database (or whose query PostgreSQL cancels first), then the next request,
/// through a pool of one connection: when the first was answered, how long the next
/// one waited for the connection, and how many connections the pool opened meanwhile.
fn dropped_query_cell(
    c: &Ctx,
    bound: StatementTimeout,
) -> Result<Measurement, String> {
    let p = c.p;
    let mut connect: sqlx::postgres::PgConnectOptions =
        c.pg.url()
            .parse()
            .map_err(|e| format!("the server's URL: {e}"))?;
    // The setting as `pg_settings` gives it, in milliseconds (0: no bound).
    let expected = match bound {
        StatementTimeout::Unbounded => 0,
        StatementTimeout::AboveDeadline => p.statement_timeout_ms,
        StatementTimeout::BelowDeadline => p.short_statement_timeout_ms,
    };
    if expected > 0 {
        connect = with_statement_timeout(connect, Duration::from_millis(expected));
    }
    let (pool, opened) =
        c.rt.block_on(ch08_database::counting_pool_with(connect, 1, None))
            .map_err(|e| format!("cannot open a pool of one: {e}"))?;
    // The server's view, not the variant's name: PGOPTIONS in the environment could set one.
    let setting =
        "SELECT setting FROM pg_settings WHERE name = 'statement_timeout'";
    let set: String =
        c.rt.block_on(sqlx::query_scalar(setting).fetch_one(&pool))
            .map_err(|e| e.to_string())?;
    if set != expected.to_string() {
        return Err(format!("statement_timeout is {set} ms, not {expected} ms"));
    }
    let deadline = Duration::from_millis(p.request_deadline_ms);
    let slow_s = p.slow_query_ms as f64 / 1e3;
    let result = c.rt.block_on(async {
        let sent = Instant::now();
        let first = lookup_within(&pool, book_id(p, 0), slow_s, deadline).await;
        let answered = Instant::now();
        check_first_answer(bound, first)?;
        let (book, acquired) = lookup(&pool, book_id(p, 1), 0.0)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((book, answered - sent, acquired - answered))
    });
    c.close(pool);
    let (book, first_answer, waited) = result?;
    check_book(&c.shelf, &book).map_err(|f| f.to_string())?;
    let mut m = Measurement::new();
    m.push("first_answer", "ns", first_answer.as_nanos() as f64)
        .push("next_acquire_wait", "ns", waited.as_nanos() as f64)
        .push(
            "connections_opened",
            "count",
            opened.load(Ordering::Relaxed) as f64,
        );
    Ok(m)
}

/// The first request's answer as its setting should give it: the deadline's (`None`)
/// where the statement may outlast the deadline, PostgreSQL's cancel (SQLSTATE 57014)
/// where `statement_timeout` is the shorter.
fn check_first_answer(
    bound: StatementTimeout,
    first: Result<Option<ch08_database::shelf::Book>, sqlx::Error>,
) -> Result<(), String> {
    let cancelled = |e: &sqlx::Error| {
        e.as_database_error().and_then(|d| d.code()).as_deref() == Some("57014")
    };
    match (bound, first) {
        (StatementTimeout::BelowDeadline, Err(e)) if cancelled(&e) => Ok(()),
        (StatementTimeout::BelowDeadline, other) => Err(format!(
            "the handler did not get PostgreSQL's cancel: {other:?}"
        )),
        (_, Ok(None)) => Ok(()),
        (_, other) => Err(format!(
            "the request's deadline did not fire first: {other:?}"
        )),
    }
}

/// The server's CPU over each cell, in percent of one core, counted over the noise
/// sampler's own window (`measure::noise::Sampler::end`): the cell, or the last
/// `MIN_WINDOW` up to its end when the cell was shorter, from marks taken at the same
/// cell boundaries. Each process alive at the end counts from its reading at the
/// window's start, or from zero if it started since, as the sampler counts.
struct OwnServers<'a> {
    pg: &'a Postgres,
    marks: RefCell<VecDeque<(HashMap<u32, u64>, Instant)>>,
}

impl<'a> OwnServers<'a> {
    /// `started`: when the harness took the sampler's first mark, before the server
    /// started, so that a short first cell looks back as far as the sampler does.
    fn new(pg: &'a Postgres, started: Instant) -> Self {
        OwnServers {
            pg,
            marks: RefCell::new(VecDeque::from([(HashMap::new(), started)])),
        }
    }

    /// A cell starts.
    fn begin(&self) {
        let mark = (self.pg.ticks_by_process(), Instant::now());
        self.marks.borrow_mut().push_back(mark);
    }

    /// A cell ended: the server's share over the sampler's window.
    fn end(&self) -> f64 {
        let (now, at) = (self.pg.ticks_by_process(), Instant::now());
        let mut marks = self.marks.borrow_mut();
        let from = window_start(marks.iter().map(|m| m.1), at);
        marks.drain(..from);
        let share = marks.front().map_or(0.0, |(before, t0)| {
            share_of_a_core(&now, before, at.duration_since(*t0))
        });
        marks.push_back((now, at));
        share
    }
}

/// Which mark a window ending `at` starts from: the newest at least `MIN_WINDOW` old, else
/// the oldest there is (the rule of `measure::noise::Sampler::end`).
fn window_start(
    mut marks: impl DoubleEndedIterator<Item = Instant> + ExactSizeIterator,
    at: Instant,
) -> usize {
    at.checked_sub(measure::noise::MIN_WINDOW)
        .and_then(|cutoff| marks.rposition(|t| t <= cutoff))
        .unwrap_or(0)
}

/// Ticks used since `before` by the processes in `now`, in percent of one core over `wall`.
fn share_of_a_core(
    now: &HashMap<u32, u64>,
    before: &HashMap<u32, u64>,
    wall: Duration,
) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let ticks: u64 = now
        .iter()
        .map(|(pid, t)| t.saturating_sub(before.get(pid).copied().unwrap_or(0)))
        .sum();
    let wall_s = wall.as_secs_f64();
    if wall_s > 0.0 {
        100.0 * ticks as f64 / hz / wall_s
    } else {
        0.0
    }
}

const CHAPTER: Chapter = Chapter {
    name: "ch08-database",
    title: "A database behind the service",
    about: "Starts a PostgreSQL server of its own (a fresh cluster in a temporary directory, \
            127.0.0.1 only, removed at the end) and measures sqlx's pool: waiting for a \
            connection, a connection held across an await, N+1 round trips, a synchronous \
            driver in a handler, acquire_timeout, pools larger than the machine, and a \
            request's deadline against PostgreSQL's statement_timeout.",
    listing_dir: env!("CARGO_MANIFEST_DIR"),
    crates: &["tokio", "sqlx", "sqlx-postgres", "postgres"],
    headline: &[
        "p50",
        "p99",
        "acquire_share",
        "served_per_s",
        "page_p50",
        "queries_per_page",
        "ping_p99",
        "timed_out",
        "queries_per_s",
        "rtt_p50",
        "next_acquire_wait",
    ],
    full_reps: 5,
};

fn main() {
    // About when the harness takes the noise sampler's first mark (OwnServers).
    let started = Instant::now();
    let (mut h, extra) = Harness::start_with::<Extra>(CHAPTER);
    let cpus = h.cores();
    let p =
        Params::for_machine(h.cli().quick, h.cli().workers.unwrap_or(cpus), cpus);
    h.params(&p);
    let options = Options {
        port: extra.pg_port,
        data: extra.pg_data,
        // The largest pool, and room for the listing's other connections.
        max_connections: p.cpu_pools.iter().copied().max().unwrap_or(0).max(80)
            + 20,
    };
    stop_on_signal(); // first: an interrupted start cleans up too
    let pg = match Postgres::start(&options) {
        Ok(pg) => pg,
        Err(e) => {
            eprintln!("error: {e}\nnothing was saved");
            std::process::exit(1);
        }
    };
    println!(
        "PostgreSQL {} on 127.0.0.1:{} (pid {}, data {})",
        pg.version(),
        pg.port(),
        pg.pid(),
        pg.data_dir().display()
    );
    h.derived("postgres_version", pg.version());
    let code = run(h, &p, &pg, started);
    if let Err(e) = pg.stop() {
        eprintln!("warning: {e}");
    }
    std::process::exit(code);
}

fn run(h: Harness, p: &Params, pg: &Postgres, started: Instant) -> i32 {
    let rt = match measure::runtime(p.workers) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let seed = h.cli().seed();
    let shelf = Shelf::standard(seed as i32 & 0xffff);
    let filled = rt.block_on(async {
        let mut conn =
            <sqlx::PgConnection as sqlx::Connection>::connect(&pg.url()).await?;
        shelf.create(&mut conn).await
    });
    if let Err(e) = filled {
        eprintln!("error: cannot fill the bookshelf: {e}\nnothing was saved");
        return 1;
    }
    let c = Ctx {
        p,
        pg,
        rt: &rt,
        shelf,
    };
    let c = &c;
    // The server's CPU is the system under test's: the noise figures leave it out.
    let servers = OwnServers::new(pg, started);
    let own = |cell: Result<Measurement, String>| {
        let share = servers.end();
        let mut m = cell?;
        m.push(records::noise::OWN_SERVERS, "%", share);
        Ok(m)
    };
    let size = |cell: &Cell| {
        cell.case
            .parse::<u32>()
            .map_err(|_| "a pool size".to_string())
    };
    h.run_returning(vec![
        Experiment::new("pool_wait", Cell::grid(&p.pool_sizes, ["lookup"]), |cell, _| {
            servers.begin();
            let arrivals = even(p.pool_rate_per_s, p.window());
            own(size(cell).and_then(|n| pool_wait_cell(c, n, &arrivals)))
        })
        .shaped_by(measure::fields!(p => workers, window_ms, pool_rate_per_s, db_wait_ms, pool_sizes)),
        Experiment::new("arrivals", Cell::grid(&p.arrival_pools, Schedule::NAMES), |cell, rep| {
            let n = size(cell)?;
            let arrivals = match Schedule::named(&cell.variant)? {
                Schedule::Even => even(p.pool_rate_per_s, p.window()),
                // One draw a repetition, the same for every pool: the pools' rows
                // compare the same requests; a seed repeats the run.
                Schedule::Random => random(p.pool_rate_per_s, p.window(), seed ^ ((rep as u64) << 32)),
            };
            servers.begin();
            own(pool_wait_cell(c, n, &arrivals))
        })
        .shaped_by(measure::fields!(p => workers, window_ms, pool_rate_per_s, db_wait_ms, arrival_pools))
        // A p99 of random arrivals moves with each draw: ten repetitions.
        .repetitions(10),
        Experiment::new("held", Cell::grid([p.held_pool], Hold::NAMES), |cell, _| {
            servers.begin();
            own(held_cell(c, &cell.variant))
        })
        .shaped_by(measure::fields!(p => workers, window_ms, held_pool, held_rate_per_s, upstream_ms)),
        Experiment::new("round_trip", Cell::grid(["select_1"], RoundTrip::NAMES), |cell, _| {
            servers.begin();
            own(round_trip_cell(c, &cell.variant))
        })
        .shaped_by(measure::fields!(p => workers, round_trips))
        // A cell lasts a fraction of a second: twenty repetitions for a ratio of two.
        .repetitions(20),
        Experiment::new(
            "n_plus_one",
            Cell::grid(&p.page_sizes, PageQuery::NAMES),
            |cell, _| {
                let n: i32 = cell.case.parse().map_err(|_| "a page size".to_string())?;
                servers.begin();
                own(n_plus_one_cell(c, n, &cell.variant))
            },
        )
        .shaped_by(measure::fields!(p => workers, page_sizes, pages, books))
        // Pages of a few hundred microseconds move with the machine's other work: ten
        // repetitions for a ratio between them.
        .repetitions(10),
        Experiment::new(
            "sync_driver",
            Cell::grid([p.sync_rate_per_s], Driver::NAMES),
            |cell, _| {
                servers.begin();
                own(sync_driver_cell(c, &cell.variant))
            },
        )
        .shaped_by(measure::fields!(p => workers, window_ms, sync_rate_per_s, sync_wait_ms, sync_connections, ping_per_s, tick_ms))
        // A blocked worker's effect on a tail depends on when the queries land: ten repetitions.
        .repetitions(10),
        Experiment::new(
            "fail_fast",
            Cell::grid([p.fail_rate_per_s], AcquireTimeout::NAMES),
            |cell, _| {
                servers.begin();
                own(fail_fast_cell(c, &cell.variant))
            },
        )
        .shaped_by(measure::fields!(p => workers, window_ms, fail_pool, fail_wait_ms, fail_rate_per_s, short_timeout_ms)),
        Experiment::new("pool_size", Cell::grid(&p.cpu_pools, ["stars"]), |cell, _| {
            servers.begin();
            own(size(cell).and_then(|n| pool_size_cell(c, n)))
        })
        .shaped_by(measure::fields!(p => workers, cpu_pools, cpu_clients, cpu_window_ms, reviews))
        // The CPUs are shared with the service and the clients: ten repetitions.
        .repetitions(10),
        Experiment::new(
            "dropped_query",
            Cell::grid(["pool_of_1"], StatementTimeout::NAMES),
            |cell, _| {
                servers.begin();
                own(StatementTimeout::named(&cell.variant).and_then(|b| dropped_query_cell(c, b)))
            },
        )
        .shaped_by(measure::fields!(p => request_deadline_ms, slow_query_ms, statement_timeout_ms, short_statement_timeout_ms))
        // A cell is one request and the next: ten repetitions, a second or so each.
        .repetitions(10),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_cell_looks_back_as_far_as_the_noise_sampler() {
        let at = Instant::now() + Duration::from_secs(10);
        let marks = |ms: &[u64]| -> Vec<Instant> {
            ms.iter().map(|&m| at - Duration::from_millis(m)).collect()
        };
        // A cell of 100 ms after others: from the newest mark at least half a second old.
        let times = marks(&[2_000, 800, 600, 100]);
        assert_eq!(window_start(times.into_iter(), at), 2);
        // A cell longer than the window: from its own start.
        let times = marks(&[3_000, 1_200]);
        assert_eq!(window_start(times.into_iter(), at), 1);
        // No mark old enough yet: from the oldest.
        let times = marks(&[300, 100]);
        assert_eq!(window_start(times.into_iter(), at), 0);
    }
}
