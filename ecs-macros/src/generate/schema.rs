//! `impl Layout for Physics`: the item types, the text consts (worded by the
//! runtime's `schema_texts!`), the data bits, and the resource slots; and
//! `impl Schema for Physics`, which adds the relations and hooks.

use super::resources::stored_ty;
use super::{bit_literal, Krate, Names};
use crate::fresh::local;
use crate::model::SchemaModel;
use proc_macro2::TokenStream;
use quote::quote;

pub(super) fn schema_impl(model: &SchemaModel, names: &Names) -> TokenStream {
    let krate = names.krate;
    let (schema, mask, column) = (names.schema, &names.mask, &names.column);
    let resources_ty = &names.resources_ty;
    let schema_texts = schema_texts(model, krate);
    let component_types: Vec<_> = model.components().map(|field| field.ty).collect();
    let variants = model.components().map(|field| field.ident);
    let component_bits: Vec<_> = (0..component_types.len()).map(bit_literal).collect();
    let resource_types = model.resources().map(|field| stored_ty(field, names.krate));
    let resource_fields = model.resources().map(|field| field.ident);
    let tracked_bits = model
        .components()
        .enumerate()
        .filter(|(_, field)| field.tracked)
        .map(|(bit, _)| bit_literal(bit));
    let sparse_bits = model
        .components()
        .enumerate()
        .filter(|(_, field)| field.sparse)
        .map(|(bit, _)| bit_literal(bit));
    let soa_bits = model
        .components()
        .enumerate()
        .filter(|(_, field)| field.soa)
        .map(|(bit, _)| bit_literal(bit));
    let event_fields: Vec<_> = model.events().map(|field| field.ident).collect();
    let event_types: Vec<_> = model.events().map(|field| field.ty).collect();
    let (lifecycle, hooks) = super::lifecycle::schema_items(model, names);
    let [bits, resources, bit, retention, now] =
        ["bits", "resources", "bit", "retention", "now"].map(local);
    let new_columns = model
        .components()
        .map(|field| super::column::column_store(field, names.krate));
    quote! {
        #[automatically_derived]
        impl #krate::schema::Layout for #schema {
            type Mask = #mask;
            type Column = #column;
            type Resources = #resources_ty;
            type ResourceSlots<'a> = (#(#krate::__private::Lent<'a, #resource_types>,)*);

            #schema_texts
            const DATA_BITS: u128 = {
                let mut #bits = 0u128;
                #(
                    if ::core::mem::size_of::<#component_types>() != 0 {
                        #bits |= 1u128 << #component_bits;
                    }
                )*
                #bits
            };
            const TRACKED_BITS: u128 = 0 #(| (1u128 << #tracked_bits))*;
            const SPARSE_BITS: u128 = 0 #(| (1u128 << #sparse_bits))*;
            const SOA_BITS: u128 = 0 #(| (1u128 << #soa_bits))*;
            #lifecycle

            #[inline]
            #[allow(unused_variables, clippy::unused_unit)]
            fn resource_slots(#resources: &mut #resources_ty) -> Self::ResourceSlots<'_> {
                (#(#krate::__private::Lent::Free(&mut #resources.#resource_fields),)*)
            }

            fn new_column(#bit: u32) -> #column {
                match #bit {
                    #(#component_bits => #column::#variants(<#new_columns as ::core::default::Default>::default()),)*
                    _ => #krate::__private::column_mismatch::<#schema>(#bit),
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn prune_events(
                #resources: &mut #resources_ty,
                #retention: &#krate::retention::Retention<'_>,
            ) {
                #(#krate::event::Events::retain(
                    &mut #resources.#event_fields,
                    <#event_types as #krate::event::Event<#schema>>::BIT,
                    #retention,
                );)*
            }

            #[allow(unused_variables)]
            fn clamp_event_ticks(#resources: &mut #resources_ty, #now: u32) {
                #(#krate::event::Events::clamp_ticks(&mut #resources.#event_fields, #now);)*
            }

            #[allow(unused_variables)]
            fn check_event_ticks(
                #resources: &#resources_ty,
                #now: u32,
            ) -> ::core::result::Result<(), ::std::string::String> {
                #(#krate::event::Events::check_ticks(&#resources.#event_fields, #now)?;)*
                ::core::result::Result::Ok(())
            }
        }

        #[automatically_derived]
        impl #krate::schema::Schema for #schema {
            #hooks
        }
    }
}

/// The text consts (name, type names, check messages): the derive passes the
/// names, the runtime's `schema_texts!` words the messages.
pub(super) fn schema_texts(model: &SchemaModel, krate: &Krate) -> TokenStream {
    let schema_name = model.ident.to_string();
    let component_names = model.components().map(|field| &field.type_name);
    let component_fields = model
        .components()
        .map(|field| syn::ext::IdentExt::unraw(field.ident).to_string());
    let resource_names = model.plain_resources().map(|field| &field.type_name);
    let resource_fields = model
        .resources()
        .map(|field| syn::ext::IdentExt::unraw(field.ident).to_string());
    let event_names = model.events().map(|field| &field.type_name);
    let state_names = model.states().map(|field| &field.type_name);
    quote! {
        #krate::__private::schema_texts! {
            schema: #schema_name,
            components: [#(#component_names),*],
            fields: [#(#component_fields),*],
            resources: [#(#resource_names),*],
            resource_fields: [#(#resource_fields),*],
            events: [#(#event_names),*],
            states: [#(#state_names),*],
        }
    }
}
