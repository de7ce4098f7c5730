//! The OAuth server's settings (docs/oauth.md), part of [`super::Settings`].

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::Secret;
use crate::oauth::{Lifetimes, LoopbackDocuments};

/// The OAuth server's settings (docs/oauth.md).
#[derive(Debug, Clone, Args)]
pub struct OAuthSettings {
    /// Turn the OAuth server on, with these ways to sign in, comma-separated: `token` (type an
    /// API token) and `oidc` (at an OpenID Provider) [default: off]
    #[arg(long = "oauth", env = "KIOKU_OAUTH", value_enum, value_delimiter = ',')]
    pub modes: Vec<SignInMode>,

    /// The OpenID Provider's issuer URL, for `oidc` sign-in (e.g. https://accounts.google.com).
    #[arg(long, env = "KIOKU_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,

    /// kioku's client ID at the OpenID Provider.
    #[arg(long, env = "KIOKU_OIDC_CLIENT_ID")]
    pub oidc_client_id: Option<String>,

    /// kioku's client secret at the OpenID Provider.
    #[arg(long, env = "KIOKU_OIDC_CLIENT_SECRET", hide_env_values = true)]
    pub oidc_client_secret: Option<Secret>,

    /// Seconds an access token lasts.
    #[arg(long, env = "KIOKU_OAUTH_ACCESS_TOKEN_SECS", default_value_t = OAuthSettings::ACCESS_TOKEN_SECS,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub access_token_secs: u64,

    /// Days a refresh token, and a grant nobody uses, lasts.
    #[arg(long, env = "KIOKU_OAUTH_REFRESH_TOKEN_DAYS", default_value_t = OAuthSettings::REFRESH_TOKEN_DAYS,
          value_parser = clap::value_parser!(u64).range(1..=365))]
    pub refresh_token_days: u64,

    /// Seconds a rotated refresh token, sent again, still gets the pair its rotation issued (a
    /// client that refreshed twice at once); past them, or at 0, it revokes the grant.
    #[arg(long, env = "KIOKU_OAUTH_REFRESH_RACE_SECS", default_value_t = OAuthSettings::REFRESH_RACE_SECS,
          value_parser = clap::value_parser!(u64).range(0..=60))]
    pub refresh_race_secs: u64,

    /// For a developer's own machine, and refused on Cloud Run: client metadata documents may
    /// also be fetched over plain http from this machine (a client_id such as
    /// http://127.0.0.1:8000/client.json), so that a client ID metadata document can be tried
    /// locally.
    #[arg(long, env = "KIOKU_DEV_INSECURE_LOCAL_CLIENT_DOCUMENTS", default_value_t = false,
          action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub dev_insecure_local_client_documents: bool,

    /// Tests only: no flag or variable sets it. Client metadata documents may then come from
    /// this host's own addresses, over TLS from a test root certificate.
    #[arg(skip)]
    pub loopback_documents: Option<LoopbackDocuments>,

    /// Seconds an authorization code may wait to be exchanged.
    #[arg(long, env = "KIOKU_OAUTH_CODE_SECS", default_value_t = OAuthSettings::CODE_SECS,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub code_secs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SignInMode {
    /// The person types an API token; the grant opens that token's namespace.
    Token,
    /// The person signs in at the OpenID Provider; each person gets a namespace of their own.
    Oidc,
}

impl OAuthSettings {
    const ACCESS_TOKEN_SECS: u64 = 3_600;
    const REFRESH_TOKEN_DAYS: u64 = 30;
    const CODE_SECS: u64 = 60;
    const REFRESH_RACE_SECS: u64 = 10;

    pub fn enabled(&self) -> bool {
        !self.modes.is_empty()
    }

    pub fn lifetimes(&self) -> Lifetimes {
        Lifetimes {
            code: Duration::from_secs(self.code_secs),
            access_token: Duration::from_secs(self.access_token_secs),
            refresh_token: Duration::from_secs(self.refresh_token_days * 86_400),
            refresh_race: Duration::from_secs(self.refresh_race_secs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Cli;
    use clap::Parser;

    fn parse(args: &[&str]) -> OAuthSettings {
        Cli::try_parse_from(std::iter::once("kioku").chain(args.iter().copied()))
            .unwrap()
            .settings
            .oauth
    }

    #[test]
    fn oauth_is_off_unless_sign_in_modes_are_named() {
        assert!(!parse(&[]).enabled());
        let on = parse(&["--oauth", "token,oidc"]);
        assert_eq!(on.modes, [SignInMode::Token, SignInMode::Oidc]);
        assert_eq!(on.access_token_secs, OAuthSettings::ACCESS_TOKEN_SECS);
    }
}
