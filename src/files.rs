//! Files only their owner may read: the data directory (0700) and what kioku keeps in it
//! (0600), made so when created, and a warning when they are found open to others.

use std::fs::{DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The data directory's mode: its owner's alone.
const DIR_MODE: u32 = 0o700;
/// The mode of every file in it.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and its missing parents) owner-only; warns if it exists open to others.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)?;
    warn_if_open(dir, DIR_MODE);
    Ok(())
}

/// Creates the empty file `path` owner-only, unless it exists; warns if it exists open to
/// others. SQLite then gives its `-wal` and `-shm` files the same mode.
pub fn private_file(path: &Path) -> io::Result<()> {
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
            warn_if_open(path, FILE_MODE);
            Ok(())
        }
        Err(err) => Err(err),
    }
}

/// Warns when `path` grants more than `allowed`; kioku does not change a mode the operator set.
pub fn warn_if_open(path: &Path, allowed: u32) {
    let Ok(metadata) = std::fs::metadata(path) else {
        return;
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & !allowed != 0 {
        tracing::warn!(
            path = %path.display(),
            mode = %format!("{mode:o}"),
            "others may read this; run `chmod {allowed:o}` on it"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn created_owner_only_and_left_as_found() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/data");
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("kioku.sqlite3");
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o644);
    }
}
