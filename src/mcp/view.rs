//! The memory view: an MCP Apps resource (extension `io.modelcontextprotocol/ui`, SEP-1865)
//! that a host shows inside the conversation when a load, a search or the profile is called.
//!
//! The view is one HTML file with its script and styles inline (`view/memory.html`): it talks
//! to the host over `postMessage` JSON-RPC, and every action is a `tools/call` through the host,
//! so it never holds a token and needs no origin of its own. Hosts without the extension ignore
//! the tools' `_meta` and never read the resource.

use rmcp::model::{
    ExtensionCapabilities, JsonObject, MetaObject, ReadResourceResult, Resource, ResourceContents,
};
use serde_json::json;

/// The view's address, as tools name it.
pub const URI: &str = "ui://kioku/memory.html";

/// The MIME type that marks HTML as an MCP App (the extension's `RESOURCE_MIME_TYPE`).
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The extension's identifier in capabilities (SEP-1724).
const EXTENSION: &str = "io.modelcontextprotocol/ui";

const HTML: &str = include_str!("view/memory.html");

/// Where the script finds what the server knows and the view cannot: written into the HTML as
/// JSON at this marker.
const SETTINGS_MARKER: &str = "/*KIOKU_SETTINGS*/{}";

/// The memory page's address as the person's browser reaches it, which the HTTP layer hands
/// on with the request's parts: the view offers to open it.
#[derive(Debug, Clone)]
pub struct PageUrl(pub String);

/// The server's declaration that it serves MCP Apps views of this MIME type.
pub fn extension() -> ExtensionCapabilities {
    let mut settings = JsonObject::new();
    settings.insert("mimeTypes".into(), json!([MIME_TYPE]));
    ExtensionCapabilities::from([(EXTENSION.to_owned(), settings)])
}

/// The `_meta` of a tool whose result the view shows: the extension's key, and the one
/// ChatGPT reads.
pub fn tool_meta() -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("ui".into(), json!({ "resourceUri": URI }));
    meta.insert("openai/outputTemplate".into(), URI.into());
    MetaObject(meta)
}

/// The view as `resources/list` shows it.
pub fn resource() -> Resource {
    Resource::new(URI, "memory-view")
        .with_title("Your memory")
        .with_description(
            "The memories a load or a search found and the user's profile, shown to the user \
             inside the conversation, where they can forget an entry or a thread and correct \
             the profile.",
        )
        .with_mime_type(MIME_TYPE)
        .with_meta(MetaObject(resource_meta()))
}

/// The view as `resources/read` gives it, linking to `page`.
pub fn read(page: Option<&PageUrl>) -> ReadResourceResult {
    let settings = json!({
        "page": page.map(|p| p.0.as_str()),
        "version": env!("CARGO_PKG_VERSION"),
    });
    // `<` escaped so that no text in the settings can end the script element.
    let settings = settings.to_string().replace('<', "\\u003c");
    let html = HTML.replacen(SETTINGS_MARKER, &settings, 1);
    ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
        uri: URI.to_owned(),
        mime_type: Some(MIME_TYPE.to_owned()),
        text: html,
        meta: Some(MetaObject(resource_meta())),
    }])
}

/// What the host is asked for: no origin at all beyond the view's own inline code (empty
/// allow-lists, the strictest CSP the extension lets a resource declare), and a border, since
/// the view is a card among the conversation's messages.
fn resource_meta() -> JsonObject {
    let mut meta = JsonObject::new();
    meta.insert(
        "ui".into(),
        json!({
            "csp": { "connectDomains": [], "resourceDomains": [] },
            "prefersBorder": true,
        }),
    );
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn html(page: Option<&PageUrl>) -> String {
        match read(page).contents.into_iter().next() {
            Some(ResourceContents::TextResourceContents { text, .. }) => text,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_page_address_is_written_where_the_script_reads_it_and_cannot_end_it() {
        assert!(HTML.contains(SETTINGS_MARKER));
        let page = PageUrl("https://kioku.example/app".into());
        assert!(html(Some(&page)).contains(r#"{"page":"https://kioku.example/app","#));
        assert!(html(None).contains(r#"{"page":null,"#));
        let hostile = PageUrl("https://x/</script><script>alert(1)</script>".into());
        assert!(!html(Some(&hostile)).contains("</script><script>alert"));
    }

    #[test]
    fn the_view_loads_nothing_from_anywhere() {
        let html = html(None);
        for external in [
            "src=",
            "href=\"http",
            "@import",
            "url(",
            "fetch(",
            "XMLHttpRequest",
        ] {
            assert!(!html.contains(external), "{external}");
        }
        let csp = &resource_meta()["ui"]["csp"];
        assert_eq!(csp["connectDomains"], Value::Array(Vec::new()));
        assert_eq!(csp["resourceDomains"], Value::Array(Vec::new()));
    }
}
