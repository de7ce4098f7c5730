//! kioku (記憶): memory for custom GPTs that outlives the chat thread.
//!
//! A tour, from the bottom up; each module imports only those above it in this list
//! (tests/architecture.rs checks it).
//!
//! - [`error_chain`]: a failure and its causes as one log line, for every layer.
//! - [`files`]: the data directory and the files in it, their owner's alone.
//! - [`domain`]: validated values (a [`domain::Summary`], a [`domain::ThreadId`], a
//!   [`domain::Namespace`]) and the rules of an answer: its character budget and paging. Raw
//!   input becomes a domain value at a boundary, or is refused there.
//! - [`search`]: a question read into terms (one tokenizer indexes summaries too), BM25 over
//!   the summaries holding them, fused with the ranking by meaning, and the results within the
//!   answer's budget. A store counts terms and finds candidates; the ranking is here.
//! - [`store`]: where memories live. The [`store::MemoryStore`] trait (what an operation
//!   reads and writes; [`store::TimeLimit`] holds each operation to one deadline),
//!   [`store::Maintenance`] (migrate, import, the vectors' backfill), and one folder per
//!   backend: `sqlite` (embedded, one file) and `firestore` (the original function's layout,
//!   a folder per thing it holds: threads, loads, the search index, vectors, profiles, grants).
//! - [`embedding`]: search by meaning, when `KIOKU_EMBEDDING_MODEL` names a model: the model
//!   run in-process (candle; its linear layers in int8 where the CPU has AVX-512 VNNI), one
//!   text per core off the async workers, and the backfill that embeds what was stored
//!   without a vector.
//! - [`credentials`]: API tokens and the namespaces they unlock, admin tokens, and the token
//!   of a local run. [`rate_limit`]: requests a minute per namespace. [`throttle`]: failed
//!   sign-ins per client address.
//! - [`memory`]: save, load, forget and the profile: what every door (the HTTP API, the MCP
//!   tools, the memory page) calls, each operation with the one request type they all fill,
//!   so that each rule is written once, under one deadline and in its namespace's turn. [`error_code`]: the stable names of its refusals, and
//!   the HTTP status of each. [`guide`]: the usage guide a model follows, for every door (the
//!   GPT's prompt, the MCP server's instructions in brief, the plugin's skill).
//! - [`mcp`]: the same operations as MCP tools, served through the official SDK (`rmcp`), and
//!   the view of the memory an MCP Apps host shows inside the chat (`mcp/view/memory.html`).
//! - [`plugin`]: the package that installs a deployment in ChatGPT, Codex and Claude Code:
//!   manifests, the MCP server's address, and the guide as the memory skill.
//! - [`oauth`]: the OAuth 2.1 authorization server inside kioku (clients, consent, codes,
//!   tokens, sign-in at an OpenID Provider), and the check of the access tokens it issues.
//! - [`gate`]: who may call, at every door (the API, `/mcp`, `/admin`, the pages): the
//!   client address admitted, what it presents checked, failures counted, each namespace held
//!   to its rate limit; written once, for every door.
//! - [`transfer`]: memories as JSON Lines, for `kioku export`, `kioku import` and
//!   `/admin/export`.
//! - [`config`] (settings from flags and the environment) and [`telemetry`] (the log format).
//! - [`http`]: the only module that knows actix-web: the API's, MCP's, OAuth's and the
//!   operator's routes, extractors, middleware, the OpenAPI schema, errors as HTTP answers
//!   (the API's, OAuth's and the memory page's), and every HTML page in one place (the memory page, consent, sign-in, privacy).
//! - [`startup`]: wires settings → store → credentials → [`http::serve`]; `main` runs it.

pub mod config;
pub mod credentials;
pub mod domain;
pub mod embedding;
pub mod error_chain;
pub mod error_code;
pub mod files;
pub mod gate;
pub mod guide;
pub mod http;
pub mod mcp;
pub mod memory;
pub mod oauth;
pub mod plugin;
pub mod rate_limit;
pub mod search;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod throttle;
pub mod transfer;
