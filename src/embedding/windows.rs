//! A text longer than the model reads, read whole: its tokens cut into windows the model can
//! read, each overlapping the one before by [`OVERLAP`] tokens and framed as the model reads a
//! text alone (its special tokens, and the prompt before the text); the text's vector is then
//! the mean of the windows' (model.rs). A long memory is found by what it says anywhere in it,
//! not by its opening alone: on LoCoMo's whole sessions (docs/recall.md), the opening's vector
//! made search by words and meaning worse than by words alone.

/// Tokens each window shares with the one before, so that a sentence cut at one window's end
/// is read whole in the next.
pub const OVERLAP: usize = 32;

/// A text's tokens as the model reads it alone: what comes before the text (`[CLS]`, the
/// prompt), the text's own, and what comes after it (`[SEP]`).
pub struct Framed<'a> {
    pub before: &'a [u32],
    pub text: &'a [u32],
    pub after: &'a [u32],
}

impl Framed<'_> {
    /// The windows of the text, each framed and at most `max_tokens` long: the text as it is
    /// when it fits; the first window is what a truncation to `max_tokens` keeps.
    pub fn windows(&self, max_tokens: usize) -> Vec<Vec<u32>> {
        let frame = self.before.len() + self.after.len();
        let room = max_tokens.saturating_sub(frame).max(OVERLAP + 1);
        let mut windows = Vec::new();
        let mut start = 0;
        loop {
            let end = (start + room).min(self.text.len());
            windows.push([self.before, &self.text[start..end], self.after].concat());
            if end == self.text.len() {
                return windows;
            }
            start += room - OVERLAP;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: [u32; 3] = [101, 7, 8];
    const AFTER: [u32; 1] = [102];

    fn windows(text: &[u32], max_tokens: usize) -> Vec<Vec<u32>> {
        let framed = Framed {
            before: &BEFORE,
            text,
            after: &AFTER,
        };
        framed.windows(max_tokens)
    }

    #[test]
    fn a_text_that_fits_is_one_window_as_it_is() {
        let text: Vec<u32> = (1000..1060).collect();
        assert_eq!(windows(&text, 64), [[&BEFORE[..], &text, &AFTER].concat()]);
        assert_eq!(windows(&[], 64), [[&BEFORE[..], &AFTER].concat()]);
    }

    #[test]
    fn a_long_text_is_read_whole_in_overlapping_windows() {
        let text: Vec<u32> = (1000..1300).collect();
        let windows = windows(&text, 64);
        let room = 64 - BEFORE.len() - AFTER.len();
        let mut read = Vec::new();
        for (i, window) in windows.iter().enumerate() {
            assert!(window.len() <= 64);
            assert_eq!(
                (&window[..3], &window[window.len() - 1..]),
                (&BEFORE[..], &AFTER[..])
            );
            let inside = &window[3..window.len() - 1];
            if i > 0 {
                assert_eq!(inside[..OVERLAP], read[read.len() - OVERLAP..]);
                read.extend_from_slice(&inside[OVERLAP..]);
            } else {
                assert_eq!(
                    inside,
                    &text[..room],
                    "the first is what a truncation keeps"
                );
                read.extend_from_slice(inside);
            }
        }
        assert_eq!(
            read, text,
            "every token is read, in order, once past the overlaps"
        );
        assert_eq!(windows.len(), 1 + (300 - room).div_ceil(room - OVERLAP));
    }
}
