//! `#[derive(Bundle)]`: `schemecs::Bundle<S>` for a struct whose fields are
//! components, and (marked `#[bundle]`) other bundles, for every schema `S`
//! that has those components.
//!
//! For
//!
//! ```text
//! #[derive(Bundle)]
//! struct Ship { body: Body, #[bundle] motion: Motion }
//! ```
//!
//! it emits, in a `const _` block:
//!
//! ```text
//! impl<S: Schema> Bundle<S> for Ship
//! where
//!     Body: Component<S>,
//!     Motion: Bundle<S>,
//! {
//!     const BITS: u128 = (1 << <Body as Component<S>>::BIT) | <Motion as Bundle<S>>::BITS;
//!     const CHECK: () = { /* Motion's CHECK, then no bit twice */ };
//!     // place, take, stage, extend, relation_targets: field by field
//! }
//! ```
//!
//! The schema is a parameter, so the struct names none and a type missing
//! from the user's schema is reported where the bundle is used with it,
//! by `Component`'s own message. The input is read into [`Field`]s,
//! checked (every mistake is reported at once), then generated; a struct
//! that fails a check still gets an impl whose bounds always hold and whose
//! bodies never run, so that the user's uses of it add no second error.

use crate::errors::Errors;
use crate::fresh::{local, Taken};
use crate::generate::Krate;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// The attribute that marks a field as a nested bundle.
const NESTED: &str = "bundle";

/// One field of the bundle struct.
struct Field<'a> {
    /// `ship.body` or `ship.0`.
    member: syn::Member,
    ty: &'a syn::Type,
    /// `#[bundle]`: a bundle, not a component.
    nested: bool,
}

/// The impl, or the errors and a stand-in impl.
pub fn expand(input: &syn::DeriveInput, krate: &Krate) -> TokenStream {
    let mut errors = Errors::default();
    let fields = read_fields(input, &mut errors);
    check_lifetimes(input, &mut errors);
    match errors.finish() {
        None => bundle_impl(input, &fields, krate),
        Some(error) => {
            let mut output = error.into_compile_error();
            output.extend(stand_in(input, krate));
            output
        }
    }
}

/// The fields of a struct, named or not; an error for anything else, or a
/// struct without fields.
fn read_fields<'a>(input: &'a syn::DeriveInput, errors: &mut Errors) -> Vec<Field<'a>> {
    let name = &input.ident;
    let fields = match &input.data {
        syn::Data::Struct(data) => &data.fields,
        syn::Data::Enum(data) => {
            errors.at(data.enum_token, not_a_struct("enum", name));
            return Vec::new();
        }
        syn::Data::Union(data) => {
            errors.at(data.union_token, not_a_struct("union", name));
            return Vec::new();
        }
    };
    if fields.is_empty() {
        errors.at(
            name,
            format_args!(
                "bundle `{name}` has no fields, so it would hold no component: list its \
                 components as fields, e.g. `struct {name} {{ pos: Pos, vel: Vel }}`. A \
                 zero-sized component (a tag) needs no derive: make it a field of the schema; \
                 and an entity with no components is spawned from `()`"
            ),
        );
    }
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| Field {
            member: match &field.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(syn::Index {
                    index: index as u32,
                    span: field.ty.span(),
                }),
            },
            ty: &field.ty,
            nested: is_nested(field, errors),
        })
        .collect()
}

fn not_a_struct(kind: &str, name: &syn::Ident) -> String {
    format!(
        "`#[derive(Bundle)]` works on a struct, not on {kind} `{name}`: a bundle holds every \
         one of its components at once, so list them as the fields of a struct"
    )
}

/// Whether `field` is marked `#[bundle]`; an error for `#[bundle(..)]` or
/// `#[bundle = ..]`.
fn is_nested(field: &syn::Field, errors: &mut Errors) -> bool {
    let mut nested = false;
    for attr in &field.attrs {
        if attr.path().is_ident(NESTED) {
            match &attr.meta {
                syn::Meta::Path(_) => nested = true,
                meta => errors.at(
                    meta,
                    "`#[bundle]` takes no arguments: it marks a field whose type is itself a \
                     bundle (a tuple of components or a `#[derive(Bundle)]` struct)",
                ),
            }
        }
    }
    nested
}

/// A bundle is moved into a world, which keeps only `'static` values.
fn check_lifetimes(input: &syn::DeriveInput, errors: &mut Errors) {
    for lifetime in input.generics.lifetimes() {
        errors.at(
            lifetime,
            format_args!(
                "bundle `{}` cannot borrow: a world owns its components, so they are \
                 `'static`; remove the lifetime `{}`",
                input.ident, lifetime.lifetime
            ),
        );
    }
}

/// The generic parameters of the impl: the schema `S`, as the compiler's
/// notes then write `Bundle<S>` as the docs do, and the iterator `I` of
/// `extend`; each renamed if the struct's tokens name it already (a type
/// parameter, or a component type of that name).
fn generic_params(input: &syn::DeriveInput) -> (syn::Ident, syn::Ident) {
    let taken = Taken::of(input);
    (taken.generic("S"), taken.generic("I"))
}

/// `impl<S: Schema, ..> Bundle<S> for Ship<..> where <field bounds> { .. }`.
fn bundle_impl(input: &syn::DeriveInput, fields: &[Field], krate: &Krate) -> TokenStream {
    let (s, iter) = generic_params(input);
    let [target, source, columns, bundles, f, entity, seen, repeated] = [
        "target", "source", "columns", "bundles", "f", "entity", "seen", "repeated",
    ]
    .map(local);
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = split_generics(input, fields, krate, &s);
    let bundle = quote!(#krate::bundle::Bundle<#s>);
    let component = quote!(#krate::schema::Component<#s>);
    let u128 = quote!(::core::primitive::u128);

    // Per field: its bits, and its part of each method.
    let bits: Vec<TokenStream> = fields
        .iter()
        .map(|field| {
            let ty = field.ty;
            if field.nested {
                quote!(<#ty as #bundle>::BITS)
            } else {
                quote!((1 << <#ty as #component>::BIT))
            }
        })
        .collect();
    let nested_checks = fields.iter().filter(|field| field.nested).map(|field| {
        let ty = field.ty;
        quote!(let () = <#ty as #bundle>::CHECK;)
    });
    let places = fields.iter().map(|field| {
        let (ty, member) = (field.ty, &field.member);
        if field.nested {
            quote!(<#ty as #bundle>::place(self.#member, #target);)
        } else {
            quote!(#krate::__private::Placement::put::<#ty>(#target, self.#member);)
        }
    });
    let takes = fields.iter().map(|field| {
        let (ty, member) = (field.ty, &field.member);
        if field.nested {
            quote!(#member: <#ty as #bundle>::take(#source))
        } else {
            quote!(#member: #krate::__private::Placement::take::<#ty>(#source))
        }
    });
    let stages = fields.iter().map(|field| {
        let (ty, member) = (field.ty, &field.member);
        if field.nested {
            quote!(<#ty as #bundle>::stage(self.#member, #columns);)
        } else {
            quote!(#krate::__private::stage_component::<#s, #ty>(self.#member, #columns);)
        }
    });
    let relation_targets = fields.iter().map(|field| {
        let (ty, member) = (field.ty, &field.member);
        if field.nested {
            quote!(<#ty as #bundle>::relation_targets(&self.#member, #f);)
        } else {
            quote! {
                if <#s as #krate::schema::Layout>::RELATION_BITS & (1 << <#ty as #component>::BIT) != 0 {
                    if let ::core::option::Option::Some(#entity) =
                        <#ty as #component>::relation_target(&self.#member)
                    {
                        #f(<#ty as #component>::BIT, #entity);
                    }
                }
            }
        }
    });

    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #bundle for #name #ty_generics #where_clause {
                const BITS: #u128 = 0 #(| #bits)*;

                // A bit seen twice, here or in a nested bundle, is a
                // component named twice; each nested bundle is checked too.
                #[allow(unused_assignments)]
                const CHECK: () = {
                    #(#nested_checks)*
                    let mut #seen: #u128 = 0;
                    let mut #repeated: #u128 = 0;
                    #(
                        #repeated |= #seen & #bits;
                        #seen |= #bits;
                    )*
                    if #repeated != 0 {
                        ::core::panic!(
                            "{}",
                            <#s as #krate::schema::Layout>::BUNDLE_DUPLICATE_MESSAGES
                                [#repeated.trailing_zeros() as ::core::primitive::usize]
                        );
                    }
                };

                #[inline(always)]
                fn place(self, #target: &mut #krate::__private::Placement<'_, #s>) {
                    #(#places)*
                }

                #[inline(always)]
                fn take(#source: &mut #krate::__private::Placement<'_, #s>) -> Self {
                    Self { #(#takes,)* }
                }

                #[inline]
                fn stage(self, #columns: &mut [<#s as #krate::schema::Layout>::Column]) {
                    #(#stages)*
                }

                #[inline]
                fn extend<#iter: ::core::iter::Iterator<Item = Self>>(
                    #bundles: #iter,
                    #target: &mut #krate::__private::SpawnRows<'_, #s>,
                ) {
                    #krate::__private::extend_row_by_row::<#s, Self, #iter>(#bundles, #target)
                }

                #[inline(always)]
                fn relation_targets(
                    &self,
                    #f: &mut impl ::core::ops::FnMut(::core::primitive::u32, #krate::entity::Entity),
                ) {
                    #(#relation_targets)*
                }
            }
        };
    }
}

/// The impl's generics: the schema parameter, then the struct's own; and
/// its where clause: the struct's own, a `'static` bound per type
/// parameter, and per field `Component<S>` or `Bundle<S>`, at the
/// field's type so that a note about the bound points there.
fn split_generics(
    input: &syn::DeriveInput,
    fields: &[Field],
    krate: &Krate,
    s: &syn::Ident,
) -> (TokenStream, TokenStream, TokenStream) {
    let mut generics = input.generics.clone();
    generics
        .params
        .insert(0, syn::parse_quote!(#s: #krate::schema::Schema));
    let (impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let own = where_clause.map(|clause| &clause.predicates);
    let statics = input.generics.type_params().map(|param| {
        let ident = &param.ident;
        quote!(#ident: 'static)
    });
    let bounds = fields.iter().map(|field| {
        let ty = field.ty;
        let span = ty.span();
        let krate = krate.at(span);
        if field.nested {
            quote_spanned!(span=> #ty: #krate::bundle::Bundle<#s>)
        } else {
            quote_spanned!(span=> #ty: #krate::schema::Component<#s>)
        }
    });
    let where_clause = quote! {
        where #(#bounds,)* #(#statics,)* #own
    };
    (quote!(#impl_generics), quote!(#ty_generics), where_clause)
}

/// For a struct that failed a check: an impl with no bounds to fail, whose
/// bodies never run (the build fails on the errors beside it). None for a
/// struct with lifetimes, which no impl of a `'static` trait fits.
fn stand_in(input: &syn::DeriveInput, krate: &Krate) -> TokenStream {
    if input.generics.lifetimes().next().is_some() {
        return TokenStream::new();
    }
    let (s, iter) = generic_params(input);
    let name = &input.ident;
    let mut generics = input.generics.clone();
    generics
        .params
        .insert(0, syn::parse_quote!(#s: #krate::schema::Schema));
    for param in generics.type_params_mut().skip(1) {
        param.bounds.push(syn::parse_quote!('static));
    }
    let (impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            impl #impl_generics #krate::bundle::Bundle<#s> for #name #ty_generics #where_clause {
                const BITS: ::core::primitive::u128 = 0;
                const CHECK: () = ();

                fn place(self, _: &mut #krate::__private::Placement<'_, #s>) {
                    ::core::unreachable!()
                }

                fn take(_: &mut #krate::__private::Placement<'_, #s>) -> Self {
                    ::core::unreachable!()
                }

                fn stage(self, _: &mut [<#s as #krate::schema::Layout>::Column]) {
                    ::core::unreachable!()
                }

                fn extend<#iter: ::core::iter::Iterator<Item = Self>>(
                    _: #iter,
                    _: &mut #krate::__private::SpawnRows<'_, #s>,
                ) {
                    ::core::unreachable!()
                }
            }
        };
    }
}
