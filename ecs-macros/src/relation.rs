//! `#[derive(Relation)]` and `#[derive(Inverse)]`: a struct of one field,
//! an `Entity` (the relation's target) or a `Vec<Entity>` (the sources kept
//! for a relation).

use crate::fresh::local;
use crate::generate::Krate;
use proc_macro2::TokenStream;
use quote::quote;

/// The one field of `input`, as an access (`0` or its name), or an error that
/// says what `derive` needs.
fn single_field(input: &syn::DeriveInput, derive: &str, holds: &str) -> syn::Result<syn::Member> {
    let name = &input.ident;
    let wrong = || {
        syn::Error::new_spanned(
            name,
            format!(
                "`#[derive({derive})]` needs a struct with exactly one field, {holds}: \
                 e.g. `struct {name}({example});`",
                example = if derive == "Relation" {
                    "Entity"
                } else {
                    "Vec<Entity>"
                }
            ),
        )
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            format!("`#[derive({derive})]` does not take generic structs: `{name}` names one concrete type"),
        ));
    }
    let syn::Data::Struct(data) = &input.data else {
        return Err(wrong());
    };
    let mut fields = data.fields.iter();
    let (Some(field), None) = (fields.next(), fields.next()) else {
        return Err(wrong());
    };
    Ok(match &field.ident {
        Some(ident) => syn::Member::Named(ident.clone()),
        None => syn::Member::Unnamed(syn::Index::from(0)),
    })
}

pub fn expand_relation(input: &syn::DeriveInput, krate: &Krate) -> syn::Result<TokenStream> {
    let field = single_field(input, "Relation", "the target `Entity`")?;
    let name = &input.ident;
    let target = local("target");
    Ok(quote! {
        #[automatically_derived]
        impl #krate::relation::Relation for #name {
            #[inline]
            fn target(&self) -> #krate::entity::Entity {
                self.#field
            }

            #[inline]
            fn to(#target: #krate::entity::Entity) -> Self {
                #name { #field: #target }
            }
        }
    })
}

pub fn expand_inverse(input: &syn::DeriveInput, krate: &Krate) -> syn::Result<TokenStream> {
    let field = single_field(input, "Inverse", "the sources, a `Vec<Entity>`")?;
    let name = &input.ident;
    let sources = local("sources");
    Ok(quote! {
        #[automatically_derived]
        impl #krate::relation::Inverse for #name {
            #[inline]
            fn sources(&self) -> &[#krate::entity::Entity] {
                &self.#field
            }

            #[inline]
            fn from_sources(#sources: ::std::vec::Vec<#krate::entity::Entity>) -> Self {
                #name { #field: #sources }
            }

            #[inline]
            fn sources_mut(&mut self) -> &mut ::std::vec::Vec<#krate::entity::Entity> {
                &mut self.#field
            }
        }
    })
}
