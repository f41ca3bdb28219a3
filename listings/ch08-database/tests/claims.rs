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
        ("pool_wait", "1", "lookup", "p50", "ns", &[8.116e+08, 8.216e+08, 7.66e+08, 7.786e+08, 8.221e+08]),
        ("pool_wait", "1", "lookup", "query_p50", "ns", &[4.297e+06, 4.329e+06, 4.301e+06, 4.256e+06, 4.305e+06]),
        ("pool_wait", "1", "lookup", "acquire_share", "%", &[99.46, 99.47, 99.44, 99.45, 99.46]),
        ("pool_wait", "1", "lookup", "db_cpu_share", "%", &[5.247, 5.182, 4.486, 4.503, 5.237]),
        ("pool_wait", "2", "lookup", "query_p50", "ns", &[4.313e+06, 4.305e+06, 4.252e+06, 4.272e+06, 4.293e+06]),
        ("pool_wait", "4", "lookup", "p50", "ns", &[4.444e+06, 4.473e+06, 4.354e+06, 4.395e+06, 4.415e+06]),
        ("pool_wait", "4", "lookup", "served_per_s", "/s", &[399.5, 399.6, 399.6, 399.6, 399.6]),
        ("pool_wait", "4", "lookup", "query_p50", "ns", &[4.325e+06, 4.342e+06, 4.256e+06, 4.293e+06, 4.301e+06]),
        ("pool_wait", "8", "lookup", "p50", "ns", &[4.583e+06, 4.489e+06, 4.407e+06, 4.411e+06, 4.415e+06]),
        ("pool_wait", "8", "lookup", "query_p50", "ns", &[4.395e+06, 4.35e+06, 4.301e+06, 4.305e+06, 4.305e+06]),
        ("pool_wait", "16", "lookup", "p50", "ns", &[4.604e+06, 4.526e+06, 4.469e+06, 4.469e+06, 4.489e+06]),
        ("pool_wait", "16", "lookup", "query_p50", "ns", &[4.42e+06, 4.391e+06, 4.346e+06, 4.342e+06, 4.362e+06]),
        ("held", "4", "held", "p99", "ns", &[8.714e+08, 9.589e+08, 9.311e+08, 8.189e+08, 9.888e+08]),
        ("held", "4", "held", "served_per_s", "/s", &[347.3, 337.2, 339.9, 354.0, 333.9]),
        ("held", "4", "released", "p99", "ns", &[1.428e+07, 1.623e+07, 1.362e+07, 1.357e+07, 1.486e+07]),
        ("held", "4", "released", "served_per_s", "/s", &[497.7, 497.5, 497.7, 497.7, 497.8]),
        ("round_trip", "select_1", "connection", "rtt_p50", "ns", &[5.309e+04, 6.365e+04, 5.13e+04, 5.082e+04, 6.726e+04, 6.042e+04, 5.917e+04, 4.608e+04, 4.982e+04, 4.944e+04, 5.056e+04, 4.634e+04, 4.33e+04, 5.04e+04, 5.072e+04, 5.754e+04, 5.286e+04, 5.389e+04, 4.934e+04, 5.229e+04]),
        ("round_trip", "select_1", "pool", "rtt_p50", "ns", &[1.354e+05, 1.377e+05, 1.344e+05, 1.458e+05, 1.659e+05, 1.573e+05, 1.348e+05, 1.214e+05, 1.271e+05, 1.345e+05, 1.412e+05, 1.203e+05, 1.298e+05, 1.349e+05, 1.347e+05, 1.361e+05, 1.334e+05, 1.427e+05, 1.414e+05, 1.306e+05]),
        ("n_plus_one", "50", "n_plus_one", "page_p50", "ns", &[3.092e+06, 3.162e+06, 3.312e+06, 2.847e+06, 3.467e+06, 3.357e+06, 3.271e+06, 3.262e+06, 3.531e+06, 3.359e+06]),
        ("n_plus_one", "50", "n_plus_one", "queries_per_page", "count", &[51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0, 51.0]),
        ("n_plus_one", "50", "n_plus_one", "db_cpu_per_page", "ns", &[1.5e+06, 1.6e+06, 1.7e+06, 1.5e+06, 1.8e+06, 1.6e+06, 1.7e+06, 1.6e+06, 2.3e+06, 1.7e+06]),
        ("n_plus_one", "50", "any", "page_p50", "ns", &[4.306e+05, 4.552e+05, 5.96e+05, 3.469e+05, 5.107e+05, 4.503e+05, 4.915e+05, 4.429e+05, 6.697e+05, 4.396e+05]),
        ("n_plus_one", "50", "any", "queries_per_page", "count", &[2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
        ("n_plus_one", "50", "join", "page_p50", "ns", &[6.047e+05, 5.862e+05, 4.055e+05, 3.62e+05, 4.997e+05, 4.411e+05, 4.872e+05, 5.53e+05, 4.104e+05, 4.721e+05]),
        ("n_plus_one", "50", "join", "queries_per_page", "count", &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("n_plus_one", "50", "join", "db_cpu_per_page", "ns", &[5e+05, 4e+05, 3e+05, 3e+05, 4e+05, 4e+05, 4e+05, 4e+05, 3e+05, 4e+05]),
        ("sync_driver", "300", "sqlx", "ping_p50", "ns", &[4.109e+04, 4.717e+04, 5.248e+04, 4.102e+04, 6.842e+04, 7.725e+04, 1.277e+05, 9.171e+04, 3.664e+04, 4.554e+04]),
        ("sync_driver", "300", "sqlx", "tick_lag_p99", "ns", &[1.931e+06, 1.493e+06, 2.357e+06, 2.585e+06, 6.734e+06, 5.198e+06, 6.046e+06, 1.429e+07, 1.682e+06, 3.512e+06]),
        ("sync_driver", "300", "sync_on_worker", "ping_p50", "ns", &[8.494e+05, 9.088e+05, 1.144e+06, 9.001e+05, 6.439e+06, 6.796e+07, 3.539e+06, 9.364e+05, 9.779e+05, 9.441e+05]),
        ("sync_driver", "300", "sync_on_worker", "tick_lag_p99", "ns", &[2.266e+07, 1.375e+07, 4.804e+07, 3.162e+07, 1.577e+08, 1.813e+08, 1.025e+08, 9.208e+06, 5.705e+07, 4.859e+07]),
        ("sync_driver", "300", "sync_block_in_place", "ping_p50", "ns", &[2.786e+04, 2.819e+04, 3.341e+04, 6.202e+04, 7.43e+04, 4.33e+04, 8.589e+04, 5.834e+04, 3.128e+04, 2.741e+04]),
        ("sync_driver", "300", "sync_spawn_blocking", "ping_p50", "ns", &[2.563e+04, 3.258e+04, 4.624e+04, 2.675e+04, 6.07e+04, 9.402e+04, 8.102e+04, 7.443e+04, 2.706e+04, 2.626e+04]),
        ("fail_fast", "300", "timeout_short", "p99", "ns", &[6.737e+07, 6.77e+07, 6.75e+07, 7.104e+07, 6.744e+07]),
        ("fail_fast", "300", "timeout_short", "served_per_s", "/s", &[175.1, 160.2, 162.0, 155.4, 160.3]),
        ("fail_fast", "300", "timeout_short", "timed_out", "%", &[40.0, 45.17, 44.5, 46.83, 45.17]),
        ("fail_fast", "300", "timeout_default", "p99", "ns", &[1.244e+09, 1.398e+09, 1.498e+09, 1.427e+09, 1.518e+09]),
        ("fail_fast", "300", "timeout_default", "served_per_s", "/s", &[184.7, 176.0, 170.9, 174.5, 169.6]),
        ("fail_fast", "300", "timeout_default", "connections_opened", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("fail_fast", "300", "timeout_default", "timed_out", "%", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("pool_size", "1", "stars", "db_cpu_share", "%", &[97.96, 97.57, 120.4, 98.19, 91.66, 86.68, 94.53, 97.9, 97.96, 98.23]),
        ("pool_size", "2", "stars", "db_cpu_share", "%", &[189.3, 194.9, 194.5, 196.0, 191.1, 183.7, 190.7, 195.1, 192.5, 192.0]),
        ("pool_size", "32", "stars", "db_cpu_share", "%", &[186.1, 187.3, 184.8, 186.1, 188.2, 188.7, 185.5, 189.2, 189.0, 185.9]),
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
