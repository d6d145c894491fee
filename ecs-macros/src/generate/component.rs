//! `impl Component<Physics> for Pos`: a component's bit, and its variant of
//! the column enum; and `impl Resource<Physics> for Pos`, which never applies
//! and says, when `Pos` is used as a resource, that it is a component.

use super::{bit_literal, Names};
use crate::fresh::local;
use crate::model::{FieldModel, Role, SchemaModel};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// The impl for the component of `field`, whose bit is `bit`.
pub(super) fn component_impl(names: &Names, bit: usize, field: &FieldModel) -> TokenStream {
    let krate = names.krate;
    let (schema, column) = (names.schema, &names.column);
    let (ty, variant, bit) = (field.ty, field.ident, bit_literal(bit));
    let tracked = if field.tracked {
        // A tag has no values, so nothing to stamp: said at the field, in
        // `cargo check` too (a constant of a concrete type).
        let message = format!(
            "`{ty}` is a tag of schema `{schema}` (a zero-sized component: a bit, no values), so \
             `#[ecs(track)]` has nothing to record; remove it, and test the tag with `Has<{ty}>`, \
             `With<{ty}>` or `Without<{ty}>`",
            ty = field.type_name,
        );
        let span = syn::spanned::Spanned::span(ty);
        quote_spanned! {span=>
            #[automatically_derived]
            impl #krate::schema::Tracked<#schema> for #ty {}

            const _: () = ::core::assert!(::core::mem::size_of::<#ty>() != 0, #message);
        }
    } else {
        quote!()
    };
    let sparse = if field.sparse {
        // A tag is a bit with no values: a sparse set of it would hold
        // nothing that the bit does not already say.
        let message = format!(
            "`{ty}` is a tag of schema `{schema}` (a zero-sized component: a bit, no values), so \
             `#[ecs(sparse)]` has nothing to store; remove it (adding or removing a tag moves \
             the entity's row like any other component)",
            ty = field.type_name,
        );
        let span = syn::spanned::Spanned::span(ty);
        quote_spanned! {span=>
            const _: () = ::core::assert!(::core::mem::size_of::<#ty>() != 0, #message);
        }
    } else {
        quote!()
    };
    let soa = if field.soa {
        // A tag has no fields to store apart: said at the field, in
        // `cargo check` too (a constant of a concrete type).
        let message = format!(
            "`{ty}` is a tag of schema `{schema}` (a zero-sized component: a bit, no values), so \
             `#[ecs(soa)]` has no fields to store; remove it",
            ty = field.type_name,
        );
        let span = syn::spanned::Spanned::span(ty);
        let krate = krate.at(span);
        quote_spanned! {span=>
            const _: () = {
                fn check<__T: #krate::__private::SoaComponent<#schema>>() {}
                let _ = check::<#ty>;
            };
            const _: () = ::core::assert!(::core::mem::size_of::<#ty>() != 0, #message);
        }
    } else {
        quote!()
    };
    let relation_target = super::lifecycle::relation_target(field, names);
    let [column_arg, values_arg, tick_arg] = ["column", "values", "tick"].map(local);
    let values_ty = if field.soa && field.tracked {
        quote!(#krate::__private::TrackedVec<Self, #krate::__private::SoaVec<Self>>)
    } else if field.soa {
        quote!(#krate::__private::SoaVec<Self>)
    } else {
        quote!(::std::vec::Vec<Self>)
    };
    // The whole-value accessors: a column of an `#[ecs(soa)]` component
    // holds no `Vec<Self>` (every caller's compile-time check refuses it).
    let (values, values_mut, as_vec, as_vec_mut, with_ticks) = if field.soa {
        (
            quote!(#values_arg),
            quote!(#values_arg),
            quote!(_ => #krate::__private::column_mismatch::<#schema>(#bit),),
            quote!(_ => #krate::__private::column_mismatch::<#schema>(#bit),),
            quote!(_ => #krate::__private::column_mismatch::<#schema>(#bit),),
        )
    } else {
        (
            quote!(#krate::__private::AsVec::vec(#values_arg)),
            quote!(#krate::__private::AsVec::vec_mut(#values_arg)),
            quote! {
                #column::#variant(#values_arg) => #krate::__private::AsVec::vec(#values_arg),
                _ => #krate::__private::column_mismatch::<#schema>(#bit),
            },
            quote! {
                #column::#variant(#values_arg) => #krate::__private::AsVec::vec_mut(#values_arg),
                _ => #krate::__private::column_mismatch::<#schema>(#bit),
            },
            quote! {
                #column::#variant(#values_arg) => {
                    #krate::__private::AsVec::values_and_changed(#values_arg, #tick_arg)
                }
                _ => #krate::__private::column_mismatch::<#schema>(#bit),
            },
        )
    };
    quote! {
        #[automatically_derived]
        impl #krate::schema::Component<#schema> for #ty {
            const BIT: u32 = #bit;
            type Values = #values_ty;

            #relation_target

            #[allow(unreachable_patterns)]
            #[inline(always)]
            fn values(#column_arg: &#column) -> &Self::Values {
                match #column_arg {
                    #column::#variant(#values_arg) => #values,
                    _ => #krate::__private::column_mismatch::<#schema>(#bit),
                }
            }

            #[allow(unreachable_patterns)]
            #[inline(always)]
            fn values_mut(#column_arg: &mut #column) -> &mut Self::Values {
                match #column_arg {
                    #column::#variant(#values_arg) => #values_mut,
                    _ => #krate::__private::column_mismatch::<#schema>(#bit),
                }
            }

            #[allow(unreachable_patterns, unused_variables)]
            #[inline]
            fn column(#column_arg: &#column) -> &::std::vec::Vec<Self> {
                match #column_arg {
                    #as_vec
                }
            }

            #[allow(unreachable_patterns, unused_variables)]
            #[inline]
            fn column_mut(#column_arg: &mut #column) -> &mut ::std::vec::Vec<Self> {
                match #column_arg {
                    #as_vec_mut
                }
            }

            #[allow(unreachable_patterns, unused_variables)]
            #[inline]
            fn values_and_changed(#column_arg: &mut #column, #tick_arg: u32) -> (&mut [Self], &mut [u32]) {
                match #column_arg {
                    #with_ticks
                }
            }
        }

        #tracked
        #sparse
        #soa
    }
}

/// `impl SparseMutable<Physics> for Pos` for each sparse component, and
/// `impl Migratable<Physics> for Pos` for each table component, whose
/// structural change moves nothing but its value or its entity's row: no
/// hooks, no relation role, no requirements. `SparseMut<Physics, Pos>` and
/// `Migrator<Physics, Pos, F>` add and remove those while other systems run.
pub(super) fn sparse_mutable_impls(model: &SchemaModel, names: &Names) -> TokenStream {
    let (krate, schema) = (names.krate, names.schema);
    let inverses: Vec<&syn::Ident> = model
        .components()
        .filter_map(|field| field.lifecycle.relation.as_ref()?.inverse.as_ref())
        .collect();
    let plain = |field: &&FieldModel| {
        let lifecycle = &field.lifecycle;
        lifecycle.relation.is_none()
            && lifecycle.requires.is_empty()
            && lifecycle.on_add.is_empty()
            && lifecycle.on_insert.is_empty()
            && lifecycle.on_remove.is_empty()
            && !inverses.contains(&field.ident)
    };
    let sparse = model
        .components()
        .filter(|field| field.sparse && plain(field))
        .map(|field| field.ty);
    let table = model
        .components()
        .filter(|field| !field.sparse && plain(field))
        .map(|field| field.ty);
    quote! {
        #(
            #[automatically_derived]
            impl #krate::schema::SparseMutable<#schema> for #sparse {}
        )*
        #(
            #[automatically_derived]
            impl #krate::schema::Migratable<#schema> for #table {}
        )*
    }
}

/// The impl that makes `ResMut<Pos>` or `world.resource::<Pos>()` fail with
/// "`Pos` is a component of schema `Physics`, not a resource" rather than
/// with advice to make it a resource too; for a state field (`Res<Phase>`),
/// with "`Phase` is a state ..., not a resource", naming `State<Phase>` and
/// `NextState<Phase>`. Its bound never holds (`for<'a>` keeps the compiler
/// from rejecting a bound on concrete types that is always false), so the
/// impl never applies. Spanned at the field's type, so that the compiler
/// points there, not at the derive.
pub(super) fn not_a_resource_impl(names: &Names, field: &FieldModel) -> TokenStream {
    let (schema, resources_ty) = (names.schema, &names.resources_ty);
    let ty = field.ty;
    let span = syn::spanned::Spanned::span(ty);
    let krate = names.krate.at(span);
    let misuse = if field.role == Role::State {
        quote_spanned!(span=> StateIsNotAResource)
    } else {
        quote_spanned!(span=> ComponentIsNotAResource)
    };
    quote_spanned! {span=>
        #[automatically_derived]
        impl #krate::schema::Resource<#schema> for #ty
        where
            for<'a> #krate::__private::Misuse: #krate::__private::#misuse<#schema, #ty>,
        {
            const BIT: u32 = u32::MAX;

            fn slot<'s, 'a>(
                _: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
            ) -> &'s mut #krate::__private::Lent<'a, Self> {
                ::core::unreachable!()
            }

            fn get(_: &#resources_ty) -> &Self {
                ::core::unreachable!()
            }

            fn get_mut(_: &mut #resources_ty) -> &mut Self {
                ::core::unreachable!()
            }
        }
    }
}
