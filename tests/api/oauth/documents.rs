//! A server on this host for client ID metadata documents, with fixed answers: over https with
//! a certificate for 127.0.0.1 from a test root, which a kioku started with
//! `loopback_documents` trusts; or over plain http, as a developer serves one under
//! `KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS`. A path's answer can be changed, and the server
//! taken down, answering 503 to all.

use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
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
    /// `https://127.0.0.1:<port>`, or `http://` for a plain one.
    pub base: String,
    /// The test root its certificate comes from, as PEM.
    pub root_pem: Vec<u8>,
    served: Arc<Mutex<Served>>,
}

/// What the server answers now.
struct Served {
    routes: Vec<(String, Answer)>,
    /// Every path answers 503, as a client's site in an outage.
    down: bool,
    /// Requests each path was sent.
    hits: Vec<String>,
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
    /// Serves what `routes` gives for each path over https, given the server's base URL.
    pub async fn start(routes: impl FnOnce(&str) -> Vec<(String, Answer)>) -> Self {
        Self::start_with(true, routes).await
    }

    /// Serves what `routes` gives for each path over plain http.
    pub async fn start_plain(routes: impl FnOnce(&str) -> Vec<(String, Answer)>) -> Self {
        Self::start_with(false, routes).await
    }

    async fn start_with(tls: bool, routes: impl FnOnce(&str) -> Vec<(String, Answer)>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let scheme = if tls { "https" } else { "http" };
        let base = format!("{scheme}://{}", listener.local_addr().unwrap());
        let served = Arc::new(Mutex::new(Served {
            routes: routes(&base),
            down: false,
            hits: Vec::new(),
        }));
        let (root_pem, acceptor) = self::tls();
        let serving = Arc::clone(&served);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (acceptor, served) = (acceptor.clone(), Arc::clone(&serving));
                tokio::spawn(async move {
                    if tls {
                        let Ok(stream) = acceptor.accept(stream).await else {
                            return;
                        };
                        serve(stream, &served).await;
                    } else {
                        serve(stream, &served).await;
                    }
                });
            }
        });
        Self {
            base,
            root_pem,
            served,
        }
    }

    /// Takes the server down (503 to all) or brings it back.
    pub fn set_down(&self, down: bool) {
        self.served.lock().unwrap().down = down;
    }

    /// How many requests `path` was sent.
    pub fn hits(&self, path: &str) -> usize {
        let served = self.served.lock().unwrap();
        served.hits.iter().filter(|hit| *hit == path).count()
    }

    /// From now on `path` answers `answer`.
    pub fn answer(&self, path: &str, answer: Answer) {
        let mut served = self.served.lock().unwrap();
        served.routes.retain(|(route, _)| route != path);
        served.routes.push((path.to_owned(), answer));
    }
}

/// Answers one request on `stream` with what is `served`.
async fn serve(mut stream: impl AsyncRead + AsyncWrite + Unpin, served: &Mutex<Served>) {
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
    let answer = {
        let mut served = served.lock().unwrap();
        served.hits.push(path.to_owned());
        let found = served.routes.iter().find(|(route, _)| route == path);
        match found {
            Some((_, answer)) if !served.down => answer.clone(),
            _ => Answer {
                status: if served.down { 503 } else { 404 },
                headers: Vec::new(),
                body: Vec::new(),
            },
        }
    };
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
