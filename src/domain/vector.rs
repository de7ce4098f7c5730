//! A text's meaning as a unit vector, and the model that computed it: what search by meaning
//! compares (see [`crate::embedding`]).

use std::fmt;

/// Which model computed a vector: vectors of two models are not comparable, so a store keeps
/// this beside each vector and a search reads only those of the model it asks with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelId(String);

impl ModelId {
    /// `sha256:<first 16 hex digits of the weights' digest>/<dimension>/whole`: the weights name
    /// the model, whatever its directory is called; `whole`, that a text longer than the model
    /// reads at once was read whole, in windows (embedding/windows.rs). A vector stored under
    /// the id without it read only the text's opening: searches no longer compare with it, and
    /// the backfill computes its entry's again.
    pub fn new(weights_digest_hex: &str, dimension: usize) -> Self {
        let short = &weights_digest_hex[..weights_digest_hex.len().min(16)];
        Self(format!("sha256:{short}/{dimension}/whole"))
    }

    /// A model id as a store wrote it.
    pub fn stored(raw: String) -> Self {
        Self(raw)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ModelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A vector of unit length, so that its dot product with another is their cosine.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector(Vec<f32>);

impl Vector {
    /// `values` scaled to unit length; `None` for an empty, zero or non-finite one.
    pub fn unit(values: Vec<f32>) -> Option<Self> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        (norm.is_finite() && norm > 0.0)
            .then(|| Self(values.into_iter().map(|v| v / norm).collect()))
    }

    pub fn dimension(&self) -> usize {
        self.0.len()
    }

    pub fn values(&self) -> &[f32] {
        &self.0
    }

    /// How alike two vectors are, from -1 to 1; 0 when their dimensions differ.
    pub fn cosine(&self, other: &Vector) -> f32 {
        if self.0.len() != other.0.len() {
            return 0.0;
        }
        self.0.iter().zip(&other.0).map(|(a, b)| a * b).sum()
    }

    /// Little-endian `f32`s, as stores keep it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// Reads what [`to_bytes`](Self::to_bytes) wrote; `None` for anything else.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if !bytes.len().is_multiple_of(4) {
            return None;
        }
        let values = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Self::unit(values)
    }
}

/// A vector and the model that computed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Embedded {
    pub model: ModelId,
    pub vector: Vector,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_kept_at_unit_length_and_read_back_exactly() {
        let v = Vector::unit(vec![3.0, 4.0]).unwrap();
        assert!((v.cosine(&v) - 1.0).abs() < 1e-6);
        assert_eq!(Vector::from_bytes(&v.to_bytes()), Some(v.clone()));
        assert_eq!(Vector::unit(vec![0.0, 0.0]), None);
        assert_eq!(Vector::from_bytes(&[1, 2, 3]), None);
        assert_eq!(v.cosine(&Vector::unit(vec![1.0, 0.0, 0.0]).unwrap()), 0.0);
    }
}
