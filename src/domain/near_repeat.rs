//! A save that nearly repeats a recent entry of its thread: a model that timed out often sends
//! the same conversation again, summarised in other words. Such a save is stored (it may say
//! something new), and its answer names the entry it is close to, so that the model can tell.

use super::{Entry, Vector};

/// The cosine at or above which two summaries say nearly the same: the threshold of best F1 at
/// telling pairs that public sets judge nearly equivalent (an STS score of 4 of 5 or more) from
/// the rest, on SemEval STS 2012-2014 under all-MiniLM-L6-v2, and measured on held-out sets
/// (scripts/bench-similar, docs/recall.md).
pub const SIMILAR_COSINE: f32 = 0.759;

/// Of `recent`, the thread's latest entries with their vectors, the one `vector` is closest to,
/// if at least [`SIMILAR_COSINE`] close.
pub fn nearly_repeats<'a>(vector: &Vector, recent: &'a [(Entry, Vector)]) -> Option<&'a Entry> {
    recent
        .iter()
        .map(|(entry, other)| (vector.cosine(other), entry))
        .filter(|(cosine, _)| *cosine >= SIMILAR_COSINE)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, entry)| entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(summary: &str) -> Entry {
        Entry {
            summary: summary.to_owned(),
            timestamp: "2025-01-01T00:00:00Z".to_owned(),
            writer: None,
        }
    }

    fn unit(values: &[f32]) -> Vector {
        Vector::unit(values.to_vec()).unwrap()
    }

    #[test]
    fn the_closest_entry_over_the_threshold_is_the_one_repeated() {
        let far = (1.0 - SIMILAR_COSINE * SIMILAR_COSINE).sqrt();
        let recent = [
            (
                entry("just under"),
                unit(&[SIMILAR_COSINE - 0.01, far + 0.01]),
            ),
            (entry("close"), unit(&[1.0, 0.01])),
            (entry("closer"), unit(&[1.0, 0.0])),
        ];
        let found = nearly_repeats(&unit(&[1.0, 0.0]), &recent);
        assert_eq!(found.map(|e| e.summary.as_str()), Some("closer"));
        assert_eq!(nearly_repeats(&unit(&[1.0, 0.0]), &recent[..1]), None);
    }
}
