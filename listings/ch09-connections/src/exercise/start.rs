//! The starting point: fix it so that every request's items travel on one connection.

use ch09_connections::calls::{Failure, fetch_digest, new_client};
use ch09_connections::upstream::item_path;
use reqwest::Certificate;

// ANCHOR: start
/// What the service keeps, from its start to its end, for calling the catalogue upstream.
pub struct Catalog {
    cert: Certificate,
    base: String,
}

/// Made once, when the service starts.
pub fn catalog(cert: &Certificate, base: &str) -> Result<Catalog, Failure> {
    Ok(Catalog {
        cert: cert.clone(),
        base: base.to_string(),
    })
}

/// One request's work: fetches every item in `ids` and adds up their digests.
pub async fn sum_digests(catalog: &Catalog, ids: &[u64]) -> Result<u64, Failure> {
    let mut sum = 0u64;
    for id in ids {
        let client = new_client(&catalog.cert).map_err(Failure::Build)?;
        let url = format!("{}{}", catalog.base, item_path(*id));
        sum = sum.wrapping_add(fetch_digest(client.get(url)).await?);
    }
    Ok(sum)
}
// ANCHOR_END: start
