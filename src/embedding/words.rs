//! The vocabulary's vectors, the one table of a BERT model that grows with its languages: a
//! multilingual vocabulary's (250,037 × 384) is 384 MB at f32. At f32 precision it is kept as
//! f16 rows, half that: f16 keeps 11 bits of each value, and the vectors stay within a cosine
//! of 0.99999 of f32's. At int8 precision, whose layers already move the vectors by about a
//! thousandth, each row is kept as int8 with a scale of its own, a quarter of f32's size; a
//! row's error, at most half a step of its largest value, moves the vectors far less than the
//! int8 layers do (tests/embedding.rs compares both with candle's). Either way the table is
//! converted from the mapped weights file a block of rows at a time, so that loading never
//! holds the f32 copy.

use candle_core::safetensors::MmapedSafetensors;
use candle_core::{DType, Device, Result, Tensor};

use super::int8::symmetric;
use super::precision::Precision;

/// Rows converted together: 4,096 × 384 f32 values are 6 MB.
const ROWS_PER_BLOCK: usize = 4_096;

pub struct Words {
    rows: Rows,
    hidden: usize,
}

enum Rows {
    /// Blocks of [`ROWS_PER_BLOCK`] rows.
    F16(Vec<Tensor>),
    /// Row `i` is `values[i * hidden..][..hidden]` times `scales[i]`.
    Int8 { values: Vec<i8>, scales: Vec<f32> },
}

impl Words {
    /// The table `name` of `weights`, `vocab` rows of `hidden` values, as `precision` keeps it.
    pub fn load(
        weights: &MmapedSafetensors,
        name: &str,
        (vocab, hidden): (usize, usize),
        precision: Precision,
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
        let blocks = (view.data().chunks(ROWS_PER_BLOCK * row_bytes)).map(|bytes| {
            let rows = bytes.len() / row_bytes;
            Tensor::from_raw_buffer(bytes, dtype, &[rows, hidden], &Device::Cpu)
        });
        let rows = match precision {
            Precision::F32 => Rows::F16(
                blocks
                    .map(|block| block?.to_dtype(DType::F16))
                    .collect::<Result<_>>()?,
            ),
            Precision::Int8 => {
                let mut values = Vec::with_capacity(vocab * hidden);
                let mut scales = Vec::with_capacity(vocab);
                for block in blocks {
                    let block = block?
                        .to_dtype(DType::F32)?
                        .flatten_all()?
                        .to_vec1::<f32>()?;
                    for row in block.chunks_exact(hidden) {
                        let (scale, row) = symmetric(row);
                        values.extend(row);
                        scales.push(scale);
                    }
                }
                Rows::Int8 { values, scales }
            }
        };
        Ok(Self { rows, hidden })
    }

    /// The rows of `ids` (`[1, tokens]`), at f32: `[1, tokens, hidden]`.
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let ids = ids.flatten_all()?.to_vec1::<u32>()?;
        let past = |id: usize| candle_core::bail!("token id {id} is past the vocabulary");
        match &self.rows {
            Rows::F16(blocks) => {
                let rows = (ids.into_iter())
                    .map(|id| {
                        let id = id as usize;
                        match blocks.get(id / ROWS_PER_BLOCK) {
                            Some(block) => block.get(id % ROWS_PER_BLOCK),
                            None => past(id),
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                Tensor::stack(&rows, 0)?.to_dtype(DType::F32)?.unsqueeze(0)
            }
            Rows::Int8 { values, scales } => {
                let mut out = Vec::with_capacity(ids.len() * self.hidden);
                for id in ids.iter().map(|&id| id as usize) {
                    let at = id * self.hidden;
                    let (Some(row), Some(scale)) =
                        (values.get(at..at + self.hidden), scales.get(id))
                    else {
                        return past(id);
                    };
                    out.extend(row.iter().map(|&v| f32::from(v) * scale));
                }
                Tensor::from_vec(out, (1, ids.len(), self.hidden), &Device::Cpu)
            }
        }
    }
}
