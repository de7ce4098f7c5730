//! BERT's encoder as a sentence-embedding model runs it here: one text at a time, unpadded, so
//! with no attention mask; its GELU and softmax each one pass over the values
//! (`activations`), its linear layers in int8 where the CPU is fast at it (`int8`).
//!
//! candle-transformers' `BertModel` computes the same vectors at f32 (tests/embedding.rs
//! compares them), but through general ops and a mask of zeros, slower.

use candle_core::safetensors::MmapedSafetensors;
use candle_core::{Module, Result, Tensor};
use candle_nn::{Embedding, Linear, VarBuilder, embedding, linear};
use candle_transformers::models::bert::{Config, HiddenAct};

use super::activations::{Gelu, LayerNorm, Softmax};
use super::int8::Int8Linear;
use super::precision::Precision;
use super::words::Words;

pub struct Bert {
    words: Words,
    positions: Embedding,
    types: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    activation: HiddenAct,
}

/// One of the encoder's layers: self-attention, then the feed-forward block, each added to
/// its input and normalized.
struct Layer {
    query: Dense,
    key: Dense,
    value: Dense,
    attended: Dense,
    attended_norm: LayerNorm,
    inner: Dense,
    output: Dense,
    output_norm: LayerNorm,
}

/// A linear layer's weights, as the chosen precision multiplies them.
enum Dense {
    F32(Linear),
    Int8(Int8Linear),
}

impl Dense {
    fn load(inputs: usize, outputs: usize, vb: VarBuilder, precision: Precision) -> Result<Self> {
        let linear = linear(inputs, outputs, vb)?;
        Ok(match precision {
            Precision::F32 => Self::F32(linear),
            Precision::Int8 => match Int8Linear::quantize(&linear)? {
                Some(int8) => Self::Int8(int8),
                None => Self::F32(linear),
            },
        })
    }
}

impl Module for Dense {
    fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        match self {
            Self::F32(linear) => linear.forward(xs),
            Self::Int8(int8) => int8.forward(xs),
        }
    }
}

impl Bert {
    /// The weights under their Hugging Face names, at the root or under the model type
    /// (`bert.embeddings…`), as checkpoints save them either way. `weights` is the file `vb`
    /// reads, for the vocabulary's table ([`Words`]).
    pub fn load(
        vb: VarBuilder,
        weights: &MmapedSafetensors,
        config: &Config,
        precision: Precision,
    ) -> Result<Self> {
        let load = |vb: VarBuilder| Self::load_at(vb, weights, config, precision);
        load(vb.clone()).or_else(|err| match &config.model_type {
            Some(prefix) => load(vb.pp(prefix)).map_err(|_| err),
            None => Err(err),
        })
    }

    fn load_at(
        vb: VarBuilder,
        weights: &MmapedSafetensors,
        config: &Config,
        precision: Precision,
    ) -> Result<Self> {
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let inner = config.intermediate_size;
        let embeddings = vb.pp("embeddings");
        let dense = |inputs, outputs, vb| Dense::load(inputs, outputs, vb, precision);
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let vb = vb.pp(format!("encoder.layer.{i}"));
                let attention = vb.pp("attention");
                Ok(Layer {
                    query: dense(hidden, hidden, attention.pp("self.query"))?,
                    key: dense(hidden, hidden, attention.pp("self.key"))?,
                    value: dense(hidden, hidden, attention.pp("self.value"))?,
                    attended: dense(hidden, hidden, attention.pp("output.dense"))?,
                    attended_norm: LayerNorm::load(hidden, eps, attention.pp("output.LayerNorm"))?,
                    inner: dense(hidden, inner, vb.pp("intermediate.dense"))?,
                    output: dense(inner, hidden, vb.pp("output.dense"))?,
                    output_norm: LayerNorm::load(hidden, eps, vb.pp("output.LayerNorm"))?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            words: Words::load(
                weights,
                &format!("{}.weight", embeddings.pp("word_embeddings").prefix()),
                (config.vocab_size, hidden),
                precision,
            )?,
            positions: embedding(
                config.max_position_embeddings,
                hidden,
                embeddings.pp("position_embeddings"),
            )?,
            types: embedding(
                config.type_vocab_size,
                hidden,
                embeddings.pp("token_type_embeddings"),
            )?,
            norm: LayerNorm::load(hidden, eps, embeddings.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
            activation: config.hidden_act,
        })
    }

    /// Each token's vector, `[1, tokens, hidden]`, for one text's token ids (`[1, tokens]`).
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let tokens = ids.dim(1)?;
        let positions = Tensor::arange(0u32, tokens as u32, ids.device())?.unsqueeze(0)?;
        let types = ids.zeros_like()?;
        let embedded = ((self.words.forward(ids)? + self.types.forward(&types)?)?
            + self.positions.forward(&positions)?)?;
        let mut states = self.norm.forward(embedded)?;
        for layer in &self.layers {
            states = self.layer(layer, &states)?;
        }
        Ok(states)
    }

    fn layer(&self, layer: &Layer, states: &Tensor) -> Result<Tensor> {
        let (batch, tokens, hidden) = states.dims3()?;
        let size = hidden / self.heads;
        // [batch, heads, tokens, size]
        let by_head = |xs: Tensor| {
            xs.reshape((batch, tokens, self.heads, size))?
                .transpose(1, 2)?
                .contiguous()
        };
        let scale = 1.0 / (size as f64).sqrt();
        let query = by_head(layer.query.forward(states)?.affine(scale, 0.0)?)?;
        let key = by_head(layer.key.forward(states)?)?;
        let value = by_head(layer.value.forward(states)?)?;
        let weights = query.matmul(&key.t()?)?;
        weights.inplace_op1(&Softmax)?;
        let context =
            (weights.matmul(&value)?.transpose(1, 2)?).reshape((batch, tokens, hidden))?;
        let attended =
            (layer.attended_norm).forward((layer.attended.forward(&context)? + states)?)?;
        let inner = layer.inner.forward(&attended)?;
        let inner = match self.activation {
            HiddenAct::Gelu => {
                inner.inplace_op1(&Gelu)?;
                inner
            }
            HiddenAct::GeluApproximate => inner.gelu()?,
            HiddenAct::Relu => inner.relu()?,
        };
        (layer.output_norm).forward((layer.output.forward(&inner)? + attended)?)
    }
}
