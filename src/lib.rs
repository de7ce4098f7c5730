//! kioku: memory for custom GPTs that outlives the chat thread.

pub mod auth;
pub mod config;
pub mod domain;
pub mod error;
pub mod limits;
pub mod openapi;
pub mod routes;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod transfer;
