//! The `#[derive(Schema)]`, `#[derive(Bundle)]`, `#[derive(StableHash)]`
//! and `#[derive(Soa)]` macros of the [`schemecs`](https://docs.rs/schemecs) crate.
//!
//! The `Schema` derive runs in three stages: `model` reads the struct into a model
//! that keeps the user's tokens, `check` runs every check on it (collecting
//! every mistake, each at the user's tokens), and `generate` turns a model
//! that passed into the archetype mask, the typed column storage and the
//! per-type trait impls. A model that failed yields its errors plus a
//! stand-in (`generate::stand_in`) that keeps the user's code around the
//! schema quiet, so the user sees the real mistakes and no follow-on errors.
//! See the `schemecs` crate for the documentation of what the generated items mean.
//!
//! `#[derive(StableHash)]` and `#[derive(Bundle)]` are simpler: one impl
//! each, written field by field (`stable_hash`, `bundle`).

mod bundle;
mod check;
mod errors;
mod fresh;
mod generate;
mod model;
mod relation;
mod soa;
mod stable_hash;

use proc_macro::TokenStream;

/// Derives `schemecs::schema::Schema` (and `schemecs::schema::Layout`, the
/// part of it that storage and queries read) for a struct whose named fields
/// list the components (and, with `#[ecs(resource)]`, the resources) of a
/// world.
///
/// A field without a key is a component. The struct itself takes two keys:
/// `#[ecs(crate = path)]`, the path of the `schemecs` crate, for a renamed
/// dependency or a re-export (every derive of the crate takes it;
/// `guide::schema`); and `#[ecs(debug)]`, with which
/// `World::diff`'s report prints the two values of each entity whose
/// component differs, through `Debug`, which every component must then
/// implement. The keys of `#[ecs(...)]` on a field, each with its
/// chapter of the guide
/// ([`schemecs::guide`](https://docs.rs/schemecs/latest/schemecs/guide/)):
///
/// * `resource`: a resource, one value per world (`guide::schema`);
/// * `event`: an event type, sent with `EventWriter` and read with
///   `EventReader` (`guide::events_and_changes`);
/// * `state`: a state, such as a game's phase, kept as `State<T>` and
///   changed through `NextState<T>` (`guide::game_loop`);
/// * `track`: a component with change detection, `Added<T>`, `Changed<T>`
///   and `Removed<T>` (`guide::events_and_changes`);
/// * `sparse`: a component kept in a sparse set instead of a table column
///   (`guide::sparse`);
/// * `soa`: a component stored field by field; its type derives `Soa`
///   (`guide::soa`);
/// * `relation(inverse = <field>, on_target_despawn = despawn | remove)`: a
///   component that points at another entity, whose list of sources the
///   world keeps in the field named (`guide::relations`);
/// * `requires(T, U = make_u)`: components added with this one when the
///   entity lacks them (`guide::hooks`);
/// * `on_add = f`, `on_insert = f`, `on_remove = f`: hooks run when the
///   component is added, written by an insert, or taken (`guide::hooks`).
///
/// The page of the `Schema` trait gives each key's rules, and which keys
/// cannot go together; a mistake is a compile error at the key that says
/// why.
#[proc_macro_derive(Schema, attributes(ecs))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    let krate = match generate::Krate::resolve(&input.attrs) {
        Ok(krate) => krate,
        Err(error) => return error.into_compile_error().into(),
    };
    let taken = fresh::Taken::of(&input);
    let mut errors = errors::Errors::default();
    let model = model::SchemaModel::from_syn(&input, &mut errors);
    check::check(&model, &mut errors);
    let output = match errors.finish() {
        // An unsized field before the last is the compiler's own error, at
        // the field: stand in, so that the generated code adds no other.
        None if model.fields.iter().any(model::FieldModel::is_unsized) => {
            generate::stand_in(&model, &krate, &taken)
        }
        None => generate::expand(&model, &krate, &taken),
        Some(error) => {
            let mut output = error.into_compile_error();
            output.extend(generate::stand_in(&model, &krate, &taken));
            output
        }
    };
    output.into()
}

/// Derives `schemecs::Bundle<S>` for a struct whose fields are components
/// (and, marked `#[bundle]`, other bundles), for every schema `S` that has
/// those components. Documented, with an example, at the trait in the
/// `schemecs` crate.
#[proc_macro_derive(Bundle, attributes(bundle, ecs))]
pub fn derive_bundle(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match generate::Krate::resolve_only(&input, "Bundle") {
        Ok(krate) => bundle::expand(&input, &krate).into(),
        Err(error) => error.into_compile_error().into(),
    }
}

/// Derives `schemecs::StableHash` for a struct or an enum: a struct writes its
/// fields in declaration order; an enum writes the index of its variant (in
/// declaration order, from 0), then the variant's fields in order. Each type
/// parameter gets a `schemecs::StableHash` bound. Documented, with examples,
/// at the trait in the `schemecs` crate.
#[proc_macro_derive(StableHash, attributes(ecs))]
pub fn derive_stable_hash(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    generate::Krate::resolve_only(&input, "StableHash")
        .and_then(|krate| stable_hash::expand(&input, &krate))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `schemecs::Soa` for a struct with named fields of `Copy` types
/// that does not implement `Drop`:
/// the component is stored field by field, each field in an array of its
/// own, when its field in the schema is marked `#[ecs(soa)]`. Writes the
/// views `NameRef`, `NameMut`, `NameSlices` and `NameSlicesMut`.
/// Documented, with an example, at the trait in the `schemecs` crate.
#[proc_macro_derive(Soa, attributes(ecs))]
pub fn derive_soa(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    generate::Krate::resolve_only(&input, "Soa")
        .and_then(|krate| soa::expand(&input, &krate))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `schemecs::Relation` for a struct with one `Entity` field: the
/// relation's target. Documented at the trait in the `schemecs` crate.
#[proc_macro_derive(Relation, attributes(ecs))]
pub fn derive_relation(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    generate::Krate::resolve_only(&input, "Relation")
        .and_then(|krate| relation::expand_relation(&input, &krate))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `schemecs::Inverse` for a struct with one `Vec<Entity>` field:
/// the sources the world keeps for a relation. Documented at the trait in
/// the `schemecs` crate.
#[proc_macro_derive(Inverse, attributes(ecs))]
pub fn derive_inverse(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    generate::Krate::resolve_only(&input, "Inverse")
        .and_then(|krate| relation::expand_inverse(&input, &krate))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
