//! Whom a person asks about their memory (`KIOKU_PRIVACY_CONTACT`): an email address or a web
//! page, which the privacy policy links to.

/// The longest address a contact may be: an email address's limit (RFC 5321, 4.5.3.1.3).
const MAX_CHARS: usize = 254;

/// An operator's contact, checked to be a link a page can hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contact {
    Email(String),
    Page(String),
}

impl Contact {
    /// `value` as a contact: `privacy@example.com` or `https://example.com/contact`.
    pub fn parse(value: &str) -> Result<Self, String> {
        let refused = || {
            format!(
                "`{value}` is neither an email address nor an https URL: write one such as \
                 privacy@example.com or https://example.com/contact"
            )
        };
        let value = value.trim();
        let plain = |c: char| !c.is_whitespace() && !c.is_control() && !"<>\"'`\\".contains(c);
        if value.is_empty() || value.chars().count() > MAX_CHARS || !value.chars().all(plain) {
            return Err(refused());
        }
        if value.starts_with("https://") {
            let url = url::Url::parse(value).map_err(|_| refused())?;
            return match url.host_str() {
                Some(host) if !host.is_empty() => Ok(Self::Page(url.into())),
                _ => Err(refused()),
            };
        }
        match value.split_once('@') {
            Some((local, domain))
                if !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !domain.contains('@')
                    && !value.contains(':') =>
            {
                Ok(Self::Email(value.to_owned()))
            }
            _ => Err(refused()),
        }
    }

    /// Where the link goes.
    pub fn href(&self) -> String {
        match self {
            Self::Email(address) => format!("mailto:{address}"),
            Self::Page(url) => url.clone(),
        }
    }

    /// What the link says.
    pub fn text(&self) -> &str {
        match self {
            Self::Email(text) | Self::Page(text) => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Contact;

    #[test]
    fn an_email_address_or_an_https_page_is_a_contact() {
        let email = Contact::parse("privacy@example.com").unwrap();
        assert_eq!(email.href(), "mailto:privacy@example.com");
        assert_eq!(email.text(), "privacy@example.com");
        let page = Contact::parse(" https://example.com/contact ").unwrap();
        assert_eq!(page.href(), "https://example.com/contact");
    }

    #[test]
    fn anything_else_is_refused_with_an_example() {
        for value in [
            "",
            "operator",
            "a@b",
            "@example.com",
            "a@.example.com",
            "a b@example.com",
            "javascript:alert(1)@x.com",
            "http://example.com",
            "https://",
            "https://x\"onmouseover=\"y",
            "<a@example.com>",
        ] {
            let refusal = Contact::parse(value).expect_err(value);
            assert!(refusal.contains("privacy@example.com"), "{refusal}");
        }
    }
}
