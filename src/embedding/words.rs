//! The vocabulary's vectors, the one table of a BERT model that grows with its languages: a
//! multilingual vocabulary's (250,037 × 384) is 384 MB at f32. Kept as f16 rows, it is half
//! that, and it is converted from the mapped weights file a block of rows at a time, so that
//! loading never holds the f32 copy either. f16 keeps 11 bits of each value: the vectors move
//! far less than the int8 layers move them (tests/embedding.rs compares them with candle's).

use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Result, Tensor};

/// Rows converted, and kept, together: 4,096 × 384 f16 values are 3 MB.
const ROWS_PER_BLOCK: usize = 4_096;

pub struct Words {
    blocks: Vec<Tensor>,
}

impl Words {
    /// The table `name` of `weights`, `vocab` rows of `hidden` values.
    pub fn load(
        weights: &MmapedSafetensors,
        name: &str,
        vocab: usize,
        hidden: usize,
    ) -> Result<Self> {
        let view = weights.get(name)?;
        if view.shape() != [vocab, hidden] {
            candle_core::bail!(
                "{name} is {:?}, the config says [{vocab}, {hidden}]",
                view.shape()
            );
        }
        let dtype = DType::try_from(view.dtype())?;
        let row_bytes = hidden * dtype.size_in_bytes();
        let blocks = (view.data().chunks(ROWS_PER_BLOCK * row_bytes))
            .map(|bytes| {
                let rows = bytes.len() / row_bytes;
                Tensor::from_raw_buffer(bytes, dtype, &[rows, hidden], &Device::Cpu)?
                    .to_dtype(DType::F16)
            })
            .collect::<Result<_>>()?;
        Ok(Self { blocks })
    }

    /// The rows of `ids` (`[1, tokens]`), at f32: `[1, tokens, hidden]`.
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let rows = (ids.flatten_all()?.to_vec1::<u32>()?.into_iter())
            .map(|id| {
                let id = id as usize;
                match self.blocks.get(id / ROWS_PER_BLOCK) {
                    Some(block) => block.get(id % ROWS_PER_BLOCK),
                    None => candle_core::bail!("token id {id} is past the vocabulary"),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Tensor::stack(&rows, 0)?.to_dtype(DType::F32)?.unsqueeze(0)
    }
}
