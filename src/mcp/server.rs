//! The MCP server handler: what `initialize` says, the tool list, and each tool call as a
//! call of the memory operations, answered with the same JSON as the HTTP API.

use std::any::Any;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::tools::{self, FORGET, LOAD, LOAD_PROFILE, SAVE, SAVE_PROFILE, unknown_argument};
use super::view::{self, PageUrl};
use crate::domain::{Caller, Namespace};
use crate::error_chain::ErrorChain;
use crate::error_code::{ErrorBody, ErrorCode};
use crate::memory::{
    ForgetRequest, LoadRequest, Memory, MemoryError, ProfileReadRequest, ProfileWriteRequest,
    SaveRequest,
};
use crate::store::Usage;

/// Serves one request's tool calls in the namespace its credentials unlock. Made afresh for
/// every request (the transport is stateless), so it holds only shared handles.
#[derive(Clone)]
pub struct MemoryServer {
    memory: Arc<Memory>,
    /// What `initialize` answers, built once: the SDK asks for it several times a request.
    info: Arc<ServerConfig>,
}

impl MemoryServer {
    pub fn new(memory: Arc<Memory>, instructions: String) -> Self {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_extensions_with(view::extension())
            .build();
        let info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("kioku", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions);
        Self {
            memory,
            info: Arc::new(info),
        }
    }

    /// Runs the tool `name` for `caller`: its answer, or its refusal as a tool error; `None`
    /// when kioku has no such tool.
    pub(super) async fn call(
        &self,
        caller: &Caller,
        name: &str,
        args: Arguments,
    ) -> Option<Outcome> {
        let ns = &caller.namespace;
        let outcome = match name {
            SAVE => self.save(caller, args).await,
            LOAD => self.load(ns, args).await,
            FORGET => self.forget(ns, args).await,
            LOAD_PROFILE => self.load_profile(ns, args).await,
            SAVE_PROFILE => self.save_profile(caller, args).await,
            _ => return None,
        };
        Some(match outcome {
            Ok(answer) => answer,
            Err(refusal) => Outcome::of(&refusal.body(), true),
        })
    }

    async fn save(&self, caller: &Caller, args: Arguments) -> Result<Outcome, ToolError> {
        let saved = self.memory.save(caller, parse::<SaveRequest>(args)?);
        Ok(Outcome::answer(&saved.await?))
    }

    async fn load(&self, ns: &Namespace, args: Arguments) -> Result<Outcome, ToolError> {
        let request: LoadRequest = parse(args)?;
        Ok(Outcome::answer(&self.memory.load(ns, &request).await?))
    }

    async fn forget(&self, ns: &Namespace, args: Arguments) -> Result<Outcome, ToolError> {
        let request: ForgetRequest = parse(args)?;
        Ok(Outcome::answer(&self.memory.forget(ns, &request).await?))
    }

    async fn load_profile(&self, ns: &Namespace, args: Arguments) -> Result<Outcome, ToolError> {
        let request: ProfileReadRequest = parse(args)?;
        Ok(Outcome::answer(
            &self.memory.read_profile(ns, &request).await?,
        ))
    }

    async fn save_profile(&self, caller: &Caller, args: Arguments) -> Result<Outcome, ToolError> {
        let request: ProfileWriteRequest = parse(args)?;
        Ok(Outcome::answer(
            &self.memory.write_profile(caller, &request).await?,
        ))
    }
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::clone(&self.info)
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![view::resource()]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != view::URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "No resource is at `{}`; resources/list lists the one there is.",
                    request.uri
                ),
                None,
            ));
        }
        let page = parts(&context).and_then(|parts| parts.extensions.get::<PageUrl>());
        Ok(view::read(page).into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = caller(&context)?;
        let args = request.arguments.unwrap_or_default();
        let call = self.call(&caller, &request.name, args);
        // Counted into the HTTP request's store costs, which the SDK's task is outside of.
        let outcome = match usage(&context) {
            Some(usage) => usage.scope(call).await,
            None => call.await,
        };
        match outcome {
            Some(outcome) => Ok(outcome.into_result().into()),
            None => Err(ErrorData::invalid_params(
                format!(
                    "No tool is named `{}`; tools/list lists the tools.",
                    request.name
                ),
                None,
            )),
        }
    }
}

/// Why a tool call was refused: an error the model reads as the tool's result, and acts on.
enum ToolError {
    Arguments(String),
    Memory(MemoryError),
}

impl From<MemoryError> for ToolError {
    fn from(err: MemoryError) -> Self {
        Self::Memory(err)
    }
}

/// A tool call's arguments, as sent.
pub(super) type Arguments = Map<String, Value>;

impl ToolError {
    fn body(&self) -> ErrorBody {
        match self {
            Self::Arguments(problem) => ErrorBody::new(
                ErrorCode::MalformedJson,
                format!(
                    "The arguments could not be read ({problem}); send them as the tool's input schema says."
                ),
                None,
            ),
            Self::Memory(err) => {
                if let MemoryError::Store(cause) = err {
                    tracing::error!(error = %ErrorChain(cause), "store call failed");
                }
                ErrorBody::of_memory(err)
            }
        }
    }
}

/// A tool's arguments as its request type, refusing any it does not take.
fn parse<T: DeserializeOwned + JsonSchema + Any>(args: Arguments) -> Result<T, ToolError> {
    if let Some((unknown, known)) = unknown_argument::<T>(&args) {
        let expected: Vec<String> = known.iter().map(|name| format!("`{name}`")).collect();
        return Err(ToolError::Arguments(format!(
            "unknown field `{unknown}`, expected one of {}",
            expected.join(", ")
        )));
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| ToolError::Arguments(e.to_string()))
}

/// A tool's answer or refusal, encoded once: it is both the `structuredContent` and, as the
/// same JSON, the text block for clients that read only text (MCP specification, "Structured
/// Content").
pub(super) struct Outcome {
    pub json: Box<RawValue>,
    pub is_error: bool,
}

impl Outcome {
    fn of(answer: &impl Serialize, is_error: bool) -> Self {
        Self {
            json: serde_json::value::to_raw_value(answer).expect("answers serialize"),
            is_error,
        }
    }

    fn answer(answer: &impl Serialize) -> Self {
        Self::of(answer, false)
    }

    /// The outcome as the SDK's result type, whose `structuredContent` is a `Value` tree.
    fn into_result(self) -> CallToolResult {
        let value = serde_json::from_str(self.json.get()).expect("answers are JSON");
        let content = vec![ContentBlock::text(String::from(Box::<str>::from(
            self.json,
        )))];
        let mut result = if self.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = Some(value);
        result
    }
}

/// The HTTP request's parts, which the SDK hands on.
fn parts(context: &RequestContext<RoleServer>) -> Option<&http::request::Parts> {
    context.extensions.get::<http::request::Parts>()
}

/// The HTTP request's count of store costs, handed on with its parts.
fn usage(context: &RequestContext<RoleServer>) -> Option<Arc<Usage>> {
    parts(context)
        .and_then(|parts| parts.extensions.get::<Arc<Usage>>())
        .cloned()
}

/// The caller the HTTP layer let in, which it hands on with the request's parts.
fn caller(context: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
    parts(context)
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .ok_or_else(|| ErrorData::internal_error("the request reached no namespace", None))
}
