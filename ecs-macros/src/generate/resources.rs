//! `PhysicsResources`, the struct of a world's resources, and
//! `impl Resource<Physics> for Tick`, which finds one resource in it and marks
//! it as no component (so that using it as one says it is a resource).

use super::{bit_literal, Krate, Names};
use crate::fresh::local;
use crate::model::{FieldModel, Role, SchemaModel};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The type the world stores for a resource field: the field's type, for an
/// event its queue `Events<T>`, for a state `State<T>`.
pub(super) fn stored_ty(field: &FieldModel, krate: &Krate) -> TokenStream {
    let ty = field.ty;
    match field.role {
        Role::Event => quote!(#krate::event::Events<#ty>),
        Role::State => quote!(#krate::state::State<#ty>),
        _ => quote!(#ty),
    }
}

/// The resources struct is generic over its field types, with the schema's types
/// as defaults, so that its derived `Default` has one bound per resource: it
/// exists exactly when every resource type implements `Default`.
pub(super) fn resources_struct(model: &SchemaModel, names: &Names) -> TokenStream {
    let (vis, resources) = (model.vis, &names.resources);
    let params = &names.params.resources;
    let defaults = model.resources().map(|field| stored_ty(field, names.krate));
    let fields = model.resources().map(|field| field.ident);
    let doc = format!(
        "The resources of schema [`{schema}`]: one field per `#[ecs(resource)]` field, \
         and one per `#[ecs(event)]` field (its queue, `Events<T>`: start it empty with \
         `Default::default()`) and per `#[ecs(state)]` field (`State<T>`).\n\n\
         `World::new()` builds it with `Default` when every resource has one; otherwise \
         pass it, filled in, to `World::with_resources`.",
        schema = model.ident
    );
    let generics = if params.is_empty() {
        quote!()
    } else {
        quote!(<#(#params = #defaults),*>)
    };
    let conditional_impls = resources_impls(model, names, params);
    quote! {
        #[doc = #doc]
        #[derive(::core::default::Default, ::core::fmt::Debug)]
        #vis struct #resources #generics {
            #(
                #[allow(missing_docs)]
                pub #fields: #params,
            )*
        }

        const _: () = {
            #conditional_impls
        };
    }
}

/// `Clone` (with a field-by-field `clone_from`), `StableHash` and, through
/// the runtime's `schema_serde_resources!`, the serde traits, each bounded on
/// the resource types: derived by hand because a derive would not give
/// `clone_from`, and serde is the runtime's optional dependency.
fn resources_impls(model: &SchemaModel, names: &Names, params: &[Ident]) -> TokenStream {
    let krate = names.krate;
    let resources = &names.resources;
    let fields: Vec<_> = model.resources().map(|field| field.ident).collect();
    let indices = (0..fields.len()).map(bit_literal);
    let count = proc_macro2::Literal::usize_unsuffixed(fields.len());
    let [source, hasher] = ["source", "hasher"].map(local);
    quote! {
        #[automatically_derived]
        impl<#(#params: ::core::clone::Clone),*> ::core::clone::Clone for #resources<#(#params),*> {
            #[inline]
            fn clone(&self) -> Self {
                #resources {
                    #(#fields: ::core::clone::Clone::clone(&self.#fields),)*
                }
            }

            #[inline]
            #[allow(unused_variables)]
            fn clone_from(&mut self, #source: &Self) {
                #(::core::clone::Clone::clone_from(&mut self.#fields, &#source.#fields);)*
            }
        }

        #[automatically_derived]
        impl<#(#params: #krate::checksum::StableHash),*> #krate::checksum::StableHash for #resources<#(#params),*> {
            #[inline]
            #[allow(unused_variables)]
            fn stable_hash(&self, #hasher: &mut #krate::checksum::StableHasher) {
                #(#krate::checksum::StableHash::stable_hash(&self.#fields, #hasher);)*
            }
        }

        #krate::__private::schema_serde_resources! {
            resources: #resources,
            count: #count,
            fields: [#(#fields: #params = #indices),*],
        }
    }
}

/// `PhysicsResources<Tick, ...>`: the resources struct with the schema's types.
pub(super) fn resources_type(model: &SchemaModel, resources: &Ident, krate: &Krate) -> TokenStream {
    let types = model.resources().map(|field| stored_ty(field, krate));
    if model.resources().next().is_none() {
        quote!(#resources)
    } else {
        quote!(#resources<#(#types),*>)
    }
}

/// The impl for the resource of `field`, the `index`-th resource of the schema.
pub(super) fn resource_impl(names: &Names, index: usize, field: &FieldModel) -> TokenStream {
    let krate = names.krate;
    let (schema, resources_ty) = (names.schema, &names.resources_ty);
    let (ty, name) = (stored_ty(field, names.krate), field.ident);
    let (bit, slot) = (bit_literal(index), syn::Index::from(index));
    let [slots, resources] = ["slots", "resources"].map(local);
    let event = if field.role == Role::Event {
        let event_ty = field.ty;
        quote! {
            #[automatically_derived]
            impl #krate::event::Event<#schema> for #event_ty {
                const BIT: u32 = #bit;

                #[inline]
                fn slot<'s, 'a>(
                    #slots: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
                ) -> &'s mut #krate::__private::Lent<'a, #krate::event::Events<Self>> {
                    &mut #slots.#slot
                }

                #[inline]
                fn queue(#resources: &#resources_ty) -> &#krate::event::Events<Self> {
                    &#resources.#name
                }

                #[inline]
                fn queue_mut(#resources: &mut #resources_ty) -> &mut #krate::event::Events<Self> {
                    &mut #resources.#name
                }
            }
        }
    } else {
        quote!()
    };
    if field.role == Role::State {
        let state_ty = field.ty;
        // `Resource<S> for State<T>` is the runtime's, for every state.
        return quote! {
            #[automatically_derived]
            impl #krate::state::States<#schema> for #state_ty {
                const BIT: u32 = #bit;

                #[inline]
                fn slot<'s, 'a>(
                    #slots: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
                ) -> &'s mut #krate::__private::Lent<'a, #krate::state::State<Self>> {
                    &mut #slots.#slot
                }

                #[inline]
                fn cell(#resources: &#resources_ty) -> &#krate::state::State<Self> {
                    &#resources.#name
                }

                #[inline]
                fn cell_mut(#resources: &mut #resources_ty) -> &mut #krate::state::State<Self> {
                    &mut #resources.#name
                }
            }
        };
    }
    quote! {
        #event

        #[automatically_derived]
        impl #krate::__private::NotAComponent<#schema> for #ty {
            type Because = #krate::__private::IsAResource;
        }

        #[automatically_derived]
        impl #krate::schema::Resource<#schema> for #ty {
            const BIT: u32 = #bit;

            #[inline]
            fn slot<'s, 'a>(
                #slots: &'s mut <#schema as #krate::schema::Layout>::ResourceSlots<'a>,
            ) -> &'s mut #krate::__private::Lent<'a, Self> {
                &mut #slots.#slot
            }

            #[inline]
            fn get(#resources: &#resources_ty) -> &Self {
                &#resources.#name
            }

            #[inline]
            fn get_mut(#resources: &mut #resources_ty) -> &mut Self {
                &mut #resources.#name
            }
        }
    }
}
