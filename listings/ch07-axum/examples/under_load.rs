//! The service in this process, two workers, with `2 × workers` clients keeping
//! /hash/inline busy; then either oha measures /ping (`oha`) or the internal port's
//! profiler samples the process for three seconds (`flamegraph PATH`).
//!
//! `cargo run -q -p ch07-axum --example under_load -- oha`
//! `cargo run -q -p ch07-axum --example under_load -- flamegraph inline.svg`

use ch07_axum::load::{Expect, Generator, Request};
use ch07_axum::server::start;
use ch07_axum::service::{AppState, Config, hash, routes, with_layers};
use std::process::Command;

const WORKERS: usize = 2;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let config = Config::for_cores(WORKERS);
    let state = AppState::new(&config);
    let app = with_layers(routes(state.clone()), &config);
    let running = server_rt
        .block_on(start(app, &state, 0, 0))
        .map_err(|e| e.to_string())?;
    let password = "correct horse battery staple";
    let answer = Expect::Body(hash(password).map_err(|s| s.to_string())?.into());
    let generator = Generator::new(running.addr)?;
    let busy = generator.busy(
        &Request::post("/hash/inline", password, answer),
        2 * WORKERS,
    );
    let result = match args.first().map(String::as_str) {
        Some("oha") => oha(running.addr),
        Some("flamegraph") => match args.get(1) {
            Some(path) => flamegraph(running.internal, path),
            None => Err("flamegraph PATH: where to write the SVG".into()),
        },
        _ => Err("usage: under_load oha | under_load flamegraph PATH".into()),
    };
    let (hashed, took) = generator.finish(busy)?;
    println!(
        "meanwhile: {} hashes on /hash/inline in {:.1} s",
        hashed.ok,
        took.as_secs_f64()
    );
    println!("unexpected answers: {}", hashed.errors.describe());
    server_rt
        .block_on(running.shut_down())
        .map_err(|e| e.to_string())?;
    result
}

// ANCHOR: oha
/// oha at 100 requests a second for five seconds over up to 32 connections,
/// latency measured from each request's scheduled time (`--latency-correction`).
fn oha(addr: std::net::SocketAddr) -> Result<(), String> {
    let out = Command::new("oha")
        .args(["--no-tui", "-z", "5s", "-q", "100", "--latency-correction"])
        .args(["--wait-ongoing-requests-after-deadline", "-c", "32"])
        .arg(format!("http://{addr}/ping"))
        .output()
        .map_err(|e| format!("cannot run oha (is it installed?): {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    // The histogram's bars vary in length from run to run: left out.
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        println!("{}", line.split(" |").next().unwrap_or(line).trim_end());
    }
    Ok(())
}
// ANCHOR_END: oha

/// Three seconds of the process's CPU profile, as the internal port serves it.
fn flamegraph(internal: std::net::SocketAddr, path: &str) -> Result<(), String> {
    let svg = Generator::new(internal)?.fetch(&Request::get(
        "/debug/pprof/flamegraph?seconds=3",
        Expect::Any,
    ))?;
    std::fs::write(path, &svg).map_err(|e| format!("{path}: {e}"))?;
    let text = String::from_utf8_lossy(&svg);
    let argon2 = widest_frame_share(&text, "argon2");
    println!("3 s of profile: {} KiB of SVG in {path}", svg.len() / 1024);
    println!("frames in argon2: {:.0}% of the samples", argon2 * 100.0);
    Ok(())
}

/// The share of the samples under the widest frame whose name contains `name`
/// (inferno writes each frame's share in its title: "fn (N samples, P%)").
fn widest_frame_share(svg: &str, name: &str) -> f64 {
    svg.split("<title>")
        .filter_map(|t| t.split("</title>").next())
        .filter(|t| t.contains(name))
        .filter_map(|t| {
            let pct = t.rsplit(", ").next()?.strip_suffix("%)")?;
            pct.parse::<f64>().ok()
        })
        .fold(0.0, f64::max)
        / 100.0
}
