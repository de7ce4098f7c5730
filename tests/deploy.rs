//! The deployment files, checked without a Docker engine: what the image is built from and
//! runs as, what Cloud Build deploys with, and how the binary is linked for where it runs.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

#[path = "common/needs.rs"]
mod needs;
#[path = "../link/relocations.rs"]
mod relocations;

use yaml_serde::Value;

fn read(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

/// The Dockerfile's instructions, continuation lines joined and comments dropped.
fn instructions() -> Vec<(String, String)> {
    read("Dockerfile")
        .replace("\\\n", " ")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
            (keyword.to_uppercase(), rest.trim().to_owned())
        })
        .collect()
}

/// The instructions of the last stage.
fn runtime_stage() -> Vec<(String, String)> {
    let all = instructions();
    let last_from = all.iter().rposition(|(k, _)| k == "FROM").unwrap();
    all[last_from..].to_vec()
}

#[test]
fn the_image_is_multi_stage_with_a_cached_dependency_layer() {
    let all = instructions();
    let stages = all.iter().filter(|(k, _)| k == "FROM").count();
    assert!(stages >= 3, "builder stages and a runtime stage: {stages}");
    let runs: Vec<_> = all
        .iter()
        .filter(|(k, _)| k == "RUN")
        .map(|(_, r)| r.as_str())
        .collect();
    let cook = runs
        .iter()
        .position(|r| r.starts_with("cargo chef cook --release"));
    let build = runs
        .iter()
        .position(|r| r.starts_with("KIOKU_PACK_RELOCATIONS=1 cargo build --release"));
    assert!(
        cook.is_some() && cook < build,
        "dependencies are cooked before the build, which packs relocations: {runs:?}"
    );
    // The build script and the code order it reads set how the binary is linked: without
    // them the image's would differ from the one every test and benchmark runs.
    for copied in ["build.rs", "link"] {
        assert!(
            all.iter()
                .any(|(k, v)| k == "COPY" && v.split_whitespace().any(|p| p == copied)),
            "the build stage copies {copied}"
        );
    }
}

/// link/code-order.txt names functions by their symbols, which change with the compiler: the
/// image builds with the toolchain that made the file.
#[test]
fn the_image_builds_with_the_toolchain_of_the_code_order() {
    let version = instructions()
        .into_iter()
        .filter(|(k, _)| k == "ARG")
        .find_map(|(_, v)| v.strip_prefix("RUST_VERSION=").map(str::to_owned))
        .expect("the Dockerfile pins RUST_VERSION");
    let order = read("link/code-order.txt");
    let made_with = order
        .lines()
        .take_while(|line| line.starts_with('#'))
        .any(|line| line.contains(&format!("(rustc {version} ")));
    assert!(
        made_with,
        "link/code-order.txt was not made with rustc {version}: run scripts/order-code"
    );
}

#[test]
fn the_runtime_is_minimal_and_runs_as_non_root() {
    let runtime = runtime_stage();
    let base = &runtime[0].1;
    assert!(base.starts_with("gcr.io/distroless/"), "{base}");
    let user = runtime
        .iter()
        .rfind(|(k, _)| k == "USER")
        .map(|(_, u)| u.as_str());
    assert!(
        matches!(user, Some(u) if !u.starts_with("root") && !u.starts_with('0')),
        "{user:?}"
    );
    let copies: Vec<_> = runtime
        .iter()
        .filter(|(k, _)| k == "COPY" || k == "ADD")
        .map(|(_, c)| c.as_str())
        .collect();
    assert_eq!(
        copies,
        [
            "--from=builder /app/target/release/kioku /usr/local/bin/kioku",
            "--from=model / /model/"
        ],
        "only the binary, and the embedding model when one is given"
    );
    // The model's stage is empty unless `--build-context model=<dir>` replaces it.
    assert!(
        instructions()
            .iter()
            .any(|(k, v)| k == "FROM" && v == "scratch AS model"),
        "{:?}",
        instructions()
    );
    assert!(
        runtime
            .iter()
            .any(|(k, v)| k == "ENTRYPOINT" && v.contains("/usr/local/bin/kioku"))
    );
}

#[test]
fn no_secret_is_baked_into_the_image() {
    for (keyword, rest) in instructions() {
        if keyword == "ENV" || keyword == "ARG" || keyword == "LABEL" {
            let upper = rest.to_uppercase();
            for word in ["TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "KEY"] {
                assert!(!upper.contains(word), "{keyword} {rest}");
            }
        }
    }
    let ignored: BTreeSet<_> = read(".dockerignore")
        .lines()
        .map(str::trim)
        .map(str::to_owned)
        .collect();
    for path in ["target/", "data/", "node_modules/", ".git/"] {
        assert!(ignored.contains(path), ".dockerignore lacks {path}");
    }
}

/// Memories and secrets that may sit in a checkout (exports, the embedded store, env files)
/// reach neither an image, nor Cloud Build's upload, nor the repository; and the image is built
/// from named paths only.
#[test]
fn private_files_stay_out_of_images_uploads_and_the_repository() {
    for file in [".dockerignore", ".gcloudignore", ".gitignore"] {
        let patterns: BTreeSet<String> = read(file).lines().map(|l| l.trim().to_owned()).collect();
        for private in ["*.jsonl", "*.sqlite3*", ".env", ".env.*"] {
            assert!(patterns.contains(private), "{file} lacks {private}");
        }
        let data = patterns.contains("data/") || patterns.contains("/data");
        assert!(data, "{file} lacks the data directory");
    }
    // The repository's rule, as git itself reads it.
    for path in [
        "backup.jsonl",
        "data/kioku.sqlite3",
        ".env",
        "kioku.sqlite3-wal",
    ] {
        let ignored = Command::new("git")
            .args(["check-ignore", "--quiet", "--no-index", path])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(ignored.success(), "git would track {path}");
    }
    let whole_context = instructions()
        .iter()
        .any(|(k, v)| (k == "COPY" || k == "ADD") && v.split_whitespace().next() == Some("."));
    assert!(
        !whole_context,
        "the Dockerfile copies the whole build context"
    );
}

/// hadolint, installed by scripts/test from PyPI (Debian does not package it), finds nothing.
#[test]
fn hadolint_passes() {
    let Some(hadolint) = needs::var("KIOKU_HADOLINT") else {
        return;
    };
    let output = Command::new(hadolint)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Dockerfile"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn cloudbuild() -> Value {
    yaml_serde::from_str(&read("cloudbuild.yaml")).unwrap()
}

fn deploy_args(build: &Value) -> Vec<String> {
    let steps = build["steps"].as_sequence().unwrap();
    let deploy = steps
        .iter()
        .find(|s| s["entrypoint"] == "gcloud")
        .expect("a gcloud step");
    let args: Vec<String> = deploy["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(args[..2], ["run", "deploy"]);
    args
}

/// `${_NAME}` references in `text`; Cloud Build's own variables are not user substitutions.
fn substitutions_used(text: &str) -> BTreeSet<String> {
    text.split("${")
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(name, _)| name.to_owned())
        .filter(|n| n.starts_with('_'))
        .collect()
}

#[test]
fn every_substitution_used_is_declared_with_a_default() {
    let build = cloudbuild();
    let declared: BTreeSet<String> = build["substitutions"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(name, value)| {
            assert!(
                value.as_str().is_some_and(|v| !v.is_empty()),
                "{name:?} has a default"
            );
            name.as_str().unwrap().to_owned()
        })
        .collect();
    let used = substitutions_used(&read("cloudbuild.yaml"));
    let undeclared: Vec<_> = used.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "used but not declared: {undeclared:?}"
    );
    for needed in ["_REGION", "_REPOSITORY", "_SERVICE", "_SECRET"] {
        assert!(declared.contains(needed), "{needed}");
    }
    assert_eq!(
        build["options"]["dynamicSubstitutions"], true,
        "_IMAGE refers to other substitutions"
    );
}

#[test]
fn the_service_is_deployed_as_the_guide_says() {
    let build = cloudbuild();
    let text = read("cloudbuild.yaml");
    assert!(
        text.contains("docker buildx build --push") && text.contains("docker.pkg.dev"),
        "pushed to Artifact Registry"
    );
    let args = deploy_args(&build);
    let has = |flag: &str| {
        args.iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    };
    let value = |flag: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(&format!("{flag}=")))
            .unwrap_or_default()
    };
    assert_eq!(
        value("--update-secrets"),
        "API_TOKENS=${_SECRET}:latest",
        "tokens come from Secret Manager"
    );
    let env = value("--update-env-vars");
    assert!(
        env.split(',').any(|kv| kv == "KIOKU_STORE=firestore"),
        "{env}"
    );
    assert!(
        !env.contains("API_TOKENS"),
        "API_TOKENS never as a plain variable"
    );
    assert!(
        value("--service-account").starts_with("${_RUNTIME_SERVICE_ACCOUNT}@"),
        "a dedicated runtime identity"
    );
    assert!(has("--allow-unauthenticated"));
    assert_eq!(value("--min-instances"), "0");
    for flag in ["--memory", "--concurrency", "--region", "--image"] {
        assert!(has(flag), "{flag}");
    }
}

/// Packed relocations where the binary will run on a glibc that reads them (the image's, asked
/// for; a native build on a glibc 2.36 or newer), and nowhere else: on Ubuntu 22.04 (2.35) or
/// Debian 11 (2.31), `cargo run` must build a binary that starts there.
#[test]
fn relocations_are_packed_only_for_a_glibc_that_reads_them() {
    use relocations::{RELR_GLIBC, pack_relocations, parse_glibc};
    assert_eq!(parse_glibc("2.36"), Some((2, 36)));
    assert_eq!(parse_glibc("2.35.1"), Some((2, 35)));
    assert_eq!(parse_glibc("two"), None);
    for (glibc, packs) in [
        ((2, 31), false),
        ((2, 35), false),
        ((2, 36), true),
        ((2, 41), true),
    ] {
        assert_eq!(
            pack_relocations(None, true, Some(glibc)),
            Ok(packs),
            "{glibc:?}"
        );
        // Built for another machine, whose glibc this one cannot tell: only when asked.
        assert_eq!(
            pack_relocations(None, false, Some(glibc)),
            Ok(false),
            "{glibc:?}"
        );
        assert_eq!(pack_relocations(Some("1"), false, Some(glibc)), Ok(true));
        assert_eq!(pack_relocations(Some("0"), true, Some(glibc)), Ok(false));
    }
    assert_eq!(pack_relocations(None, true, None), Ok(false));
    assert!(pack_relocations(Some("yes"), true, None).is_err());

    // The binary these tests run was built here, without the setting (unless a run set it):
    // packed exactly when this machine's glibc reads it, which `ldd --version` names.
    if std::env::var_os(relocations::SETTING).is_some() {
        return;
    }
    let ldd = Command::new("ldd")
        .arg("--version")
        .output()
        .expect("ldd runs");
    let first = String::from_utf8_lossy(&ldd.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let glibc = first
        .rsplit(' ')
        .next()
        .and_then(parse_glibc)
        .expect(&first);
    let dynamic = Command::new("readelf")
        .args(["--dynamic", env!("CARGO_BIN_EXE_kioku")])
        .output()
        .expect("readelf runs");
    let packed = String::from_utf8_lossy(&dynamic.stdout).contains("(RELR)");
    assert_eq!(
        packed,
        glibc >= RELR_GLIBC,
        "glibc {glibc:?}, packed: {packed}"
    );
}
