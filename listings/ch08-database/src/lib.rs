//! Chapter 8: a database behind the service.
//!
//! The listing starts a PostgreSQL server of its own ([`database`]), fills a
//! bookshelf it can check every answer against ([`shelf`]), and calls the handlers
//! of [`handlers`] (one small function per pitfall and fix) through sqlx's pool or
//! the synchronous `postgres` client ([`sync_client`]).

// The modules name this crate `ch08_database`, as the book's tests of the included
// code do.
extern crate self as ch08_database;

pub mod database;
pub mod exercise;
pub mod handlers;
pub mod shelf;
pub mod sync_client;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, PgPool};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A pool of at most `size` connections to `url`, every one opened before it is
/// returned and the lookups prepared on it (so that no measurement includes
/// either), waiting at most `acquire_timeout` for a connection (sqlx's default when
/// `None`).
pub async fn pool(
    url: &str,
    size: u32,
    acquire_timeout: Option<Duration>,
) -> Result<PgPool, sqlx::Error> {
    Ok(counting_pool(url, size, acquire_timeout).await?.0)
}

/// [`pool`], with a count of the connections it opens once it is ready: a
/// connection dropped in the middle of an acquire (an `acquire_timeout` that fires
/// during the test ping, say) is replaced by a new one.
pub async fn counting_pool(
    url: &str,
    size: u32,
    acquire_timeout: Option<Duration>,
) -> Result<(PgPool, Arc<AtomicU64>), sqlx::Error> {
    counting_pool_with(url.parse()?, size, acquire_timeout).await
}

/// [`counting_pool`], its connections opened with `connect` (a URL's options with
/// settings added, such as [`handlers::with_statement_timeout`]'s).
pub async fn counting_pool_with(
    connect: PgConnectOptions,
    size: u32,
    acquire_timeout: Option<Duration>,
) -> Result<(PgPool, Arc<AtomicU64>), sqlx::Error> {
    let connect = connect.disable_statement_logging();
    let opened = Arc::new(AtomicU64::new(0));
    let count = opened.clone();
    let mut options = PgPoolOptions::new()
        .max_connections(size)
        .min_connections(0)
        .after_connect(move |_, _| {
            count.fetch_add(1, Ordering::Relaxed);
            Box::pin(async { Ok(()) })
        });
    if let Some(timeout) = acquire_timeout {
        options = options.acquire_timeout(timeout);
    }
    let pool = options.connect_lazy_with(connect);
    // Open all `size` at once (each acquire below waits for a new connection) and
    // prepare the lookups on each.
    for mut conn in open_all(&pool, size).await? {
        sqlx::query(shelf::BOOK).bind(1).execute(&mut *conn).await?;
        sqlx::query(shelf::BOOK_AFTER_WAIT)
            .bind(1)
            .bind(0.0)
            .execute(&mut *conn)
            .await?;
    }
    opened.store(0, Ordering::Relaxed);
    Ok((pool, opened))
}

async fn open_all(
    pool: &PgPool,
    size: u32,
) -> Result<Vec<sqlx::pool::PoolConnection<sqlx::Postgres>>, sqlx::Error> {
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..size {
        let pool = pool.clone();
        tasks.spawn(async move { pool.acquire().await });
    }
    let mut held = Vec::new();
    while let Some(r) = tasks.join_next().await {
        held.push(r.map_err(|e| sqlx::Error::Protocol(e.to_string()))??);
    }
    Ok(held)
}
