//! Embeds what a record must say about how it was built: the optimisation level, the compiler
//! and the versions of the crates in the workspace's Cargo.lock.
use std::process::Command;

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
    let mut pairs = Vec::new();
    let mut name = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name.take()) {
            pairs.push(format!("{n}={}", v.trim_matches('"')));
        }
    }
    println!("cargo:rustc-env=MEASURE_LOCKED={}", pairs.join(","));
}
