//! The exercise's test: it counts the connections the upstream accepted instead of timing the
//! calls. The service starts, then serves two requests of ten items each: all twenty must
//! travel on one connection.

use ch09_connections::exercise::{catalog, sum_digests};
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::{Upstream, item_digest};

// ANCHOR: exercise_test
#[tokio::test]
async fn every_request_shares_one_connection() {
    install_crypto();
    let identity = make_identity(CertKind::Good).unwrap();
    let upstream = Upstream::start(&identity).await.unwrap();
    let cert = reqwest::Certificate::from_pem(identity.cert_pem.as_bytes()).unwrap();
    let ids: Vec<u64> = (0..20).collect();

    // The service starts once, then serves two requests.
    let catalog = catalog(&cert, &format!("https://{}", upstream.tls)).unwrap();
    let first = sum_digests(&catalog, &ids[..10]).await.unwrap();
    let second = sum_digests(&catalog, &ids[10..]).await.unwrap();

    let expected = ids
        .iter()
        .fold(0u64, |s, id| s.wrapping_add(item_digest(*id)));
    assert_eq!(
        first.wrapping_add(second),
        expected,
        "every item is fetched once"
    );
    let counts = upstream.counts();
    assert_eq!(counts.requests, 20);
    assert_eq!(
        counts.connections,
        1,
        "{} connections, {} TLS handshakes for two requests: keep one client, and its pool",
        counts.connections,
        counts.full_handshakes + counts.resumed_handshakes
    );
}
// ANCHOR_END: exercise_test
