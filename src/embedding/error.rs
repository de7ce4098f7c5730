//! Why a model would not load or embed.

use std::error::Error;
use std::path::PathBuf;

/// What candle, the tokenizer or the file system said.
pub type Cause = Box<dyn Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum EmbeddingError {
    #[error(
        "the embedding model directory {dir} has no {file}: it needs config.json, \
         tokenizer.json and model.safetensors (a sentence-transformers model as Hugging Face \
         saves it)"
    )]
    Missing { dir: PathBuf, file: &'static str },
    #[error("the embedding model's {file} could not be read as {expected}")]
    Invalid {
        file: &'static str,
        expected: &'static str,
        #[source]
        source: Cause,
    },
    #[error(
        "the embedding model's config.json says model_type \"{0}\": kioku runs BERT models \
         (model_type \"bert\") only"
    )]
    NotBert(String),
    #[error("the embedding model failed on a text")]
    Inference(#[source] Cause),
}
