//! Compile-fail suite: every misuse the design promises to reject at compile
//! time has a case under `tests/ui/fail/` with its reviewed `.stderr`, and the
//! cases under `tests/ui/pass/` prove what must keep compiling.
//!
//! The cases run in two batches, each one `cargo` invocation by trybuild:
//!
//! - the `pass` cases, and the `fail` cases whose expected error is a failed
//!   `const` evaluation (`error[E0080]` in the `.stderr`: the
//!   post-monomorphization assertions on masks). trybuild runs `cargo build`
//!   for a batch that holds a `pass` case, and only a build reports those
//!   errors;
//! - every other `fail` case, a rule the type checker enforces (a missing
//!   trait, a wrong type): trybuild runs `cargo check` for a batch of
//!   `compile_fail` cases alone, which reports the same errors without
//!   generating code.
//!
//! A case in the wrong batch fails rather than passes: a `const` failure its
//! `.stderr` expects but `cargo check` never reports makes trybuild say the
//! case compiled.
//!
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test --test ui`,
//! then read every changed `.stderr` as a user would before committing it.

use std::fs;
use std::path::{Path, PathBuf};

/// The `fail` cases as trybuild takes them (relative to this package's
/// manifest, tests/Cargo.toml): those that need a build, then those a check
/// reports.
fn fail_cases() -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/fail");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/ui/fail/ is readable")
        .map(|entry| entry.expect("an entry of tests/ui/fail/").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    cases.sort();
    let (build, check): (Vec<_>, Vec<_>) = cases.into_iter().partition(|case| {
        // A case without its `.stderr` yet (being written with
        // `TRYBUILD=overwrite`) goes with the builds, which see every error.
        fs::read_to_string(case.with_extension("stderr"))
            .map_or(true, |expected| expected.contains("error[E0080]"))
    });
    let relative = |cases: Vec<PathBuf>| -> Vec<PathBuf> {
        cases
            .iter()
            .map(|case| Path::new("ui/fail").join(case.file_name().expect("a file name")))
            .collect()
    };
    (relative(build), relative(check))
}

#[test]
fn ui() {
    let (build, check) = fail_cases();
    assert!(
        !build.is_empty() && !check.is_empty(),
        "tests/ui/fail/ holds cases of both kinds"
    );
    {
        let cases = trybuild::TestCases::new();
        cases.pass("ui/pass/*.rs");
        for case in &build {
            cases.compile_fail(case);
        }
        // The batch runs here, as `cases` is dropped.
    }
    let cases = trybuild::TestCases::new();
    for case in &check {
        cases.compile_fail(case);
    }
}
