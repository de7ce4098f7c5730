//! A model's `tokenizer.json`, read by Hugging Face's `tokenizers` (normalizer, pre-tokenizer,
//! special tokens, template), with one part of its own: a SentencePiece unigram vocabulary is
//! kept as [`Unigram`] keeps it, in a tenth of the memory `tokenizers`' own takes. Every other
//! vocabulary (WordPiece, BPE) is `tokenizers`' own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use tokenizers::models::ModelWrapper;
use tokenizers::{
    AddedToken, DecoderWrapper, Model, NormalizerWrapper, PostProcessorWrapper,
    PreTokenizerWrapper, Result, Token, TokenizerImpl, Trainer,
};

use super::unigram::Unigram;

pub type Tokenizer = TokenizerImpl<
    Pieces,
    NormalizerWrapper,
    PreTokenizerWrapper,
    PostProcessorWrapper,
    DecoderWrapper,
>;

/// The tokenizer `path` holds.
pub fn load(path: &Path) -> Result<Tokenizer> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// A vocabulary and how it cuts a word into pieces.
pub enum Pieces {
    Unigram(Unigram),
    // Boxed: one tokenizer a model, so the indirection costs nothing, and the enum stays small.
    Other(Box<ModelWrapper>),
}

impl Pieces {
    /// The id of the piece that stands for what the vocabulary lacks, if it has one.
    pub fn unknown(&self) -> Option<u32> {
        match self {
            Self::Unigram(unigram) => Some(unigram.unknown()),
            Self::Other(other) => {
                let name = match other.as_ref() {
                    ModelWrapper::WordPiece(model) => Some(model.unk_token.clone()),
                    ModelWrapper::WordLevel(model) => Some(model.unk_token.clone()),
                    ModelWrapper::BPE(model) => model.unk_token.clone(),
                    ModelWrapper::Unigram(_) => Some("<unk>".to_owned()),
                };
                name.and_then(|name| other.token_to_id(&name))
            }
        }
    }

    /// Whether it is a SentencePiece vocabulary, whose single characters are pieces of its own
    /// rather than a word it lacks, spelled out.
    pub fn is_sentencepiece(&self) -> bool {
        match self {
            Self::Unigram(_) => true,
            Self::Other(other) => matches!(other.as_ref(), ModelWrapper::Unigram(_)),
        }
    }
}

impl<'de> Deserialize<'de> for Pieces {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        /// The fields of a unigram model in `tokenizer.json`.
        #[derive(Deserialize)]
        struct Listed {
            vocab: Vec<(String, f64)>,
            unk_id: Option<usize>,
            #[serde(default)]
            byte_fallback: bool,
        }
        let value = serde_json::Value::deserialize(deserializer)?;
        let unigram = value.get("type").and_then(|t| t.as_str()) == Some("Unigram");
        if unigram
            && let Ok(Listed {
                vocab,
                unk_id: Some(unknown),
                byte_fallback: false,
            }) = Listed::deserialize(&value)
        {
            return Unigram::new(vocab, unknown)
                .map(Self::Unigram)
                .map_err(serde::de::Error::custom);
        }
        // Byte fallback, or no unknown piece: as `tokenizers` reads it.
        ModelWrapper::deserialize(value)
            .map(|other| Self::Other(Box::new(other)))
            .map_err(serde::de::Error::custom)
    }
}

impl Model for Pieces {
    type Trainer = NoTraining;

    fn tokenize(&self, sequence: &str) -> Result<Vec<Token>> {
        match self {
            Self::Unigram(unigram) => Ok(unigram.tokenize(sequence)),
            Self::Other(other) => other.tokenize(sequence),
        }
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        match self {
            Self::Unigram(unigram) => unigram.token_to_id(token),
            Self::Other(other) => other.token_to_id(token),
        }
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        match self {
            Self::Unigram(unigram) => unigram.id_to_token(id),
            Self::Other(other) => other.id_to_token(id),
        }
    }

    fn get_vocab(&self) -> HashMap<String, u32> {
        match self {
            Self::Unigram(unigram) => unigram.vocab(),
            Self::Other(other) => other.get_vocab(),
        }
    }

    fn get_vocab_size(&self) -> usize {
        match self {
            Self::Unigram(unigram) => unigram.len(),
            Self::Other(other) => other.get_vocab_size(),
        }
    }

    fn save(&self, _: &Path, _: Option<&str>) -> Result<Vec<PathBuf>> {
        Err("kioku does not write vocabularies".into())
    }

    fn get_trainer(&self) -> NoTraining {
        NoTraining
    }
}

/// `tokenizers`' `Model` names a trainer; kioku reads vocabularies and never trains one.
pub struct NoTraining;

impl Trainer for NoTraining {
    type Model = Pieces;

    fn should_show_progress(&self) -> bool {
        false
    }

    fn train(&self, _: &mut Pieces) -> Result<Vec<AddedToken>> {
        Err("kioku does not train vocabularies".into())
    }

    fn feed<I, S, F>(&mut self, _: I, _: F) -> Result<()>
    where
        I: Iterator<Item = S> + Send,
        S: AsRef<str> + Send,
        F: Fn(&str) -> Result<Vec<String>> + Sync,
    {
        Err("kioku does not train vocabularies".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenizers::models::unigram;

    /// A tiny vocabulary, segmented as `tokenizers`' own unigram model segments it.
    #[test]
    fn segments_as_tokenizers_does() {
        let vocab: Vec<(String, f64)> = [
            ("<unk>", 0.0),
            ("▁", -2.0),
            ("▁東京", -3.0),
            ("東", -4.0),
            ("京", -4.0),
            ("都", -4.5),
            ("▁京都", -3.5),
            ("の", -1.5),
            // As likely as `a` then `b`: the first path found stays.
            ("ab", -6.0),
            ("a", -3.0),
            ("b", -3.0),
        ]
        .into_iter()
        .map(|(piece, score)| (piece.to_owned(), score))
        .collect();
        let ours = Unigram::new(vocab.clone(), 0).unwrap();
        let theirs = unigram::Unigram::from(vocab, Some(0), false).unwrap();
        for text in [
            "▁東京の京都",
            "▁京都の東京",
            "abab",
            "▁x東🙂yの",
            "",
            "▁",
            "ba▁b",
        ] {
            assert_eq!(
                ours.tokenize(text),
                theirs.tokenize(text).unwrap(),
                "{text}"
            );
        }
    }
}
