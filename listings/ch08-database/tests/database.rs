//! The server the listing starts, and the pitfalls shown deterministically: counts
//! and orders of events, no timing. Each test starts a PostgreSQL of its own (a
//! second or two); without PostgreSQL installed they fail, naming the package.

use ch08_database::database::{Options, Postgres};
use ch08_database::handlers::{
    book_then_upstream_held, book_then_upstream_released, lookup, lookup_within,
    page_any, page_join, page_n_plus_one, with_statement_timeout,
};
use ch08_database::shelf::{Shelf, page_digest};
use sqlx::Connection;
use std::time::Duration;

fn start() -> Postgres {
    Postgres::start(&Options {
        max_connections: 20,
        ..Options::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A small shelf in a fresh server.
fn shelf_in(pg: &Postgres, rt: &tokio::runtime::Runtime) -> Shelf {
    let shelf = Shelf {
        authors: 50,
        books: 500,
        reviews: 2_000,
        seed: 3,
    };
    rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
        shelf.create(&mut conn).await.unwrap();
    });
    shelf
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_server_and_its_directory_are_gone_after_stop() {
    let pg = start();
    let (pid, dir) = (pg.pid(), pg.data_dir().parent().unwrap().to_path_buf());
    assert!(dir.join("data/PG_VERSION").is_file());
    pg.stop().unwrap();
    assert!(!dir.exists(), "{} is left behind", dir.display());
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"));
    assert!(stat.is_err(), "postgres (pid {pid}) still runs: {stat:?}");
}

#[test]
fn a_connect_given_up_before_its_startup_counts_as_received() {
    let pg = start();
    let rt = runtime();
    let before = pg.connections_received().unwrap();
    // One connect that finishes, and one dropped before it sends its startup packet.
    rt.block_on(async {
        sqlx::PgConnection::connect(&pg.url())
            .await
            .unwrap()
            .close()
            .await
            .unwrap();
    });
    drop(std::net::TcpStream::connect(("127.0.0.1", pg.port())).unwrap());
    // Each backend writes its line after the fork: wait for both, up to ten seconds.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut received = 0;
    while received < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        received = pg.connections_received().unwrap() - before;
    }
    assert_eq!(
        received, 2,
        "the server's log counted {received} of the two connects"
    );
}

#[test]
fn every_answer_matches_the_shelf() {
    let pg = start();
    let rt = runtime();
    let shelf = shelf_in(&pg, &rt);
    rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
        for first in [1, 17, 480] {
            let expected: Vec<_> =
                (first..first + 10).map(|id| shelf.book(id)).collect();
            let want = page_digest(&expected);
            assert_eq!(page_n_plus_one(&mut conn, first, 10).await.unwrap(), want);
            assert_eq!(page_any(&mut conn, first, 10).await.unwrap(), want);
            assert_eq!(page_join(&mut conn, first, 10).await.unwrap(), want);
        }
        for min in 1..=5 {
            let (n, sum): (i64, i64) =
                sqlx::query_as(ch08_database::shelf::STARS_AT_LEAST)
                    .bind(min)
                    .fetch_one(&mut conn)
                    .await
                    .unwrap();
            assert_eq!((n, sum), shelf.stars_at_least(min), "stars >= {min}");
        }
    });
}

#[test]
fn a_connection_held_across_an_await_keeps_a_pool_of_one_from_others() {
    let pg = start();
    let rt = runtime();
    let shelf = shelf_in(&pg, &rt);
    rt.block_on(async {
        let pool =
            ch08_database::pool(&pg.url(), 1, Some(Duration::from_millis(500)))
                .await
                .unwrap();
        // While the first request waits on its upstream (an hour), a second one asks.
        let (p, long) = (pool.clone(), Duration::from_secs(3600));
        let held =
            tokio::spawn(async move { book_then_upstream_held(&p, 1, long).await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        let second = book_then_upstream_released(&pool, 2, Duration::ZERO).await;
        assert!(
            matches!(second, Err(sqlx::Error::PoolTimedOut)),
            "the held connection was lent out: {second:?}"
        );
        held.abort();

        let (p, long) = (pool.clone(), Duration::from_secs(3600));
        let released =
            tokio::spawn(
                async move { book_then_upstream_released(&p, 1, long).await },
            );
        tokio::time::sleep(Duration::from_millis(200)).await;
        let second = book_then_upstream_released(&pool, 2, Duration::ZERO)
            .await
            .unwrap();
        assert_eq!(
            second,
            shelf.book(2),
            "returned first, the connection serves the second"
        );
        released.abort();
    });
}

#[test]
fn a_query_dropped_by_its_deadline_keeps_a_pool_of_one_until_the_server_ends_it() {
    let pg = start();
    let rt = runtime();
    let shelf = shelf_in(&pg, &rt);
    // A query that would wait 30 s in the database, its request's deadline 100 ms.
    let (wait_s, deadline) = (30.0, Duration::from_millis(100));
    let acquire = Some(Duration::from_millis(500));
    rt.block_on(async {
        let pool = ch08_database::pool(&pg.url(), 1, acquire).await.unwrap();
        let first = lookup_within(&pool, 1, wait_s, deadline).await.unwrap();
        assert!(first.is_none(), "the deadline did not fire: {first:?}");
        let second = lookup(&pool, 2, 0.0).await;
        assert!(
            matches!(second, Err(sqlx::Error::PoolTimedOut)),
            "the abandoned query's connection was lent out: {second:?}"
        );

        let connect = pg.url().parse().unwrap();
        // Twenty times the deadline, a fifteenth of the query.
        let bounded = with_statement_timeout(connect, Duration::from_secs(2));
        let patient = Some(Duration::from_secs(10)); // far above the 2 s, far below the 30 s
        let (pool, opened) = ch08_database::counting_pool_with(bounded, 1, patient)
            .await
            .unwrap();
        let first = lookup_within(&pool, 1, wait_s, deadline).await.unwrap();
        assert!(first.is_none(), "the deadline did not fire: {first:?}");
        let (book, _) = lookup(&pool, 2, 0.0).await.unwrap();
        assert_eq!(book, shelf.book(2), "the next request got the connection");
        assert_eq!(opened.load(std::sync::atomic::Ordering::Relaxed), 1);
        // Without a deadline of its own, the handler gets the cancel as an error.
        let cancelled = lookup(&pool, 3, wait_s).await.unwrap_err();
        let code = cancelled.as_database_error().and_then(|e| e.code());
        assert_eq!(code.as_deref(), Some("57014"), "{cancelled}");
    });
}

#[test]
fn n_plus_one_sends_a_query_per_book() {
    let pg = start();
    let rt = runtime();
    shelf_in(&pg, &rt);
    rt.block_on(async {
        let mut conn = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
        let calls = async |conn: &mut sqlx::PgConnection| -> i64 {
            sqlx::query_scalar(
                "SELECT coalesce(sum(calls), 0)::int8 FROM pg_stat_statements",
            )
            .fetch_one(conn)
            .await
            .unwrap()
        };
        for (n, per_page) in [(10, 11), (25, 26)] {
            for (name, expected) in
                [("n_plus_one", per_page), ("any", 2), ("join", 1)]
            {
                let before = calls(&mut conn).await;
                match name {
                    "n_plus_one" => page_n_plus_one(&mut conn, 5, n).await.unwrap(),
                    "any" => page_any(&mut conn, 5, n).await.unwrap(),
                    _ => page_join(&mut conn, 5, n).await.unwrap(),
                };
                let sent = calls(&mut conn).await - before - 1; // the count itself
                assert_eq!(sent, expected, "{name} with a page of {n}");
            }
        }
    });
}

#[test]
fn the_synchronous_client_refuses_a_tokio_worker() {
    let pg = start();
    let rt = runtime();
    let url = pg.url();
    let on_worker = rt.block_on(rt.spawn(async move {
        postgres::Client::connect(&url, postgres::NoTls).map(|_| ())
    }));
    let panic = on_worker
        .expect_err("connecting on a worker panics")
        .into_panic();
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or(panic.downcast_ref::<&str>().map(|s| s.to_string()));
    assert!(
        message
            .as_deref()
            .unwrap_or("")
            .contains("Cannot start a runtime from within a runtime"),
        "{message:?}"
    );
    let url = pg.url();
    let on_pool = rt.block_on(rt.spawn_blocking(move || {
        let mut c = postgres::Client::connect(&url, postgres::NoTls)?;
        c.query_one("SELECT 41 + 1", &[])
            .map(|r| r.get::<_, i32>(0))
    }));
    assert_eq!(
        on_pool.unwrap().unwrap(),
        42,
        "on the blocking pool it works"
    );
}

#[test]
fn a_corrupt_data_directory_is_a_clear_error() {
    let pg = start();
    let dir = tempdir();
    let data = dir.join("data");
    // Copy nothing: a data directory whose PG_VERSION says something no server is.
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("PG_VERSION"), "not a version\n").unwrap();
    own_by_postgres(&dir);
    let err = Postgres::start(&Options {
        data: Some(data),
        max_connections: 20,
        ..Options::default()
    })
    .err()
    .expect("a corrupt data directory cannot start");
    assert!(err.contains("PostgreSQL did not start"), "{err}");
    assert!(
        err.contains("log says"),
        "the server's own words are shown: {err}"
    );
    drop(pg);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let err = Postgres::start(&Options {
        port: Some(port),
        max_connections: 20,
        ..Options::default()
    })
    .err()
    .expect("a taken port cannot be used");
    assert!(err.contains("PostgreSQL did not start"), "{err}");
    assert!(
        err.contains("Address already in use") || err.contains("could not bind"),
        "{err}"
    );
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "ch08-test-{}-{}",
        std::process::id(),
        fastrand()
    ));
    std::fs::create_dir(&dir).unwrap();
    dir
}

fn fastrand() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// As root, the server runs as `postgres`, which must own its directory.
fn own_by_postgres(dir: &std::path::Path) {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let status = std::process::Command::new("chown")
            .args(["-R", "postgres:"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
}
