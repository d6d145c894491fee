//! Code generation: a checked [`SchemaModel`] -> the schema's items, one
//! function per item.
//!
//! For `struct Physics { pos: Pos, frozen: Frozen, #[ecs(resource)] tick: Tick }`
//! this emits:
//!
//! * `PhysicsMask`, a `bitflags` type with one flag per component (`POS`,
//!   `FROZEN`), backed by the narrowest unsigned integer that fits ([`mask`]);
//! * `PhysicsColumn`, an enum with one `Vec<T>` variant per component, the only
//!   column type a table of this schema ever holds ([`mod@column`]);
//! * `PhysicsResources`, the struct of resources a `World<Physics>` owns
//!   ([`resources`]);
//! * `impl CloneSchema` and `impl HashSchema` for `Physics` and `Clone` for
//!   `PhysicsColumn`, bounded type by type so that an error names the
//!   component or resource lacking `Clone` or `StableHash` ([`snapshot`]);
//! * `impl Schema for Physics` ([`schema`]), `impl Component<Physics>` for each
//!   component type ([`component`]), `impl Resource<Physics>` for each resource
//!   type ([`resources`]).
//!
//! Everything is referred to by absolute path so that the user's names
//! (a local `Option`, `Vec`, or `#![no_implicit_prelude]`) cannot interfere;
//! the runtime crate by the name the user's Cargo.toml gives it ([`Krate`]).

mod column;
mod component;
mod krate;
mod lifecycle;
mod mask;
mod resources;
mod schema;
mod snapshot;
mod stand_in;

use crate::fresh::{local, Taken};
use crate::model::SchemaModel;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

pub use krate::Krate;
pub use stand_in::stand_in;

/// All the items of a schema that passed every check.
pub fn expand(model: &SchemaModel, krate: &Krate, taken: &Taken) -> TokenStream {
    let names = Names::new(model, krate, taken);
    let column_enum = column::column_enum(model, &names);
    let mask_impls = mask::mask_impls(&names);
    let column_impl = column::column_impl(model, &names);
    let column_conditional_impls = column::column_conditional_impls(model, &names);
    let schema_impl = schema::schema_impl(model, &names);
    let snapshot_impls = snapshot::snapshot_impls(model, &names);
    let component_impls = model
        .components()
        .enumerate()
        .map(|(bit, field)| component::component_impl(&names, bit, field));
    let resource_impls = model
        .resources()
        .enumerate()
        .map(|(index, field)| resources::resource_impl(&names, index, field));
    let relation_impls = lifecycle::relation_impls(model, &names);
    let sparse_mutable_impls = component::sparse_mutable_impls(model, &names);
    let not_a_resource_impls = model
        .components()
        .chain(model.states())
        .map(|field| component::not_a_resource_impl(&names, field));
    let fields_are_declarations = fields_are_declarations(model);
    let impls = quote! {
        #mask_impls
        #column_impl
        #column_conditional_impls
        #schema_impl
        #snapshot_impls
        #(#component_impls)*
        #relation_impls
        #sparse_mutable_impls
        #(#resource_impls)*
        #(#not_a_resource_impls)*
        #fields_are_declarations
    };
    items_and_impls(model, &names, column_enum, impls)
}

/// The items a user can name (the mask and the resources struct, with the
/// hidden column enum between them), then the impls, kept out of the user's
/// namespace in a `const _` block.
fn items_and_impls(
    model: &SchemaModel,
    names: &Names,
    column_enum: TokenStream,
    impls: TokenStream,
) -> TokenStream {
    let mask_struct = mask::mask_struct(model, names);
    let resources_struct = resources::resources_struct(model, names);
    quote! {
        #mask_struct
        #column_enum
        #resources_struct

        const _: () = {
            #impls
        };
    }
}

/// The names of the schema, of the items generated beside it, and of the
/// runtime crate.
struct Names<'a> {
    /// The runtime crate: `::schemecs`.
    krate: &'a Krate,
    /// The schema struct: `Physics`.
    schema: &'a Ident,
    /// `PhysicsMask`.
    mask: Ident,
    /// `PhysicsColumn`.
    column: Ident,
    /// `PhysicsResources`, the struct's name.
    resources: Ident,
    /// `PhysicsResources<Tick, ...>`, the struct's type with the resource types.
    resources_ty: TokenStream,
    /// The mask's backing integer: `u8` ... `u128`.
    bits: Ident,
    /// The generic parameters of the resources struct (`R0`, `R1`, ...) and
    /// of the impls that take one (`V`, `W`, `D`): each renamed if a
    /// type of the schema has its name (see `fresh`).
    params: Params,
    /// `for<'__soa> Pos: ::schemecs::Soa,` for each `#[ecs(soa)]` component:
    /// the where-clause of every impl whose bodies use those columns. A
    /// bound with a bound lifetime is not checked where it is written, only
    /// where the impl is used; so when `Pos` lacks `#[derive(Soa)]` the
    /// bodies type-check and the compiler says so a few times, not once
    /// per column method.
    soa_bounds: TokenStream,
}

impl<'a> Names<'a> {
    fn new(model: &'a SchemaModel, krate: &'a Krate, taken: &Taken) -> Self {
        let schema = model.ident;
        let resources = format_ident!("{}Resources", schema, span = model.span());
        let params = Params {
            resources: (0..model.resources().count())
                .map(|index| taken.generic(&format!("R{index}")))
                .collect(),
            visitor: taken.generic("V"),
            world: taken.generic("W"),
            deserializer: taken.generic("D"),
        };
        Names {
            krate,
            schema,
            mask: format_ident!("{}Mask", schema, span = model.span()),
            column: format_ident!("{}Column", schema, span = model.span()),
            resources_ty: resources::resources_type(model, &resources, krate),
            resources,
            bits: mask::bits_type(model.components().count()),
            soa_bounds: soa_bounds(model, krate),
            params,
        }
    }
}

/// [`Names::params`].
struct Params {
    /// One per resource, in order.
    resources: Vec<Ident>,
    /// `visit_relation`'s visitor.
    visitor: Ident,
    /// The world of `CloneSchema<W>` and `HashSchema<W>`.
    world: Ident,
    /// The deserializer of `LoadColumn::load`.
    deserializer: Ident,
}

/// [`Names::soa_bounds`].
fn soa_bounds(model: &SchemaModel, krate: &Krate) -> TokenStream {
    let types = model
        .components()
        .filter(|field| field.soa)
        .map(|field| field.ty);
    quote!(#(for<'__soa> #types: #krate::soa::Soa,)*)
}

/// A bit number, or a resource's index, as written in generated code.
fn bit_literal(bit: usize) -> Literal {
    Literal::u32_unsuffixed(bit as u32)
}

/// The schema struct is a list of types and is never built, so its fields are
/// never read; this use keeps `dead_code` quiet about them.
fn fields_are_declarations(model: &SchemaModel) -> TokenStream {
    let schema = model.ident;
    let fields = model.fields.iter().map(|field| field.ident);
    let declared = local("schema");
    quote! {
        #[allow(dead_code)]
        fn __fields_are_declarations(#declared: &#schema) {
            let _ = (#(&#declared.#fields,)*);
        }
    }
}
