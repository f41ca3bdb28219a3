//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference runs of
//! 2026-12-01 (amd-epyc-2c) and 2026-12-02 (intel-xeon-2c, part two) measured it, to four
//! digits. Every conclusion is held there and every invariant holds; and for each one, a
//! record made by moving its figures past its bound shows that it can be refuted, and that a
//! few repetitions past the bound leave a conclusion not shown
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
        ("ping", "hash_load", "inline", "p50", "ns", &[7.15e+07, 7.478e+07, 6.835e+07, 6.668e+07, 9.509e+07, 7.766e+07, 5.892e+07, 9.811e+07, 7.458e+07, 5.577e+07]),
        ("ping", "hash_load", "offloaded", "p50", "ns", &[5.309e+05, 5.668e+05, 5.148e+05, 5.238e+05, 6.6e+05, 5.402e+05, 5.693e+05, 5.192e+05, 5.315e+05, 5.066e+05]),
        ("ping", "hash_load", "none", "p50", "ns", &[7.439e+05, 8.202e+05, 7.496e+05, 8.305e+05, 9.267e+05, 7.946e+05, 6.825e+05, 6.482e+05, 7.347e+05, 6.825e+05]),
        ("ping", "hash_load", "inline", "hashes_per_s", "/s", &[40.08, 42.03, 44.27, 40.98, 33.46, 39.85, 46.59, 33.16, 43.54, 54.15]),
        ("ping", "hash_load", "offloaded", "hashes_per_s", "/s", &[40.17, 35.35, 40.31, 39.93, 38.87, 41.58, 37.83, 43.35, 40.18, 41.56]),
        ("allocator", "hash", "mimalloc", "cpu_per_request", "µs", &[3.555e+04, 4.144e+04, 3.855e+04, 3.738e+04, 3.578e+04, 3.523e+04, 3.531e+04, 3.588e+04, 3.389e+04, 3.668e+04, 3.382e+04, 3.594e+04, 3.767e+04, 3.946e+04, 3.652e+04, 3.659e+04, 3.549e+04, 3.513e+04, 3.832e+04, 3.656e+04]),
        ("allocator", "hash", "system", "cpu_per_request", "µs", &[4.611e+04, 4.321e+04, 4.269e+04, 4.582e+04, 3.75e+04, 4.1e+04, 4.133e+04, 4.235e+04, 4.345e+04, 4.334e+04, 3.899e+04, 4.208e+04, 4.576e+04, 4.203e+04, 4.683e+04, 4.329e+04, 4.109e+04, 4.421e+04, 4.427e+04, 4.227e+04]),
        ("allocator", "hash", "system", "page_faults_per_request", "count", &[1787.0, 1787.0, 1787.0, 1787.0, 896.4, 1787.0, 1786.0, 1787.0, 1787.0, 1787.0, 1787.0, 1787.0, 1787.0, 1788.0, 1787.0, 1786.0, 1787.0, 1787.0, 1787.0, 1787.0]),
        ("allocator", "hash", "system", "page_faults_second_half", "count", &[2.567, 2.067, 2.467, 3.133, 4.067, 2.467, 1.2, 2.933, 2.233, 2.6, 2.8, 2.433, 2.8, 3.667, 3.533, 0.5667, 2.433, 2.733, 2.633, 2.533]),
        ("allocator", "hash", "system", "page_faults_first_half", "count", &[3571.0, 3572.0, 3571.0, 3571.0, 1789.0, 3571.0, 3572.0, 3571.0, 3572.0, 3571.0, 3570.0, 3571.0, 3570.0, 3571.0, 3570.0, 3572.0, 3571.0, 3571.0, 3571.0, 3571.0]),
        ("allocator", "hash", "mimalloc", "page_faults_per_request", "count", &[0.2333, 0.5, 0.3333, 0.3833, 0.7667, 0.5667, 0.7667, 0.5333, 0.03333, 0.01667, 0.3, 0.3, 0.5, 0.03333, 0.3167, 0.03333, 0.03333, 0.3, 0.03333, 0.7333]),
        ("allocator", "books", "mimalloc", "cpu_per_request", "µs", &[317.0, 331.2, 309.9, 274.8, 259.4, 266.8, 252.8, 272.5, 257.8, 276.5, 263.7, 286.4, 277.8, 297.5, 275.7, 295.0, 310.0, 261.5, 268.6, 308.0]),
        ("allocator", "books", "system", "cpu_per_request", "µs", &[351.8, 345.9, 309.0, 306.4, 288.2, 270.6, 322.1, 295.3, 303.9, 320.8, 308.4, 299.4, 308.9, 334.1, 316.3, 339.2, 314.4, 288.7, 329.6, 326.1]),
        ("counters", "views", "one_mutex", "cpu_per_request", "µs", &[68.16, 72.2, 70.94, 79.83, 70.02, 70.44, 78.34, 82.29, 77.45, 85.52]),
        ("counters", "views", "sharded", "cpu_per_request", "µs", &[76.07, 69.8, 69.33, 72.08, 69.49, 72.88, 74.81, 84.18, 76.37, 79.85]),
        ("generators", "ping_inline", "oha", "p50", "ns", &[6.14e+07, 7.659e+07, 7.223e+07, 5.152e+07, 6.154e+07, 6.494e+07, 5.71e+07, 6.621e+07, 5.285e+07, 6.285e+07]),
        ("generators", "ping_inline", "listing", "p50", "ns", &[5.03e+07, 7.504e+07, 7.104e+07, 5.79e+07, 4.715e+07, 7.124e+07, 7.032e+07, 7.091e+07, 6.006e+07, 7.628e+07]),
        ("generators", "ping_inline", "oha", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("ping", "hash_load", "none", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("ping", "hash_load", "inline", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("ping", "hash_load", "offloaded", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("allocator", "books", "system", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("allocator", "books", "mimalloc", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("allocator", "hash", "system", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("allocator", "hash", "mimalloc", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("counters", "views", "one_mutex", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("counters", "views", "sharded", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("profile", "books", "release_default", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("profile", "books", "tuned", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ("generators", "ping_inline", "listing", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
        // Part two, as the intel-xeon-2c run of 2026-12-02 measured it.
        ("curve", "25", "books", "p50", "ns", &[9.518e+05, 1.087e+06, 1.185e+06, 1.17e+06, 9.19e+05]),
        ("curve", "25", "books", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("curve", "50", "books", "p50", "ns", &[1.231e+06, 2.012e+06, 2.726e+06, 8.535e+05, 1.268e+06]),
        ("curve", "150", "books", "p50", "ns", &[9.128e+08, 8.866e+08, 8.341e+08, 8.32e+08, 5.295e+08]),
        ("curve", "200", "books", "offered_per_s", "/s", &[5446.0, 5446.0, 5446.0, 5446.0, 5446.0]),
        ("curve", "200", "books", "throughput_per_s", "/s", &[1978.0, 2199.0, 1967.0, 1958.0, 2537.0]),
        ("curve", "200", "books", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("overload", "books", "unprotected", "p50", "ns", &[2.317e+09, 1.951e+09, 1.723e+09, 2.229e+09, 2.873e+09]),
        ("overload", "books", "unprotected", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("overload", "books", "shed", "shed_share", "ratio", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("overload", "books", "shed", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("slow_clients", "slowloris", "axum_serve", "slow_closed", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("slow_clients", "slowloris", "axum_serve", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("slow_clients", "slowloris", "header_timeout", "slow_held", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("slow_clients", "slowloris", "header_timeout", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("fd_flood", "flood", "axum_serve", "recovery_ms", "ms", &[701.4, 701.6, 701.2, 701.6, 701.9]),
        ("fd_flood", "flood", "axum_serve", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("fd_flood", "flood", "connection_limit", "recovery_ms", "ms", &[2.585, 4.568, 2.818, 2.544, 3.057]),
        ("fd_flood", "flood", "connection_limit", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("shutdown", "under_load", "axum_serve", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("shutdown", "under_load", "hardened", "lost", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "none", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "oversized", "bad_wrong_status", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "oversized", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "malformed", "bad_wrong_status", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "malformed", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "slow", "bad_wrong_status", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("bodies", "bad_bodies", "slow", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("h2c", "hash_load", "inline", "p50", "ns", &[3.395e+07, 4.312e+07, 3.251e+07, 5.007e+07, 3.324e+07]),
        ("h2c", "hash_load", "inline", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),
        ("h2c", "hash_load", "offloaded", "p50", "ns", &[3.333e+05, 3.203e+05, 3.069e+05, 3.374e+05, 2.61e+05]),
        ("h2c", "hash_load", "offloaded", "errors", "count", &[0.0, 0.0, 0.0, 0.0, 0.0]),

        ("bodies", "bad_bodies", "none", "p50", "ns", &[8.525e+05, 8.827e+05, 8.617e+05, 8.079e+05, 8.924e+05]),
        ("bodies", "bad_bodies", "oversized", "p50", "ns", &[9.062e+05, 8.397e+05, 8.97e+05, 8.643e+05, 8.806e+05]),
        ("bodies", "bad_bodies", "malformed", "p50", "ns", &[9.513e+05, 8.95e+05, 8.023e+05, 8.924e+05, 8.73e+05]),
        ("bodies", "bad_bodies", "slow", "p50", "ns", &[9.344e+05, 9.646e+05, 9.196e+05, 8.888e+05, 8.689e+05]),
    ];
    Record::sketch("ch07-axum", "test", &[], cells)
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
