//! What a request's target may hold on its way to actix-http: bytes a person's curl sends raw
//! (`?summary=初回の要約`), percent-encoded as a browser would, since actix-http reads the target
//! with the `http` crate's `Uri`, which refuses them and answers an empty 400 before any
//! handler could explain.
//!
//! [`Targets`] follows HTTP/1.1's framing (RFC 9112) through a connection's bytes so that only
//! request lines are touched: it skips each body by its `Content-Length`, and stops rewriting
//! for good at anything it does not follow (`Transfer-Encoding`, `Upgrade`, `CONNECT`, a
//! doubtful length), leaving those bytes as they came. A target's UTF-8 is checked where it
//! is read (`StrictQuery`): a raw byte that is not UTF-8 becomes an escape that is refused there.

/// Where a connection's next byte falls.
#[derive(Debug, PartialEq)]
enum At {
    /// A request line: before its first space (the method), in the target, or after it.
    Line(Part),
    /// A header line, of which the first bytes are kept to read the framing.
    Header,
    /// A body, with this many bytes still to come.
    Body(u64),
    /// Framing this does not follow: every further byte passes as it came.
    Unfollowed,
}

#[derive(Debug, PartialEq, Clone, Copy)]
enum Part {
    Method,
    Target,
    Version,
}

/// A header line longer than this is none that sets the framing, unless its name does.
const KEPT: usize = 128;

/// The request-line rewriter of one connection.
pub(super) struct Targets {
    at: At,
    /// Whether the request line or header line under way has any byte yet.
    started: bool,
    /// The first bytes of the line under way: a request line's method, or a header line.
    line: Vec<u8>,
    /// Whether the line under way was longer than what is kept of it.
    overflowed: bool,
    length: Option<u64>,
    unfollowed: bool,
}

impl Targets {
    pub(super) fn new() -> Self {
        Self {
            at: At::Line(Part::Method),
            started: false,
            line: Vec::new(),
            overflowed: false,
            length: None,
            unfollowed: false,
        }
    }

    /// Whether no further byte will be rewritten.
    pub(super) fn done(&self) -> bool {
        self.at == At::Unfollowed
    }

    /// `input` as actix-http should read it, if that differs from `input`.
    pub(super) fn rewrite(&mut self, input: &[u8]) -> Option<Vec<u8>> {
        let mut output: Option<Vec<u8>> = None;
        let mut i = 0;
        while i < input.len() {
            if let At::Body(left) = self.at {
                let skipped = left.min((input.len() - i) as u64);
                if let Some(out) = output.as_mut() {
                    out.extend_from_slice(&input[i..i + skipped as usize]);
                }
                i += skipped as usize;
                self.at = match left - skipped {
                    0 => At::Line(Part::Method),
                    left => At::Body(left),
                };
                continue;
            }
            if self.at == At::Unfollowed {
                if let Some(out) = output.as_mut() {
                    out.extend_from_slice(&input[i..]);
                }
                break;
            }
            let byte = input[i];
            if self.at == At::Line(Part::Target) && needs_escape(byte) {
                let out = output.get_or_insert_with(|| input[..i].to_vec());
                out.extend_from_slice(&escape(byte));
            } else if let Some(out) = output.as_mut() {
                out.push(byte);
            }
            self.step(byte);
            i += 1;
        }
        output
    }

    fn step(&mut self, byte: u8) {
        match (&self.at, byte) {
            (At::Line(_) | At::Header, b'\n') => self.end_line(),
            (_, b'\r') => {}
            (At::Line(Part::Method), b' ') => {
                self.at = At::Line(Part::Target);
                self.started = true;
            }
            (At::Line(Part::Method) | At::Header, _) => {
                self.started = true;
                if self.line.len() < KEPT {
                    self.line.push(byte);
                } else {
                    self.overflowed = true;
                }
            }
            (At::Line(Part::Target), b' ') => self.at = At::Line(Part::Version),
            _ => {}
        }
    }

    fn end_line(&mut self) {
        let started = std::mem::take(&mut self.started);
        let overflowed = std::mem::take(&mut self.overflowed);
        self.at = match (&self.at, started) {
            // Empty lines before a request line are ignored (RFC 9112 §2.2).
            (At::Line(_), false) => At::Line(Part::Method),
            (At::Line(_), true) => {
                self.unfollowed |= self.line.eq_ignore_ascii_case(b"CONNECT");
                At::Header
            }
            (_, true) => {
                match (framing(&self.line, overflowed), self.length) {
                    (Framing::Other, _) => {}
                    (Framing::Length(length), None) => self.length = Some(length),
                    // Unreadable, cut short, or a length said twice.
                    _ => self.unfollowed = true,
                }
                At::Header
            }
            // The empty line that ends the head: a request's body is as long as its
            // Content-Length says, or empty (RFC 9112 §6.3).
            (_, false) => match (self.unfollowed, self.length.take()) {
                (true, _) => At::Unfollowed,
                (false, None | Some(0)) => At::Line(Part::Method),
                (false, Some(length)) => At::Body(length),
            },
        };
        self.line.clear();
    }
}

/// What a header line says of the framing.
enum Framing {
    Other,
    Length(u64),
    Unfollowed,
}

/// `line` (its first [`KEPT`] bytes; `overflowed` if it had more) read for the framing.
fn framing(line: &[u8], overflowed: bool) -> Framing {
    let Some(colon) = line.iter().position(|&b| b == b':') else {
        // A name too long to read could be any.
        return if overflowed {
            Framing::Unfollowed
        } else {
            Framing::Other
        };
    };
    let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
    if name.eq_ignore_ascii_case(b"transfer-encoding") || name.eq_ignore_ascii_case(b"upgrade") {
        return Framing::Unfollowed;
    }
    if !name.eq_ignore_ascii_case(b"content-length") {
        return Framing::Other;
    }
    // Digits only: Rust's parse would also take a sign, which HTTP does not.
    let digits = !overflowed && !value.is_empty() && value.iter().all(u8::is_ascii_digit);
    match std::str::from_utf8(value).ok().filter(|_| digits) {
        Some(value) => value.parse().map_or(Framing::Unfollowed, Framing::Length),
        None => Framing::Unfollowed,
    }
}

/// Bytes RFC 3986 never allows in a URI (outside ASCII, or among `"<>\^`{|}` and DEL), which
/// the `http` crate refuses; a browser sends each as a `%XX` escape of its byte.
fn needs_escape(byte: u8) -> bool {
    byte >= 0x7f || b"\"<>\\^`{|}".contains(&byte)
}

fn escape(byte: u8) -> [u8; 3] {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    [
        b'%',
        HEX[usize::from(byte >> 4)],
        HEX[usize::from(byte & 0xf)],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The connection's bytes as actix-http would read them, fed in pieces of `piece` bytes.
    fn read(input: &[u8], piece: usize) -> Vec<u8> {
        let mut targets = Targets::new();
        let mut output = Vec::new();
        for chunk in input.chunks(piece) {
            match targets.rewrite(chunk) {
                Some(rewritten) => output.extend(rewritten),
                None => output.extend_from_slice(chunk),
            }
        }
        output
    }

    fn each_piece_size(input: &str, expected: &str) {
        for piece in [1, 2, 3, 7, input.len()] {
            assert_eq!(
                String::from_utf8_lossy(&read(input.as_bytes(), piece)),
                expected,
                "read {piece} bytes at a time"
            );
        }
    }

    #[test]
    fn a_raw_target_is_percent_encoded_and_nothing_else_is() {
        each_piece_size(
            "GET /?summary=初回 HTTP/1.1\r\nX-Name: 初回\r\n\r\n",
            "GET /?summary=%E5%88%9D%E5%9B%9E HTTP/1.1\r\nX-Name: 初回\r\n\r\n",
        );
        each_piece_size(
            "GET /a?q={\"x\"|y} HTTP/1.1\r\n\r\n",
            "GET /a?q=%7B%22x%22%7Cy%7D HTTP/1.1\r\n\r\n",
        );
    }

    #[test]
    fn an_encoded_target_is_left_alone() {
        let request = "\r\nGET /?summary=%E5%88%9D&a=b HTTP/1.1\r\nHost: x\r\n\r\n";
        assert_eq!(Targets::new().rewrite(request.as_bytes()), None);
    }

    #[test]
    fn a_body_is_skipped_by_its_length_and_the_next_request_rewritten() {
        each_piece_size(
            "POST / HTTP/1.1\r\ncontent-length: 9\r\n\r\n{\"s\":\"初\"}GET /?q=初 HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\ncontent-length: 9\r\n\r\n{\"s\":\"初\"}GET /?q=%E5%88%9D HTTP/1.1\r\n\r\n",
        );
    }

    #[test]
    fn framing_it_does_not_follow_is_passed_as_it_came() {
        for head in &[
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n",
            &format!(
                "POST / HTTP/1.1\r\nContent-Length:{}1\r\n\r\n",
                " ".repeat(KEPT)
            ),
            "GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "CONNECT a:1 HTTP/1.1\r\n\r\n",
        ] {
            let input = format!("{head}x\r\nGET /?q=初 HTTP/1.1\r\n\r\n");
            let mut targets = Targets::new();
            assert_eq!(targets.rewrite(input.as_bytes()), None, "{head}");
            assert!(targets.done(), "{head}");
        }
    }
}
