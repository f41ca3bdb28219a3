//! An upstream that fails: nobody listening, a listener that never answers, and a certificate
//! that is expired or names another host. Each is a clear error of its own kind, counted by the
//! upstream where it got that far, and never a hang: the client's timeouts end every call.

use ch09_connections::calls::{CALL_TIMEOUT, Failure, call_shared, new_client};
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::Upstream;
use std::time::Duration;
use tokio::net::TcpListener;

/// Far past the client's own limit: reaching it would mean the call hangs.
const HANG: Duration = Duration::from_secs(30);
const _: () = assert!(CALL_TIMEOUT.as_secs() < HANG.as_secs());

/// An upstream presenting a certificate of `kind`, and a client that trusts that certificate:
/// only its dates or its name can fail.
async fn upstream_and_client(kind: CertKind) -> (Upstream, reqwest::Client) {
    install_crypto();
    let identity = make_identity(kind).unwrap();
    let upstream = Upstream::start(&identity).await.unwrap();
    let cert = reqwest::Certificate::from_pem(identity.cert_pem.as_bytes()).unwrap();
    (upstream, new_client(&cert).unwrap())
}

async fn call(cert_kind: CertKind, base: impl FnOnce(&Upstream) -> String) -> (Failure, Upstream) {
    let (upstream, client) = upstream_and_client(cert_kind).await;
    let url = base(&upstream);
    let outcome = tokio::time::timeout(HANG, call_shared(&client, &url, 7)).await;
    let failure = outcome
        .expect("the call hung")
        .expect_err("the call succeeded");
    (failure, upstream)
}

#[tokio::test]
async fn an_expired_certificate_is_rejected_and_counted() {
    let (failure, upstream) = call(CertKind::Expired, |u| format!("https://{}", u.tls)).await;
    assert!(matches!(failure, Failure::Certificate(_)), "{failure}");
    assert!(failure.to_string().contains("expired"), "{failure}");
    tokio::time::sleep(Duration::from_millis(50)).await; // the server's side of the handshake ends
    let counts = upstream.counts();
    assert_eq!((counts.failed_handshakes, counts.requests), (1, 0));
}

#[tokio::test]
async fn a_certificate_for_another_name_is_rejected_and_counted() {
    let (failure, upstream) = call(CertKind::WrongName, |u| format!("https://{}", u.tls)).await;
    assert!(matches!(failure, Failure::Certificate(_)), "{failure}");
    assert!(
        failure.to_string().contains("not valid for name"),
        "{failure}"
    );
    tokio::time::sleep(Duration::from_millis(50)).await; // the server's side of the handshake ends
    let counts = upstream.counts();
    assert_eq!((counts.failed_handshakes, counts.requests), (1, 0));
}

#[tokio::test]
async fn plain_http_to_the_tls_port_fails_without_hanging() {
    let (failure, _) = call(CertKind::Good, |u| format!("http://{}", u.tls)).await;
    assert!(!matches!(failure, Failure::Certificate(_)), "{failure}");
}

#[tokio::test]
async fn nobody_listening_is_refused_at_once() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap().port()
    }; // dropped: nothing listens there now
    let (failure, _) = call(CertKind::Good, |_| format!("http://127.0.0.1:{port}")).await;
    assert!(matches!(failure, Failure::Refused(_)), "{failure}");
}

/// A listener that accepts every connection, reads nothing and writes nothing; the task that
/// holds its connections.
async fn silent_listener() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            open.push(stream);
        }
    });
    (addr, held)
}

#[tokio::test]
async fn a_listener_that_never_answers_times_out() {
    let (addr, held) = silent_listener().await;
    let (failure, _) = call(CertKind::Good, |_| format!("http://{addr}")).await;
    // Connected: the call's own timeout ended it, not the connect timeout.
    assert!(
        matches!(&failure, Failure::TimedOut(e) if !e.is_connect()),
        "{failure}"
    );
    held.abort();
}

#[tokio::test]
async fn a_tls_listener_that_never_answers_times_out() {
    // No ServerHello ever comes: the handshake waits, and only the client's timeouts end the call.
    let (addr, held) = silent_listener().await;
    let (failure, _) = call(CertKind::Good, |_| format!("https://{addr}")).await;
    // reqwest's connect timeout covers the handshake (`with_timeout` around the whole connector).
    assert!(
        matches!(&failure, Failure::TimedOut(e) if e.is_connect()),
        "{failure}"
    );
    held.abort();
}

#[tokio::test]
async fn a_wrong_path_is_an_error_status_not_an_answer() {
    let (upstream, client) = upstream_and_client(CertKind::Good).await;
    let request = client.get(format!("http://{}/nothing", upstream.plain));
    let failure = ch09_connections::calls::fetch_digest(request)
        .await
        .unwrap_err();
    assert!(failure.to_string().contains("404"), "{failure}");
}
