//! Settings, from command-line flags or the environment (flags win).

use std::net::{IpAddr, Ipv4Addr};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use chrono_tz::Tz;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::credentials::WeakTokens;
use crate::domain::Retention;

mod contact;
mod cosine;
mod oauth;
mod secret;
mod zone;

pub use contact::Contact;
pub use oauth::{OAuthSettings, SignInMode};
pub use secret::Secret;

/// The server's flags are its own: `kioku [FLAGS]` and `kioku serve [FLAGS]` take them, and
/// every other command reads the settings it needs (the store's, the schema's) from the
/// environment alone, so that its `--help` shows only what is its own.
#[derive(Debug, Parser)]
#[command(
    name = "kioku",
    version,
    about = "Memory for custom GPTs that outlives the chat thread",
    args_conflicts_with_subcommands = true,
    after_help = "Commands other than serve read the server's settings from the environment \
                  (KIOKU_STORE, KIOKU_DATA_DIR, KIOKU_PUBLIC_URL, ...)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub settings: Settings,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the API (the default).
    Serve {
        #[command(flatten)]
        settings: Box<Settings>,
    },
    /// Print a new random API token, for API_TOKENS.
    Token,
    /// Print the OpenAPI schema a GPT Action imports.
    Openapi {
        /// YAML, as the GPT editor imports it from a file, or JSON.
        #[arg(long, value_enum, default_value_t = SchemaFormat::Yaml)]
        format: SchemaFormat,
    },
    /// Write the plugin that installs this deployment in ChatGPT, Codex and Claude Code.
    Plugin {
        /// The deployment's public URL, e.g. https://kioku.example.com
        #[arg(long)]
        url: String,
        /// The folder to write the plugin into
        #[arg(long, default_value = "kioku-plugin")]
        out: PathBuf,
    },
    /// Write the store's memories to stdout as JSON Lines, one thread per line.
    Export {
        /// Only this namespace [default: every one]
        #[arg(long)]
        namespace: Option<String>,
    },
    /// Read JSON Lines written by `export` into the store; importing twice changes nothing.
    Import {
        /// The file to read [default: stdin]
        file: Option<PathBuf>,
        /// Import namespace OLD's threads into NEW, e.g. a bare token's into a named namespace.
        #[arg(long, value_name = "OLD:NEW")]
        rename: Vec<String>,
    },
    /// Bring the store up to this version's layout: on Firestore, track the threads the
    /// original function wrote, so that loads read them in order (safe while kioku serves).
    Migrate,
    /// Manage the OAuth server's clients, such as a GPT Action's (docs/oauth.md).
    OauthClient {
        #[command(subcommand)]
        action: ClientAction,
    },
}

#[derive(Debug, Subcommand)]
pub enum ClientAction {
    /// Add a confidential client; prints its ID and secret, which is shown only this once.
    Add {
        /// What the consent page calls it, e.g. the GPT's name.
        #[arg(long)]
        name: String,
        /// Where codes may be sent; repeat for several.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
    },
    /// Add a redirect URI to a client, e.g. the callback the GPT editor shows once saved.
    AddRedirectUri {
        /// The client's ID, as `add` printed it and `list` shows it.
        client_id: String,
        /// The redirect URI to allow, exactly as the client will send it.
        #[arg(long)]
        redirect_uri: String,
    },
    /// List the clients, without their secrets.
    List,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    Yaml,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Port to listen on.
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,

    /// Address to listen on [default: 127.0.0.1, or 0.0.0.0 on Cloud Run]
    #[arg(long, env = "KIOKU_HOST")]
    pub host: Option<IpAddr>,

    /// Comma-separated tokens; `name:token` stores under namespace `name`, a bare `token` under
    /// itself (the original function's layout). Unset locally: a token is generated and kept in
    /// the data directory.
    #[arg(long, env = "API_TOKENS", hide_env_values = true)]
    pub api_tokens: Option<Secret>,

    /// Where memories are stored [default: sqlite, or firestore on Cloud Run]
    #[arg(long, env = "KIOKU_STORE", value_enum)]
    pub store: Option<StoreKind>,

    /// Firestore database id.
    #[arg(long, env = "FIRESTORE_DATABASE", default_value = "(default)")]
    pub firestore_database: String,

    /// Directory of a sentence-embedding model (BERT family: config.json, tokenizer.json,
    /// model.safetensors), run in this process to search by meaning as well as by words.
    /// Unset: search by words only.
    #[arg(long, env = "KIOKU_EMBEDDING_MODEL")]
    pub embedding_model: Option<PathBuf>,

    /// Cosine at or above which a save says nearly what one saved to its thread in the 10
    /// minutes before said, and is flagged `similar_to` it [default: the threshold measured
    /// for the model, if kioku was measured with it (docs/recall.md); else no flag]
    #[arg(long, env = "KIOKU_SIMILAR_COSINE", value_parser = cosine::parse)]
    pub similar_cosine: Option<f32>,

    /// Directory of the embedded store and the generated local token.
    #[arg(long, env = "KIOKU_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// IANA time zone of saved timestamps.
    #[arg(long, env = "KIOKU_TIMEZONE", default_value = "Asia/Tokyo", value_parser = zone::parse)]
    pub timezone: Tz,

    /// Longest summary accepted, in characters.
    #[arg(long, env = "KIOKU_MAX_SUMMARY_CHARS", default_value_t = 5_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_summary_chars: u32,

    /// Longest profile accepted, in characters.
    #[arg(long, env = "KIOKU_MAX_PROFILE_CHARS", default_value_t = 2_000,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_profile_chars: u32,

    /// Requests a minute one namespace may make; 0 turns the limit off.
    #[arg(long, env = "KIOKU_RATE_LIMIT", default_value_t = 120)]
    pub rate_limit: u32,

    /// Most characters of JSON a load answers with; GPT Actions refuse answers of 100,000.
    #[arg(long, env = "KIOKU_LOAD_BUDGET_CHARS", default_value_t = 90_000,
          value_parser = clap::value_parser!(u32).range(1_000..))]
    pub load_budget_chars: u32,

    /// Seconds a request may wait for the store, all its calls together, before it is answered
    /// 503.
    #[arg(long, env = "KIOKU_STORE_TIMEOUT_SECS", default_value_t = 8,
          value_parser = clap::value_parser!(u64).range(1..=60))]
    pub store_timeout_secs: u64,

    /// Most summaries a thread keeps; a save drops the oldest beyond it [default: no limit]
    #[arg(long, env = "KIOKU_MAX_ENTRIES_PER_THREAD")]
    pub max_entries_per_thread: Option<NonZeroU32>,

    /// Most threads a namespace keeps; a save drops the least recently saved beyond it
    /// [default: no limit]
    #[arg(long, env = "KIOKU_MAX_THREADS")]
    pub max_threads: Option<NonZeroU32>,

    /// Days a summary is kept; older ones are forgotten [default: forever]
    #[arg(long, env = "KIOKU_RETENTION_DAYS")]
    pub retention_days: Option<NonZeroU32>,

    /// Comma-separated tokens for /admin, separate from API_TOKENS [default: /admin off]
    #[arg(long, env = "KIOKU_ADMIN_TOKENS", hide_env_values = true)]
    pub admin_tokens: Option<Secret>,

    /// Carry over API or admin tokens shorter than 32 characters, which are otherwise refused,
    /// with a warning at every start (for an old token that cannot be replaced at once).
    #[arg(long, env = "KIOKU_ALLOW_WEAK_TOKENS", default_value_t = false,
          action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub allow_weak_tokens: bool,

    /// The public URL in the OpenAPI schema's `servers` [default: from each request's
    /// X-Forwarded-Proto and Host]
    #[arg(long, env = "KIOKU_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// List `POST /` in the schema too (the original function's author reported that GPT
    /// Actions accepted POST only to a verified domain).
    #[arg(long, env = "KIOKU_SCHEMA_POST", default_value_t = false,
          action = clap::ArgAction::Set)]
    pub schema_post: bool,

    /// An HTML file served as-is at /privacy, read at start [default: a page written from
    /// these settings]
    #[arg(long, env = "KIOKU_PRIVACY_FILE")]
    pub privacy_file: Option<PathBuf>,

    /// Whom a person asks to delete or export their whole memory, named on the privacy page
    /// kioku writes: an email address or an https URL
    #[arg(long, env = "KIOKU_PRIVACY_CONTACT", value_parser = Contact::parse)]
    pub privacy_contact: Option<Contact>,

    /// Log format [default: text, or json on Cloud Run]
    #[arg(long, env = "KIOKU_LOG_FORMAT", value_enum)]
    pub log_format: Option<LogFormat>,

    /// Set by Cloud Run; its presence selects Cloud Run defaults.
    #[arg(long, env = "K_SERVICE", hide = true)]
    pub k_service: Option<String>,

    /// Google Cloud project of Firestore and of trace links [default: on Cloud Run, the
    /// metadata server's]
    #[arg(long, env = "GOOGLE_CLOUD_PROJECT")]
    pub google_cloud_project: Option<String>,

    #[command(flatten)]
    pub oauth: OAuthSettings,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// Embedded SQLite file in the data directory.
    Sqlite,
    /// Google Cloud Firestore (honours FIRESTORE_EMULATOR_HOST).
    Firestore,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    /// One JSON object per line, in the shape Cloud Logging reads.
    Json,
}

impl Settings {
    pub fn on_cloud_run(&self) -> bool {
        self.k_service.is_some()
    }

    pub fn host(&self) -> IpAddr {
        self.host.unwrap_or(if self.on_cloud_run() {
            Ipv4Addr::UNSPECIFIED.into()
        } else {
            Ipv4Addr::LOCALHOST.into()
        })
    }

    pub fn store(&self) -> StoreKind {
        self.store.unwrap_or(if self.on_cloud_run() {
            StoreKind::Firestore
        } else {
            StoreKind::Sqlite
        })
    }

    pub fn log_format(&self) -> LogFormat {
        self.log_format.unwrap_or(if self.on_cloud_run() {
            LogFormat::Json
        } else {
            LogFormat::Text
        })
    }

    pub fn weak_tokens(&self) -> WeakTokens {
        match self.allow_weak_tokens {
            true => WeakTokens::Allow,
            false => WeakTokens::Refuse,
        }
    }

    pub fn store_timeout(&self) -> Duration {
        Duration::from_secs(self.store_timeout_secs)
    }

    pub fn retention(&self) -> Retention {
        Retention {
            max_entries_per_thread: self.max_entries_per_thread,
            max_threads: self.max_threads,
            max_age_days: self.retention_days,
        }
    }

    pub fn sqlite_path(&self) -> PathBuf {
        self.data_dir.join("kioku.sqlite3")
    }
}

#[cfg(test)]
mod tests;
