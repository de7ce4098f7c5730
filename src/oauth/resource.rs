//! The resources this server's tokens are for (RFC 8707): the whole server, as a GPT Action
//! uses it, or only its MCP endpoint, as MCP clients ask.

use crate::domain::Door;

/// The MCP endpoint's path, which is also its resource's.
pub const MCP_PATH: &str = "/mcp";

/// The audience of a token asked for with `indicator` (or none), when `indicator` names this
/// server (`issuer`) or its MCP endpoint; `None` for any other resource (RFC 8707, section 2:
/// `invalid_target`). A trailing slash names the same resource.
pub fn audience(issuer: &str, indicator: Option<&str>) -> Option<String> {
    let Some(indicator) = indicator else {
        return Some(issuer.to_owned());
    };
    let indicator = indicator.trim_end_matches('/');
    let mcp = format!("{issuer}{MCP_PATH}");
    (indicator == issuer || indicator == mcp).then(|| indicator.to_owned())
}

/// Whether a token for `audience` may be used at `door`: the server's URL covers every door,
/// the MCP endpoint's only that one (RFC 8707, section 1: a resource is the most specific URI
/// the client wants).
pub fn covers(issuer: &str, audience: &str, door: Door) -> bool {
    audience == issuer || (door == Door::Mcp && audience == format!("{issuer}{MCP_PATH}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_for_this_server_or_its_mcp_endpoint() {
        let issuer = "https://kioku.example";
        assert_eq!(audience(issuer, None).as_deref(), Some(issuer));
        assert_eq!(
            audience(issuer, Some("https://kioku.example/mcp/")).as_deref(),
            Some("https://kioku.example/mcp")
        );
        assert_eq!(audience(issuer, Some("https://other.example/mcp")), None);
        assert!(covers(issuer, issuer, Door::Api));
        assert!(covers(issuer, "https://kioku.example/mcp", Door::Mcp));
        assert!(!covers(issuer, "https://kioku.example/mcp", Door::Api));
        assert!(!covers(issuer, "https://other.example", Door::Mcp));
    }
}
