//! A plain `tools/call` answered in the HTTP request's own task, its answer encoded once.
//!
//! The SDK's stateless transport serves each request through a service of its own, and its
//! result type holds `structuredContent` as a `Value` tree: an MCP load cost 1.5 to 1.9 times
//! the CPU of the same `GET` load (BENCHMARKS.md). Here the answer is written once and sent
//! as both the structured content and the text block. Only a call the SDK would take and
//! answer the same way comes here; anything else, the SDK answers.

use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, ContentBlock, GetMeta,
    JsonRpcResponse, JsonRpcVersion2_0, ProtocolVersion, RequestId, ResultType,
};
use serde::Serialize;
use serde_json::value::RawValue;

use super::MemoryServer;
use crate::domain::Caller;

/// Versions whose `tools/call` needs nothing negotiated in the request, so one answer's shape
/// serves them all.
const PLAIN_VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

/// Versions the SDK knows and answers alone: 2024-11-05's calls may come before a session is
/// initialized, which only the SDK tracks.
#[cfg(test)]
const LEFT_TO_THE_SDK: [ProtocolVersion; 1] = [ProtocolVersion::V_2024_11_05];

/// The version whose requests each carry their context in `_meta` (its protocol version and the
/// client's capabilities, which the SDK requires), and whose results say `resultType`.
const STATELESS_VERSION: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// The request `_meta` of a plain call of [`STATELESS_VERSION`]: what the SDK requires, and the
/// client's name, which it keeps without reading. Any other key (a progress token, a log
/// level) may change what the SDK does, so a call carrying one is left to it.
const STATELESS_META: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

/// A `tools/call` of one of kioku's tools, with no `_meta` beyond the protocol's own and
/// nothing to resume.
pub struct ToolCall {
    id: RequestId,
    params: CallToolRequestParams,
    /// Whether the answer says `resultType` ([`STATELESS_VERSION`]).
    says_result_type: bool,
}

/// The `Mcp-Method` and `Mcp-Name` headers a call came with (SEP-2243), each sent once at
/// most. From [`STATELESS_VERSION`] on, the SDK requires them and holds them to the body.
#[derive(Debug, Clone, Copy, Default)]
pub struct Standard<'a> {
    pub method: Option<&'a str>,
    pub name: Option<&'a str>,
}

impl ToolCall {
    /// The call in `body`, sent under `MCP-Protocol-Version: version` with the `standard`
    /// headers, if it is one this module answers as the SDK would; `None` leaves it to the SDK.
    pub fn read(body: &[u8], version: &str, standard: Standard) -> Option<Self> {
        let stateless = version == STATELESS_VERSION.as_str();
        if !stateless && !PLAIN_VERSIONS.iter().any(|known| known.as_str() == version) {
            return None;
        }
        let ClientJsonRpcMessage::Request(request) = serde_json::from_slice(body).ok()? else {
            return None;
        };
        // rmcp keeps a request's `_meta`, from its params too, in the request's extensions.
        let meta = request.request.get_meta();
        let plain_meta = match stateless {
            // Valid as the SDK checks it (the same accessors), and naming this version.
            true => {
                meta.protocol_version() == Some(STATELESS_VERSION)
                    && meta.missing_required_keys(&STATELESS_VERSION).is_empty()
                    && meta
                        .keys()
                        .all(|key| STATELESS_META.contains(&key.as_str()))
                    && (!meta.contains_key(STATELESS_META[2]) || meta.client_info().is_some())
            }
            false => meta.is_empty(),
        };
        if !plain_meta {
            return None;
        }
        let ClientRequest::CallToolRequest(call) = request.request else {
            return None;
        };
        let params = call.params;
        let headers_alike = match stateless {
            true => {
                standard.method == Some("tools/call") && standard.name == Some(params.name.as_ref())
            }
            false => standard.method.is_none() && standard.name.is_none(),
        };
        let plain =
            headers_alike && params.input_responses.is_none() && params.request_state.is_none();
        plain.then_some(Self {
            id: request.id,
            params,
            says_result_type: stateless,
        })
    }
}

/// A `tools/call` result as the SDK writes it for the versions above, `structuredContent`
/// taken as written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult<'a> {
    /// `complete`, first, for [`STATELESS_VERSION`]; absent before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    content: [ContentBlock; 1],
    structured_content: &'a RawValue,
    is_error: bool,
}

impl MemoryServer {
    /// The JSON-RPC answer to `call` for `caller`; `None` when no tool has the name called,
    /// which the SDK answers with its protocol error.
    pub async fn answer(&self, caller: &Caller, call: ToolCall) -> Option<Vec<u8>> {
        let ToolCall {
            id,
            params,
            says_result_type,
        } = call;
        let args = params.arguments.unwrap_or_default();
        let outcome = self.call(caller, &params.name, args).await?;
        let response = JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id,
            result: ToolResult {
                result_type: says_result_type.then_some(ResultType::COMPLETE),
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

    use super::{LEFT_TO_THE_SDK, PLAIN_VERSIONS, STATELESS_VERSION, Standard, ToolCall};
    use rmcp::model::ProtocolVersion;

    const VERSION: &str = "2025-11-25";
    const STATELESS: &str = "2026-07-28";

    fn read(message: &Value, version: &str) -> Option<ToolCall> {
        ToolCall::read(message.to_string().as_bytes(), version, Standard::default())
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    }

    /// A 2026-07-28 call's `_meta`, as the SDKs send it.
    fn context() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        })
    }

    fn stateless(meta: Value, name: Option<&str>) -> Option<ToolCall> {
        let message = call(json!({"name": "load_memories", "_meta": meta}));
        let standard = Standard {
            method: Some("tools/call"),
            name,
        };
        ToolCall::read(message.to_string().as_bytes(), STATELESS, standard)
    }

    /// Each version the SDK knows is answered here or left to it, by a decision written above:
    /// an SDK upgrade that knows a new version fails this until someone decides, with
    /// tests/api/mcp_transport.rs comparing the two paths under it.
    #[test]
    fn every_version_the_sdk_knows_is_decided() {
        for version in ProtocolVersion::KNOWN_VERSIONS {
            let decided = PLAIN_VERSIONS.contains(version)
                || *version == STATELESS_VERSION
                || LEFT_TO_THE_SDK.contains(version);
            assert!(decided, "{version}: answered here, or left to the SDK?");
        }
    }

    #[test]
    fn a_plain_call_under_a_plain_version_is_read() {
        let params = json!({"name": "load_memories", "arguments": {"q": "x"}});
        for version in ["2025-03-26", "2025-06-18", VERSION] {
            let read = read(&call(params.clone()), version).expect(version);
            assert_eq!(read.params.name, "load_memories");
            assert!(!read.says_result_type);
        }
        let read = stateless(context(), Some("load_memories")).expect(STATELESS);
        assert!(read.says_result_type);
        let mut bare = context();
        bare.as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientInfo");
        assert!(stateless(bare, Some("load_memories")).is_some());
    }

    #[test]
    fn anything_the_sdk_negotiates_or_checks_is_left_to_it() {
        let plain = json!({"name": "load_memories"});
        for version in ["2024-11-05", STATELESS, "2099-01-01", ""] {
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
        assert!(ToolCall::read(b"{not json", VERSION, Standard::default()).is_none());
        // SEP-2243's headers before 2026-07-28, which the SDK may check.
        let named = call(json!({"name": "load_memories"})).to_string();
        let standard = Standard {
            method: Some("tools/call"),
            name: Some("load_memories"),
        };
        assert!(ToolCall::read(named.as_bytes(), VERSION, standard).is_none());
    }

    #[test]
    fn a_stateless_call_is_read_only_with_its_context_and_no_more() {
        let named = Some("load_memories");
        assert!(stateless(context(), Some("save_memory")).is_none());
        assert!(stateless(context(), None).is_none());
        let message = call(json!({"name": "load_memories", "_meta": context()})).to_string();
        let other_method = Standard {
            method: Some("tools/list"),
            name: named,
        };
        assert!(ToolCall::read(message.as_bytes(), STATELESS, other_method).is_none());
        let changed = |key: &str, value: Value| {
            let mut meta = context();
            meta[key] = value;
            meta
        };
        for meta in [
            json!({}),
            changed("io.modelcontextprotocol/protocolVersion", json!(VERSION)),
            changed("io.modelcontextprotocol/protocolVersion", json!(20260728)),
            changed(
                "io.modelcontextprotocol/clientCapabilities",
                json!({"roots": 5}),
            ),
            changed("io.modelcontextprotocol/clientInfo", json!("c")),
            changed("progressToken", json!(1)),
            changed("io.modelcontextprotocol/logLevel", json!("debug")),
        ] {
            assert!(stateless(meta.clone(), named).is_none(), "{meta}");
        }
    }
}
