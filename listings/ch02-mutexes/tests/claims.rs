//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::Verdict;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("timer", "2000", "tokio_sleep", "actual_p50", "ns", &[3.158e+06, 3.172e+06, 3.166e+06, 3.156e+06, 3.176e+06, 3.172e+06, 3.148e+06, 3.156e+06, 3.156e+06, 3.162e+06, 3.133e+06, 3.138e+06, 3.115e+06, 3.127e+06, 3.127e+06, 3.174e+06, 3.191e+06, 3.15e+06, 3.144e+06, 3.16e+06]),
        ("timer", "2000", "precise_upstream", "actual_p50", "ns", &[2.018e+06, 2.017e+06, 2.015e+06, 2.014e+06, 2.014e+06, 2.02e+06, 2.015e+06, 2.017e+06, 2.014e+06, 2.025e+06, 2.016e+06, 2.015e+06, 2.013e+06, 2.012e+06, 2.01e+06, 2.015e+06, 2.022e+06, 2.021e+06, 2.016e+06, 2.018e+06]),
        ("guard_across_await", "500", "held", "wall", "ms", &[1028.0, 1025.0, 1033.0, 1041.0, 1037.0, 1030.0, 1032.0, 1035.0, 1036.0, 1039.0, 1036.0, 1028.0, 1036.0, 1026.0, 1028.0, 1023.0, 1030.0, 1036.0, 1031.0, 1042.0]),
        ("guard_across_await", "500", "scoped", "wall", "ms", &[2.73, 2.497, 2.813, 5.433, 2.557, 2.808, 2.523, 2.413, 3.273, 3.052, 2.457, 2.431, 2.98, 2.511, 2.486, 2.505, 2.85, 2.515, 2.468, 2.686]),
        ("which_mutex", "1", "tokio", "ns_per_update", "ns", &[229.2, 155.9, 245.3, 153.5, 216.8, 218.6, 191.5, 242.1, 243.8, 236.6, 242.7, 245.8, 209.9, 224.4, 173.7, 179.7, 235.3, 192.1, 169.4, 175.5]),
        ("which_mutex", "1", "std", "ns_per_update", "ns", &[27.17, 28.2, 28.1, 26.45, 24.78, 25.62, 27.62, 24.71, 27.19, 28.81, 25.7, 27.74, 17.21, 27.78, 17.52, 19.32, 25.55, 16.28, 27.21, 19.49]),
        ("which_mutex", "2", "tokio", "ns_per_update", "ns", &[439.5, 363.1, 514.5, 434.9, 428.3, 438.6, 388.5, 404.9, 429.2, 435.0, 429.7, 444.7, 438.0, 445.8, 379.7, 454.4, 462.9, 509.8, 417.8, 383.5]),
        ("which_mutex", "2", "std", "ns_per_update", "ns", &[104.5, 224.8, 117.8, 284.3, 113.9, 114.6, 92.67, 101.0, 115.2, 208.0, 115.0, 96.22, 98.67, 101.0, 160.0, 250.2, 104.9, 68.26, 98.37, 101.6]),
        ("which_mutex", "1", "tokio_unconstrained", "ns_per_update", "ns", &[126.4, 101.6, 126.7, 94.7, 116.6, 111.5, 114.6, 130.4, 127.6, 128.3, 92.48, 126.8, 111.9, 129.6, 113.2, 92.07, 125.4, 93.95, 91.83, 92.08]),
        ("which_mutex", "1", "parking_lot", "ns_per_update", "ns", &[26.53, 19.15, 27.13, 26.33, 24.34, 24.3, 19.38, 27.72, 24.86, 19.33, 24.56, 20.35, 21.22, 25.89, 25.65, 25.6, 24.07, 22.38, 18.72, 24.97]),
        ("which_mutex", "2", "tokio_unconstrained", "ns_per_update", "ns", &[415.6, 516.9, 662.2, 491.5, 494.1, 428.5, 471.8, 536.3, 623.7, 499.9, 516.2, 522.3, 428.2, 491.9, 466.2, 467.5, 521.0, 455.4, 407.1, 437.3]),
        ("which_mutex", "2", "parking_lot", "ns_per_update", "ns", &[45.36, 46.9, 46.78, 136.5, 32.02, 45.45, 41.18, 33.61, 46.0, 45.66, 46.5, 44.83, 25.14, 43.47, 24.71, 123.1, 45.78, 43.95, 27.24, 38.41]),
        ("sharding", "1", "padded", "wall", "ms", &[241.4, 211.7, 226.6, 253.6, 242.5, 217.3, 491.3, 557.7, 526.4, 257.0, 260.9, 255.6, 252.0, 213.3, 224.7, 271.4, 268.7, 251.7, 285.6, 246.1]),
        ("sharding", "16", "padded", "wall", "ms", &[68.46, 70.9, 65.91, 74.23, 76.49, 66.03, 170.4, 206.5, 75.37, 169.4, 70.57, 70.84, 69.95, 68.16, 61.65, 72.06, 73.79, 71.35, 78.19, 78.27]),
        ("sharding", "4", "packed", "wall", "ms", &[117.1, 123.3, 82.26, 212.3, 120.2, 191.1, 276.6, 393.1, 318.1, 123.4, 128.3, 122.6, 126.4, 123.2, 112.8, 118.3, 122.5, 75.7, 125.4, 122.2]),
        ("sharding", "4", "padded", "wall", "ms", &[82.26, 102.0, 92.57, 258.4, 93.81, 95.18, 254.5, 262.3, 101.8, 101.3, 98.79, 100.3, 94.1, 100.1, 82.52, 104.9, 99.74, 92.01, 104.2, 93.68]),
        ("acquire_time", "1", "sampled", "acquire_p99", "ns", &[1854.0, 2013.0, 1984.0, 1914.0, 1813.0, 1963.0, 1954.0, 1853.0, 1533.0, 1673.0, 1683.0, 1433.0, 1724.0, 1644.0, 1714.0, 1383.0, 1322.0, 1453.0, 1473.0, 1753.0]),
        ("acquire_time", "16", "sampled", "acquire_p99", "ns", &[201.0, 200.0, 201.0, 200.0, 200.0, 200.0, 201.0, 210.0, 191.0, 210.0, 200.0, 180.0, 190.0, 210.0, 201.0, 161.0, 180.0, 180.0, 171.0, 170.0]),
        ("acquire_time", "1", "sampled", "acquire_max", "ns", &[1.241e+07, 3.912e+06, 2.951e+06, 4.506e+06, 5.603e+06, 4.088e+06, 3.977e+06, 2.853e+06, 8.692e+06, 4.399e+06, 4.338e+06, 4.035e+06, 2.595e+06, 3.588e+06, 3.088e+06, 5.034e+06, 4.047e+06, 5.075e+06, 4.114e+06, 4.057e+06]),
        ("config", "2", "arc_swap", "reads_per_s", "reads/s", &[2.494e+08, 2.413e+08, 2.298e+08, 2.038e+08, 2.786e+08, 2.774e+08, 2.082e+08, 2.03e+08, 2.299e+08, 2.343e+08, 2.413e+08, 2.172e+08, 2.164e+08, 2.621e+08, 2.08e+08, 2.58e+08, 2.071e+08, 2.529e+08, 2.743e+08, 2.797e+08]),
        ("config", "2", "rwlock", "reads_per_s", "reads/s", &[2.31e+07, 5.488e+07, 4.64e+07, 4.918e+07, 2.121e+07, 4.644e+07, 4.407e+07, 4.597e+07, 4.271e+07, 4.509e+07, 4.87e+07, 4.644e+07, 5.304e+07, 4.979e+07, 4.592e+07, 4.509e+07, 4.347e+07, 5.119e+07, 5.063e+07, 4.997e+07]),
        ("config", "2", "watch", "reads_per_s", "reads/s", &[4.485e+07, 4.478e+07, 4.172e+07, 4.307e+07, 4.189e+07, 2.254e+07, 4.194e+07, 4.247e+07, 4.127e+07, 4.141e+07, 3.987e+07, 4.177e+07, 4.867e+07, 4.49e+07, 3.967e+07, 4.168e+07, 4.031e+07, 4.619e+07, 4.196e+07, 4.092e+07]),
    ];
    Record::sketch(
        "ch02-mutexes",
        "test",
        &[
            ("config_readers", 2.0),
            ("held_calls", 500.0),
            ("workers", 2.0),
        ],
        cells,
    )
}

#[test]
fn every_claim_holds_on_a_record_shaped_like_the_books() {
    let rec = shaped_like_the_books();
    for c in &claims().claims {
        let o = c.check(&rec);
        assert_eq!(o.verdict, Verdict::Held, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_conclusion_can_be_refuted_and_left_not_shown() {
    let rec = shaped_like_the_books();
    for c in claims().conclusions() {
        let refuted = fixtures::refuted(c, &rec).unwrap();
        let o = c.check(&refuted);
        assert_eq!(o.verdict, Verdict::Refuted, "{}: {}", c.id, o.summary());
        let not_shown = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&not_shown);
        assert_eq!(o.verdict, Verdict::NotShown, "{}: {}", c.id, o.summary());
    }
}

#[test]
fn every_invariant_breaks_on_one_bad_repetition() {
    let rec = shaped_like_the_books();
    for c in claims().invariants() {
        let broken = fixtures::not_shown(c, &rec).unwrap();
        let o = c.check(&broken);
        assert_eq!(
            (o.verdict.clone(), o.word()),
            (Verdict::Refuted, "broken"),
            "{}: {}",
            c.id,
            o.summary()
        );
    }
}
