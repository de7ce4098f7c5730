//! Whether the server binary is linked with packed relative relocations (DT_RELR), which glibc's
//! loader reads from 2.36 on: a binary that has them does not start under an older glibc
//! ("version `GLIBC_ABI_DT_RELR' not found"). build.rs decides with this; tests/deploy.rs tests
//! it.

/// The first glibc whose loader reads packed relocations.
pub const RELR_GLIBC: (u32, u32) = (2, 36);

/// The setting that decides: `1` packs them (the Dockerfile's build, for its Debian 12 runtime),
/// `0` does not.
pub const SETTING: &str = "KIOKU_PACK_RELOCATIONS";

/// Packed relocations, when [`SETTING`] (`asked`) says so; unset, only for a binary built for the
/// machine that builds it (`native`) when that machine's glibc (`glibc`, major and minor) reads
/// them, so that `cargo run` on Ubuntu 22.04 or Debian 11 builds a binary that runs there.
pub fn pack_relocations(
    asked: Option<&str>,
    native: bool,
    glibc: Option<(u32, u32)>,
) -> Result<bool, String> {
    match asked {
        Some("1") => Ok(true),
        Some("0") => Ok(false),
        Some(other) => Err(format!(
            "{SETTING}={other:?}: set it to 1 (pack relocations, for glibc 2.36 or newer) or 0, \
             or leave it unset to decide by this machine's glibc"
        )),
        None => Ok(native && glibc.is_some_and(|version| version >= RELR_GLIBC)),
    }
}

/// `2.36` (or `2.36.1`) as major and minor.
pub fn parse_glibc(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
