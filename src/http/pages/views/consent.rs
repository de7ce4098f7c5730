//! The consent page: which app asks, what it may do with the person's memory, where the person
//! goes next, and how they sign in.

use askama::Template;

use crate::http::pages::Text;
use crate::oauth::{AuthorizationParams, AuthorizationRequest};

#[derive(Template)]
#[template(path = "consent.html")]
pub struct Consent<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub heading: String,
    pub destination: String,
    pub problem: Option<&'a str>,
    /// The authorization request's parameters, sent back with the person's decision.
    pub hidden: Vec<(String, String)>,
    pub csrf: String,
    pub token_sign_in: bool,
    pub provider_button: Option<String>,
}

impl<'a> Consent<'a> {
    pub fn new(
        t: &'a Text,
        request: &AuthorizationRequest,
        params: &AuthorizationParams,
        csrf: String,
        token_sign_in: bool,
        provider: Option<&str>,
    ) -> Self {
        let query = serde_urlencoded::to_string(params).unwrap_or_default();
        // The parameters that were sent, as hidden fields: the same pairs as the query.
        let hidden = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        Self {
            t,
            switch_url: Some(format!("?{query}&lang={}", t.other_lang)),
            heading: t.heading.replace("{client}", &request.client.name),
            destination: destination(&request.redirect_uri),
            problem: None,
            hidden,
            csrf,
            token_sign_in,
            provider_button: provider
                .map(|p| t.sign_in_with.replace("{provider}", &super::host(p))),
        }
    }
}

/// Where the person goes next, as they can judge it: the redirect URI's host, or its scheme
/// for an app's own.
fn destination(redirect_uri: &str) -> String {
    match url::Url::parse(redirect_uri) {
        Ok(url) => url.host_str().filter(|h| !h.is_empty()).map_or_else(
            || format!("{}:", url.scheme()),
            |h| match url.port() {
                Some(port) => format!("{h}:{port}"),
                None => h.to_owned(),
            },
        ),
        Err(_) => redirect_uri.to_owned(),
    }
}

/// What a person reads when a sign-in cannot go on.
#[derive(Template)]
#[template(path = "notice.html")]
pub struct Notice<'a> {
    pub t: &'a Text,
    pub switch_url: Option<String>,
    pub message: &'a str,
}
