//! The exercise's test: it counts the connections the upstream accepted instead of timing the
//! calls. Twenty items, fetched one after another, must travel on one connection.

use ch09_connections::exercise::sum_digests;
use ch09_connections::tls::{CertKind, install_crypto, make_identity};
use ch09_connections::upstream::{Upstream, item_digest};

// ANCHOR: exercise_test
#[tokio::test]
async fn every_item_travels_on_one_connection() {
    install_crypto();
    let identity = make_identity(CertKind::Good).unwrap();
    let upstream = Upstream::start(&identity).await.unwrap();
    let cert = reqwest::Certificate::from_pem(identity.cert_pem.as_bytes()).unwrap();
    let ids: Vec<u64> = (0..20).collect();

    let base = format!("https://{}", upstream.tls);
    let sum = sum_digests(&cert, &base, &ids).await.unwrap();

    let expected = ids
        .iter()
        .fold(0u64, |s, id| s.wrapping_add(item_digest(*id)));
    assert_eq!(sum, expected, "every item is fetched once");
    let counts = upstream.counts();
    assert_eq!(counts.requests, 20);
    assert_eq!(
        counts.connections,
        1,
        "{} connections and {} TLS handshakes for 20 calls: keep one client, and its pool",
        counts.connections,
        counts.full_handshakes + counts.resumed_handshakes
    );
}
// ANCHOR_END: exercise_test
