//! A setting that is a secret (tokens, a client secret): its value is never shown by `Debug`,
//! so settings can be printed whole, in a test's failure or a debug line, without leaking it.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

/// A secret value, read only through [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The value itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

impl FromStr for Secret {
    type Err = Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(value.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value() {
        let secret = Secret::from("tok-0123456789abcdef0123456789abcdef");
        let shown = format!("{:?}", Some(&secret));
        assert!(!shown.contains("0123456789"), "{shown}");
        assert_eq!(secret.expose(), "tok-0123456789abcdef0123456789abcdef");
    }
}
