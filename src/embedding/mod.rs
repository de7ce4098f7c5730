//! Search by meaning: a sentence-embedding model (BERT family, safetensors weights) run in this
//! process by candle, its linear layers by kioku's int8 kernel where the CPU has AVX-512 VNNI,
//! so that no memory leaves the service and a save costs no call. Optional: without
//! `KIOKU_EMBEDDING_MODEL`, search is lexical only.

mod activations;
mod backfill;
mod bert;
mod embeddings;
mod error;
mod int8;
mod measured;
mod model;
mod precision;
mod tokenizer;
mod unigram;
mod windows;
mod words;

pub use backfill::backfill;
pub use embeddings::{EmbeddedSummary, Embeddings};
pub use error::EmbeddingError;
pub use model::{Model, Passage};
pub use precision::Precision;
