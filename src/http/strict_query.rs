//! A query-string extractor that refuses what a lenient one would quietly mangle.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// A query string read strictly: every `%` starts a two-digit escape and the decoded text is
/// UTF-8, where a lenient reader would quietly store U+FFFD in place of what was sent.
pub struct StrictQuery<T>(pub T);

impl<T: DeserializeOwned> FromRequest for StrictQuery<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let query = req.query_string();
        let parsed = check_encoding(query)
            .and_then(|()| serde_urlencoded::from_str(query).map_err(|e| e.to_string()));
        ready(parsed.map(Self).map_err(ApiError::MalformedQuery))
    }
}

fn check_encoding(query: &str) -> Result<(), String> {
    for pair in query.split('&') {
        let bytes = pair.as_bytes();
        let mut decoded = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'%' => {
                    let hex = bytes
                        .get(i + 1..i + 3)
                        .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                        .ok_or("a `%` is not followed by two hex digits")?;
                    let hex = std::str::from_utf8(hex).expect("hex digits are ASCII");
                    decoded.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
                    i += 3;
                }
                b'+' => {
                    decoded.push(b' ');
                    i += 1;
                }
                byte => {
                    decoded.push(byte);
                    i += 1;
                }
            }
        }
        std::str::from_utf8(&decoded).map_err(|_| "percent-encoded bytes are not UTF-8")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_utf8_and_refuses_broken_escapes_and_bytes() {
        assert!(check_encoding("mode=save&summary=%E8%A8%98%E6%86%B6+x").is_ok());
        assert!(check_encoding("").is_ok());
        for bad in [
            "summary=%zz",
            "summary=%E8%A8",
            "summary=%",
            "summary=%4",
            "summary=%+1",
            "a=%FF",
        ] {
            assert!(check_encoding(bad).is_err(), "{bad}");
        }
    }
}
