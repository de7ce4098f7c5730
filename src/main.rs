//! The `kioku` command: serve, or a one-off task (a token, the schema, an export, an import, a
//! migration).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kioku::config::{Cli, ClientAction, Command, SchemaFormat, Settings};
use kioku::credentials;
use kioku::embedding::backfill;
use kioku::error_chain::ErrorChain;
use kioku::http::schema::{self, SchemaOptions};
use kioku::oauth::{OAuthError, client};
use kioku::plugin;
use kioku::startup::{Application, LocalToken, StartupError, embeddings, open_store};
use kioku::store::StoreError;
use kioku::telemetry;
use kioku::transfer::{self, Renames, TextLimits, TransferError, counted};

fn main() -> ExitCode {
    // candle splits each matrix product over every core unless told otherwise; one text on one
    // core costs less CPU (measured: 36 ms against 59 ms on two, for 112 tokens of MiniLM), and
    // the server runs one text per core at a time. Set before any thread exists, as set_var
    // requires.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: the process has one thread yet; nothing reads the environment concurrently.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    }
    bound_allocator_arenas();
    actix_web::rt::System::new().block_on(run())
}

/// One glibc malloc arena per core, where glibc allows eight. Each arena keeps what its
/// threads freed; the model's activations (megabytes a text) run on whichever blocking
/// thread is free, so with many arenas each came to keep a text's worth: with the
/// multilingual model, measured, the server grew by 47 MB over 420 saves and 300 searches,
/// 13 MB with two arenas (docs/recall.md). Called before any other thread exists.
fn bound_allocator_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets a limit glibc's allocator reads when it makes an arena.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) };
    }
}

async fn run() -> ExitCode {
    let Cli { command, settings } = Cli::parse();
    let command = command.unwrap_or_else(|| Command::Serve {
        settings: Box::new(settings.clone()),
    });
    match command {
        Command::Token => {
            println!("{}", credentials::generate_token());
            ExitCode::SUCCESS
        }
        Command::Openapi { format } => {
            print!("{}", schema(&settings, format));
            ExitCode::SUCCESS
        }
        Command::Plugin { url, out } => match plugin::deployment(&url)
            .and_then(|base| plugin::write(&out, &plugin::package(&base)))
        {
            Ok(()) => {
                println!("wrote the kioku plugin for {url} to {}", out.display());
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("{}", ErrorChain(&err));
                ExitCode::FAILURE
            }
        },
        Command::Export { namespace } => finish(export(&settings, namespace.as_deref()).await),
        Command::Import { file, rename } => finish(import(&settings, file, &rename).await),
        Command::Migrate => finish(migrate(&settings).await),
        Command::OauthClient { action } => finish(oauth_client(&settings, action).await),
        Command::Serve { settings } => {
            telemetry::init(settings.log_format());
            let app = match Application::build(*settings).await {
                Ok(app) => app,
                Err(err) => {
                    tracing::error!(error = %ErrorChain(&err), "kioku could not start");
                    return ExitCode::FAILURE;
                }
            };
            if let Some(local) = app.local_token() {
                print_local_token(local, app.address());
            }
            match app.run_until_stopped().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    tracing::error!(error = %ErrorChain(&err), "kioku stopped on an error");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The schema for `settings`, with a placeholder server URL unless KIOKU_PUBLIC_URL is set.
fn schema(settings: &Settings, format: SchemaFormat) -> String {
    let doc = schema::document(&SchemaOptions {
        server_url: settings
            .public_url
            .as_deref()
            .unwrap_or(schema::PLACEHOLDER_URL),
        include_post: settings.schema_post,
        max_summary_chars: settings.max_summary_chars as usize,
        max_profile_chars: settings.max_profile_chars as usize,
    });
    match format {
        SchemaFormat::Yaml => doc.to_yaml().expect("the schema serializes"),
        SchemaFormat::Json => doc.to_pretty_json().expect("the schema serializes") + "\n",
    }
}

/// API_TOKENS is unset on this local run: say where its token is, where each door is, and how
/// to try it. The token itself is shown only on the run that created it.
fn print_local_token(local: &LocalToken, address: std::net::SocketAddr) {
    let path = local.path.display();
    if local.created {
        println!(
            "\nNo API_TOKENS set: generated a token for this machine and kept it in {path}:\n\n    {}\n",
            local.token
        );
    } else {
        println!("\nNo API_TOKENS set: using the token kept in {path}.\n");
    }
    println!(
        "Open:\n\n    your memory, in a browser   http://{address}/app (sign in with the token)\n    \
         MCP clients                 http://{address}/mcp\n    \
         the GPT Action's schema     http://{address}/openapi.yaml\n    \
         the GPT's instructions      http://{address}/prompt?lang=en (or lang=ja)\n"
    );
    println!(
        "Try it:\n\n    curl -H \"Authorization: Bearer $(cat {path})\" \"http://{address}/?mode=save&summary=hello\"\n    curl -H \"Authorization: Bearer $(cat {path})\" \"http://{address}/?mode=load\"\n"
    );
}

/// Why a one-off command failed, its causes kept as sources and printed as one line.
#[derive(Debug, thiserror::Error)]
enum CommandError {
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Transfer(#[from] TransferError),
    #[error(transparent)]
    OAuth(#[from] OAuthError),
    #[error("{0}")]
    Usage(String),
    #[error("{}", .path.display())]
    Open {
        path: PathBuf,
        #[source]
        cause: io::Error,
    },
    #[error("the output could not be written")]
    Write(#[from] io::Error),
    #[error("the answer could not be written as JSON")]
    Json(#[from] serde_json::Error),
    #[error("the import stopped (lines read so far are imported, and importing again is safe)")]
    ImportStopped(#[source] TransferError),
    #[error("{0} bad lines were skipped; fix them and import again")]
    BadLines(usize),
}

/// A command's outcome as its exit status; what went wrong goes to stderr.
fn finish(outcome: Result<(), CommandError>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kioku: {}", ErrorChain(&err));
            ExitCode::FAILURE
        }
    }
}

/// `kioku export`: JSON Lines to stdout, what was written to stderr.
async fn export(settings: &Settings, namespace: Option<&str>) -> Result<(), CommandError> {
    let stores = open_store(settings).await?;
    let (store, limit) = (stores.memory, stores.limit);
    let namespaces = transfer::namespaces(store.as_ref(), namespace, limit).await?;
    let count = namespaces.len();
    if let Some(name) = namespace {
        // An empty export of a namespace that holds nothing is most likely a typo.
        let held = transfer::namespaces(store.as_ref(), None, limit).await?;
        if !held.iter().any(|ns| ns.name() == namespaces[0].name()) {
            return Err(CommandError::Usage(format!(
                "no namespace named `{name}` holds memories; `kioku export` without --namespace \
                 exports every one"
            )));
        }
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    let written = transfer::export(store, namespaces, limit, &mut out).await?;
    out.flush()?;
    eprintln!(
        "exported {} ({}) and {} of {}",
        counted(written.threads, "thread", "threads"),
        counted(written.entries, "summary", "summaries"),
        counted(
            written.profile_versions,
            "profile version",
            "profile versions"
        ),
        counted(count as u64, "namespace", "namespaces"),
    );
    Ok(())
}

/// `kioku migrate`: the store's layout, then, with KIOKU_EMBEDDING_MODEL, a vector for every
/// entry that lacks one of the model.
async fn migrate(settings: &Settings) -> Result<(), CommandError> {
    let embeddings = embeddings(settings).await?;
    let store = open_store(settings).await?.maintenance;
    let threads = store.migrate().await?;
    eprintln!(
        "migrated: {} changed",
        counted(threads, "thread", "threads")
    );
    if let Some(embeddings) = embeddings {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template("{spinner} {pos} entries embedded").unwrap());
        let entries = backfill(store.as_ref(), &embeddings, |n| bar.set_position(n)).await?;
        bar.finish_and_clear();
        let entries = counted(entries, "entry", "entries");
        eprintln!("embedded: {entries} stored without a vector of the model");
    }
    Ok(())
}

/// `kioku import`: a progress bar on a terminal, bad lines by number, then a summary line.
async fn import(
    settings: &Settings,
    file: Option<PathBuf>,
    rename: &[String],
) -> Result<(), CommandError> {
    let renames = Renames::parse(rename).map_err(CommandError::Usage)?;
    let (input, length) = open_input(file.as_deref())?;
    let store = open_store(settings).await?.maintenance;
    // Hidden when stderr is not a terminal.
    let progress = ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr());
    progress.set_style(
        ProgressStyle::with_template("{spinner} {bar:40} {bytes}/{total_bytes} {elapsed}")
            .expect("the template is valid"),
    );
    let report = transfer::import(
        store.as_ref(),
        input,
        &renames,
        TextLimits {
            summary: settings.max_summary_chars as usize,
            profile: settings.max_profile_chars as usize,
        },
        |bytes| progress.inc(bytes as u64),
        |line, reason| progress.suspend(|| eprintln!("line {line}: {reason}")),
    )
    .await;
    progress.finish_and_clear();
    let report = report.map_err(CommandError::ImportStopped)?;
    eprintln!("{}", report.summary());
    match report.bad.len() {
        0 => Ok(()),
        bad => Err(CommandError::BadLines(bad)),
    }
}

/// `kioku oauth-client`: the answer as JSON on stdout, as `/admin/oauth/clients` gives it.
async fn oauth_client(settings: &Settings, action: ClientAction) -> Result<(), CommandError> {
    let store = open_store(settings).await?.grants;
    let store = store.as_ref();
    let answer = match action {
        ClientAction::Add {
            name,
            redirect_uris,
        } => serde_json::to_value(client::add(store, &name, redirect_uris).await?),
        ClientAction::AddRedirectUri {
            client_id,
            redirect_uri,
        } => serde_json::to_value(
            client::add_redirect_uri(store, &client_id, &redirect_uri)
                .await?
                .redirect_uris,
        ),
        ClientAction::List => {
            const PAGE: u32 = 500;
            let mut listed = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let page = store.clients(after.as_deref(), PAGE).await?;
                let full = page.len() == PAGE as usize;
                after = page.last().map(|c| c.id.clone());
                listed.extend(page.into_iter().map(|c| {
                    serde_json::json!({"client_id": c.id, "name": c.name, "redirect_uris": c.redirect_uris})
                }));
                if !full {
                    break;
                }
            }
            serde_json::to_value(listed)
        }
    };
    println!("{}", serde_json::to_string_pretty(&answer?)?);
    Ok(())
}

/// The file to import, or stdin; and its length, when known, for the progress bar.
fn open_input(file: Option<&Path>) -> Result<(Box<dyn BufRead>, Option<u64>), CommandError> {
    match file {
        None => Ok((Box::new(io::stdin().lock()), None)),
        Some(path) => {
            let opened = File::open(path).map_err(|cause| CommandError::Open {
                path: path.to_owned(),
                cause,
            })?;
            let length = opened.metadata().ok().map(|m| m.len());
            Ok((Box::new(BufReader::new(opened)), length))
        }
    }
}
