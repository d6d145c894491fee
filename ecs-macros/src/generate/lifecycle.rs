//! What a schema's relations, requirements and hooks generate: the
//! lifecycle bits and dispatch functions of `impl Schema` (the runtime's
//! `world_impl/lifecycle.rs` calls them), `impl RelationOf<Schema>` for each
//! relation type, and each relation component's `relation_target`.

use super::{bit_literal, Names};
use crate::fresh::local;
use crate::model::{FieldModel, SchemaModel};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The bit of the component field named `ident`.
fn bit_of(model: &SchemaModel, ident: &syn::Ident) -> usize {
    model
        .components()
        .position(|field| field.ident == ident)
        .expect("checked: the inverse is a component field")
}

/// The bits of the components each component requires, directly, by bit.
fn direct_requirements(model: &SchemaModel) -> Vec<Vec<usize>> {
    let components: Vec<&FieldModel> = model.components().collect();
    components
        .iter()
        .map(|field| {
            field
                .lifecycle
                .requires
                .iter()
                .map(|requirement| {
                    components
                        .iter()
                        .position(|other| other.type_name == requirement.type_name)
                        .expect("checked: a requirement is a component")
                })
                .collect()
        })
        .collect()
}

/// The bits each component requires, transitively (checked: no cycles).
fn closed_requirements(model: &SchemaModel) -> Vec<u128> {
    let direct = direct_requirements(model);
    let mut closed = vec![0u128; direct.len()];
    for (start, slot) in closed.iter_mut().enumerate() {
        let mut stack = direct[start].clone();
        while let Some(at) = stack.pop() {
            if *slot & (1 << at) == 0 {
                *slot |= 1 << at;
                stack.extend(&direct[at]);
            }
        }
    }
    closed
}

fn bits_literal(bits: u128) -> TokenStream {
    let literal = proc_macro2::Literal::u128_suffixed(bits);
    quote!(#literal)
}

fn bits_where(model: &SchemaModel, keep: impl Fn(&FieldModel) -> bool) -> TokenStream {
    let bits = model
        .components()
        .enumerate()
        .filter(|(_, field)| keep(field))
        .fold(0u128, |bits, (bit, _)| bits | 1 << bit);
    bits_literal(bits)
}

/// The lifecycle items of `impl Layout` (the bit sets, requirements) and of
/// `impl Schema` (relations, hooks); nothing for a schema without any, which
/// keeps the traits' defaults (all zero, nothing to do).
pub(super) fn schema_items(model: &SchemaModel, names: &Names) -> (TokenStream, TokenStream) {
    let any = model.components().any(|field| {
        let lifecycle = &field.lifecycle;
        lifecycle.relation.is_some()
            || !lifecycle.requires.is_empty()
            || !lifecycle.on_add.is_empty()
            || !lifecycle.on_insert.is_empty()
            || !lifecycle.on_remove.is_empty()
    });
    if !any {
        return (quote!(), quote!());
    }
    let krate = names.krate;
    let schema = names.schema;
    let visitor_param = &names.params.visitor;
    let [bit, visitor, bits, required, staged, kind_arg, world, entity, hook_local] = [
        "bit", "visitor", "bits", "required", "staged", "kind", "world", "entity", "hook",
    ]
    .map(local);
    let (world, entity, hook_local) = (&world, &entity, &hook_local);
    let relation_bits = bits_where(model, |field| field.lifecycle.relation.is_some());
    let inverse_idents: Vec<&syn::Ident> = model
        .components()
        .filter_map(|field| field.lifecycle.relation.as_ref()?.inverse.as_ref())
        .collect();
    let inverse_bits = bits_where(model, |field| inverse_idents.contains(&field.ident));
    let requiring_bits = bits_where(model, |field| !field.lifecycle.requires.is_empty());
    let on_add_bits = bits_where(model, |field| !field.lifecycle.on_add.is_empty());
    let on_insert_bits = bits_where(model, |field| !field.lifecycle.on_insert.is_empty());
    let on_remove_bits = bits_where(model, |field| !field.lifecycle.on_remove.is_empty());

    let visit_arms = model.components().enumerate().filter_map(|(bit, field)| {
        let relation = field.lifecycle.relation.as_ref()?;
        let inverse = bit_literal(bit_of(model, relation.inverse.as_ref()?));
        let (ty, bit_number) = (field.ty, bit_literal(bit));
        let krate = krate.at(ty.span());
        Some(quote_spanned! {ty.span()=>
            #bit_number | #inverse => <#ty as #krate::__private::RelationField<#schema>>::visit(#visitor),
        })
    });

    let closed = closed_requirements(model);
    let required_arms = closed
        .iter()
        .enumerate()
        .filter(|(_, bits)| **bits != 0)
        .map(|(bit, closed)| {
            let (flag, closed) = (bits_literal(1 << bit), bits_literal(*closed));
            quote! { if #bits & #flag != 0 { #required |= #closed; } }
        });

    // Each required component's maker: the first requirement (in field
    // order) that names a function, else its `Default`.
    let components: Vec<&FieldModel> = model.components().collect();
    let all_required = closed.iter().fold(0u128, |all, bits| all | bits);
    let stage_arms = (0..components.len())
        .filter(|number| all_required & (1 << number) != 0)
        .map(|number| {
            let target = components[number];
            let requirements = components
                .iter()
                .flat_map(|field| &field.lifecycle.requires);
            let mut named =
                requirements.filter(|requirement| requirement.type_name == target.type_name);
            let first = named.clone().next().expect("required by some field");
            let ty = target.ty;
            // Spanned at the requirement, where a missing `Default` is reported.
            let make = match named.find_map(|requirement| requirement.make.as_ref()) {
                Some(make) => quote_spanned! {make.span()=> #make()},
                None => {
                    let written = &first.ty;
                    let span = written.span();
                    let krate = krate.at(span);
                    quote_spanned! {span=>
                        <#written as #krate::__private::RequiredDefault<#schema>>::required()
                    }
                }
            };
            let flag = bits_literal(1 << number);
            quote! { if #bits & #flag != 0 { #staged.push::<#ty>(#make); } }
        });

    let hook_arms = model.components().enumerate().flat_map(|(number, field)| {
        let number = bit_literal(number);
        let lifecycle = &field.lifecycle;
        let kinds = [
            (quote!(Add), &lifecycle.on_add),
            (quote!(Insert), &lifecycle.on_insert),
            (quote!(Remove), &lifecycle.on_remove),
        ];
        kinds
            .into_iter()
            .flat_map(|(kind, hooks)| hooks.iter().map(move |hook| (kind.clone(), hook)))
            .map(move |(kind, hook)| {
                // A function pointer of the one signature a hook has: a
                // mismatch is reported at the hook's name, with both
                // signatures.
                let span = hook.span();
                let krate = krate.at(span);
                let call = quote_spanned! {span=> {
                    let #hook_local: fn(&mut #krate::world::DeferredWorld<'_, #schema>, #krate::entity::Entity) = #hook;
                    #hook_local(#world, #entity)
                }};
                quote! { (#krate::__private::HookKind::#kind, #number) => #call, }
            })
            .collect::<Vec<_>>()
    });

    let layout_items = quote! {
        const RELATION_BITS: u128 = #relation_bits;
        const INVERSE_BITS: u128 = #inverse_bits;
        const REQUIRING_BITS: u128 = #requiring_bits;
        const ON_ADD_BITS: u128 = #on_add_bits;
        const ON_INSERT_BITS: u128 = #on_insert_bits;
        const ON_REMOVE_BITS: u128 = #on_remove_bits;

        #[inline]
        #[allow(unused_mut)]
        fn required_by(#bits: u128) -> u128 {
            let mut #required = 0u128;
            #(#required_arms)*
            #required
        }

        #[allow(unused_variables)]
        fn stage_required(#bits: u128, #staged: &mut #krate::__private::Staged<Self>) {
            #(#stage_arms)*
        }
    };
    let schema_items = quote! {
        #[inline]
        #[allow(unused_variables)]
        fn visit_relation<#visitor_param: #krate::__private::RelationVisitor<Self>>(
            #bit: u32,
            #visitor: &mut #visitor_param,
        ) {
            match #bit {
                #(#visit_arms)*
                _ => {}
            }
        }

        #[allow(unused_variables)]
        fn run_hook(
            #kind_arg: #krate::__private::HookKind,
            #bit: u32,
            #world: &mut #krate::world::DeferredWorld<'_, Self>,
            #entity: #krate::entity::Entity,
        ) {
            match (#kind_arg, #bit) {
                #(#hook_arms)*
                _ => {}
            }
        }
    };
    (layout_items, schema_items)
}

/// `impl RelationOf<Schema> for ChildOf`, for each relation field.
pub(super) fn relation_impls(model: &SchemaModel, names: &Names) -> TokenStream {
    let krate = names.krate;
    let schema = names.schema;
    let impls = model.components().filter_map(|field| {
        let relation = field.lifecycle.relation.as_ref()?;
        let inverse = relation.inverse.as_ref()?;
        let inverse_ty = model.components().find(|other| other.ident == inverse)?.ty;
        let rule = match &relation.on_target_despawn {
            Some(rule) if rule == "despawn" => quote!(Despawn),
            _ => quote!(Remove),
        };
        let ty = field.ty;
        let span = ty.span();
        let krate_at = krate.at(span);
        // Bounded by `for<'a>` so that a type that is no relation makes this
        // impl not apply rather than fail here: its uses, through
        // `RelationField`, say what is wrong, naming the schema.
        Some(quote_spanned! {span=>
            #[automatically_derived]
            impl #krate_at::relation::RelationOf<#schema> for #ty
            where
                for<'a> #ty: #krate_at::relation::Relation,
            {
                type Inverse = #inverse_ty;
                const ON_TARGET_DESPAWN: #krate_at::relation::OnTargetDespawn =
                    #krate_at::relation::OnTargetDespawn::#rule;
            }
        })
    });
    quote!(#(#impls)*)
}

/// The body of `Component::relation_target` for a relation field's type.
pub(super) fn relation_target(field: &FieldModel, names: &Names) -> TokenStream {
    if field.lifecycle.relation.is_none() {
        return quote!();
    }
    let (ty, schema) = (field.ty, names.schema);
    let krate = names.krate.at(ty.span());
    quote_spanned! {ty.span()=>
        #[inline(always)]
        fn relation_target(&self) -> ::core::option::Option<#krate::entity::Entity> {
            ::core::option::Option::Some(
                <#ty as #krate::__private::RelationField<#schema>>::relation_target(self),
            )
        }
    }
}
