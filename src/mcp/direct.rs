//! A plain `tools/call` answered in the HTTP request's own task, its answer encoded once.
//!
//! The SDK's stateless transport serves each request through a service of its own, and its
//! result type holds `structuredContent` as a `Value` tree: an MCP load cost 1.5 to 1.9 times
//! the CPU of the same `GET` load (BENCHMARKS.md). Here the answer is written once and sent
//! as both the structured content and the text block. Only a call the SDK would take and
//! answer the same way comes here; anything else, the SDK answers.

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ContentBlock, GetMeta,
    JsonRpcResponse, JsonRpcVersion2_0, ProtocolVersion, RequestId,
};
use serde::Serialize;
use serde_json::value::RawValue;

use super::MemoryServer;
use crate::domain::Namespace;

/// Versions whose `tools/call` needs nothing negotiated in the request (2026-07-28 brings
/// request `_meta` and a result's `resultType`), so one answer's shape serves them all.
const PLAIN_VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

/// A `tools/call` of one of kioku's tools, with no `_meta` and nothing to resume.
pub struct ToolCall {
    id: RequestId,
    params: CallToolRequestParams,
}

impl ToolCall {
    /// The call in `body`, sent under `MCP-Protocol-Version: version`, if it is one this
    /// module answers as the SDK would; `None` leaves it to the SDK.
    pub fn read(body: &[u8], version: &str) -> Option<Self> {
        if !PLAIN_VERSIONS.iter().any(|known| known.as_str() == version) {
            return None;
        }
        let ClientJsonRpcMessage::Request(request) = serde_json::from_slice(body).ok()? else {
            return None;
        };
        // rmcp keeps a request's `_meta`, from its params too, in the request's extensions.
        if !request.request.get_meta().is_empty() {
            return None;
        }
        let ClientRequest::CallToolRequest(call) = request.request else {
            return None;
        };
        let params = call.params;
        let plain = params.input_responses.is_none() && params.request_state.is_none();
        plain.then_some(Self {
            id: request.id,
            params,
        })
    }
}

/// A `tools/call` result as the SDK writes it for the versions above, `structuredContent`
/// taken as written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult<'a> {
    content: [ContentBlock; 1],
    structured_content: &'a RawValue,
    is_error: bool,
}

impl MemoryServer {
    /// The JSON-RPC answer to `call` in `ns`; `None` when no tool has the name called, which
    /// the SDK answers with its protocol error.
    pub async fn answer(&self, ns: &Namespace, call: ToolCall) -> Option<Vec<u8>> {
        let ToolCall { id, params } = call;
        let args = params.arguments.unwrap_or_default();
        let outcome = self.call(ns, &params.name, args).await?;
        let response = JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result: ToolResult {
                content: [ContentBlock::text(outcome.json.get())],
                structured_content: &outcome.json,
                is_error: outcome.is_error,
            },
        };
        Some(serde_json::to_vec(&response).expect("answers serialize"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::ToolCall;

    const VERSION: &str = "2025-11-25";

    fn read(message: &Value, version: &str) -> Option<ToolCall> {
        ToolCall::read(message.to_string().as_bytes(), version)
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    }

    #[test]
    fn a_plain_call_under_a_plain_version_is_read() {
        let params = json!({"name": "load_memories", "arguments": {"q": "x"}});
        for version in ["2025-03-26", "2025-06-18", VERSION] {
            let read = read(&call(params.clone()), version).expect(version);
            assert_eq!(read.params.name, "load_memories");
        }
    }

    #[test]
    fn anything_the_sdk_negotiates_or_checks_is_left_to_it() {
        let plain = json!({"name": "load_memories"});
        for version in ["2024-11-05", "2026-07-28", "2099-01-01", ""] {
            assert!(read(&call(plain.clone()), version).is_none(), "{version}");
        }
        let unplain = [
            call(json!({"name": "load_memories", "_meta": {"progressToken": 1}})),
            call(json!({"name": "load_memories", "requestState": "s"})),
            call(json!({"name": "load_memories", "inputResponses": {}})),
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!([call(plain.clone())]),
            json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": plain}),
        ];
        for message in unplain {
            assert!(read(&message, VERSION).is_none(), "{message}");
        }
        assert!(ToolCall::read(b"{not json", VERSION).is_none());
    }
}
