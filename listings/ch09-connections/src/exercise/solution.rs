//! A solution: the client, and so its pool of connections, is made with the service and lives
//! as long as it does.

use ch09_connections::calls::{Failure, fetch_digest, new_client};
use ch09_connections::upstream::item_path;
use reqwest::{Certificate, Client};

// ANCHOR: solution
/// What the service keeps, from its start to its end, for calling the catalogue upstream.
pub struct Catalog {
    client: Client,
    base: String,
}

/// Made once, when the service starts: the client, and its pool, with it.
pub fn catalog(cert: &Certificate, base: &str) -> Result<Catalog, Failure> {
    Ok(Catalog {
        client: new_client(cert).map_err(Failure::Build)?,
        base: base.to_string(),
    })
}

/// One request's work: fetches every item in `ids` and adds up their digests.
pub async fn sum_digests(catalog: &Catalog, ids: &[u64]) -> Result<u64, Failure> {
    let mut sum = 0u64;
    for id in ids {
        let url = format!("{}{}", catalog.base, item_path(*id));
        sum = sum.wrapping_add(fetch_digest(catalog.client.get(url)).await?);
    }
    Ok(sum)
}
// ANCHOR_END: solution
