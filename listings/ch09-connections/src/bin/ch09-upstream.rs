//! The upstream of Chapter 9's experiments, in a process of its own so that its CPU time is its
//! own: `ch09-upstream good|expired|wrong-name`. It prints one JSON line (its addresses and
//! certificate), then answers each `counts` line on its input with a JSON line of its counts,
//! and exits when its input closes.

use ch09_connections::child::Started;
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::Upstream;
use std::io::{BufRead, Write};

fn main() {
    if let Err(e) = run() {
        eprintln!("ch09-upstream: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind: CertKind = match &args[..] {
        [kind] => kind.parse()?,
        _ => return Err("usage: ch09-upstream good|expired|wrong-name".into()),
    };
    install_crypto();
    let identity = make_identity(kind)?;
    // One worker: the upstream shares the two CPUs with the service that calls it.
    let runtime = measure::runtime(1)?;
    let upstream = runtime.block_on(Upstream::start(&identity))?;
    let started = Started {
        plain: upstream.plain,
        tls: upstream.tls,
        compress: upstream.compress,
        cert_pem: identity.cert_pem.clone(),
    };
    let mut out = std::io::stdout().lock();
    let line = |out: &mut std::io::StdoutLock, json: String| {
        writeln!(out, "{json}").and_then(|_| out.flush())
    };
    let json = serde_json::to_string(&started).map_err(|e| e.to_string())?;
    line(&mut out, json).map_err(|e| e.to_string())?;
    for command in std::io::stdin().lock().lines() {
        match command.map_err(|e| e.to_string())?.as_str() {
            "counts" => {
                let json = serde_json::to_string(&upstream.counts()).map_err(|e| e.to_string())?;
                line(&mut out, json).map_err(|e| e.to_string())?;
            }
            other => return Err(format!("unknown command {other:?} (counts)")),
        }
    }
    Ok(())
}
