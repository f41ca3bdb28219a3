//! The exercise: with a pool of one connection, a request whose upstream never
//! answers must not keep a second request from the database. The upstream is a
//! channel the test holds; the second request is given two seconds, far more than a
//! query on 127.0.0.1 takes, and the pool's acquire timeout is one second.

use ch08_database::database::{Options, Postgres};
use ch08_database::exercise::title_and_stock;
use ch08_database::shelf::Shelf;
use sqlx::Connection;
use std::time::Duration;

// ANCHOR: exercise_test
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_waiting_upstream_leaves_the_connection_to_others() {
    let pg = Postgres::start(&Options {
        max_connections: 20,
        ..Options::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let shelf = Shelf {
        authors: 10,
        books: 100,
        reviews: 10,
        seed: 1,
    };
    let mut conn = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
    shelf.create(&mut conn).await.unwrap();
    let pool = ch08_database::pool(&pg.url(), 1, Some(Duration::from_secs(1)))
        .await
        .unwrap();

    // The first request's upstream answers only when the test says so.
    let (answer, upstream) = tokio::sync::oneshot::channel::<u32>();
    let p = pool.clone();
    let first = tokio::spawn(async move {
        title_and_stock(&p, 7, async { upstream.await.unwrap_or(0) }).await
    });
    tokio::time::sleep(Duration::from_millis(100)).await; // it has queried by now

    let second = tokio::time::timeout(
        Duration::from_secs(2),
        title_and_stock(&pool, 8, async { 3 }),
    )
    .await;
    assert!(
        matches!(second, Ok(Ok(ref got)) if *got == ("book 8".to_string(), 3)),
        "the second request could not get the pool's only connection while the first \
         waited on its upstream: {second:?}"
    );
    answer.send(5).unwrap();
    assert_eq!(first.await.unwrap().unwrap(), ("book 7".to_string(), 5));
}
// ANCHOR_END: exercise_test
