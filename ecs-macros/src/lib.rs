//! The `#[derive(Schema)]` macro of the [`ecs`](https://docs.rs/ecs) crate.
//!
//! The derive runs in three stages: [`parse`] turns the struct into a checked
//! model (collecting every mistake it finds, each at the user's tokens),
//! and [`generate`] turns the model into the archetype mask, the typed column
//! storage and the per-type trait impls. See the `ecs` crate for the
//! documentation of what the generated items mean.

mod generate;
mod parse;

use proc_macro::TokenStream;

/// Derives `ecs::Schema` for a struct whose named fields list the components
/// (and, with `#[ecs(resource)]`, the resources) of a world.
#[proc_macro_derive(Schema, attributes(ecs))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match parse::SchemaModel::from_syn(&input) {
        Ok(model) => generate::expand(&model).into(),
        Err(error) => error.into_compile_error().into(),
    }
}
