//! Which addresses a document fetch may reach, checked on every address a name resolves to:
//! the connection is then made to an address checked here, not to one a second lookup gives.

use std::net::{IpAddr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::address;

/// The kinds of address a fetcher may connect to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reach {
    pub public: bool,
    /// This host's own: tests' documents, or a developer's under their setting.
    pub loopback: bool,
}

impl Reach {
    pub fn admits(self, ip: IpAddr) -> bool {
        (self.public && address::is_public(ip)) || (self.loopback && address::is_loopback(ip))
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the host resolves to no address a document may come from")]
pub(super) struct NotPublic;

/// Resolves a name to the addresses it may reach, and fails when none is left.
impl Resolve for Reach {
    fn resolve(&self, name: Name) -> Resolving {
        let reach = *self;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let admitted: Vec<SocketAddr> =
                found.filter(|found| reach.admits(found.ip())).collect();
            if admitted.is_empty() {
                return Err(Box::new(NotPublic) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(admitted.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_developers_reach_is_this_host_alone() {
        let local = Reach {
            public: false,
            loopback: true,
        };
        let https = Reach {
            public: true,
            loopback: false,
        };
        for (ip, by_local, by_https) in [
            ("127.0.0.1", true, false),
            ("::1", true, false),
            ("8.8.8.8", false, true),
            ("10.0.0.1", false, false),
            ("169.254.169.254", false, false),
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(local.admits(ip), by_local, "{ip}");
            assert_eq!(https.admits(ip), by_https, "{ip}");
        }
    }
}
