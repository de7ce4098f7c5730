//! The character budget of an answer: GPT Actions refuse answers of 100,000 characters, so
//! every load and search answer is built within one.

use serde::Serialize;

use super::Entry;
use super::json_text::str_json_chars;

/// Room kept for the answer's envelope: status, counts, the truncation report and its cursor.
pub const ENVELOPE_CHARS: usize = 256;

/// Characters `value` takes as JSON, as sent.
pub fn json_chars(value: &impl Serialize) -> usize {
    let mut counted = CharCount(0);
    serde_json::to_writer(&mut counted, value).expect("plain data serializes");
    counted.0
}

/// Characters `entry` takes as JSON: [`json_chars`], with the summary, nearly all of it,
/// counted by [`str_json_chars`]. Taking the summary out for that needs `&mut`; it is back
/// in place on return.
pub fn entry_json_chars(entry: &mut Entry) -> usize {
    let summary = std::mem::take(&mut entry.summary);
    let chars = json_chars(entry) - json_chars(&"") + str_json_chars(&summary);
    entry.summary = summary;
    chars
}

/// Counts the characters of the UTF-8 written to it, keeping none of it: measuring costs no
/// allocation.
struct CharCount(usize);

impl std::io::Write for CharCount {
    fn write(&mut self, utf8: &[u8]) -> std::io::Result<usize> {
        // A character is its first byte: every byte but UTF-8's continuation bytes 0b10xx_xxxx.
        self.0 += utf8.iter().filter(|b| (**b as i8) >= -0x40).count();
        Ok(utf8.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_counts_as_serde_json_writes_it_and_keeps_its_summary() {
        let writers = [None, Some(crate::domain::Writer::Import)];
        for (summary, writer) in ["", "要約\n\"引用\"", "\u{1}"]
            .into_iter()
            .zip(writers.iter().cycle())
        {
            let mut entry = Entry {
                summary: summary.into(),
                timestamp: "2025-08-19T08:39:27.174624+09:00".into(),
                writer: writer.clone(),
            };
            assert_eq!(
                entry_json_chars(&mut entry),
                json_chars(&entry),
                "{entry:?}"
            );
            assert_eq!(entry.summary, summary);
        }
    }
}
