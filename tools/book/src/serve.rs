//! `book serve`: the built book on 127.0.0.1, for reading while writing. A preview server, not a
//! web server: GET and HEAD of files under the book folder, one thread per connection, nothing
//! else. It keeps the book's own build small (no HTTP stack to compile before the first page).

use anyhow::{Context, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

pub fn serve(dir: &Path, port: u16) -> Result<()> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let listener = TcpListener::bind(addr)
        .with_context(|| format!("cannot listen on {addr} (is it in use? try --port)"))?;
    eprintln!("serving the book at http://{addr}/ (Ctrl-C to stop)");
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            let _ = answer(stream, &dir);
        });
    }
    Ok(())
}

/// Reads one request line, answers it, and closes the connection.
fn answer(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    // The request line only, at most 8 KiB of it.
    let mut line = String::new();
    BufReader::new(std::io::Read::take(&stream, 8192)).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, kind, body) = match (method, file_for(dir, target)) {
        ("GET" | "HEAD", Some(path)) => match std::fs::read(&path) {
            Ok(bytes) => ("200 OK", content_type(&path), bytes),
            Err(_) => not_found(dir),
        },
        ("GET" | "HEAD", None) => not_found(dir),
        _ => (
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n".to_vec(),
        ),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

fn not_found(dir: &Path) -> (&'static str, &'static str, Vec<u8>) {
    let page = std::fs::read(dir.join("404.html")).unwrap_or_else(|_| b"not found\n".to_vec());
    ("404 Not Found", "text/html; charset=utf-8", page)
}

/// The file a request path names under `dir`, or `None` when it would leave `dir` or does not
/// exist; a folder means its index.html.
pub fn file_for(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path)?;
    let mut out = dir.to_path_buf();
    for part in Path::new(decoded.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    out.is_file().then_some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub(crate) fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "pdf" => "application/pdf",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_files_under_the_book_and_nothing_outside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("index.html"), "home").unwrap();
        std::fs::write(dir.path().join("sub/a b.html"), "a").unwrap();
        let d = dir.path();
        assert_eq!(file_for(d, "/"), Some(d.join("index.html")));
        assert_eq!(
            file_for(d, "/sub/a%20b.html#x"),
            Some(d.join("sub/a b.html"))
        );
        assert_eq!(file_for(d, "/../etc/passwd"), None);
        assert_eq!(file_for(d, "/sub/%2e%2e/%2e%2e/x"), None);
        assert_eq!(file_for(d, "/missing.html"), None);
        assert_eq!(file_for(d, "/%zz"), None);
    }
}
