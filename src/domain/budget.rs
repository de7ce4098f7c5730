//! The character budget of an answer: GPT Actions refuse answers of 100,000 characters, so
//! every load and search answer is built within one.

use serde::Serialize;

use super::Entry;

/// Room kept for the answer's envelope: status, counts, the truncation report and its cursor.
pub const ENVELOPE_CHARS: usize = 256;

/// Characters `value` takes as JSON, as sent.
pub fn json_chars(value: &impl Serialize) -> usize {
    serde_json::to_string(value)
        .expect("plain data serializes")
        .chars()
        .count()
}

/// Characters left for the answer's content.
#[derive(Clone)]
pub struct Budget {
    pub left: usize,
}

impl Budget {
    pub fn new(limit: usize) -> Self {
        Self {
            left: limit.saturating_sub(ENVELOPE_CHARS),
        }
    }

    pub fn take(&mut self, chars: usize) -> bool {
        let fits = chars <= self.left;
        if fits {
            self.left -= chars;
        }
        fits
    }
}

/// `entry` with its summary cut, and marked as cut, to take at most `chars` characters of JSON.
/// `None` when not even the marker fits.
pub fn cut_to_fit(entry: &Entry, chars: usize) -> Option<Entry> {
    cut_text(&entry.summary, chars, |summary| Entry {
        summary,
        timestamp: entry.timestamp.clone(),
        writer: entry.writer.clone(),
    })
}

/// `wrap` of `text` cut, and marked as cut, to take at most `chars` characters of JSON. `None`
/// when not even the marker fits.
pub fn cut_text<T: Serialize>(text: &str, chars: usize, wrap: impl Fn(String) -> T) -> Option<T> {
    let total = text.chars().count();
    let cut = |keep: usize| {
        wrap(format!(
            "{}…[cut: {keep} of {total} characters shown]",
            text.chars().take(keep).collect::<String>()
        ))
    };
    // The longest prefix that fits, by bisection: JSON length grows with the prefix.
    let (mut low, mut high) = (0, total);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if json_chars(&cut(mid)) <= chars {
            low = mid
        } else {
            high = mid - 1
        }
    }
    Some(cut(low)).filter(|e| json_chars(e) <= chars)
}
