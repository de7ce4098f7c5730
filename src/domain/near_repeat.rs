//! A save that nearly repeats a recent entry of its thread: a model that timed out often sends
//! the same conversation again, summarised in other words. Such a save is stored (it may say
//! something new), and its answer names the entry it is close to, so that the model can tell.

use super::{Entry, Vector};

/// Of `recent`, the thread's latest entries with their vectors, the one `vector` is closest to,
/// if at least `threshold` close: the cosine at or above which two summaries say nearly the
/// same under the model that computed the vectors (embedding/measured.rs).
pub fn nearly_repeats<'a>(
    vector: &Vector,
    recent: &'a [(Entry, Vector)],
    threshold: f32,
) -> Option<&'a Entry> {
    recent
        .iter()
        .map(|(entry, other)| (vector.cosine(other), entry))
        .filter(|(cosine, _)| *cosine >= threshold)
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
        const THRESHOLD: f32 = 0.759;
        let far = (1.0 - THRESHOLD * THRESHOLD).sqrt();
        let recent = [
            (entry("just under"), unit(&[THRESHOLD - 0.01, far + 0.01])),
            (entry("close"), unit(&[1.0, 0.01])),
            (entry("closer"), unit(&[1.0, 0.0])),
        ];
        let found = nearly_repeats(&unit(&[1.0, 0.0]), &recent, THRESHOLD);
        assert_eq!(found.map(|e| e.summary.as_str()), Some("closer"));
        assert_eq!(
            nearly_repeats(&unit(&[1.0, 0.0]), &recent[..1], THRESHOLD),
            None
        );
    }
}
