//! Embeds what a record must say about how it was built: the optimisation level, the compiler
//! and the versions of the crates in the workspace's Cargo.lock.
use std::process::Command;

#[path = "../records/src/lockfile.rs"]
mod lockfile;

fn main() {
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=MEASURE_OPT_LEVEL={opt}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=MEASURE_RUSTC={}", version.trim());
    let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    println!("cargo:rerun-if-changed={lock}");
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let pairs: Vec<String> = lockfile::versions(&text)
        .into_iter()
        .map(|(name, version)| format!("{name}={version}"))
        .collect();
    println!("cargo:rustc-env=MEASURE_LOCKED={}", pairs.join(","));
}
