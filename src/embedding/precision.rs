//! How the model multiplies: f32, or int8 where the CPU is fast at it. The encoder's linear
//! layers and the vocabulary's table each keep their weights as the precision says.

use std::fmt;

use super::int8;

/// How the encoder's linear layers multiply, where nearly all of its time goes, and how the
/// vocabulary's table is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// f32 weights: the vectors as the model's authors compute them.
    F32,
    /// int8 weights and inputs, exact integer sums: a quarter of f32's time on a CPU with
    /// AVX-512 VNNI, vectors about a cosine of 0.999 from f32's (docs/recall.md).
    Int8,
}

impl Precision {
    /// int8 where the CPU has AVX-512 VNNI; elsewhere f32, which gemm runs faster than
    /// int8 one value at a time.
    pub fn fastest() -> Self {
        if int8::available() {
            Self::Int8
        } else {
            Self::F32
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::F32 => "f32",
            Self::Int8 => "int8",
        })
    }
}
