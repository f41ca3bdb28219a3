//! Crate versions from a Cargo.lock. Used twice: by this crate's build script (the versions a
//! listing was built with, stored in its record) and by the book's preprocessor (the versions on
//! the title page). std only, so that the build script can include this file as it is.

use std::collections::BTreeMap;

/// `name → version` for every package in `lock`. Where the lock holds two versions of a crate
/// (one for us, one for a dependency), the one the workspace's own packages use wins: their
/// dependency lists name a version only in that case ("parking_lot 0.13.0").
pub fn versions(lock: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut ours = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let value = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches('"').to_string())
        };
        if let (Some(name), Some(version)) = (value("name = "), value("version = ")) {
            out.entry(name).or_insert(version);
        }
        // The workspace's packages have no `source`.
        if value("source = ").is_none() {
            for dep in block
                .lines()
                .map(|l| l.trim().trim_end_matches(',').trim_matches('"'))
            {
                let named = dep
                    .split_once(' ')
                    .filter(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit()));
                if let Some((n, v)) = named {
                    ours.push((n.to_string(), v.to_string()));
                }
            }
        }
    }
    out.extend(ours);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_version_wins_when_the_lock_holds_two() {
        let lock = r#"
version = 4

[[package]]
name = "ch99"
version = "0.1.0"
dependencies = [
 "parking_lot 0.13.0",
 "tokio",
]

[[package]]
name = "parking_lot"
version = "0.12.5"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "parking_lot"
version = "0.13.0"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "tokio"
version = "1.54.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        let v = versions(lock);
        assert_eq!(v["parking_lot"], "0.13.0");
        assert_eq!(v["tokio"], "1.54.1");
        assert_eq!(v["ch99"], "0.1.0");
        assert_eq!(v.len(), 3);
    }
}
