//! How the server binary is linked on Linux (glibc):
//!
//! - with packed relative relocations (DT_RELR, glibc 2.36 and GNU ld 2.38 on) where the
//!   binary will run on such a glibc (`link/relocations.rs` decides): a position-independent
//!   executable otherwise carries a table of about 2 MB that the loader reads whole at every
//!   start, and that then stays in the process's resident memory;
//! - in a release build, with the functions that start-up and the common requests run placed
//!   together, in the order of `link/code-order.txt` (made by `scripts/order-code`). The kernel
//!   maps code 64 KB around each page the server touches, so code spread over the whole text
//!   keeps most of it resident; gathered, it keeps about a third (BENCHMARKS.md). A function
//!   the file does not name, or no longer names rightly, is placed as before: a stale file
//!   costs memory, never correctness. `--symbol-ordering-file` is lld's, the linker rustc
//!   uses on x86_64 Linux since 1.90.

use std::path::Path;

#[path = "link/relocations.rs"]
mod relocations;

fn main() {
    let var = |name| std::env::var(name).unwrap_or_default();
    println!("cargo:rerun-if-env-changed={}", relocations::SETTING);
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        let asked = std::env::var(relocations::SETTING).ok();
        let native = var("HOST") == var("TARGET");
        match relocations::pack_relocations(asked.as_deref(), native, host_glibc()) {
            Ok(true) => println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs"),
            Ok(false) => {}
            Err(problem) => panic!("{problem}"),
        }
        let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("link/code-order.txt");
        if var("CARGO_CFG_TARGET_ARCH") == "x86_64" && var("PROFILE") == "release" {
            println!(
                "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
                order.display()
            );
            println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        }
        println!("cargo:rerun-if-changed={}", order.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The glibc of the machine that builds, which this script runs on.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn host_glibc() -> Option<(u32, u32)> {
    unsafe extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }
    // SAFETY: glibc returns a static NUL-terminated string, its version.
    let version = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    relocations::parse_glibc(version.to_str().ok()?)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn host_glibc() -> Option<(u32, u32)> {
    None
}
