//! The HTTP contract, tested against a running server over a socket.

mod auth;
#[path = "../common/emulator.rs"]
mod emulator;
mod errors;
mod firestore;
mod health;
mod helpers;
mod hostile;
mod lifecycle;
mod mcp;
mod memory;
#[path = "../common/original.rs"]
mod original;
mod process;
mod scale;
mod schema;
mod schemathesis;
mod transfer;
