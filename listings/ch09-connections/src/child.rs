//! The upstream in a process of its own (`ch09-upstream`): started, asked for its counts over
//! its standard input and output, and stopped when dropped.

use ch09_connections::tls::CertKind;
use ch09_connections::upstream::Counts;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

/// The first line the upstream prints: where it listens, and the certificate it presents.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Started {
    pub plain: SocketAddr,
    pub tls: SocketAddr,
    pub compress: SocketAddr,
    pub cert_pem: String,
}

/// A running upstream process.
pub struct UpstreamProcess {
    pub started: Started,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl UpstreamProcess {
    /// Starts `ch09-upstream` (built beside this program) presenting a certificate of `kind`.
    pub fn start(kind: CertKind) -> Result<UpstreamProcess, String> {
        let path = binary()?;
        let mut child = Command::new(path)
            .arg(kind.name())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
        let input = child.stdin.take().ok_or("the upstream has no input")?;
        let mut output = BufReader::new(child.stdout.take().ok_or("the upstream has no output")?);
        let started = read_json(&mut output, "its addresses")?;
        Ok(UpstreamProcess {
            started,
            child,
            input,
            output,
        })
    }

    /// What the upstream has counted, and its CPU time, now.
    pub fn counts(&mut self) -> Result<Counts, String> {
        writeln!(self.input, "counts").map_err(|e| format!("the upstream stopped: {e}"))?;
        read_json(&mut self.output, "its counts")
    }
}

/// The upstream's program, found (and brought up to date by cargo) once per run.
fn binary() -> Result<&'static PathBuf, String> {
    static PATH: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PATH.get_or_init(|| measure::child::sibling_binary("ch09-connections", "ch09-upstream"))
        .as_ref()
        .map_err(Clone::clone)
}

impl Drop for UpstreamProcess {
    fn drop(&mut self) {
        // Closing its input ends it; kill in case it is stuck.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_json<T: serde::de::DeserializeOwned>(
    output: &mut impl BufRead,
    what: &str,
) -> Result<T, String> {
    let mut line = String::new();
    output
        .read_line(&mut line)
        .map_err(|e| format!("reading the upstream's {what}: {e}"))?;
    serde_json::from_str(&line)
        .map_err(|e| format!("the upstream's {what}: {e} in {:?}", line.trim()))
}
