//! An https server on this host for client ID metadata documents: a certificate for 127.0.0.1
//! from a test root, which a kioku started with `loopback_documents` trusts, and fixed answers.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// What a path answers.
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(body: &Value) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string().into_bytes(),
        }
    }
}

/// A running document server.
pub struct DocumentServer {
    /// `https://127.0.0.1:<port>`.
    pub base: String,
    /// The test root its certificate comes from, as PEM.
    pub root_pem: Vec<u8>,
}

/// A document for a public client at `url` that comes back to a loopback redirect on any port.
pub fn document(url: &str, name: &str) -> Value {
    json!({
        "client_id": url,
        "client_name": name,
        "redirect_uris": ["http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

impl DocumentServer {
    /// Serves what `routes` gives for each path, given the server's base URL.
    pub async fn start(routes: impl FnOnce(&str) -> Vec<(String, Answer)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("https://{}", listener.local_addr().unwrap());
        let routes = Arc::new(routes(&base));
        let (root_pem, acceptor) = tls();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (acceptor, routes) = (acceptor.clone(), Arc::clone(&routes));
                tokio::spawn(async move {
                    let Ok(mut stream) = acceptor.accept(stream).await else {
                        return;
                    };
                    let mut head = Vec::new();
                    let mut buffer = [0; 1024];
                    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&head);
                    let path = head.split(' ').nth(1).unwrap_or_default();
                    let answer = routes
                        .iter()
                        .find(|(route, _)| route == path)
                        .map(|(_, answer)| answer.clone())
                        .unwrap_or(Answer {
                            status: 404,
                            headers: Vec::new(),
                            body: Vec::new(),
                        });
                    let mut response = format!(
                        "HTTP/1.1 {} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                        answer.status,
                        answer.body.len()
                    );
                    for (name, value) in &answer.headers {
                        response.push_str(&format!("{name}: {value}\r\n"));
                    }
                    response.push_str("\r\n");
                    let mut bytes = response.into_bytes();
                    bytes.extend_from_slice(&answer.body);
                    let _ = stream.write_all(&bytes).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        Self { base, root_pem }
    }
}

/// A fresh test root, and a TLS acceptor with a certificate for 127.0.0.1 it signed.
fn tls() -> (Vec<u8>, TlsAcceptor) {
    let root_key = KeyPair::generate().unwrap();
    let mut root = CertificateParams::new(Vec::<String>::new()).unwrap();
    root.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    root.distinguished_name
        .push(DnType::CommonName, "kioku test root");
    let root_pem = root.self_signed(&root_key).unwrap().pem().into_bytes();
    let issuer = Issuer::new(root, root_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![CertificateDer::from(leaf.der().to_vec())],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
    )
    .unwrap();
    (root_pem, TlsAcceptor::from(Arc::new(config)))
}
