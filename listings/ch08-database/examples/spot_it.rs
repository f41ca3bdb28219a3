//! What the pool and the database show while a handler holds its connection across
//! an upstream call, and what pg_stat_statements shows after N+1 pages.
//!
//! `cargo run -q -p ch08-database --example spot_it`

use ch08_database::database::{Options, Postgres};
use ch08_database::handlers::{book_then_upstream_held, page_n_plus_one};
use ch08_database::shelf::Shelf;
use sqlx::{Connection, PgPool};
use std::time::{Duration, Instant};

fn main() -> Result<(), String> {
    let pg = Postgres::start(&Options {
        max_connections: 20,
        ..Options::default()
    })?;
    let rt = measure::runtime(2)?;
    rt.block_on(spot_it(&pg)).map_err(|e| e.to_string())?;
    pg.stop()
}

async fn spot_it(pg: &Postgres) -> Result<(), sqlx::Error> {
    let mut admin = sqlx::PgConnection::connect(&pg.url()).await?;
    Shelf::standard(0).create(&mut admin).await?;
    let pool = ch08_database::pool(&pg.url(), 4, None).await?;
    // 400 requests a second for a second, each holding its connection across a
    // 20 ms upstream call: four connections serve at most 200 a second.
    let started = Instant::now();
    let load = tokio::spawn(held_load(pool.clone(), 400, Duration::from_secs(1)));
    tokio::time::sleep(Duration::from_millis(700)).await;
    // ANCHOR: spot_it
    println!(
        "pool: size {} connections, {} idle",
        pool.size(),
        pool.num_idle()
    );
    let t = Instant::now();
    drop(pool.acquire().await?);
    println!(
        "one acquire waited {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let (idle, active, in_transaction, client_read): (i64, i64, i64, i64) =
        sqlx::query_as(
            "SELECT count(*) FILTER (WHERE state = 'idle'), \
                count(*) FILTER (WHERE state = 'active'), \
                count(*) FILTER (WHERE state = 'idle in transaction'), \
                count(*) FILTER (WHERE wait_event = 'ClientRead') \
         FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_one(&mut admin)
        .await?;
    println!(
        "pg_stat_activity: {idle} idle, {active} active, {in_transaction} idle in transaction; \
         {client_read} waiting on ClientRead (for the client)"
    );
    // ANCHOR_END: spot_it
    let answered = load.await.expect("the load task")?;
    println!(
        "answered {answered} requests in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    sqlx::query("SELECT pg_stat_statements_reset()")
        .execute(&mut admin)
        .await?;
    let mut conn = pool.acquire().await?;
    for page in 0..20 {
        page_n_plus_one(&mut conn, 1 + page * 25, 25).await?;
    }
    // ANCHOR: statements
    let top: Vec<(i64, f64, String)> = sqlx::query_as(
        "SELECT calls, mean_exec_time, query FROM pg_stat_statements \
         WHERE query LIKE '%books%' OR query LIKE '%authors%' ORDER BY calls DESC LIMIT 2",
    )
    .fetch_all(&mut admin)
    .await?;
    for (calls, mean_ms, query) in top {
        println!(
            "pg_stat_statements: {calls} calls, {:.3} ms each: {query}",
            mean_ms
        );
    }
    // ANCHOR_END: statements
    Ok(())
}

/// `rate` requests a second for `length`, each holding its connection across a
/// 20 ms upstream call; returns how many were answered.
async fn held_load(
    pool: PgPool,
    rate: u32,
    length: Duration,
) -> Result<usize, sqlx::Error> {
    let mut tasks = tokio::task::JoinSet::new();
    let start = tokio::time::Instant::now();
    let n = (rate as f64 * length.as_secs_f64()) as u32;
    for k in 0..n {
        tokio::time::sleep_until(
            start + Duration::from_secs_f64(k as f64 / rate as f64),
        )
        .await;
        let pool = pool.clone();
        tasks.spawn(async move {
            book_then_upstream_held(&pool, 1 + k as i32, Duration::from_millis(20))
                .await
        });
    }
    let mut answered = 0;
    while let Some(r) = tasks.join_next().await {
        r.expect("a request task")?;
        answered += 1;
    }
    Ok(answered)
}
