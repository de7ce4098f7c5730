use std::process::ExitCode;

use clap::Parser;
use kioku::config::{Cli, Command, SchemaFormat, Settings};
use kioku::openapi::{self, SchemaOptions};
use kioku::startup::{Application, LocalToken};
use kioku::{auth, telemetry};

#[actix_web::main]
async fn main() -> ExitCode {
    let Cli { command, settings } = Cli::parse();
    match command.unwrap_or(Command::Serve) {
        Command::Token => {
            println!("{}", auth::generate_token());
            ExitCode::SUCCESS
        }
        Command::Openapi { format } => {
            print!("{}", schema(&settings, format));
            ExitCode::SUCCESS
        }
        Command::Serve => {
            telemetry::init(settings.log_format());
            let app = match Application::build(settings).await {
                Ok(app) => app,
                Err(err) => {
                    tracing::error!(error = %err, "kioku could not start");
                    return ExitCode::FAILURE;
                }
            };
            if let Some(local) = app.local_token() {
                print_local_token(local, app.address());
            }
            match app.run_until_stopped().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    tracing::error!(error = %err, "kioku stopped on an error");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// The schema for `settings`, with a placeholder server URL unless KIOKU_PUBLIC_URL is set.
fn schema(settings: &Settings, format: SchemaFormat) -> String {
    let doc = openapi::document(&SchemaOptions {
        server_url: settings
            .public_url
            .as_deref()
            .unwrap_or(openapi::PLACEHOLDER_URL),
        include_post: settings.schema_post,
        max_summary_chars: settings.max_summary_chars as usize,
    });
    match format {
        SchemaFormat::Yaml => doc.to_yaml().expect("the schema serializes"),
        SchemaFormat::Json => doc.to_pretty_json().expect("the schema serializes") + "\n",
    }
}

/// API_TOKENS is unset on this local run: say where its token is and how to use it. The token
/// itself is shown only on the run that created it.
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
        "Try it:\n\n    curl -H \"Authorization: Bearer $(cat {path})\" \"http://{address}/?mode=save&summary=hello\"\n    curl -H \"Authorization: Bearer $(cat {path})\" \"http://{address}/?mode=load\"\n"
    );
}
