//! The listing's command line: bad input gets a clear error and a non-zero exit, and
//! a run leaves no server and no directory behind however it ends: interrupted
//! (Ctrl-C), or failing because its database stopped mid-run (nothing saved).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn listing() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ch08-database"))
}

#[test]
fn an_unknown_flag_is_refused() {
    let out = listing().arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_bad_port_is_refused() {
    let out = listing().args(["--pg-port", "seventy"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pg-port"));
}

/// The server the run started: its postmaster's pid and its temporary directory,
/// from the line the listing prints once it is up.
struct Started {
    child: Child,
    pid: u32,
    dir: PathBuf,
}

fn start_a_long_run(out: &std::path::Path) -> Started {
    let mut child = listing()
        .args(["--filter", "pool_wait", "--reps", "20", "--out"])
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("PostgreSQL "))
        .expect("the listing says where its server runs");
    // "PostgreSQL 15 on 127.0.0.1:PORT (pid N, data DIR/data)"
    let pid: u32 = line
        .split("(pid ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let data = line.split("data ").nth(1).unwrap().trim_end_matches(')');
    let dir = PathBuf::from(data).parent().unwrap().to_path_buf();
    // Keep reading so that the listing never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    std::thread::sleep(Duration::from_millis(1500)); // into the first cells
    Started { child, pid, dir }
}

fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.rsplit_once(") ").is_some_and(|(_, r)| r.starts_with('Z')))
        .unwrap_or(true)
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: kill has no memory preconditions.
    assert_eq!(
        unsafe { libc::kill(pid as i32, sig) },
        0,
        "signal {sig} to {pid}"
    );
}

#[test]
fn an_interrupted_run_leaves_nothing_behind() {
    let out = std::env::temp_dir()
        .join(format!("ch08-cli-int-{}.json", std::process::id()));
    let mut run = start_a_long_run(&out);
    signal(run.child.id(), libc::SIGINT);
    let status = run.child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "Ctrl-C ends the run with 130");
    assert!(gone(run.pid), "postgres (pid {}) still runs", run.pid);
    assert!(!run.dir.exists(), "{} is left behind", run.dir.display());
    assert!(!out.exists(), "an interrupted run saved {}", out.display());
}

#[test]
fn a_database_stopped_mid_run_fails_the_run_and_saves_nothing() {
    let out = std::env::temp_dir()
        .join(format!("ch08-cli-stop-{}.json", std::process::id()));
    let mut run = start_a_long_run(&out);
    signal(run.pid, libc::SIGQUIT); // PostgreSQL's immediate shutdown
    let status = run.child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "the run fails");
    assert!(!run.dir.exists(), "{} is left behind", run.dir.display());
    assert!(!out.exists(), "a failed run saved {}", out.display());
}
