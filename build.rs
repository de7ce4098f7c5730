//! Links the server with packed relative relocations (DT_RELR, glibc 2.36 and GNU ld 2.38 on):
//! a position-independent executable otherwise carries a table of about 2 MB that the loader
//! reads whole at every start, and that then stays in the process's resident memory.

fn main() {
    let target = |var| std::env::var(var).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
