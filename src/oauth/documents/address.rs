//! Which addresses a client's metadata document may be fetched from: public ones only, so
//! that a `client_id` cannot make this server reach its own network, the host it runs on, or
//! a cloud metadata service (draft-ietf-oauth-client-id-metadata-document, section 6.5).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(mapped) => is_public_v4(mapped),
            None => is_public_v6(ip),
        },
    }
}

/// Whether `ip` is the host's own: what tests serve documents from when they allow it.
pub fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => ip.is_loopback(),
        IpAddr::V6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        // 169.254.0.0/16, where cloud metadata services answer (169.254.169.254).
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        // 100.64.0.0/10, shared address space (RFC 6598); one cloud's metadata is there.
        || (a == 100 && (64..128).contains(&b))
        // 192.0.0.0/24, IETF protocol assignments (RFC 6890).
        || (a == 192 && b == 0 && c == 0)
        // 198.18.0.0/15, benchmarking (RFC 2544).
        || (a == 198 && (b == 18 || b == 19))
        // 240.0.0.0/4, reserved.
        || a >= 240)
}

/// Global unicast (2000::/3, RFC 4291) and none of the blocks within it that lead elsewhere:
/// documentation, Teredo and 6to4, which carry IPv4 addresses inside.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    let [first, second, ..] = ip.segments();
    (first & 0xe000) == 0x2000
        && !(first == 0x2001 && second == 0x0db8)
        && !(first == 0x2001 && second == 0)
        && first != 0x2002
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_unicast_addresses_are_public() {
        for public in ["93.184.215.14", "8.8.8.8", "2606:4700::6810:85e5"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
        for not in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "::1",
            "::",
            "fd00:ec2::254",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2001:db8::1",
            "2002:c0a8:0101::1",
            "2001:0:4136:e378::1",
        ] {
            assert!(!is_public(not.parse().unwrap()), "{not}");
        }
    }
}
