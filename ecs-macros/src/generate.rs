//! Code generation: [`SchemaModel`] -> the schema's items.
//!
//! For `struct Physics { pos: Pos, frozen: Frozen, #[ecs(resource)] tick: Tick }`
//! this emits:
//!
//! * `PhysicsMask`, a `bitflags` type with one flag per component (`POS`,
//!   `FROZEN`), backed by the narrowest unsigned integer that fits;
//! * `PhysicsColumn`, an enum with one `Vec<T>` variant per component, the only
//!   column type a table of this schema ever holds;
//! * `PhysicsResources`, the struct of resources a `World<Physics>` owns;
//! * `impl Schema for Physics`, `impl Component<Physics>` for each component type,
//!   `impl Resource<Physics>` for each resource type.
//!
//! Everything is referred to by absolute path so that the user's names
//! (a local `Option`, `Vec`, or `#![no_implicit_prelude]`) cannot interfere.

use crate::model::SchemaModel;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

pub fn expand(model: &SchemaModel) -> TokenStream {
    let schema = model.ident;
    let mask = format_ident!("{}Mask", schema, span = model.span());
    let column = format_ident!("{}Column", schema, span = model.span());
    let resources = format_ident!("{}Resources", schema, span = model.span());
    let schema_name = schema.to_string();

    let bits_ty = bits_type(model.components().count());
    let bit_literals: Vec<Literal> = (0..model.components().count())
        .map(|bit| Literal::u32_unsuffixed(bit as u32))
        .collect();
    let component_types: Vec<&syn::Type> = model.components().map(|f| f.ty).collect();
    let component_names: Vec<&str> = model.components().map(|f| f.type_name.as_str()).collect();
    let variants: Vec<&Ident> = model.components().map(|f| f.ident).collect();
    let all_fields: Vec<&Ident> = model
        .components()
        .chain(model.resources())
        .map(|f| f.ident)
        .collect();

    let mask_item = mask_item(model, &mask, &bits_ty);
    let column_item = column_item(model, &column, &variants, &component_types);
    let resources_item = resources_item(model, &resources);

    let resources_ty = resources_type(model, &resources);
    let resource_names: Vec<&str> = model.resources().map(|f| f.type_name.as_str()).collect();
    let resource_types: Vec<&syn::Type> = model.resources().map(|f| f.ty).collect();
    let resource_fields: Vec<&Ident> = model.resources().map(|f| f.ident).collect();

    let component_impls = model.components().zip(&bit_literals).map(|(field, bit)| {
        let ty = field.ty;
        let variant = field.ident;
        quote! {
            #[automatically_derived]
            impl ::ecs::Component<#schema> for #ty {
                const BIT: u32 = #bit;

                #[allow(unreachable_patterns)]
                #[inline]
                fn column(column: &#column) -> &::std::vec::Vec<Self> {
                    match column {
                        #column::#variant(values) => values,
                        _ => ::ecs::__private::column_mismatch::<#schema>(#bit),
                    }
                }

                #[allow(unreachable_patterns)]
                #[inline]
                fn column_mut(column: &mut #column) -> &mut ::std::vec::Vec<Self> {
                    match column {
                        #column::#variant(values) => values,
                        _ => ::ecs::__private::column_mismatch::<#schema>(#bit),
                    }
                }
            }
        }
    });

    let resource_impls = model.resources().enumerate().map(|(index, field)| {
        let ty = field.ty;
        let name = field.ident;
        let bit = Literal::u32_unsuffixed(index as u32);
        let slot = syn::Index::from(index);
        quote! {
            #[automatically_derived]
            impl ::ecs::Resource<#schema> for #ty {
                const BIT: u32 = #bit;

                #[inline]
                fn slot<'s, 'a>(
                    slots: &'s mut <#schema as ::ecs::Schema>::ResourceSlots<'a>,
                ) -> &'s mut ::ecs::__private::ResourceSlot<'a, Self> {
                    &mut slots.#slot
                }

                #[inline]
                fn get(resources: &#resources_ty) -> &Self {
                    &resources.#name
                }

                #[inline]
                fn get_mut(resources: &mut #resources_ty) -> &mut Self {
                    &mut resources.#name
                }
            }
        }
    });

    quote! {
        #mask_item
        #column_item
        #resources_item

        const _: () = {
            #[automatically_derived]
            impl ::core::fmt::Debug for #mask {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::ecs::__private::fmt_mask::<#schema>(*self, f)
                }
            }

            #[automatically_derived]
            impl ::ecs::Mask for #mask {
                type Bits = #bits_ty;
                const EMPTY: Self = Self::from_bits_retain(0);
                const DATA: Self = Self::from_bits_retain(
                    <#schema as ::ecs::Schema>::DATA_BITS as #bits_ty
                );
                const TAGS: Self = Self::from_bits_retain(
                    Self::bits(&Self::all()) & !(<#schema as ::ecs::Schema>::DATA_BITS as #bits_ty)
                );

                #[inline]
                fn bits(self) -> #bits_ty {
                    <Self as ::ecs::__private::bitflags::Flags>::bits(&self)
                }

                #[inline]
                fn from_bits_retain(bits: #bits_ty) -> Self {
                    <Self as ::ecs::__private::bitflags::Flags>::from_bits_retain(bits)
                }
            }

            #[automatically_derived]
            impl ::ecs::Schema for #schema {
                type Mask = #mask;
                type Column = #column;
                type Resources = #resources_ty;
                type ResourceSlots<'a> = (#(::ecs::__private::ResourceSlot<'a, #resource_types>,)*);

                ::ecs::__private::schema_texts! {
                    schema: #schema_name,
                    components: [#(#component_names),*],
                    resources: [#(#resource_names),*],
                }
                const DATA_BITS: u128 = {
                    let mut bits = 0u128;
                    #(
                        if ::core::mem::size_of::<#component_types>() != 0 {
                            bits |= 1u128 << #bit_literals;
                        }
                    )*
                    bits
                };

                #[inline]
                #[allow(unused_variables, clippy::unused_unit)]
                fn resource_slots(resources: &mut #resources_ty) -> Self::ResourceSlots<'_> {
                    (#(::ecs::__private::ResourceSlot::Free(&mut resources.#resource_fields),)*)
                }

                fn new_column(bit: u32) -> #column {
                    match bit {
                        #(#bit_literals => #column::#variants(::std::vec::Vec::new()),)*
                        _ => ::ecs::__private::column_mismatch::<#schema>(bit),
                    }
                }
            }

            #(#component_impls)*
            #(#resource_impls)*

            // The schema struct is a list of types and is never built, so its
            // fields are never read; this use keeps `dead_code` quiet about them.
            #[allow(dead_code)]
            fn __fields_are_declarations(schema: &#schema) {
                let _ = (#(&schema.#all_fields,)*);
            }
        };
    }
}

/// The narrowest unsigned integer with one bit per component.
fn bits_type(count: usize) -> Ident {
    let name = match count {
        0..=8 => "u8",
        9..=16 => "u16",
        17..=32 => "u32",
        33..=64 => "u64",
        _ => "u128",
    };
    Ident::new(name, proc_macro2::Span::call_site())
}

fn mask_item(model: &SchemaModel, mask: &Ident, bits_ty: &Ident) -> TokenStream {
    let vis = model.vis;
    let doc = format!(
        "Archetype mask of schema [`{schema}`]: one bit per component, in field order.\n\n\
         Generated by `#[derive(Schema)]`; the mask algebra is in [`ecs::Mask`].",
        schema = model.ident
    );
    let flags = model.components().enumerate().map(|(bit, field)| {
        let flag = format_ident!("{}", field.flag_name(), span = field.ident.span());
        let bit = Literal::u32_unsuffixed(bit as u32);
        let doc = format!("Component `{}` (field `{}`).", field.type_name, field.ident);
        quote! {
            #[doc = #doc]
            const #flag = 1 << #bit;
        }
    });
    quote! {
        ::ecs::__private::bitflags::bitflags! {
            #[doc = #doc]
            #[derive(
                ::core::clone::Clone,
                ::core::marker::Copy,
                ::core::cmp::PartialEq,
                ::core::cmp::Eq,
                ::core::hash::Hash,
                ::core::cmp::PartialOrd,
                ::core::cmp::Ord
            )]
            #vis struct #mask: #bits_ty {
                #(#flags)*
            }
        }
    }
}

fn column_item(
    model: &SchemaModel,
    column: &Ident,
    variants: &[&Ident],
    types: &[&syn::Type],
) -> TokenStream {
    let bit_literals = (0..variants.len()).map(|bit| Literal::u32_unsuffixed(bit as u32));
    let vis = model.vis;
    let schema = model.ident;
    let doc = format!(
        "Typed column storage of schema [`{schema}`]: one `Vec<T>` variant per component.\n\n\
         Generated by `#[derive(Schema)]`; used by `ecs` tables, not by users."
    );
    quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis enum #column {
            #(#variants(::std::vec::Vec<#types>),)*
        }

        const _: () = {
            #[automatically_derived]
            #[allow(unreachable_patterns)]
            impl ::ecs::__private::Column for #column {
                #[inline(always)]
                fn bit(&self) -> u32 {
                    match self {
                        #(Self::#variants(_) => #bit_literals,)*
                    }
                }

                #[inline]
                fn len(&self) -> usize {
                    match self {
                        #(Self::#variants(values) => values.len(),)*
                    }
                }

                #[inline]
                fn reserve(&mut self, additional: usize) {
                    match self {
                        #(Self::#variants(values) => values.reserve(additional),)*
                    }
                }

                #[inline]
                fn clear(&mut self) {
                    match self {
                        #(Self::#variants(values) => values.clear(),)*
                    }
                }

                #[inline]
                fn append(&mut self, other: &mut Self) {
                    match (self, other) {
                        #((Self::#variants(to), Self::#variants(from)) => to.append(from),)*
                        _ => ::ecs::__private::column_mismatch::<#schema>(u32::MAX),
                    }
                }

                #[inline]
                fn reverse(&mut self) {
                    match self {
                        #(Self::#variants(values) => values.reverse(),)*
                    }
                }

                #[inline(always)]
                fn move_row(&mut self, row: usize, destination: &mut Self) {
                    match (self, destination) {
                        #((Self::#variants(from), Self::#variants(to)) => {
                            to.push(from.swap_remove(row))
                        })*
                        _ => ::ecs::__private::column_mismatch::<#schema>(u32::MAX),
                    }
                }
            }
        };
    }
}

/// The resources struct is generic over its field types, with the schema's types
/// as defaults, so that its derived `Default` has one bound per resource: it
/// exists exactly when every resource type implements `Default`.
fn resources_item(model: &SchemaModel, resources: &Ident) -> TokenStream {
    let vis = model.vis;
    let schema = model.ident;
    let params: Vec<Ident> = (0..model.resources().count())
        .map(|i| format_ident!("R{}", i))
        .collect();
    let defaults = model.resources().map(|f| f.ty);
    let names = model.resources().map(|f| f.ident);
    let doc = format!(
        "The resources of schema [`{schema}`]: one field per `#[ecs(resource)]` field.\n\n\
         `World::new()` builds it with `Default` when every resource has one; otherwise \
         pass it, filled in, to `World::with_resources`."
    );
    let generics = if params.is_empty() {
        quote!()
    } else {
        quote!(<#(#params = #defaults),*>)
    };
    quote! {
        #[doc = #doc]
        #[derive(::core::default::Default, ::core::fmt::Debug)]
        #vis struct #resources #generics {
            #(
                #[allow(missing_docs)]
                pub #names: #params,
            )*
        }
    }
}

fn resources_type(model: &SchemaModel, resources: &Ident) -> TokenStream {
    let types = model.resources().map(|f| f.ty);
    if model.resources().next().is_none() {
        quote!(#resources)
    } else {
        quote!(#resources<#(#types),*>)
    }
}
