//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run on
//! intel-xeon-2c measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("pool_wait", "1", "lookup", "p50", "ns", &[8.189e+08, 8.168e+08, 7.974e+08, 8.001e+08, 7.859e+08]),
        ("pool_wait", "1", "lookup", "query_p50", "ns", &[4.305e+06, 4.325e+06, 4.309e+06, 4.309e+06, 4.276e+06]),
        ("pool_wait", "1", "lookup", "acquire_share", "%", &[99.46, 99.47, 99.46, 99.46, 99.45]),
        ("pool_wait", "1", "lookup", "db_cpu_share", "%", &[5.234, 5.204, 4.73, 4.473, 4.501]),
        ("pool_wait", "2", "lookup", "query_p50", "ns", &[4.297e+06, 4.301e+06, 4.313e+06, 4.305e+06, 4.309e+06]),
        ("pool_wait", "4", "lookup", "p50", "ns", &[4.411e+06, 4.44e+06, 4.424e+06, 4.399e+06, 4.436e+06]),
        ("pool_wait", "4", "lookup", "served_per_s", "/s", &[399.6, 399.6, 399.6, 399.6, 399.6]),
        ("pool_wait", "4", "lookup", "query_p50", "ns", &[4.305e+06, 4.325e+06, 4.305e+06, 4.293e+06, 4.317e+06]),
        ("pool_wait", "8", "lookup", "p50", "ns", &[4.452e+06, 4.452e+06, 4.497e+06, 4.456e+06, 4.473e+06]),
        ("pool_wait", "8", "lookup", "query_p50", "ns", &[4.334e+06, 4.338e+06, 4.37e+06, 4.334e+06, 4.342e+06]),
        ("pool_wait", "16", "lookup", "p50", "ns", &[4.485e+06, 4.518e+06, 4.538e+06, 4.51e+06, 4.497e+06]),
        ("pool_wait", "16", "lookup", "query_p50", "ns", &[4.362e+06, 4.387e+06, 4.399e+06, 4.375e+06, 4.366e+06]),
        ("held", "4", "held", "p99", "ns", &[9.584e+08, 8.142e+08, 9.705e+08, 7.964e+08, 9.757e+08]),
        ("held", "4", "held", "served_per_s", "/s", &[337.1, 354.2, 335.9, 357.1, 335.2]),
        ("held", "4", "released", "p99", "ns", &[1.297e+07, 1.298e+07, 1.255e+07, 1.43e+07, 1.388e+07]),
        ("held", "4", "released", "served_per_s", "/s", &[497.5, 497.8, 497.8, 497.7, 497.7]),
        ("round_trip", "select_1", "connection", "rtt_p50", "ns", &[4.97e+04, 4.323e+04, 4.41e+04, 6.259e+04, 5.043e+04]),
        ("round_trip", "select_1", "pool", "rtt_p50", "ns", &[1.171e+05, 1.411e+05, 1.336e+05, 1.274e+05, 1.219e+05]),
        ("n_plus_one", "50", "n_plus_one", "page_p50", "ns", &[3.199e+06, 3.039e+06, 3.596e+06, 3.51e+06, 3.658e+06, 3.613e+06, 3.51e+06, 3.602e+06, 3.015e+06, 3.41e+06]),
        ("n_plus_one", "50", "n_plus_one", "queries_per_page", "count", &[51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0]),
        ("n_plus_one", "50", "n_plus_one", "db_cpu_per_page", "ns", &[1.6e+06, 1.6e+06, 2e+06, 1.9e+06, 1.9e+06, 1.8e+06, 1.8e+06, 1.9e+06, 1.7e+06, 2e+06]),
        ("n_plus_one", "50", "any", "page_p50", "ns", &[6.712e+05, 4.995e+05, 5.284e+05, 3.617e+05, 3.955e+05, 4.803e+05, 5.443e+05, 5.061e+05, 3.935e+05, 6.175e+05]),
        ("n_plus_one", "50", "any", "queries_per_page", "count", &[2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
        ("n_plus_one", "50", "join", "page_p50", "ns", &[4.068e+05, 4.449e+05, 6.001e+05, 5.75e+05, 5.212e+05, 6.764e+05, 4.782e+05, 5.35e+05, 4.621e+05, 5.097e+05]),
        ("n_plus_one", "50", "join", "queries_per_page", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("n_plus_one", "50", "join", "db_cpu_per_page", "ns", &[3e+05, 3e+05, 5e+05, 4e+05, 4e+05, 5e+05, 4e+05, 7e+05, 4e+05, 4e+05]),
        ("sync_driver", "300", "sqlx", "query_p50", "ns", &[5.48e+06, 5.46e+06, 5.284e+06, 5.435e+06, 5.571e+06, 5.431e+06, 5.46e+06, 5.444e+06, 5.345e+06, 5.403e+06]),
        ("sync_driver", "300", "sqlx", "ping_p50", "ns", &[3.565e+04, 3.459e+04, 2.733e+04, 3.411e+04, 5.062e+04, 3.741e+04, 3.616e+04, 3.482e+04, 3.238e+04, 3.434e+04]),
        ("sync_driver", "300", "sqlx", "tick_lag_p99", "ns", &[1.817e+06, 1.885e+06, 1.363e+06, 1.34e+06, 2.169e+06, 1.475e+06, 1.421e+06, 1.341e+06, 1.23e+06, 1.464e+06]),
        ("sync_driver", "300", "sync_on_worker", "query_p50", "ns", &[5.505e+06, 5.382e+06, 5.313e+06, 5.472e+06, 5.538e+06, 5.587e+06, 5.509e+06, 5.423e+06, 5.394e+06, 5.411e+06]),
        ("sync_driver", "300", "sync_on_worker", "ping_p50", "ns", &[9.339e+05, 8.259e+05, 7.803e+05, 8.893e+05, 9.492e+05, 1.036e+06, 9.252e+05, 9.129e+05, 8.274e+05, 8.463e+05]),
        ("sync_driver", "300", "sync_on_worker", "tick_lag_p99", "ns", &[4.66e+07, 1.454e+07, 1.022e+07, 1.053e+07, 1.372e+07, 7.786e+07, 6.783e+06, 1.449e+07, 1.176e+07, 1.766e+07]),
        ("sync_driver", "300", "sync_block_in_place", "ping_p50", "ns", &[2.694e+04, 2.429e+04, 2.277e+04, 2.31e+04, 3.253e+04, 2.87e+04, 2.474e+04, 2.467e+04, 2.477e+04, 2.829e+04]),
        ("sync_driver", "300", "sync_spawn_blocking", "ping_p50", "ns", &[2.454e+04, 2.395e+04, 2.37e+04, 2.427e+04, 2.594e+04, 2.742e+04, 2.485e+04, 2.659e+04, 2.278e+04, 2.341e+04]),
        ("fail_fast", "300", "timeout_short", "p99", "ns", &[6.619e+07, 6.272e+07, 6.249e+07, 6.121e+07, 6.2e+07]),
        ("fail_fast", "300", "timeout_short", "served_per_s", "/s", &[182.0, 180.8, 182.1, 190.0, 187.8]),
        ("fail_fast", "300", "timeout_short", "timed_out", "%", &[37.67, 38.0, 37.67, 35.0, 35.67]),
        ("fail_fast", "300", "timeout_default", "p99", "ns", &[1.17e+09, 1.15e+09, 1.165e+09, 1.169e+09, 1.147e+09]),
        ("fail_fast", "300", "timeout_default", "served_per_s", "/s", &[189.0, 189.8, 189.3, 189.1, 190.4]),
        ("fail_fast", "300", "timeout_default", "connections_opened", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("fail_fast", "300", "timeout_default", "timed_out", "%", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("pool_size", "1", "stars", "db_cpu_share", "%", &[98.57, 123.2, 98.11, 98.9, 97.91, 98.3, 98.28, 97.92, 98.1, 97.97]),
        ("pool_size", "2", "stars", "db_cpu_share", "%", &[193.8, 195.6, 195.5, 195.1, 197.5, 193.6, 194.6, 193.2, 194.0, 194.9]),
        ("pool_size", "32", "stars", "db_cpu_share", "%", &[191.9, 187.1, 185.4, 189.0, 186.7, 184.3, 190.8, 184.2, 188.3, 189.0]),
    ];
    Record::sketch(
        "ch08-database",
        "test",
        &[
            ("workers", 2.0),
            ("held_pool", 4.0),
            ("sync_rate_per_s", 300.0),
            ("fail_rate_per_s", 300.0),
        ],
        cells,
    )
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    fixtures::assert_every_claim_held(&claims(), &shaped_like_the_books());
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    fixtures::assert_every_conclusion_can_fail(&claims(), &shaped_like_the_books());
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    fixtures::assert_every_invariant_breaks(&claims(), &shaped_like_the_books());
}
