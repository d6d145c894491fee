//! `#[derive(StableHash)]`: `schemecs::StableHash` for a struct or enum, written
//! field by field.
//!
//! A struct writes its fields in declaration order. An enum writes the index
//! of its variant (in declaration order, from 0) as a `u64`, then the
//! variant's fields in order. A struct also gets the hidden fixed size (the
//! sum of its fields', when each has one) that lets a column of it be
//! written a buffer at a time. Each type parameter gets a `StableHash` bound,
//! as the standard derives do. A union is an error: which field holds the
//! value is not known.

use crate::fresh::local;
use crate::generate::Krate;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The impl, or the error for a union.
pub fn expand(input: &syn::DeriveInput, krate: &Krate) -> syn::Result<TokenStream> {
    let (body, fixed) = match &input.data {
        syn::Data::Struct(data) => (
            struct_body(&data.fields, krate),
            struct_fixed(&data.fields, krate),
        ),
        syn::Data::Enum(data) => (enum_body(data, krate), quote!()),
        syn::Data::Union(data) => {
            return Err(syn::Error::new(
                data.union_token.span,
                "`StableHash` cannot be derived for a union: which field holds the value is \
                 not known; implement `schemecs::StableHash` by hand",
            ))
        }
    };
    let ident = &input.ident;
    let hasher = local("hasher");
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param
            .bounds
            .push(syn::parse_quote!(#krate::checksum::StableHash));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::checksum::StableHash for #ident #ty_generics #where_clause {
            #[inline]
            #[allow(unused_variables)]
            fn stable_hash(&self, #hasher: &mut #krate::checksum::StableHasher) {
                #body
            }

            #fixed
        }
    })
}

/// A struct's size when each of its fields has a fixed one (their sum), and
/// its fields written at their offsets: what lets a column of it be written
/// a buffer at a time.
fn struct_fixed(fields: &syn::Fields, krate: &Krate) -> TokenStream {
    let [size_local, at, out] = ["size", "at", "out"].map(local);
    let sizes: Vec<TokenStream> = fields
        .iter()
        .map(|field| {
            let ty = &field.ty;
            let krate = krate.at(ty.span());
            quote_spanned!(ty.span()=> <#ty as #krate::checksum::StableHash>::__FIXED_SIZE)
        })
        .collect();
    let (pattern, bindings) = destructure(fields);
    let writes = fields
        .iter()
        .zip(&bindings)
        .zip(&sizes)
        .map(|((field, binding), size)| {
            let ty = &field.ty;
            let krate = krate.at(ty.span());
            let write =
                quote_spanned!(ty.span()=> <#ty as #krate::checksum::StableHash>::__write_fixed);
            quote! {
                let #size_local = match #size {
                    ::core::option::Option::Some(#size_local) => #size_local,
                    ::core::option::Option::None => 0,
                };
                #write(#binding, &mut #out[#at..#at + #size_local]);
                #at += #size_local;
            }
        });
    let write_fixed = if fields.is_empty() {
        quote!()
    } else {
        quote! {
            let Self #pattern = self;
            let mut #at = 0;
            #(#writes)*
        }
    };
    quote! {
        const __FIXED_SIZE: ::core::option::Option<::core::primitive::usize> =
            #krate::__private::fixed_size(&[#(#sizes),*]);

        #[inline]
        #[allow(unused_variables, unused_assignments)]
        fn __write_fixed(&self, #out: &mut [::core::primitive::u8]) {
            #write_fixed
        }
    }
}

/// Writes `self`'s fields in order.
fn struct_body(fields: &syn::Fields, krate: &Krate) -> TokenStream {
    if fields.is_empty() {
        return quote!();
    }
    let (pattern, bindings) = destructure(fields);
    let writes = writes(fields, &bindings, krate);
    quote! {
        let Self #pattern = self;
        #(#writes)*
    }
}

/// Writes the variant's index, then its fields in order.
fn enum_body(data: &syn::DataEnum, krate: &Krate) -> TokenStream {
    let hasher = local("hasher");
    let arms = data.variants.iter().enumerate().map(|(index, variant)| {
        let ident = &variant.ident;
        let (pattern, bindings) = destructure(&variant.fields);
        let writes = writes(&variant.fields, &bindings, krate);
        let index = index as u64;
        quote! {
            Self::#ident #pattern => {
                #krate::checksum::StableHasher::write_word(#hasher, #index);
                #(#writes)*
            }
        }
    });
    quote! {
        match self {
            #(#arms)*
        }
    }
}

/// A pattern binding every field (`{ x: __ecs_field_0, .. }`, `(__ecs_field_0, ..)`
/// or nothing for a unit), and the names it binds, in order.
fn destructure(fields: &syn::Fields) -> (TokenStream, Vec<Ident>) {
    let bindings: Vec<Ident> = (0..fields.len())
        .map(|i| local(&format!("field_{i}")))
        .collect();
    let pattern = match fields {
        syn::Fields::Named(named) => {
            let names = named.named.iter().map(|field| &field.ident);
            quote!({ #(#names: #bindings),* })
        }
        syn::Fields::Unnamed(_) => quote!(( #(#bindings),* )),
        syn::Fields::Unit => quote!(),
    };
    (pattern, bindings)
}

/// `StableHash::stable_hash(__ecs_field_i, __ecs_hasher);` for each field, at the
/// field's type, so that a field whose type is not `StableHash` is the error.
fn writes(fields: &syn::Fields, bindings: &[Ident], krate: &Krate) -> Vec<TokenStream> {
    let hasher = local("hasher");
    fields
        .iter()
        .zip(bindings)
        .map(|(field, binding)| {
            let ty = &field.ty;
            let krate = krate.at(ty.span());
            let write =
                quote_spanned!(ty.span()=> <#ty as #krate::checksum::StableHash>::stable_hash);
            quote!(#write(#binding, #hasher);)
        })
        .collect()
}
