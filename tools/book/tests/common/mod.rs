//! What the book driver's tests of a whole workspace share.

use std::path::Path;
use std::process::Command;

/// Runs `book ARGS` in `root`: (success, what it printed, stdout then stderr).
pub fn run_book(root: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_book"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}
