//! Redirect URIs: which ones a client may register, and which requested one matches a
//! registered one.

use url::Url;

use super::error::{OAuthCode, OAuthError, refuse};
use crate::domain::is_loopback_host;

/// The loopback hosts on which a native app listens on whichever port it gets (RFC 8252,
/// section 7.3), so that a registered URI on one of them matches the same URI on any port.
/// Section 8.3 advises IP literals over `localhost`, but clients in wide use register
/// `localhost` without a port and send an ephemeral one (Claude Code's metadata document), so
/// it is matched the same way; each host only ever matches itself.
const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "[::1]", "localhost"];

/// Longest redirect URI, in bytes: room for any app's callback, and a bound on what a
/// registration anyone may send stores.
const MAX_BYTES: usize = 2048;

/// Private-use schemes without a dot that MCP clients in wide use register (Cursor, VS Code):
/// named one by one, so that no scheme the browser itself handles gets in.
const APP_SCHEMES: [&str; 3] = ["cursor", "vscode", "vscode-insiders"];

/// A redirect URI is absolute with no fragment (RFC 6749, section 3.1.2). Allowed, and nothing
/// else: `https`; `http` on a loopback address written as RFC 8252 section 7.3 has it
/// (`127.0.0.1`, `[::1]`, or `localhost`, not `127.1` or `0x7f000001`); an app's private-use
/// scheme, which section 7.1 has in reverse domain order, so with a dot (`com.example.app:`),
/// or one of [`APP_SCHEMES`].
pub fn check(uri: &str) -> Result<(), OAuthError> {
    let invalid = |why: &str| {
        refuse(
            OAuthCode::InvalidRedirectUri,
            format!("redirect URI {uri:?} {why}"),
        )
    };
    if uri.len() > MAX_BYTES {
        return refuse(
            OAuthCode::InvalidRedirectUri,
            format!("a redirect URI is at most {MAX_BYTES} bytes"),
        );
    }
    let Ok(url) = Url::parse(uri) else {
        return invalid("is not an absolute URI");
    };
    if url.fragment().is_some() {
        return invalid("has a fragment, which RFC 6749 section 3.1.2 forbids");
    }
    // A host goes into the consent page's content security policy: a name the URL parser
    // takes (`x;sandbox`, `a,b`) is refused here unless it is a DNS name or an address.
    if let Some(url::Host::Domain(host)) = url.host()
        && !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return invalid("has a host that is not a DNS name or an IP address");
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&url, uri) => Ok(()),
        "http" => invalid(
            "uses http on a host other than a loopback address (127.0.0.1, [::1] or \
             localhost): register an https one",
        ),
        scheme if scheme.contains('.') || APP_SCHEMES.contains(&scheme) => Ok(()),
        _ => invalid(
            "uses a scheme that is not for redirects: register https, http on a loopback \
             address, or an app's own scheme in reverse domain order (com.example.app:/callback)",
        ),
    }
}

/// Whether the host is a loopback one, as `uri` writes it: the parser reads `127.1` and
/// `0x7f000001` as `127.0.0.1` too, but then the registered text is not that address.
fn is_loopback(url: &Url, uri: &str) -> bool {
    is_loopback_host(url)
        && url
            .host_str()
            .is_some_and(|host| uri.starts_with(&format!("http://{host}")))
}

/// Whether `requested` is `registered`: the same text (RFC 6749, section 3.1.2.3), or, for a
/// loopback host, the same text but for the port (RFC 8252, section 7.3), a registered URI
/// without a port included.
pub fn matches(registered: &str, requested: &str) -> bool {
    if registered == requested {
        return true;
    }
    // The port is the only difference allowed, and it must be one a URL can have.
    match (without_port(registered), without_port(requested)) {
        (Some(left), Some(right)) => left == right && Url::parse(requested).is_ok(),
        _ => false,
    }
}

/// For `http://` on a loopback host: its host and what follows the port, as written;
/// nothing is parsed away but the port's digits.
fn without_port(uri: &str) -> Option<(&str, &str)> {
    let authority = uri.strip_prefix("http://")?;
    let host = LOOPBACK_HOSTS
        .into_iter()
        .find(|ip| authority.starts_with(ip))?;
    let mut rest = &authority[host.len()..];
    if let Some(port) = rest.strip_prefix(':') {
        let digits = port.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &port[digits..];
    }
    (rest.is_empty() || rest.starts_with(['/', '?'])).then_some((host, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_loopback_or_an_apps_own_scheme() {
        for good in [
            "https://chat.openai.com/aip/g-1/oauth/callback",
            "http://127.0.0.1:33418/callback",
            "http://localhost:6274/oauth/callback",
            "http://[::1]/cb",
            "cursor://anysphere.cursor-mcp/oauth/callback",
            "vscode://vscode.github-authentication/did-authenticate",
            "com.example.app:/oauth2redirect",
        ] {
            assert!(check(good).is_ok(), "{good}");
        }
        for bad in [
            "http://evil.example/cb",
            "https://a.example/cb#frag",
            "javascript:alert(1)",
            "data:text/html,x",
            "/relative",
            // What a deny-list let through: schemes the browser or the system handles, and
            // loopback addresses written otherwise than RFC 8252 has them.
            "view-source:https://a.example/",
            "jar:https://a.example/x.jar!/",
            "chrome://settings",
            "mailto:a@example.com",
            "ms-settings:privacy",
            "http://127.1/cb",
            "http://0x7f000001/cb",
            "http://2130706433/cb",
            "myapp://cb",
            // Hosts the URL parser takes that would change a CSP source list.
            "https://x;sandbox/cb",
            "https://a,b.example/cb",
            "https://a'b.example/cb",
            "https://*.example/cb",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
        let long = format!("https://a.example/{}", "x".repeat(MAX_BYTES));
        assert!(check(&long[..MAX_BYTES]).is_ok() && check(&long).is_err());
    }

    #[test]
    fn a_loopback_host_matches_on_any_port_and_nothing_else_does() {
        for (registered, requested) in [
            (
                "http://127.0.0.1/callback",
                "http://127.0.0.1:51234/callback",
            ),
            (
                "http://127.0.0.1:33418/callback",
                "http://127.0.0.1:9/callback",
            ),
            (
                "http://127.0.0.1:33418/callback",
                "http://127.0.0.1/callback",
            ),
            ("http://[::1]:8080/cb?x=1", "http://[::1]:1/cb?x=1"),
            ("http://127.0.0.1:33418", "http://127.0.0.1:1"),
            // Claude Code's document registers these, and its CLI sends an ephemeral port.
            (
                "http://localhost/callback",
                "http://localhost:51234/callback",
            ),
            ("http://localhost:33418/cb", "http://localhost:1/cb"),
            ("https://a.example/cb", "https://a.example/cb"),
        ] {
            assert!(matches(registered, requested), "{registered} {requested}");
        }
        for (registered, requested) in [
            ("https://127.0.0.1:33418/cb", "https://127.0.0.1:1/cb"),
            ("https://localhost/cb", "https://localhost:1/cb"),
            ("http://localhost/cb", "http://127.0.0.1:1/cb"),
            ("http://127.0.0.1/cb", "http://localhost:1/cb"),
            ("http://localhost/cb", "http://localhost.evil.example/cb"),
            ("http://localhost/cb", "http://localhost:1@evil.example/cb"),
            ("http://localhost/cb", "http://LOCALHOST:1/cb"),
            ("http://evil.example/cb", "http://evil.example:1/cb"),
            ("http://127.0.0.1:33418/cb", "http://127.0.0.1:1/cb/"),
            ("http://127.0.0.1:33418/cb", "http://127.0.0.1:1/cb?x"),
            ("http://127.0.0.1:33418/cb", "http://127.0.0.1:1/cb#x"),
            ("http://127.0.0.1:33418/cb", "http://127.0.0.1:99999/cb"),
            ("http://127.0.0.1:33418/cb", "http://127.0.0.1:/cb"),
            (
                "http://127.0.0.1:33418/cb",
                "http://127.0.0.1.evil.example/cb",
            ),
            (
                "http://127.0.0.1:33418/cb",
                "http://127.0.0.1:1@evil.example/cb",
            ),
            ("http://127.0.0.1:33418/cb", "http://[::1]:33418/cb"),
            ("https://a.example/cb", "https://a.example:444/cb"),
        ] {
            assert!(!matches(registered, requested), "{registered} {requested}");
        }
    }
}
