//! The token of a local run without `API_TOKENS`, kept in the data directory.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::digest::generate_token;
use crate::files;

/// The namespace a generated local token stores under.
pub const LOCAL_NAMESPACE: &str = "local";

/// Read from `path`, or generated and written there (owner-only) on first use. Returns the
/// token and whether it was just created.
pub fn local_token(path: &Path) -> io::Result<(String, bool)> {
    match fs::read_to_string(path) {
        Ok(token) => return Ok((token.trim().to_owned(), false)),
        Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
        Err(_) => {}
    }
    if let Some(dir) = path.parent() {
        files::private_dir(dir)?;
    }
    let token = generate_token();
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    writeln!(file, "{token}")?;
    file.sync_all()?;
    Ok((token, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_token_is_created_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/api_token");
        let (first, created) = local_token(&path).unwrap();
        assert!(created);
        let (again, created) = local_token(&path).unwrap();
        assert_eq!((again, created), (first, false));
        let mode = fs::metadata(&path).unwrap().permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
    }
}
