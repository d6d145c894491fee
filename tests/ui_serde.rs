//! The compile-fail cases of save and load (feature `serde`): a schema with a
//! component or resource that is not `Serialize`/`Deserialize` still
//! compiles, and saving or loading its world says which type lacks which
//! trait. Apart from `ui.rs` because they need the feature:
//!
//! `cargo test -p ecs-tests --features serde --test ui_serde`
//! (`TRYBUILD=overwrite` to write the `.stderr` files; read them as a user
//! would before committing them.)

#[test]
fn ui_serde() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/serde/*_compile.rs");
    cases.compile_fail("ui/serde/*_requires_*.rs");
}
