//! This machine's own hosts, as a URL names them: what a native app's redirect, a developer's
//! client document and a local plugin may use plain http on.

use url::{Host, Url};

/// Whether the URL's host is `localhost` or a loopback address.
pub fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(host)) => host == "localhost",
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_and_loopback_addresses_only() {
        for local in [
            "http://localhost:1/",
            "http://127.0.0.1/",
            "http://127.9.9.9/",
            "http://[::1]/",
        ] {
            assert!(is_loopback_host(&Url::parse(local).unwrap()), "{local}");
        }
        for other in [
            "http://localhost.example/",
            "http://10.0.0.1/",
            "mailto:a@localhost",
        ] {
            assert!(!is_loopback_host(&Url::parse(other).unwrap()), "{other}");
        }
    }
}
