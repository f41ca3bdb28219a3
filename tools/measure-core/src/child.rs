//! Measurements in a process of their own: a listing runs a child binary (itself, or
//! a sibling built with another allocator) and reads the one JSON line it prints.

use std::path::PathBuf;
use std::str::FromStr;

/// The binary `name` of `package`, beside the running program. `cargo run` builds only the
/// program it runs, so when cargo runs this program the sibling is built (or brought up to date:
/// a stale child would measure old code) in the same profile; without cargo, it must exist.
pub fn sibling_binary(package: &str, name: &str) -> Result<PathBuf, String> {
    binary_in_profile(package, name, None)
}

/// The binary `name` of `package` built with Cargo profile `profile` (`None`: the profile of the
/// running program), brought up to date when cargo runs this program, else as found.
pub fn binary_in_profile(
    package: &str,
    name: &str,
    profile: Option<&str>,
) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let here = exe.parent().ok_or("cannot find the target folder")?;
    let (dir, profile) = match profile {
        Some(p) => (here.parent().ok_or("no target folder")?.join(p), p),
        // A profile builds into a folder of its name, except `dev`, which builds into `debug`.
        None => match here.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => (here.to_path_buf(), "dev"),
            Some(folder) => (here.to_path_buf(), folder),
        },
    };
    let path = dir.join(name);
    let Ok(cargo) = std::env::var("CARGO") else {
        return Some(path.clone()).filter(|p| p.is_file()).ok_or(format!(
            "{} is missing: build it with `cargo build -p {package} --bin {name} --profile {profile}`",
            path.display()
        ));
    };
    if !path.is_file() {
        eprintln!("building {name} with --profile {profile} (once)");
    }
    let ok = std::process::Command::new(cargo)
        .args([
            "build",
            "-q",
            "-p",
            package,
            "--bin",
            name,
            "--profile",
            profile,
        ])
        .status()
        .is_ok_and(|s| s.success());
    if !ok || !path.is_file() {
        return Err(format!("could not build {}", path.display()));
    }
    Ok(path)
}

/// Argument `i` of a child's command line, parsed, or an error naming it.
pub fn arg<T: FromStr>(args: &[String], i: usize, what: &str) -> Result<T, String> {
    args.get(i)
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("argument {i} ({what}) missing or malformed in {args:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_is_parsed_or_named_in_the_error() {
        let args: Vec<String> = ["7", "x"].iter().map(|s| s.to_string()).collect();
        assert_eq!(arg::<u32>(&args, 0, "count"), Ok(7));
        let bad = arg::<u32>(&args, 1, "count").unwrap_err();
        assert!(bad.contains("argument 1 (count)"), "{bad}");
        assert!(
            arg::<u32>(&args, 2, "size")
                .unwrap_err()
                .contains("argument 2 (size)")
        );
    }
}
