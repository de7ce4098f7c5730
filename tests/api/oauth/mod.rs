//! The OAuth server, as its clients meet it over HTTP, on each store: a GPT Action's
//! confidential client, an MCP client that registers itself and uses PKCE (by hand, and
//! through the official MCP TypeScript SDK), one known by its metadata document, sign-in at a
//! real OpenID Provider, and every refusal in OAuth's shape; a client's refresh race;
//! registrations limited per address, refreshes per grant, made-up refresh tokens per address
//! and approvals per person; and bodies from anyone not signed in limited to what
//! they need.

mod bodies;
mod cimd;
mod clients;
mod confidential;
mod document_floods;
pub mod documents;
mod floods;
pub mod flow;
mod guesses;
mod log;
mod oidc;
mod pace;
mod public;
mod race;
mod refusals;
mod rotation;
mod sdk;
mod tombstones;
