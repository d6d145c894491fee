//! What makes a world of the schema `Clone` and gives it a checksum: the
//! runtime's `schema_snapshot_impls!` writes `impl CloneSchema<W>` and
//! `impl HashSchema<W>` for the schema, bounded on each component and
//! resource type in turn (so that the compiler names the one type that lacks
//! `Clone` or `StableHash`; see `ecs/src/component_bounds.rs`), and `Clone`
//! for the column enum. The derive passes the names, with the user's spans.

use super::Names;
use crate::model::SchemaModel;
use proc_macro2::TokenStream;
use quote::quote;

/// `::schemecs::__private::schema_snapshot_impls! { ... }`.
pub(super) fn snapshot_impls(model: &SchemaModel, names: &Names) -> TokenStream {
    let (krate, schema) = (names.krate, names.schema);
    let (column, resources) = (&names.column, &names.resources);
    let variants = model.components().map(|field| field.ident);
    let components = model.components().map(|field| field.ty);
    let fields = model.resources().map(|field| field.ident);
    let resource_types = model.resources().map(|field| field.ty);
    let soa_bounds = &names.soa_bounds;
    let world = &names.params.world;
    // With `#[ecs(debug)]`: the components whose values diffs print.
    let (debug_variants, debug_components) = if model.debug() {
        (
            model.components().map(|field| field.ident).collect(),
            model.components().map(|field| field.ty).collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    quote! {
        #krate::__private::schema_snapshot_impls! {
            schema: #schema,
            param: #world,
            column: #column,
            resources: #resources,
            components: [#(#variants: #components),*],
            resource_fields: [#(#fields: #resource_types),*],
            soa_bounds: [#soa_bounds],
            debug: [#(#debug_variants: #debug_components),*],
        }
    }
}
