//! `#[derive(Soa)]`: a component stored field by field. For `struct Pos {
//! x: f32, y: f32 }` it writes the arrays (`PosColumns`, hidden), the four
//! views (`PosRef`, `PosMut`, `PosSlices`, `PosSlicesMut`, each with the
//! component's fields and their visibility) and `impl Soa for Pos`, every
//! operation one line per field. Each field's type must be `Copy` (values
//! are read out of the arrays by copying each field), which the impl asks
//! of it through `SoaField`, named in the message; and the struct must not
//! implement `Drop` (a whole value exists only while it is read or
//! written), which a constant checks.

use crate::fresh::local;
use crate::generate::Krate;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// The items, or the error for anything but a non-generic struct with named
/// fields.
pub fn expand(input: &syn::DeriveInput, krate: &Krate) -> syn::Result<TokenStream> {
    let ident = &input.ident;
    let fields = match &input.data {
        syn::Data::Struct(data) => match &data.fields {
            syn::Fields::Named(named) if !named.named.is_empty() => &named.named,
            syn::Fields::Named(_) | syn::Fields::Unit => {
                return Err(syn::Error::new(
                    ident.span(),
                    format_args!(
                        "`#[derive(Soa)]` stores each field of `{ident}` in an array of its own, \
                         but `{ident}` has no fields: as a component it is a tag (a bit, no \
                         values); remove `#[derive(Soa)]`, and `#[ecs(soa)]` from its field in \
                         the schema"
                    ),
                ))
            }
            syn::Fields::Unnamed(fields) => {
                return Err(syn::Error::new(
                    fields.span(),
                    format_args!(
                        "`#[derive(Soa)]` needs named fields, and `{ident}` is a tuple struct: \
                         name its fields (`struct {ident} {{ x: f32, y: f32 }}`), which become \
                         the arrays `{ident}` is stored in and the fields of `{ident}Ref`, \
                         `{ident}Mut` and `{ident}Slices`"
                    ),
                ))
            }
        },
        syn::Data::Enum(data) => {
            return Err(syn::Error::new(
                data.enum_token.span,
                format_args!(
                    "`#[derive(Soa)]` applies to structs with named fields, and `{ident}` is an \
                     enum: its variants have different fields, which no set of arrays can hold \
                     row by row; store it whole (remove `#[derive(Soa)]`, and `#[ecs(soa)]` \
                     from its field in the schema)"
                ),
            ))
        }
        syn::Data::Union(data) => {
            return Err(syn::Error::new(
                data.union_token.span,
                format_args!(
                    "`#[derive(Soa)]` applies to structs with named fields, and `{ident}` is a \
                     union: which field holds the value is not known; store it whole (remove \
                     `#[derive(Soa)]`)"
                ),
            ))
        }
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            format_args!(
                "`#[derive(Soa)]` does not support generic structs yet: `{ident}` has generic \
                 parameters; make a non-generic struct for the component (a type alias of a \
                 generic one cannot derive either)"
            ),
        ));
    }

    let vis = &input.vis;
    let names: Vec<&Ident> = fields
        .iter()
        .map(|field| field.ident.as_ref().expect("named fields have names"))
        .collect();
    let types: Vec<&syn::Type> = fields.iter().map(|field| &field.ty).collect();
    let field_vis: Vec<&syn::Visibility> = fields.iter().map(|field| &field.vis).collect();
    let first = names[0];
    let columns = format_ident!("{}Columns", ident);
    let reference = format_ident!("{}Ref", ident);
    let mutable = format_ident!("{}Mut", ident);
    let slices = format_ident!("{}Slices", ident);
    let slices_mut = format_ident!("{}SlicesMut", ident);
    // The impl never binds a field's name: a field named `row` or `mid`
    // would shadow the parameter of that name. Each field's value is bound
    // to `__ecs_field_N` (its halves to `__ecs_head_N`, `__ecs_tail_N`),
    // and the parameters are `__ecs_columns`, `__ecs_row`, ... (`fresh::local`).
    let bindings: Vec<Ident> = (0..names.len())
        .map(|index| local(&format!("field_{index}")))
        .collect();
    let head: Vec<Ident> = (0..names.len())
        .map(|index| local(&format!("head_{index}")))
        .collect();
    let tail: Vec<Ident> = (0..names.len())
        .map(|index| local(&format!("tail_{index}")))
        .collect();
    let [columns_arg, value, row, slices_arg, mid, additional, other, target, source] = [
        "columns",
        "value",
        "row",
        "slices",
        "mid",
        "additional",
        "other",
        "target",
        "source",
    ]
    .map(local);
    let usize = quote!(::core::primitive::usize);
    let bool = quote!(::core::primitive::bool);
    let copy_checks = types.iter().map(|ty| {
        let krate = krate.at(ty.span());
        quote_spanned! {ty.span()=>
            const _: () = {
                fn check<__T: #krate::__private::SoaField<#ident>>() {}
                let _ = check::<#ty>;
            };
        }
    });

    let doc_columns = format!("The arrays of [`{ident}`], one per field (`#[derive(Soa)]`).");
    let doc_ref = format!(
        "One entity's [`{ident}`], field by field: a reference to each field in its array \
         (`#[derive(Soa)]`). What a `Fields<&{ident}>` query item and `World::get_soa` give."
    );
    let doc_mut = format!(
        "One entity's [`{ident}`], field by field, to write: an exclusive reference to each \
         field in its array (`#[derive(Soa)]`). What a `Fields<&mut {ident}>` query item and \
         `World::get_soa_mut` give."
    );
    let doc_slices = format!(
        "Rows of [`{ident}`], field by field: one slice per field, all of one length \
         (`#[derive(Soa)]`). What the table form of a `Fields<&{ident}>` query gives."
    );
    let doc_slices_mut = format!(
        "Rows of [`{ident}`], field by field, to write: one exclusive slice per field, all of \
         one length (`#[derive(Soa)]`). What the table form of a `Fields<&mut {ident}>` query \
         gives."
    );

    // A whole value exists only while it is read or written (its fields
    // live in the arrays), so a `Drop` of its own would run each time.
    let drop_message = format!(
        "`{ident}` implements `Drop`, so it cannot derive `Soa`: an SoA component is kept field \
         by field, and a whole `{ident}` exists only while it is read or written, so its `drop` \
         would run each time; move what the `Drop` does out of the component, or store `{ident}` \
         whole (remove `#[derive(Soa)]` and its field's `#[ecs(soa)]`)"
    );
    // A field with drop glue is not `Copy`, which the field's own check
    // reports: then this one says nothing.
    let drop_check = quote_spanned! {ident.span()=>
        const _: () = ::core::assert!(
            !::core::mem::needs_drop::<#ident>()
                #(|| ::core::mem::needs_drop::<#types>())*,
            #drop_message
        );
    };

    Ok(quote! {
        #(#copy_checks)*
        #drop_check

        #[doc = #doc_columns]
        #[doc(hidden)]
        #[derive(::core::default::Default)]
        #vis struct #columns {
            #(#names: ::std::vec::Vec<#types>,)*
        }

        #[doc = #doc_ref]
        #[derive(::core::clone::Clone, ::core::marker::Copy)]
        #[allow(dead_code)]
        #vis struct #reference<'a> {
            #(#field_vis #names: &'a #types,)*
        }

        #[allow(dead_code)]
        impl #reference<'_> {
            /// The value, copied out of its arrays.
            #[inline]
            #vis fn get(&self) -> #ident {
                #ident { #(#names: ::core::clone::Clone::clone(&*self.#names),)* }
            }
        }

        #[doc = #doc_mut]
        #[allow(dead_code)]
        #vis struct #mutable<'a> {
            #(#field_vis #names: &'a mut #types,)*
        }

        #[allow(dead_code)]
        impl #mutable<'_> {
            /// The value, copied out of its arrays.
            #[inline]
            #vis fn get(&self) -> #ident {
                #ident { #(#names: ::core::clone::Clone::clone(&*self.#names),)* }
            }

            /// Writes `value` into the arrays, field by field.
            #[inline]
            #vis fn set(&mut self, #value: #ident) {
                let #ident { #(#names: #bindings,)* } = #value;
                #(*self.#names = #bindings;)*
            }

            /// A shorter-lived view of the same fields.
            #[inline]
            #vis fn reborrow(&mut self) -> #mutable<'_> {
                #mutable { #(#names: &mut *self.#names,)* }
            }
        }

        #[doc = #doc_slices]
        #[derive(::core::clone::Clone, ::core::marker::Copy)]
        #[allow(dead_code)]
        #vis struct #slices<'a> {
            #(#field_vis #names: &'a [#types],)*
        }

        impl ::core::default::Default for #slices<'_> {
            #[inline]
            fn default() -> Self {
                #slices { #(#names: &[],)* }
            }
        }

        #[allow(dead_code)]
        impl #slices<'_> {
            /// Number of rows.
            #[inline]
            #vis fn len(&self) -> #usize {
                self.#first.len()
            }

            /// Whether there are no rows.
            #[inline]
            #vis fn is_empty(&self) -> #bool {
                self.#first.is_empty()
            }
        }

        #[doc = #doc_slices_mut]
        #[allow(dead_code)]
        #vis struct #slices_mut<'a> {
            #(#field_vis #names: &'a mut [#types],)*
        }

        impl ::core::default::Default for #slices_mut<'_> {
            #[inline]
            fn default() -> Self {
                #slices_mut { #(#names: &mut [],)* }
            }
        }

        #[allow(dead_code)]
        impl #slices_mut<'_> {
            /// Number of rows.
            #[inline]
            #vis fn len(&self) -> #usize {
                self.#first.len()
            }

            /// Whether there are no rows.
            #[inline]
            #vis fn is_empty(&self) -> #bool {
                self.#first.is_empty()
            }

            /// A shorter-lived view of the same rows.
            #[inline]
            #vis fn reborrow(&mut self) -> #slices_mut<'_> {
                #slices_mut { #(#names: &mut *self.#names,)* }
            }
        }

        #[automatically_derived]
        impl #krate::soa::Soa for #ident {
            type Columns = #columns;
            type Ref<'a> = #reference<'a>;
            type Mut<'a> = #mutable<'a>;
            type Slices<'a> = #slices<'a>;
            type SlicesMut<'a> = #slices_mut<'a>;

            #[inline(always)]
            fn len(#columns_arg: &#columns) -> #usize {
                #columns_arg.#first.len()
            }

            #[inline(always)]
            fn push(#columns_arg: &mut #columns, #value: Self) {
                let #ident { #(#names: #bindings,)* } = #value;
                #(#columns_arg.#names.push(#bindings);)*
            }

            #[inline(always)]
            fn read(#columns_arg: &#columns, #row: #usize) -> Self {
                #ident { #(#names: ::core::clone::Clone::clone(&#columns_arg.#names[#row]),)* }
            }

            #[inline(always)]
            fn replace(#columns_arg: &mut #columns, #row: #usize, #value: Self) -> Self {
                let #ident { #(#names: #bindings,)* } = #value;
                #ident {
                    #(#names: ::core::mem::replace(&mut #columns_arg.#names[#row], #bindings),)*
                }
            }

            #[inline(always)]
            fn swap_remove(#columns_arg: &mut #columns, #row: #usize) -> Self {
                #ident { #(#names: #columns_arg.#names.swap_remove(#row),)* }
            }

            #[inline(always)]
            fn pop(#columns_arg: &mut #columns) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(#ident { #(#names: #columns_arg.#names.pop()?,)* })
            }

            #[inline]
            fn reserve(#columns_arg: &mut #columns, #additional: #usize) {
                #(#columns_arg.#names.reserve(#additional);)*
            }

            #[inline]
            fn clear(#columns_arg: &mut #columns) {
                #(#columns_arg.#names.clear();)*
            }

            #[inline]
            fn append(#columns_arg: &mut #columns, #other: &mut #columns) {
                #(#columns_arg.#names.append(&mut #other.#names);)*
            }

            #[inline]
            fn reverse(#columns_arg: &mut #columns) {
                #(#columns_arg.#names.reverse();)*
            }

            #[inline]
            fn clone_columns(#columns_arg: &#columns) -> #columns {
                #columns { #(#names: ::core::clone::Clone::clone(&#columns_arg.#names),)* }
            }

            #[inline]
            fn clone_columns_from(#target: &mut #columns, #source: &#columns) {
                #(::core::clone::Clone::clone_from(&mut #target.#names, &#source.#names);)*
            }

            #[inline(always)]
            fn slices(#columns_arg: &#columns) -> #slices<'_> {
                #slices { #(#names: &#columns_arg.#names,)* }
            }

            #[inline(always)]
            fn slices_mut(#columns_arg: &mut #columns) -> #slices_mut<'_> {
                #slices_mut { #(#names: &mut #columns_arg.#names,)* }
            }

            #[inline(always)]
            fn slices_len(#slices_arg: &#slices<'_>) -> #usize {
                #slices_arg.#first.len()
            }

            #[inline(always)]
            fn slices_mut_len(#slices_arg: &#slices_mut<'_>) -> #usize {
                #slices_arg.#first.len()
            }

            #[inline(always)]
            fn row<'a>(#slices_arg: #slices<'a>, #row: #usize) -> #reference<'a>
            where
                Self: 'a,
            {
                #reference { #(#names: &#slices_arg.#names[#row],)* }
            }

            #[inline(always)]
            fn row_mut<'a>(#slices_arg: #slices_mut<'a>, #row: #usize) -> #mutable<'a>
            where
                Self: 'a,
            {
                let #slices_mut { #(#names: #bindings,)* } = #slices_arg;
                #mutable { #(#names: &mut #bindings[#row],)* }
            }

            #[inline(always)]
            fn split_at<'a>(#slices_arg: #slices<'a>, #mid: #usize) -> (#slices<'a>, #slices<'a>)
            where
                Self: 'a,
            {
                #(let (#head, #tail) = #slices_arg.#names.split_at(#mid);)*
                (#slices { #(#names: #head,)* }, #slices { #(#names: #tail,)* })
            }

            #[inline(always)]
            fn split_at_mut<'a>(
                #slices_arg: #slices_mut<'a>,
                #mid: #usize,
            ) -> (#slices_mut<'a>, #slices_mut<'a>)
            where
                Self: 'a,
            {
                let #slices_mut { #(#names: #bindings,)* } = #slices_arg;
                #(let (#head, #tail) = #bindings.split_at_mut(#mid);)*
                (#slices_mut { #(#names: #head,)* }, #slices_mut { #(#names: #tail,)* })
            }

            #[inline(always)]
            fn shorten<'a>(#slices_arg: &'a #slices<'_>) -> #slices<'a> {
                *#slices_arg
            }

            #[inline(always)]
            fn reborrow<'a>(#slices_arg: &'a mut #slices_mut<'_>) -> #slices_mut<'a> {
                #slices_mut { #(#names: &mut *#slices_arg.#names,)* }
            }
        }
    })
}
