//! JSON strings as serde_json writes them, taken many bytes at a time: serde_json looks at one
//! byte at a time, and summaries are most of what a load measures and answers.

/// Whether JSON writes `byte` escaped: `"`, `\` and the control characters. Every other byte,
/// each byte of a character past ASCII among them, is written as it is.
fn escaped(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// Bytes looked at together: chunks of one exact size, so that the compiler takes each in
/// whole vector registers.
const CHUNK: usize = 32;

/// Characters `text` takes as a JSON string, quotes included, as serde_json writes it: `"`,
/// `\` and the control characters with a short escape take two, the other control characters
/// six (`\u001f`), every other character one. Counted without branches so that the compiler
/// counts many bytes at once.
pub(super) fn str_json_chars(text: &str) -> usize {
    let cost = |byte: u8| {
        let starts_char = (byte as i8 >= -0x40) as u8;
        let control = (byte < 0x20) as u8;
        // \b \t \n \f \r: 8 to 13 but 11.
        let short = ((byte.wrapping_sub(8) < 6) & (byte != 11)) as u8;
        starts_char + escaped(byte) as u8 + 4 * (control & (1 - short))
    };
    // Summed in bytes, which a chunk's 32, each costing 6 at most, cannot overflow.
    let chunk_chars = |chunk: &[u8]| chunk.iter().map(|b| cost(*b)).sum::<u8>() as usize;
    let chunks = text.as_bytes().chunks_exact(CHUNK);
    2 + chunk_chars(chunks.remainder()) + chunks.map(chunk_chars).sum::<usize>()
}

/// Appends `text` to `out` as a JSON string, byte for byte as serde_json writes it.
pub fn write_json_str(out: &mut Vec<u8>, text: &str) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut rest = text.as_bytes();
    while let Some(at) = first_escaped(rest) {
        out.extend_from_slice(&rest[..at]);
        write_escape(out, rest[at]);
        rest = &rest[at + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// Where the first byte JSON escapes is.
fn first_escaped(bytes: &[u8]) -> Option<usize> {
    let chunks = bytes.chunks_exact(CHUNK);
    let tail = chunks.remainder();
    for (n, chunk) in chunks.enumerate() {
        // A fold rather than `any`, which would stop at each byte and so not vectorize.
        if chunk.iter().fold(false, |any, b| any | escaped(*b)) {
            return chunk
                .iter()
                .position(|b| escaped(*b))
                .map(|at| n * CHUNK + at);
        }
    }
    let tail_start = bytes.len() - tail.len();
    tail.iter()
        .position(|b| escaped(*b))
        .map(|at| tail_start + at)
}

/// The escape serde_json writes for `byte`: a short one where JSON has it, else `\u00XX` in
/// lower-case hex.
fn write_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        b'\t' => b't',
        b'\n' => b'n',
        0x0c => b'f',
        b'\r' => b'r',
        _ => {
            let (high, low) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]);
            return out.extend_from_slice(&[b'\\', b'u', b'0', b'0', high, low]);
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::json_chars;

    /// Every ASCII character (the control characters among them) and characters of two, three
    /// and four bytes, alone and together; an escape on either side of each chunk's edge; and
    /// many chunks of the costliest character.
    fn texts() -> Vec<String> {
        let mut texts: Vec<String> = (0..=0x7f_u8).map(|b| char::from(b).to_string()).collect();
        texts.extend(["", "é", "記憶", "🧠", "a\"b\\c\n\u{1}é記🧠\u{7f}"].map(String::from));
        texts.push(texts.concat());
        for at in [CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 5] {
            for escape in ["\"", "\\", "\n", "\u{1f}"] {
                let mut text = "x".repeat(at);
                text.push_str(escape);
                texts.push(text.clone() + "記憶の設計".repeat(9).as_str() + escape);
                texts.push(text);
            }
        }
        texts.push("\u{1}".repeat(1_000));
        texts.push("今日は記憶の設計について話した。".repeat(40));
        texts
    }

    #[test]
    fn a_string_counts_as_serde_json_writes_it() {
        for text in texts() {
            assert_eq!(str_json_chars(&text), json_chars(&text), "{text:?}");
        }
    }

    #[test]
    fn a_string_is_written_as_serde_json_writes_it() {
        for text in texts() {
            let mut out = b"[".to_vec();
            write_json_str(&mut out, &text);
            let expected = [&b"["[..], &serde_json::to_vec(&text).unwrap()].concat();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                String::from_utf8(expected).unwrap()
            );
        }
    }
}
