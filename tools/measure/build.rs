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
    // name=version for every package; where the lock holds two versions of a crate, the one the
    // workspace's own packages (no `source`) name in their dependency lists comes last and wins.
    let mut pairs = Vec::new();
    let mut preferred = Vec::new();
    for block in text.split("[[package]]").skip(1) {
        let value = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_string())
        };
        if let (Some(name), Some(version)) = (value("name = "), value("version = ")) {
            pairs.push(format!("{name}={version}"));
        }
        if value("source = ").is_none() {
            for dep in block
                .lines()
                .map(|l| l.trim().trim_end_matches(',').trim_matches('"'))
            {
                if let Some((n, v)) = dep
                    .split_once(' ')
                    .filter(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit()))
                {
                    preferred.push(format!("{n}={v}"));
                }
            }
        }
    }
    pairs.extend(preferred);
    println!("cargo:rustc-env=MEASURE_LOCKED={}", pairs.join(","));
}
