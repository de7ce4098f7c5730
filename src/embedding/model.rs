//! A BERT-family sentence-embedding model from a directory: its tokenizer, its weights, and
//! how it pools token vectors into one (the mean, unless its pooling config says the first).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use sha2::{Digest, Sha256};
use tokenizers::Encoding;

use super::EmbeddingError;
use super::bert::Bert;
use super::error::Cause;
use super::precision::Precision;
use super::tokenizer::{self, Tokenizer};
use super::windows::Framed;
use crate::domain::{ModelId, Vector};

/// Most tokens a text is read to when the model does not say (`sentence_bert_config.json`):
/// what sentence-transformers' MiniLM models read.
const DEFAULT_MAX_TOKENS: usize = 256;

/// A summary's vector, and whether the model reads all of the summary: a vector of text it
/// cannot read says little of it, so such a vector ranks but is not compared for a near repeat.
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub vector: Vector,
    pub read_whole: bool,
}

pub struct Model {
    tokenizer: Tokenizer,
    bert: Bert,
    precision: Precision,
    id: ModelId,
    dimension: usize,
    /// Most tokens one run of the model reads.
    max_tokens: usize,
    /// Pool by the first token's vector (`[CLS]`) instead of the mean of all.
    first_token: bool,
    /// The token standing for a piece of text the vocabulary lacks, if the tokenizer has one.
    unknown: Option<u32>,
    /// Whether a word spelled a character at a time is a word the vocabulary lacks (WordPiece,
    /// BPE), or may be how it writes one (a SentencePiece vocabulary splits `埋め` into `埋`
    /// `め`, both its own pieces).
    spelling_says_unknown: bool,
    /// What the model was trained to read before a question and before a passage.
    prompts: Prompts,
}

impl Model {
    /// Loads the model in `dir`, to run at the precision fastest on this CPU, or says which
    /// file is missing or unreadable.
    pub fn load(dir: &Path) -> Result<Self, EmbeddingError> {
        Self::load_as(dir, Precision::fastest())
    }

    /// Loads the model in `dir` to run at `precision`.
    pub fn load_as(dir: &Path, precision: Precision) -> Result<Self, EmbeddingError> {
        let path = |file: &'static str| {
            let path = dir.join(file);
            path.is_file()
                .then_some(path)
                .ok_or(EmbeddingError::Missing {
                    dir: dir.to_owned(),
                    file,
                })
        };
        let (config_path, tokenizer_path, weights_path) = (
            path("config.json")?,
            path("tokenizer.json")?,
            path("model.safetensors")?,
        );
        let config: Config = read_json(&config_path, "config.json", "a BERT model's config")?;
        // A RoBERTa-family config reads as a BERT one, but its position ids start elsewhere:
        // its vectors would be wrong without a word said.
        if let Some(other) = config.model_type.as_deref().filter(|t| *t != "bert") {
            return Err(EmbeddingError::NotBert(other.to_owned()));
        }
        let options = ModelOptions::read(dir)?;
        let mut tokenizer = tokenizer::load(&tokenizer_path)
            .map_err(|e| invalid("tokenizer.json", "a tokenizer", e))?;
        // Texts are cut into what the model reads here (windows.rs), not by the tokenizer.
        tokenizer
            .with_truncation(None)
            .map_err(|e| invalid("tokenizer.json", "a tokenizer", e))?;
        tokenizer.with_padding(None);
        let unknown = tokenizer.get_model().unknown();
        let spelling_says_unknown = !tokenizer.get_model().is_sentencepiece();
        let digest = digest_of(&weights_path)?;
        // SAFETY: the weights are mapped read-only, and kioku does not change the file while
        // it runs (the operator replacing it under a running server is not supported).
        let mapped = unsafe { MmapedSafetensors::new(&weights_path) }
            .map_err(|e| invalid("model.safetensors", "safetensors weights", e))?;
        // SAFETY: as above.
        let weights = unsafe {
            VarBuilder::from_mmaped_safetensors(&[&weights_path], DType::F32, &Device::Cpu)
        }
        .map_err(|e| invalid("model.safetensors", "safetensors weights", e))?;
        let bert = Bert::load(weights, &mapped, &config, precision)
            .map_err(|e| invalid("model.safetensors", "the weights of a BERT model", e))?;
        Ok(Self {
            tokenizer,
            bert,
            precision,
            id: ModelId::new(&digest, config.hidden_size),
            dimension: config.hidden_size,
            max_tokens: options.max_tokens.min(config.max_position_embeddings),
            first_token: options.first_token,
            unknown,
            spelling_says_unknown,
            prompts: options.prompts,
        })
    }

    pub fn id(&self) -> &ModelId {
        &self.id
    }

    pub fn dimension(&self) -> usize {
        self.dimension
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The vector of a text to be found (a summary), after the model's passage prompt: read
    /// whole, the mean of its windows' vectors when it is longer than the model reads at once;
    /// and whether the model [reads all of it](Self::read_whole), told from the same
    /// tokenizing (the prompt is the model's own words, which it reads).
    pub fn embed(&self, text: &str) -> Result<Passage, EmbeddingError> {
        let prompt = &self.prompts.passage;
        let prompted = format!("{prompt}{text}");
        let encoding = self.encode(&prompted)?;
        let read_whole = self.read_whole(&prompted, &encoding);
        let windows = framed(&encoding, prompt.len()).windows(self.max_tokens);
        let vector = match &windows[..] {
            [whole] => self.forward(whole)?,
            _ => {
                let mut sum = vec![0.0; self.dimension];
                for window in &windows {
                    let vector = self.forward(window)?;
                    sum.iter_mut()
                        .zip(vector.values())
                        .for_each(|(sum, v)| *sum += v);
                }
                Vector::unit(sum).ok_or_else(|| {
                    EmbeddingError::Inference("the windows' vectors cancel out".into())
                })?
            }
        };
        Ok(Passage { vector, read_whole })
    }

    /// The vector of a question, after the model's query prompt, or `None` if the model
    /// cannot read all of it ([`read_whole`]) or tokenize it: then the model is not run.
    ///
    /// [`read_whole`]: Self::read_whole
    pub fn embed_if_read_whole(&self, text: &str) -> Result<Option<Vector>, EmbeddingError> {
        let prompt = &self.prompts.query;
        let prompted = format!("{prompt}{text}");
        let encoding = match self.encode(&prompted) {
            Ok(encoding) if self.read_whole(&prompted, &encoding) => encoding,
            _ => return Ok(None),
        };
        // A question is read to the model's limit: its opening says what is asked.
        let first = framed(&encoding, prompt.len())
            .windows(self.max_tokens)
            .swap_remove(0);
        self.forward(&first).map(Some)
    }

    /// Whether the model's vocabulary has words for all of `text`, tokenized as `encoding`:
    /// none of it becomes the unknown token (`[UNK]`, `<unk>`), and, under a WordPiece or BPE
    /// vocabulary, no word of another script than ASCII is spelled a character at a time (two
    /// single-character pieces in a row). Such a vocabulary of another language spells text
    /// that way, and its vector says little of the text (all-MiniLM-L6-v2's of Japanese:
    /// docs/recall.md). A Chinese character alone is a word of its own in BERT's tokenizers,
    /// so a multilingual model's Chinese and kanji still read; a SentencePiece vocabulary's
    /// single characters are its own pieces, so there only `<unk>` counts.
    fn read_whole(&self, text: &str, encoding: &Encoding) -> bool {
        if self
            .unknown
            .is_some_and(|unknown| encoding.get_ids().contains(&unknown))
        {
            return false;
        }
        if !self.spelling_says_unknown {
            return true;
        }
        let mut spelling = None;
        for (word, &(start, end)) in encoding.get_word_ids().iter().zip(encoding.get_offsets()) {
            let piece = text.get(start..end).unwrap_or_default();
            let letter = word.is_some() && !piece.is_ascii() && piece.chars().count() == 1;
            if letter && spelling == *word {
                return false;
            }
            spelling = if letter { *word } else { None };
        }
        true
    }

    fn encode(&self, text: &str) -> Result<Encoding, EmbeddingError> {
        (self.tokenizer.encode(text, true)).map_err(EmbeddingError::Inference)
    }

    fn forward(&self, ids: &[u32]) -> Result<Vector, EmbeddingError> {
        let inference = |e: candle_core::Error| EmbeddingError::Inference(e.into());
        let ids = Tensor::new(ids, &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .map_err(inference)?;
        let tokens = self.bert.forward(&ids).map_err(inference)?;
        let pooled = if self.first_token {
            tokens.get_on_dim(1, 0)
        } else {
            tokens.mean(1)
        };
        let values: Vec<f32> = pooled
            .and_then(|t| t.squeeze(0))
            .and_then(|t| t.to_vec1())
            .map_err(inference)?;
        Vector::unit(values).ok_or_else(|| {
            EmbeddingError::Inference("the model gave a zero or non-finite vector".into())
        })
    }
}

/// `encoding` (of a prompt of `prompt_bytes` and a text, with the model's special tokens) as
/// the text's own tokens and those around them: the prompt's are those that end within it (a
/// SentencePiece token may carry the prompt's last space into the text's first word).
fn framed(encoding: &Encoding, prompt_bytes: usize) -> Framed<'_> {
    let (ids, special) = (encoding.get_ids(), encoding.get_special_tokens_mask());
    let lead = special.iter().take_while(|&&s| s == 1).count();
    let prompt = (encoding.get_offsets()[lead..].iter())
        .take_while(|&&(_, end)| end <= prompt_bytes && prompt_bytes > 0)
        .count();
    let trail = special[lead + prompt..]
        .iter()
        .rev()
        .take_while(|&&s| s == 1)
        .count();
    let (before, rest) = ids.split_at(lead + prompt);
    let (text, after) = rest.split_at(rest.len() - trail);
    Framed {
        before,
        text,
        after,
    }
}

/// What sentence-transformers keeps beside the weights: how many tokens the model reads, and
/// how it pools them. Both files are optional.
struct ModelOptions {
    max_tokens: usize,
    first_token: bool,
    prompts: Prompts,
}

/// The prompts sentence-transformers puts before a text (`config_sentence_transformers.json`'s
/// `prompts`): the E5 models were trained with `query: ` before a question and `passage: `
/// before what it may find; a model without them reads texts as they are.
#[derive(Default, serde::Deserialize)]
struct Prompts {
    #[serde(default)]
    query: String,
    #[serde(default)]
    passage: String,
}

impl ModelOptions {
    fn read(dir: &Path) -> Result<Self, EmbeddingError> {
        #[derive(serde::Deserialize)]
        struct SentenceBert {
            max_seq_length: usize,
        }
        #[derive(serde::Deserialize)]
        struct Pooling {
            #[serde(default)]
            pooling_mode_cls_token: bool,
        }
        #[derive(serde::Deserialize)]
        struct SentenceTransformers {
            #[serde(default)]
            prompts: Prompts,
        }
        let sentence = dir.join("sentence_bert_config.json");
        let pooling = dir.join("1_Pooling/config.json");
        let transformers = dir.join("config_sentence_transformers.json");
        Ok(Self {
            max_tokens: match sentence.is_file() {
                true => {
                    read_json::<SentenceBert>(&sentence, "sentence_bert_config.json", "JSON")?
                        .max_seq_length
                }
                false => DEFAULT_MAX_TOKENS,
            },
            first_token: pooling.is_file()
                && read_json::<Pooling>(&pooling, "1_Pooling/config.json", "JSON")?
                    .pooling_mode_cls_token,
            prompts: match transformers.is_file() {
                true => {
                    let file = "config_sentence_transformers.json";
                    read_json::<SentenceTransformers>(&transformers, file, "JSON")?.prompts
                }
                false => Prompts::default(),
            },
        })
    }
}

fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    file: &'static str,
    expected: &'static str,
) -> Result<T, EmbeddingError> {
    let reader = File::open(path)
        .map(BufReader::new)
        .map_err(|e| invalid(file, expected, e))?;
    serde_json::from_reader(reader).map_err(|e| invalid(file, expected, e))
}

/// The weights' SHA-256, in hex: what names the model.
fn digest_of(path: &Path) -> Result<String, EmbeddingError> {
    let mut file = File::open(path).map_err(|e| invalid("model.safetensors", "a file", e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| invalid("model.safetensors", "a file", e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

fn invalid(file: &'static str, expected: &'static str, source: impl Into<Cause>) -> EmbeddingError {
    EmbeddingError::Invalid {
        file,
        expected,
        source: source.into(),
    }
}
