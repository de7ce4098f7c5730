//! Which language a page speaks: the one the person chose, else their browser's.

use actix_web::HttpRequest;
use actix_web::http::header;

use super::text::{self, Text};

/// The page's language: `lang` when the person chose one, else the first of Japanese or
/// English in `Accept-Language` by preference (RFC 9110, section 12.5.4), else English.
pub fn language(req: &HttpRequest, chosen: Option<&str>) -> &'static Text {
    match chosen {
        Some("ja") => return &text::JA,
        Some("en") => return &text::EN,
        _ => {}
    }
    let accepted = req
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let mut ranked: Vec<(f32, &str)> = accepted
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let tag = parts.next()?.trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1.0), |q| q.parse().ok())?;
            Some((q, tag))
        })
        .collect();
    // Stable, so equal weights keep the header's order.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let primary = |tag: &str| {
        tag.split('-')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    match ranked
        .iter()
        .filter(|(q, _)| *q > 0.0)
        .map(|(_, tag)| primary(tag))
        .find(|p| p == "ja" || p == "en")
        .as_deref()
    {
        Some("ja") => &text::JA,
        _ => &text::EN,
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn the_language_follows_the_choice_then_the_browser() {
        let req = |accept: &str| {
            TestRequest::default()
                .insert_header((header::ACCEPT_LANGUAGE, accept))
                .to_http_request()
        };
        assert_eq!(language(&req("ja-JP,ja;q=0.9,en;q=0.8"), None).lang, "ja");
        assert_eq!(language(&req("fr, en;q=0.5, ja;q=0.4"), None).lang, "en");
        assert_eq!(language(&req("en;q=0.2, ja;q=0.9"), None).lang, "ja");
        assert_eq!(language(&req("ja"), Some("en")).lang, "en");
        assert_eq!(language(&req("de"), None).lang, "en");
    }
}
