//! The HTTP contract, tested against a running server over a socket.

mod auth;
mod errors;
mod health;
mod helpers;
mod memory;
mod process;
