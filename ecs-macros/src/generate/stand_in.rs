//! The stand-in: what the derive emits beside its errors when a schema fails
//! a check, so that the user sees those errors and nothing else.
//!
//! Without it, every use of the schema would fail too (`Physics: Schema` not
//! satisfied, no `PhysicsMask`, `Pos` not a component of `Physics`, ...), and
//! the one real mistake would drown among its follow-on errors. So the
//! stand-in declares what the user's code can name: `impl Schema` (with the
//! struct's own generics, whatever its shape), `PhysicsMask` with a flag per
//! component that can have one, `PhysicsResources`, and `impl Component` /
//! `impl Resource` for each field type (both, for a field whose key is
//! unknown, since what it was meant to be is unknown). It is never run: the
//! build fails on the errors beside it, so its bodies only need to type-check.

use super::{bit_literal, items_and_impls, schema, Krate, Names};
use crate::check::{same_type, MAX_COMPONENTS};
use crate::fresh::Taken;
use crate::model::{FieldModel, Role, SchemaModel};
use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

/// The items that keep the rest of the user's code quiet.
pub fn stand_in(model: &SchemaModel, krate: &Krate, taken: &Taken) -> TokenStream {
    let placed = placed_fields(model);
    let names = Names::new(&placed, krate, taken);
    let target = Target::new(model);
    let column_enum = column_enum(&placed, &names);
    let mask_impls = mask_impls(&names);
    let schema_impl = schema_impl(&placed, &names, &target);
    let kept = |role| kept_types(model, role);
    let component_impls = kept(Role::Component)
        .enumerate()
        .map(|(bit, field)| component_impl(&names, &target, bit, field));
    let resource_impls = kept(Role::Resource)
        .enumerate()
        .map(|(index, field)| resource_impl(&names, &target, index, field));
    let state_impls = model
        .fields
        .iter()
        .filter(|field| field.role == Role::State && !names_generics(model, field))
        .enumerate()
        .map(|(index, field)| state_impl(&names, &target, index, field));
    // A struct whose last field is unsized is unsized itself, and no trait
    // with the schema as a parameter can be implemented for it: the user's
    // code that names the schema fails however the stand-in looks.
    let impls = if model.fields.last().is_some_and(FieldModel::is_unsized) {
        mask_impls
    } else {
        quote! {
            #mask_impls
            #schema_impl
            #(#component_impls)*
            #(#resource_impls)*
            #(#state_impls)*
        }
    };
    items_and_impls(&placed, &names, column_enum, impls)
}

/// The schema cut down to what the mask and the resources struct can hold:
/// the resources, and the components up to the widest mask whose flag name is
/// not taken yet. A field whose role is unknown, whose type names the
/// struct's generic parameters, or whose type is unsized, is left out.
fn placed_fields<'a>(model: &SchemaModel<'a>) -> SchemaModel<'a> {
    let mut placed: Vec<FieldModel> = Vec::new();
    let mut flags: Vec<String> = Vec::new();
    let placeable = |f: &&FieldModel| !names_generics(model, f) && !f.is_unsized();
    for field in model.fields.iter().filter(placeable) {
        if field.role == Role::Component {
            let flag = field.flag_name();
            if flags.contains(&flag) || flags.len() == MAX_COMPONENTS {
                continue;
            }
            flags.push(flag);
        }
        if field.role != Role::Unknown {
            placed.push(field.clone());
        }
    }
    SchemaModel {
        fields: placed,
        keys: Vec::new(),
        ..model.clone()
    }
}

/// The fields that get an impl of the trait of `role`, one per type: those of
/// that role, and those whose role is unknown.
fn kept_types<'m, 'a>(
    model: &'m SchemaModel<'a>,
    role: Role,
) -> impl Iterator<Item = &'m FieldModel<'a>> {
    let candidates = model.fields.iter().filter(move |field| {
        (field.role == role || field.role == Role::Unknown)
            && !names_generics(model, field)
            && !field.is_unsized()
    });
    let mut seen: Vec<&FieldModel> = Vec::new();
    candidates.filter(move |field| {
        let first = !seen.iter().any(|earlier| same_type(earlier, field));
        seen.push(field);
        first
    })
}

/// Whether `field`'s type names one of the struct's generic parameters (an
/// impl for it could not be written outside the struct).
fn names_generics(model: &SchemaModel, field: &FieldModel) -> bool {
    let params: Vec<String> = model
        .generics
        .params
        .iter()
        .map(|param| match param {
            syn::GenericParam::Type(param) => param.ident.to_string(),
            syn::GenericParam::Lifetime(param) => param.lifetime.ident.to_string(),
            syn::GenericParam::Const(param) => param.ident.to_string(),
        })
        .collect();
    fn names_any(tokens: TokenStream, params: &[String]) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => params.iter().any(|param| ident == param),
            TokenTree::Group(group) => names_any(group.stream(), params),
            _ => false,
        })
    }
    let ty = field.ty;
    !params.is_empty() && names_any(quote!(#ty), &params)
}

/// The schema type the stand-in's impls are for, with the struct's generics:
/// `impl<T> ... for Physics<T> where Physics<T>: 'static` (a schema is
/// `'static`; the bound lets the impls hold whatever the parameters are).
struct Target {
    impl_generics: TokenStream,
    schema: TokenStream,
    where_clause: TokenStream,
}

impl Target {
    fn new(model: &SchemaModel) -> Self {
        let (impl_generics, ty_generics, _) = model.generics.split_for_impl();
        let ident = model.ident;
        let schema = quote!(#ident #ty_generics);
        let mut generics = model.generics.clone();
        if !generics.params.is_empty() {
            let bound = syn::parse_quote!(#schema: 'static);
            generics.make_where_clause().predicates.push(bound);
        }
        let where_clause = generics.where_clause.as_ref();
        Target {
            impl_generics: quote!(#impl_generics),
            where_clause: quote!(#where_clause),
            schema,
        }
    }
}

/// The column type: an enum without variants, since no table is ever built.
fn column_enum(model: &SchemaModel, names: &Names) -> TokenStream {
    let krate = names.krate;
    let (vis, column) = (model.vis, &names.column);
    quote! {
        #[doc(hidden)]
        #vis enum #column {}

        #[automatically_derived]
        impl #krate::__private::Column for #column {
            fn bit(&self) -> u32 { match *self {} }
            fn len(&self) -> usize { match *self {} }
            fn reserve(&mut self, _: usize) { match *self {} }
            fn clear(&mut self) { match *self {} }
            fn append(&mut self, _: &mut Self) { match *self {} }
            fn reverse(&mut self) { match *self {} }
            fn move_row(&mut self, _: usize, _: &mut Self) { match *self {} }
            fn discard_row(&mut self, _: usize, _: &mut Self) { match *self {} }
            fn discard_tail(&mut self, _: usize, _: &mut Self) { match *self {} }
            fn pop_into(&mut self, _: &mut Self) { match *self {} }
            fn ticks(&self) -> ::core::option::Option<(&[u32], &[u32])> { match *self {} }
            fn sync_ticks(&mut self, _: u32) { match *self {} }
            fn mark_changed(&mut self, _: usize, _: u32) { match *self {} }
            fn row_ticks(&self, _: usize) -> ::core::option::Option<(u32, u32)> { match *self {} }
            fn set_row_ticks(&mut self, _: usize, _: (u32, u32)) { match *self {} }
            fn swap_remove_ticks(&mut self, _: usize) { match *self {} }
            fn clamp_ticks(&mut self, _: u32) { match *self {} }
            fn changed_and_latest(&self) -> ::core::option::Option<(&[u32], &[u32])> { match *self {} }
        }

        #[automatically_derived]
        impl ::core::clone::Clone for #column {
            fn clone(&self) -> Self { match *self {} }
        }
    }
}

/// `Debug` and `Mask` for the mask, without the schema's data bits.
fn mask_impls(names: &Names) -> TokenStream {
    let krate = names.krate;
    let (mask, bits) = (&names.mask, &names.bits);
    let mask_name = mask.to_string();
    quote! {
        #[automatically_derived]
        impl ::core::fmt::Debug for #mask {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(#mask_name)
            }
        }

        #[automatically_derived]
        impl #krate::mask::Mask for #mask {
            type Bits = #bits;
            const EMPTY: Self = Self::from_bits_retain(0);
            const DATA: Self = Self::EMPTY;
            const TAGS: Self = Self::EMPTY;
            fn bits(self) -> #bits { ::core::unreachable!() }
            fn from_bits_retain(_: #bits) -> Self { ::core::unreachable!() }
        }
    }
}

/// `impl Schema`, with the real names and messages and no resource slots.
fn schema_impl(model: &SchemaModel, names: &Names, target: &Target) -> TokenStream {
    let krate = names.krate;
    let Target {
        impl_generics,
        schema,
        where_clause,
    } = target;
    let (mask, column, resources_ty) = (&names.mask, &names.column, &names.resources_ty);
    let schema_texts = schema::schema_texts(model, names.krate);
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::schema::Layout for #schema #where_clause {
            type Mask = #mask;
            type Column = #column;
            type Resources = #resources_ty;
            type ResourceSlots<'a> = ();

            #schema_texts
            const DATA_BITS: u128 = 0;
            const TRACKED_BITS: u128 = 0;
            const SPARSE_BITS: u128 = 0;

            fn resource_slots(_: &mut #resources_ty) {}

            fn new_column(_: u32) -> #column {
                ::core::unreachable!()
            }

            fn prune_events(_: &mut #resources_ty, _: &#krate::retention::Retention<'_>) {}

            fn clamp_event_ticks(_: &mut #resources_ty, _: u32) {}
            fn check_event_ticks(
                _: &#resources_ty,
                _: u32,
            ) -> ::core::result::Result<(), ::std::string::String> {
                ::core::result::Result::Ok(())
            }
        }

        #[automatically_derived]
        impl #impl_generics #krate::schema::Schema for #schema #where_clause {}

        #[automatically_derived]
        impl #impl_generics #krate::__private::CloneSchema<#schema> for #schema #where_clause {
            fn clone_column(column: &#column) -> #column { match *column {} }
            fn clone_column_from(target: &mut #column, _: &#column) { match *target {} }
            fn clone_resources(_: &#resources_ty) -> #resources_ty { ::core::unreachable!() }
            fn clone_resources_from(_: &mut #resources_ty, _: &#resources_ty) {}
        }

        #[automatically_derived]
        impl #impl_generics #krate::__private::HashSchema<#schema> for #schema #where_clause {
            fn hash_column(column: &#column, _: &mut #krate::checksum::StableHasher) { match *column {} }
            fn hash_row(column: &#column, _: usize, _: &mut #krate::checksum::StableHasher) { match *column {} }
            fn hash_resources(_: &#resources_ty, _: &mut #krate::checksum::StableHasher) {}
            fn hash_each_resource(_: &#resources_ty, _: &mut [#krate::checksum::StableHasher]) {}
        }
    }
}

/// `impl Component`, whose column is never there to be read.
fn component_impl(names: &Names, target: &Target, bit: usize, field: &FieldModel) -> TokenStream {
    let krate = names.krate;
    let Target {
        impl_generics,
        schema,
        where_clause,
    } = target;
    let (column, ty, bit) = (&names.column, field.ty, bit_literal(bit));
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::schema::Component<#schema> for #ty #where_clause {
            const BIT: u32 = #bit;
            type Values = ::std::vec::Vec<Self>;
            fn values(column: &#column) -> &::std::vec::Vec<Self> { match *column {} }
            fn values_mut(column: &mut #column) -> &mut ::std::vec::Vec<Self> { match *column {} }
            fn column(column: &#column) -> &::std::vec::Vec<Self> { match *column {} }
            fn column_mut(column: &mut #column) -> &mut ::std::vec::Vec<Self> { match *column {} }
            fn values_and_changed(column: &mut #column, _: u32) -> (&mut [Self], &mut [u32]) { match *column {} }
        }
    }
}

/// `impl Resource`, whose value is never there to be read.
fn resource_impl(names: &Names, target: &Target, index: usize, field: &FieldModel) -> TokenStream {
    let krate = names.krate;
    let Target {
        impl_generics,
        schema,
        where_clause,
    } = target;
    let (ty, bit) = (field.ty, bit_literal(index));
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::schema::Resource<#schema> for #ty #where_clause {
            const BIT: u32 = #bit;

            fn slot<'s, 'a>(
                _: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
            ) -> &'s mut #krate::__private::Lent<'a, Self> {
                ::core::unreachable!()
            }

            fn get(_: &<#schema as #krate::schema::Layout>::Resources) -> &Self {
                ::core::unreachable!()
            }

            fn get_mut(_: &mut <#schema as #krate::schema::Layout>::Resources) -> &mut Self {
                ::core::unreachable!()
            }
        }
    }
}

/// `impl States`, whose value is never there to be read.
fn state_impl(names: &Names, target: &Target, index: usize, field: &FieldModel) -> TokenStream {
    let krate = names.krate;
    let Target {
        impl_generics,
        schema,
        where_clause,
    } = target;
    let (ty, bit) = (field.ty, bit_literal(index));
    quote! {
        #[automatically_derived]
        impl #impl_generics #krate::state::States<#schema> for #ty #where_clause {
            const BIT: u32 = #bit;

            fn slot<'s, 'a>(
                _: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
            ) -> &'s mut #krate::__private::Lent<'a, #krate::state::State<Self>> {
                ::core::unreachable!()
            }

            fn cell(_: &<#schema as #krate::schema::Layout>::Resources) -> &#krate::state::State<Self> {
                ::core::unreachable!()
            }

            fn cell_mut(_: &mut <#schema as #krate::schema::Layout>::Resources) -> &mut #krate::state::State<Self> {
                ::core::unreachable!()
            }
        }
    }
}
