//! The HTTP contract, tested against a running server over a socket.

mod app;
mod app_guards;
mod app_paths;
mod app_profile;
mod audit;
mod auth;
mod browser;
mod cookies;
mod costs;
#[path = "../common/emulator.rs"]
mod emulator;
mod errors;
mod firestore;
mod guessing;
mod hardening;
mod health;
mod helpers;
mod hostile;
mod isolation;
mod launch;
mod lifecycle;
#[path = "../common/listening.rs"]
mod listening;
mod mcp;
mod mcp_conformance;
mod mcp_transport;
mod memory;
mod near_repeat;
#[path = "../common/needs.rs"]
mod needs;
mod oauth;
#[path = "../common/original.rs"]
mod original;
mod plugin;
mod privacy;
mod process;
mod profile;
#[path = "../common/oidc.rs"]
mod provider;
mod readme;
mod request_target;
mod scale;
mod schema;
mod schemathesis;
mod search;
mod semantic;
mod transfer;
