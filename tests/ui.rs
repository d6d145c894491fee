//! Compile-fail suite: every misuse the design promises to reject at compile
//! time has a case under `tests/ui/fail/` with its reviewed `.stderr`, and the
//! cases under `tests/ui/pass/` prove what must keep compiling.
//!
//! Both kinds live in one `TestCases` on purpose: trybuild runs `cargo build`
//! (which reports the post-monomorphization `const` assertions on masks) only
//! when the `TestCases` holds a `pass` case; with `compile_fail` cases alone it
//! runs `cargo check` and would miss those errors.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test --test ui`,
//! then read every changed `.stderr` as a user would before committing it.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    // Relative to this package's manifest, tests/Cargo.toml.
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
