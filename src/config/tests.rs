//! The settings as the command line reads them: defaults, refusals, what `--help` says.

use super::*;

fn parse(args: &[&str]) -> Settings {
    Cli::try_parse_from(std::iter::once("kioku").chain(args.iter().copied()))
        .unwrap()
        .settings
}

#[test]
fn cloud_run_changes_the_defaults() {
    let local = parse(&[]);
    assert_eq!(local.host(), IpAddr::from(Ipv4Addr::LOCALHOST));
    assert_eq!(local.log_format(), LogFormat::Text);
    assert_eq!(local.store(), StoreKind::Sqlite);
    let cloud = parse(&["--k-service", "kioku"]);
    assert_eq!(cloud.host(), IpAddr::from(Ipv4Addr::UNSPECIFIED));
    assert_eq!(cloud.log_format(), LogFormat::Json);
    assert_eq!(cloud.store(), StoreKind::Firestore);
}

#[test]
fn weak_tokens_are_refused_unless_the_flag_says() {
    assert_eq!(parse(&[]).weak_tokens(), WeakTokens::Refuse);
    assert_eq!(
        parse(&["--allow-weak-tokens"]).weak_tokens(),
        WeakTokens::Allow
    );
    assert_eq!(
        parse(&["--allow-weak-tokens", "false"]).weak_tokens(),
        WeakTokens::Refuse
    );
}

/// `--help` says what each argument of each command is for.
#[test]
fn every_argument_is_described() {
    fn check(command: &clap::Command, path: &str) {
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            assert!(
                matches!(id, "help" | "version") || arg.get_help().is_some(),
                "`{path}`'s {id} has no description"
            );
        }
        for sub in command.get_subcommands() {
            check(sub, &format!("{path} {}", sub.get_name()));
        }
    }
    check(&<Cli as clap::CommandFactory>::command(), "kioku");
}

#[test]
fn the_server_takes_its_flags_with_or_without_its_name() {
    let cli = Cli::try_parse_from(["kioku", "--port", "9000"]).unwrap();
    assert_eq!(cli.settings.port, 9000);
    let cli =
        Cli::try_parse_from(["kioku", "serve", "--port", "9000", "--timezone", "UTC"]).unwrap();
    let Some(Command::Serve { settings }) = cli.command else {
        panic!("not serve: {cli:?}");
    };
    assert_eq!((settings.port, settings.timezone), (9000, chrono_tz::UTC));
}

/// Other commands list only their own arguments: `kioku token --help` is a few lines, not
/// the server's thirty flags.
#[test]
fn other_commands_take_only_their_own_flags() {
    let mut cli = <Cli as clap::CommandFactory>::command();
    let token = cli.find_subcommand_mut("token").unwrap();
    let help = token.render_long_help().to_string();
    assert!(help.lines().count() < 20, "{help}");
    assert!(Cli::try_parse_from(["kioku", "export", "--port", "9000"]).is_err());
    assert!(Cli::try_parse_from(["kioku", "--port", "9000", "export"]).is_err());
}

#[test]
fn refuses_an_unknown_zone_a_zero_limit_and_a_cosine_out_of_range() {
    let bad = |args: &[&str]| {
        Cli::try_parse_from(std::iter::once("kioku").chain(args.iter().copied())).is_err()
    };
    assert!(bad(&["--timezone", "Mars/Olympus"]));
    assert!(bad(&["--max-summary-chars", "0"]));
    assert!(bad(&["--max-threads", "0"]));
    assert!(bad(&["--retention-days", "0"]));
    assert!(bad(&["--max-entries-per-thread", "0"]));
    assert!(bad(&["--oauth", "password"]));
    assert!(bad(&["--similar-cosine", "1.5"]));
    assert!(bad(&["--similar-cosine", "0"]));
    assert_eq!(
        parse(&["--similar-cosine", "0.9"]).similar_cosine,
        Some(0.9)
    );
}
