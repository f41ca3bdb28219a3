//! Certificates made at run time with rcgen: the upstream's own, valid for `localhost` and
//! `127.0.0.1`, and the two faulty ones the tests serve (expired, and issued for another name).

use rcgen::{CertificateParams, KeyPair, date_time_ymd};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::sync::Arc;

/// Which certificate the upstream presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CertKind {
    Good,
    Expired,
    WrongName,
}

impl CertKind {
    const ALL: [CertKind; 3] = [CertKind::Good, CertKind::Expired, CertKind::WrongName];

    /// Its name on the upstream's command line.
    pub fn name(self) -> &'static str {
        match self {
            CertKind::Good => "good",
            CertKind::Expired => "expired",
            CertKind::WrongName => "wrong-name",
        }
    }
}

impl std::str::FromStr for CertKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        CertKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown certificate kind {s:?} (good, expired, wrong-name)"))
    }
}

/// A self-signed certificate and its key.
pub struct Identity {
    pub cert_pem: String,
    cert: CertificateDer<'static>,
    key: Vec<u8>,
}

/// Every TLS configuration here uses ring, installed once as the process's provider (reqwest's
/// `rustls-no-provider` feature takes the installed one: `ClientBuilder::build`).
pub fn install_crypto() {
    // Err means a provider is installed already: the same one, by an earlier call.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Makes a self-signed certificate of `kind`.
pub fn make_identity(kind: CertKind) -> Result<Identity, String> {
    let names = match kind {
        CertKind::WrongName => vec!["upstream.invalid".to_string()],
        _ => vec!["localhost".to_string(), "127.0.0.1".to_string()],
    };
    let mut params = CertificateParams::new(names).map_err(|e| e.to_string())?;
    if kind == CertKind::Expired {
        params.not_before = date_time_ymd(2020, 1, 1);
        params.not_after = date_time_ymd(2021, 1, 1);
    }
    let key = KeyPair::generate().map_err(|e| e.to_string())?;
    let cert = params.self_signed(&key).map_err(|e| e.to_string())?;
    Ok(Identity {
        cert_pem: cert.pem(),
        cert: cert.der().clone(),
        key: key.serialize_der(),
    })
}

/// The upstream's TLS configuration: HTTP/1.1 only, rustls's defaults otherwise (TLS 1.3
/// preferred, an in-memory cache that lets a client resume a session).
pub fn server_config(identity: &Identity) -> Result<Arc<rustls::ServerConfig>, String> {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(identity.key.clone()));
    let mut config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![identity.cert.clone()], key)
        .map_err(|e| format!("the upstream's certificate: {e}"))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
