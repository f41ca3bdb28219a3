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
        ("blocking", "0", "inline", "p99", "ns", &[1.207e+05, 7.757e+04, 1.939e+05, 1.46e+05, 1.411e+05, 4.895e+05, 6.426e+05, 1.262e+06, 9.005e+04, 5.693e+05]),
        ("blocking", "0", "spawn_blocking", "p99", "ns", &[4.984e+05, 1.649e+05, 1.144e+05, 8.845e+04, 9.83e+04, 1.635e+05, 4.836e+05, 6.298e+05, 4.705e+05, 4.521e+05]),
        ("blocking", "0", "block_in_place", "p99", "ns", &[6.932e+05, 7.558e+04, 1.932e+05, 5.34e+05, 2.685e+05, 1.332e+05, 9.364e+05, 3.93e+05, 4.756e+05, 1.507e+05]),
        ("blocking", "0", "rayon_lane", "p99", "ns", &[2.604e+05, 1.183e+05, 1.207e+05, 2.185e+05, 1.113e+05, 4.57e+05, 1.267e+06, 1.463e+05, 1.676e+05, 1.559e+05]),
        ("blocking", "1", "inline", "p99", "ns", &[3.657e+07, 3.641e+07, 3.559e+07, 3.683e+07, 3.555e+07, 3.641e+07, 3.588e+07, 3.729e+07, 3.631e+07, 3.621e+07]),
        ("blocking", "1", "spawn_blocking", "p99", "ns", &[1.08e+05, 1.755e+05, 6.036e+05, 4.288e+05, 5.128e+05, 4.928e+05, 5.883e+05, 8.812e+05, 2.258e+05, 2.737e+05]),
        ("blocking", "1", "inline", "heavy_job", "ms", &[37.56, 37.45, 33.43, 35.07, 32.83, 31.03, 33.57, 34.39, 32.99, 37.47]),
        ("blocking", "2", "inline", "p99", "ns", &[6.737e+07, 6.698e+07, 6.668e+07, 6.521e+07, 6.737e+07, 6.96e+07, 6.999e+07, 7.157e+07, 6.829e+07, 6.737e+07]),
        ("blocking", "2", "rayon_lane", "p99", "ns", &[1.059e+05, 1.389e+05, 1.824e+05, 4.227e+05, 5.806e+05, 1.099e+06, 1.284e+06, 1.071e+06, 5.128e+05, 5.13e+05]),
        ("blocking", "2", "spawn_blocking", "p99", "ns", &[1.235e+06, 2.796e+06, 2.982e+06, 2.212e+06, 2.943e+06, 2.839e+06, 2.839e+06, 2.927e+06, 2.271e+06, 2.634e+06]),
        ("blocking", "2", "block_in_place", "p99", "ns", &[1.664e+06, 2.953e+06, 1.269e+06, 3.445e+06, 1.878e+06, 3.445e+06, 2.677e+06, 4.428e+06, 3.258e+06, 2.992e+06]),
        ("blocking", "2", "rayon_lane", "heavy_job", "ms", &[46.13, 44.9, 45.09, 45.89, 46.84, 48.65, 48.44, 51.05, 49.5, 46.78]),
        ("blocking", "1", "rayon_lane", "heavy_job", "ms", &[29.92, 30.46, 30.22, 30.82, 30.42, 31.0, 31.27, 31.35, 31.21, 31.12]),
        ("blocking", "1", "block_in_place", "heavy_job", "ms", &[36.35, 40.81, 35.07, 40.85, 38.92, 40.28, 41.31, 40.92, 37.43, 35.45]),
        ("blocking", "1", "spawn_blocking", "heavy_job", "ms", &[30.42, 30.82, 30.16, 30.91, 30.47, 31.26, 31.17, 30.82, 30.63, 30.6]),
        ("blocking", "1", "block_in_place", "burn_wall", "ms", &[36.48, 39.72, 34.57, 39.57, 38.5, 38.86, 40.53, 40.1, 37.39, 35.47]),
        ("blocking", "1", "block_in_place", "burn_cpu", "ms", &[30.41, 30.97, 30.08, 30.69, 30.69, 30.67, 31.66, 31.1, 30.88, 30.5]),
        ("heavy_cost", "0.1", "inline", "p99", "ns", &[3.121e+05, 2.358e+05, 1.091e+05, 7.455e+05, 1.893e+05, 1.244e+05, 1.622e+05, 2.152e+05, 1.12e+05, 2.157e+05]),
        ("heavy_cost", "1", "inline", "p99", "ns", &[1.079e+06, 1.09e+06, 1.074e+06, 1.087e+06, 1.065e+06, 1.079e+06, 1.064e+06, 1.086e+06, 1.213e+06, 1.079e+06]),
        ("heavy_cost", "1", "inline", "heavy_job", "ms", &[1.394, 1.403, 1.398, 1.4, 1.387, 1.394, 1.362, 1.382, 1.407, 1.405]),
        ("heavy_cost", "10", "inline", "p99", "ns", &[1.319e+07, 1.228e+07, 1.363e+07, 1.268e+07, 1.29e+07, 1.342e+07, 1.346e+07, 1.301e+07, 1.306e+07, 1.348e+07]),
        ("heavy_cost", "10", "inline", "heavy_job", "ms", &[13.66, 12.13, 14.1, 11.25, 13.43, 13.86, 14.04, 13.49, 13.62, 14.08]),
        ("spawn_path", "injection", "inline", "p99", "ns", &[3.644e+07, 3.627e+07, 3.542e+07, 3.624e+07, 3.598e+07, 3.588e+07, 3.565e+07, 3.641e+07, 3.693e+07, 3.233e+07]),
        ("spawn_path", "accept_loop", "inline", "p99", "ns", &[3.575e+07, 3.585e+07, 3.641e+07, 3.627e+07, 3.411e+07, 3.256e+07, 3.608e+07, 3.405e+07, 3.673e+07, 3.295e+07]),
        ("spawn_path", "accept_loop", "spawn_blocking", "p99", "ns", &[1.371e+05, 1.084e+06, 6.164e+05, 1.264e+05, 1.224e+05, 1.796e+05, 1.91e+05, 9.641e+05, 4.283e+05, 1.268e+05]),
        ("blocking", "1", "inline", "tick_lag_max", "ns", &[4.137e+07, 3.996e+07, 3.921e+07, 4.449e+07, 3.791e+07, 3.905e+07, 4.573e+07, 4.621e+07, 4.026e+07, 4.043e+07]),
        ("blocking", "1", "spawn_blocking", "tick_lag_max", "ns", &[1.944e+06, 3.365e+06, 4.387e+06, 1.546e+06, 2.884e+06, 1.798e+06, 1.802e+06, 3.297e+06, 1.559e+06, 1.665e+06]),
        ("blocking", "1", "inline", "light_first_poll_delay", "ns", &[5.695e+06, 5.632e+06, 5.405e+06, 5.74e+06, 5.396e+06, 5.521e+06, 5.738e+06, 5.95e+06, 5.634e+06, 5.634e+06]),
        ("blocking", "1", "spawn_blocking", "light_first_poll_delay", "ns", &[2.217e+04, 2.016e+04, 2.706e+04, 2.166e+04, 2.288e+04, 2.391e+04, 2.204e+04, 2.79e+04, 2.653e+04, 2.487e+04]),
        ("blocking", "1", "block_in_place", "heavy_slow_polls", "count", &[21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0, 21.0]),
        ("blocking", "1", "inline", "gen_share_of_p99", "%", &[0.08772, 0.05762, 0.02096, 0.8257, 0.05216, 0.01698, 2.2, 3.998, 0.2038, 1.071]),
        ("blocking", "2", "spawn_blocking", "gen_share_of_p99", "%", &[76.99, 64.47, 79.05, 60.42, 91.37, 81.96, 92.42, 77.89, 70.74, 74.22]),
    ];
    Record::sketch("ch01-blocking", "test", &[("workers", 1.0)], cells)
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
