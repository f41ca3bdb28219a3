//! The handlers the experiments call, one small function for each pitfall and each
//! fix. Each returns what a response would carry (a digest of its rows, checked by
//! the caller) and, where the experiment splits it, when it got its connection.

use ch08_database::shelf::{
    BOOK, BOOK_AFTER_WAIT, Book, STARS_AT_LEAST, page_digest,
};
use ch08_database::sync_client::SyncClients;
use sqlx::postgres::{PgConnectOptions, PgRow};
use sqlx::{PgConnection, PgPool, Row};
use std::time::{Duration, Instant};

fn book_from(row: &PgRow) -> Book {
    Book {
        id: row.get(0),
        title: row.get(1),
        author: row.get(2),
    }
}

// ANCHOR: lookup
/// Experiment 1: one book, from a query that spends `wait_s` in the database.
/// Returns the book and the instant the pool handed over a connection.
pub async fn lookup(
    pool: &PgPool,
    id: i32,
    wait_s: f64,
) -> Result<(Book, Instant), sqlx::Error> {
    let mut conn = pool.acquire().await?; // waits here while every connection is out
    let acquired = Instant::now();
    let row = sqlx::query(BOOK_AFTER_WAIT)
        .bind(id)
        .bind(wait_s)
        .fetch_one(&mut *conn)
        .await?;
    Ok((book_from(&row), acquired))
} // the connection goes back to the pool here
// ANCHOR_END: lookup

async fn fetch_book(conn: &mut PgConnection, id: i32) -> Result<Book, sqlx::Error> {
    let row = sqlx::query(BOOK).bind(id).fetch_one(conn).await?;
    Ok(book_from(&row))
}

/// Stands for a call to another service: a timer, no CPU.
pub async fn upstream_call(latency: Duration) {
    tokio::time::sleep(latency).await;
}

// ANCHOR: held_across_await
/// Experiment 2, the pitfall: the connection stays checked out while the handler
/// waits for an unrelated upstream call.
pub async fn book_then_upstream_held(
    pool: &PgPool,
    id: i32,
    upstream: Duration,
) -> Result<Book, sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let book = fetch_book(&mut conn, id).await?;
    upstream_call(upstream).await; // `conn` is still out of the pool
    Ok(book)
}

/// The fix: the connection goes back before the upstream call.
pub async fn book_then_upstream_released(
    pool: &PgPool,
    id: i32,
    upstream: Duration,
) -> Result<Book, sqlx::Error> {
    let book = {
        let mut conn = pool.acquire().await?;
        fetch_book(&mut conn, id).await?
    }; // `conn` dropped: a spawned task pings it and puts it back in the pool
    upstream_call(upstream).await;
    Ok(book)
}
// ANCHOR_END: held_across_await

// ANCHOR: n_plus_one
/// Experiment 3, the pitfall: a page of `n` books, then one query per book for
/// its author: 1 + n round trips.
pub async fn page_n_plus_one(
    conn: &mut PgConnection,
    first: i32,
    n: i32,
) -> Result<u64, sqlx::Error> {
    let rows = sqlx::query("SELECT id, title, author_id FROM books WHERE id >= $1 ORDER BY id LIMIT $2")
        .bind(first)
        .bind(n as i64)
        .fetch_all(&mut *conn)
        .await?;
    let mut books = Vec::with_capacity(rows.len());
    for row in &rows {
        let author: String =
            sqlx::query_scalar("SELECT name FROM authors WHERE id = $1")
                .bind(row.get::<i32, _>(2))
                .fetch_one(&mut *conn)
                .await?;
        books.push(Book {
            id: row.get(0),
            title: row.get(1),
            author,
        });
    }
    Ok(page_digest(&books))
}

/// A fix: one query, the database joins.
pub async fn page_join(
    conn: &mut PgConnection,
    first: i32,
    n: i32,
) -> Result<u64, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT b.id, b.title, a.name FROM books b JOIN authors a ON a.id = b.author_id \
         WHERE b.id >= $1 ORDER BY b.id LIMIT $2",
    )
    .bind(first)
    .bind(n as i64)
    .fetch_all(&mut *conn)
    .await?;
    Ok(page_digest(&rows.iter().map(book_from).collect::<Vec<_>>()))
}

/// Another fix: two queries, the authors fetched together with `= ANY($1)`.
pub async fn page_any(
    conn: &mut PgConnection,
    first: i32,
    n: i32,
) -> Result<u64, sqlx::Error> {
    let rows = sqlx::query("SELECT id, title, author_id FROM books WHERE id >= $1 ORDER BY id LIMIT $2")
        .bind(first)
        .bind(n as i64)
        .fetch_all(&mut *conn)
        .await?;
    let ids: Vec<i32> = rows.iter().map(|r| r.get(2)).collect();
    let authors: std::collections::HashMap<i32, String> =
        sqlx::query_as("SELECT id, name FROM authors WHERE id = ANY($1)")
            .bind(&ids)
            .fetch_all(&mut *conn)
            .await?
            .into_iter()
            .collect();
    let books: Vec<Book> = rows
        .iter()
        .map(|r| Book {
            id: r.get(0),
            title: r.get(1),
            author: authors[&r.get::<i32, _>(2)].clone(),
        })
        .collect();
    Ok(page_digest(&books))
}
// ANCHOR_END: n_plus_one

// ANCHOR: sync_driver
/// Experiment 4, the pitfall: the worker thread waits for the synchronous client,
/// as it would inside a blocking driver's socket read.
pub async fn book_sync_on_worker(
    clients: &SyncClients,
    id: i32,
    wait_s: f64,
) -> Result<Book, String> {
    clients.book_after_wait(id, wait_s)
}

/// Chapter 1's middle fix: the worker hands its other tasks on, then blocks.
pub async fn book_sync_block_in_place(
    clients: &SyncClients,
    id: i32,
    wait_s: f64,
) -> Result<Book, String> {
    tokio::task::block_in_place(|| clients.book_after_wait(id, wait_s))
}

/// The fix for a synchronous driver: wait on Tokio's blocking pool.
pub async fn book_sync_spawn_blocking(
    clients: &SyncClients,
    id: i32,
    wait_s: f64,
) -> Result<Book, String> {
    let clients = clients.clone();
    tokio::task::spawn_blocking(move || clients.book_after_wait(id, wait_s))
        .await
        .map_err(|e| e.to_string())?
}

/// The fix for the whole service: an async driver.
pub async fn book_sqlx(
    pool: &PgPool,
    id: i32,
    wait_s: f64,
) -> Result<Book, String> {
    lookup(pool, id, wait_s)
        .await
        .map(|(book, _)| book)
        .map_err(|e| e.to_string())
}
// ANCHOR_END: sync_driver

/// Experiment 6: the CPU-bound query, on a connection the caller acquired (so that it
/// can time the query apart from the wait for the connection).
pub async fn stars_at_least(
    conn: &mut PgConnection,
    min: i32,
) -> Result<(i64, i64), sqlx::Error> {
    let row = sqlx::query(STARS_AT_LEAST)
        .bind(min)
        .fetch_one(conn)
        .await?;
    Ok((row.get(0), row.get(1)))
}

// ANCHOR: request_deadline
/// Experiment 7, the pitfall: a request with a deadline, as Chapter 7's `TimeoutLayer`
/// gives one. When it fires, `lookup`'s future is dropped in the middle of its query:
/// the request is answered (`None`: a 504), but PostgreSQL goes on with the query, and
/// sqlx puts the connection back in the pool only once the query has ended.
pub async fn lookup_within(
    pool: &PgPool,
    id: i32,
    wait_s: f64,
    deadline: Duration,
) -> Result<Option<Book>, sqlx::Error> {
    match tokio::time::timeout(deadline, lookup(pool, id, wait_s)).await {
        Ok(found) => found.map(|(book, _)| Some(book)),
        Err(_elapsed) => Ok(None), // the query is not cancelled, only forgotten
    }
}
// ANCHOR_END: request_deadline

// ANCHOR: statement_timeout
/// The fix: PostgreSQL itself ends any statement of these connections that runs past
/// `limit` (`statement_timeout`, sent as each connection starts), abandoned or not.
pub fn with_statement_timeout(
    connect: PgConnectOptions,
    limit: Duration,
) -> PgConnectOptions {
    let ms = limit.as_millis().max(1); // 0 would mean no limit at all
    connect.options([("statement_timeout", format!("{ms}ms"))])
}
// ANCHOR_END: statement_timeout
