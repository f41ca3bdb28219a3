//! The chapter's claims (claims.toml) judged on a record made by hand, shaped like the book's:
//! the cells the claims read, with each repetition's value as the reference run of
//! 2026-12-01 measured it, to four digits. Every conclusion is held there and every
//! invariant holds; and for each one, a record made by moving its figures past its bound shows
//! that it can be refuted, and that a few repetitions past the bound leave a conclusion not shown
//! (`measure::claims::fixtures`). The measured records are checked by `cargo run -p book -- check`.

use measure::Claims;
use measure::claims::fixtures;
use measure::record::{Record, SketchCell};

fn claims() -> Claims {
    Claims::parse(include_str!("../claims.toml")).expect("claims.toml parses")
}

// Measured values, some of which happen to lie near mathematical constants.
#[allow(clippy::approx_constant)]
fn shaped_like_the_books() -> Record {
    #[rustfmt::skip]
    let cells: &[SketchCell] = &[
        ("blocking", "0", "inline", "p99", "ns", &[1.183e+05, 1.418e+05, 9.696e+04, 1.769e+05, 7.565e+04, 1.443e+05, 9.504e+04, 7.155e+04, 8.57e+04, 1.027e+05]),
        ("blocking", "0", "spawn_blocking", "p99", "ns", &[1.551e+05, 1.349e+05, 1.211e+05, 4.572e+05, 8.506e+04, 8.045e+04, 9.76e+04, 1.343e+05, 1.085e+05, 1.32e+05]),
        ("blocking", "0", "block_in_place", "p99", "ns", &[1.358e+05, 2.04e+05, 9.792e+04, 1.366e+05, 7.277e+04, 1.413e+05, 9.363e+04, 8.109e+04, 9.043e+04, 1.041e+05]),
        ("blocking", "0", "rayon_lane", "p99", "ns", &[1.503e+05, 1.161e+05, 7.974e+04, 1.884e+05, 1.238e+05, 1.173e+05, 1.008e+05, 9.331e+04, 8.493e+04, 1.258e+05]),
        ("blocking", "1", "inline", "p99", "ns", &[3.539e+07, 3.582e+07, 3.549e+07, 3.539e+07, 3.549e+07, 3.477e+07, 3.513e+07, 3.513e+07, 3.506e+07, 3.418e+07]),
        ("blocking", "1", "spawn_blocking", "p99", "ns", &[8.658e+05, 1.085e+05, 9.318e+04, 2.477e+05, 5.381e+05, 1.027e+05, 1.39e+05, 2.911e+05, 1.092e+05, 1.763e+05]),
        ("blocking", "1", "inline", "heavy_job", "ms", &[32.51, 36.59, 34.83, 34.39, 33.03, 32.15, 32.72, 31.27, 31.77, 34.79]),
        ("blocking", "2", "inline", "p99", "ns", &[6.609e+07, 6.534e+07, 6.439e+07, 6.724e+07, 6.616e+07, 6.57e+07, 6.426e+07, 6.514e+07, 6.462e+07, 6.606e+07]),
        ("blocking", "2", "rayon_lane", "p99", "ns", &[6.584e+05, 4.165e+05, 1.188e+05, 1.272e+05, 2.243e+05, 7.853e+04, 1.888e+05, 9.818e+04, 1.005e+05, 1.76e+05]),
        ("blocking", "2", "spawn_blocking", "p99", "ns", &[2.505e+06, 3.006e+06, 1.867e+06, 1.653e+06, 2.765e+06, 3.172e+06, 1.709e+06, 2.515e+06, 5.745e+05, 2.898e+06]),
        ("blocking", "2", "block_in_place", "p99", "ns", &[2.955e+06, 4.387e+06, 3.67e+06, 2.421e+06, 1.139e+06, 3.414e+06, 3.404e+06, 4.69e+05, 4.108e+06, 3.176e+06]),
        ("blocking", "2", "rayon_lane", "heavy_job_mean", "ms", &[46.04, 46.22, 44.19, 45.71, 46.96, 44.4, 45.4, 44.15, 44.08, 47.82]),
        ("blocking", "1", "rayon_lane", "heavy_job_mean", "ms", &[34.26, 30.17, 30.26, 30.19, 30.37, 30.02, 30.01, 30.02, 29.93, 29.79]),
        ("blocking", "1", "block_in_place", "heavy_job", "ms", &[39.43, 40.52, 40.5, 40.25, 33.29, 39.62, 39.37, 39.91, 39.99, 40.26]),
        ("blocking", "1", "spawn_blocking", "heavy_job", "ms", &[31.27, 29.63, 29.62, 29.62, 30.21, 29.69, 29.67, 29.89, 29.86, 29.76]),
        ("blocking", "1", "block_in_place", "burn_wall", "ms", &[38.42, 39.03, 39.18, 38.63, 33.79, 37.81, 38.13, 38.96, 38.74, 38.51]),
        ("blocking", "1", "block_in_place", "burn_cpu", "ms", &[30.15, 30.53, 30.96, 30.53, 29.23, 29.87, 29.9, 29.97, 30.03, 30.31]),
        ("blocking", "1", "inline", "burn_wall", "ms", &[33.91, 33.96, 33.74, 33.65, 33.59, 33.09, 33.43, 33.19, 33.02, 33.12]),
        ("blocking", "1", "inline", "burn_cpu", "ms", &[30.22, 29.66, 29.86, 29.98, 29.76, 29.66, 29.9, 29.83, 29.52, 30.08]),
        ("heavy_cost", "0.1", "inline", "p99", "ns", &[2.132e+05, 2.02e+05, 1.505e+05, 5.084e+05, 1.425e+05, 1.199e+05, 1.246e+05, 1.499e+05, 3.784e+05, 3.715e+05]),
        ("heavy_cost", "3", "inline", "p99", "ns", &[3.84e+06, 3.826e+06, 4.065e+06, 3.893e+06, 3.863e+06, 3.85e+06, 3.817e+06, 3.871e+06, 3.842e+06, 4.028e+06]),
        ("heavy_cost", "1", "spawn_blocking", "p99", "ns", &[7.578e+05, 8.049e+05, 7.844e+05, 7.875e+05, 7.864e+05, 8.197e+05, 7.875e+05, 8.013e+05, 8.192e+05, 7.7e+05]),
        ("heavy_cost", "1", "inline", "p99", "ns", &[1.094e+06, 1.245e+06, 1.241e+06, 1.221e+06, 1.08e+06, 1.082e+06, 1.082e+06, 1.224e+06, 1.087e+06, 1.311e+06]),
        ("heavy_cost", "1", "inline", "heavy_job", "ms", &[1.423, 1.389, 1.388, 1.389, 1.4, 1.391, 1.381, 1.396, 1.392, 1.388]),
        ("heavy_cost", "10", "inline", "p99", "ns", &[1.202e+07, 1.327e+07, 1.305e+07, 1.218e+07, 1.326e+07, 1.295e+07, 1.339e+07, 1.332e+07, 1.334e+07, 1.305e+07]),
        ("heavy_cost", "10", "inline", "heavy_job", "ms", &[12.44, 13.64, 13.47, 12.64, 13.74, 12.71, 13.85, 13.01, 13.75, 13.61]),
        ("spawn_path", "injection", "inline", "p99", "ns", &[3.559e+07, 3.545e+07, 3.545e+07, 3.559e+07, 3.565e+07, 3.144e+07, 3.631e+07, 3.559e+07, 3.686e+07, 3.611e+07]),
        ("spawn_path", "accept_loop", "inline", "p99", "ns", &[3.575e+07, 3.251e+07, 3.568e+07, 3.634e+07, 3.696e+07, 3.732e+07, 3.644e+07, 3.637e+07, 3.657e+07, 3.621e+07]),
        ("spawn_path", "accept_loop", "spawn_blocking", "p99", "ns", &[1.437e+05, 1.929e+05, 4.982e+05, 1.443e+05, 9.062e+04, 6.769e+05, 9.818e+04, 1.321e+05, 4.14e+05, 2.1e+05]),
        ("blocking", "1", "inline", "tick_lag_max", "ns", &[4.039e+07, 3.816e+07, 3.9e+07, 3.532e+07, 3.659e+07, 3.924e+07, 3.811e+07, 3.77e+07, 3.926e+07, 3.606e+07]),
        ("blocking", "1", "spawn_blocking", "tick_lag_max", "ns", &[3.602e+06, 1.567e+06, 1.251e+06, 1.63e+06, 2.501e+06, 1.249e+06, 2.582e+06, 1.806e+06, 1.245e+06, 1.574e+06]),
        ("blocking", "1", "inline", "light_first_poll_delay", "ns", &[5.441e+06, 5.476e+06, 5.379e+06, 5.357e+06, 5.335e+06, 5.171e+06, 5.281e+06, 5.204e+06, 5.144e+06, 5.122e+06]),
        ("blocking", "1", "spawn_blocking", "light_first_poll_delay", "ns", &[2.199e+04, 1.805e+04, 1.789e+04, 2.037e+04, 2.728e+04, 2.145e+04, 2.119e+04, 2.331e+04, 1.854e+04, 2.784e+04]),
        ("blocking", "1", "inline", "gen_share_of_p99", "%", &[2.02, 0.3974, 0.02786, 0.2546, 0.122, 0.09683, 0.01194, 0.09474, 0.03354, 6.771]),
        ("blocking", "2", "spawn_blocking", "gen_share_of_p99", "%", &[65.66, 68.63, 78.99, 75.59, 83.93, 68.75, 70.76, 75.41, 51.52, 74.13]),
        ("blocking", "1", "block_in_place", "heavy_mean_slow_poll", "ns", &[3.844e+07, 3.906e+07, 3.921e+07, 3.87e+07, 3.381e+07, 3.784e+07, 3.816e+07, 3.899e+07, 3.877e+07, 3.854e+07]),
    ];
    Record::sketch("ch01-blocking", "test", &[("workers", 1.0)], cells)
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
