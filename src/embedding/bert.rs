//! BERT's encoder as a sentence-embedding model runs it here: one text at a time, unpadded, so
//! with no attention mask; its GELU and softmax each one pass over the values.
//!
//! candle-transformers' `BertModel` computes the same vectors (tests/embedding.rs compares
//! them), but through general ops that call libm's `erff` and `expf` once per value and add a
//! mask of zeros: about a fifth of the model's time on a 500-character text (perf, 2026-12-04).

use candle_core::{CpuStorage, CustomOp1, Layout, Module, Result, Shape, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use candle_transformers::models::bert::{Config, HiddenAct};

pub struct Bert {
    words: Embedding,
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
    query: Linear,
    key: Linear,
    value: Linear,
    attended: Linear,
    attended_norm: LayerNorm,
    inner: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl Bert {
    /// The weights under their Hugging Face names, at the root or under the model type
    /// (`bert.embeddings…`), as checkpoints save them either way.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        Self::load_at(vb.clone(), config).or_else(|err| match &config.model_type {
            Some(prefix) => Self::load_at(vb.pp(prefix), config).map_err(|_| err),
            None => Err(err),
        })
    }

    fn load_at(vb: VarBuilder, config: &Config) -> Result<Self> {
        let (hidden, eps) = (config.hidden_size, config.layer_norm_eps);
        let embeddings = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let vb = vb.pp(format!("encoder.layer.{i}"));
                let attention = vb.pp("attention");
                Ok(Layer {
                    query: linear(hidden, hidden, attention.pp("self.query"))?,
                    key: linear(hidden, hidden, attention.pp("self.key"))?,
                    value: linear(hidden, hidden, attention.pp("self.value"))?,
                    attended: linear(hidden, hidden, attention.pp("output.dense"))?,
                    attended_norm: layer_norm(hidden, eps, attention.pp("output.LayerNorm"))?,
                    inner: linear(
                        hidden,
                        config.intermediate_size,
                        vb.pp("intermediate.dense"),
                    )?,
                    output: linear(config.intermediate_size, hidden, vb.pp("output.dense"))?,
                    output_norm: layer_norm(hidden, eps, vb.pp("output.LayerNorm"))?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            words: embedding(config.vocab_size, hidden, embeddings.pp("word_embeddings"))?,
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
            norm: layer_norm(hidden, eps, embeddings.pp("LayerNorm"))?,
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
        let mut states = self.norm.forward(&embedded)?;
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
        let weights = candle_nn::ops::softmax_last_dim(&query.matmul(&key.t()?)?)?;
        let context =
            (weights.matmul(&value)?.transpose(1, 2)?).reshape((batch, tokens, hidden))?;
        let attended =
            (layer.attended_norm).forward(&(layer.attended.forward(&context)? + states)?)?;
        let inner = layer.inner.forward(&attended)?;
        let inner = match self.activation {
            HiddenAct::Gelu => inner.apply_op1_no_bwd(&Gelu)?,
            HiddenAct::GeluApproximate => inner.gelu()?,
            HiddenAct::Relu => inner.relu()?,
        };
        (layer.output_norm).forward(&(layer.output.forward(&inner)? + attended)?)
    }
}

/// The exact GELU, `x Φ(x)`, of every value: one loop the compiler vectorizes.
struct Gelu;

impl CustomOp1 for Gelu {
    fn name(&self) -> &'static str {
        "gelu-erf"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (CpuStorage::F32(values), Some((start, end))) = (storage, layout.contiguous_offsets())
        else {
            candle_core::bail!("gelu-erf takes contiguous f32 values");
        };
        let out = values[start..end].iter().map(|&x| gelu(x)).collect();
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf to within 1e-7 by a rational function of x (a minimax fit on [-4, 4], beyond which erf
/// is ±1 in f32): Eigen's `generic_fast_erf_float`, which XLA also uses. No branch, no call.
fn erf(x: f32) -> f32 {
    const P: [f32; 7] = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_600_2e-3,
        -1.609_603_3e-2,
    ];
    const Q: [f32; 5] = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = P.iter().fold(0.0, |acc, &c| acc * x2 + c) * x;
    let q = Q.iter().fold(0.0, |acc, &c| acc * x2 + c);
    p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_is_within_a_millionth_of_its_tabled_values() {
        // Abramowitz and Stegun, table 7.1.
        for (x, expected) in [
            (0.0_f32, 0.0_f64),
            (0.1, 0.112_462_916),
            (0.5, 0.520_499_878),
            (1.0, 0.842_700_793),
            (1.5, 0.966_105_146),
            (2.0, 0.995_322_265),
            (3.0, 0.999_977_910),
            (6.0, 1.0),
        ] {
            let (at, at_minus) = (f64::from(erf(x)), f64::from(erf(-x)));
            assert!((at - expected).abs() < 1e-6, "erf({x}) = {at}");
            assert!((at_minus + expected).abs() < 1e-6, "erf(-{x}) = {at_minus}");
        }
    }
}
