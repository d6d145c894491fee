//! Parsing and validation: `syn::DeriveInput` -> [`SchemaModel`].
//!
//! Every check that can be made on the tokens is made here, and all failures
//! are collected into one `syn::Error` so a user sees every mistake in one
//! build. The model keeps references to the user's syntax so the generator's
//! items can carry the user's spans.

use proc_macro2::Span;
use quote::ToTokens;

/// The widest archetype mask (`u128`) has this many bits.
pub const MAX_COMPONENTS: usize = 128;

/// A validated schema: the struct's name and visibility, its components in
/// field order (bit `i` is `components[i]`) and its resources.
pub struct SchemaModel<'a> {
    pub ident: &'a syn::Ident,
    pub vis: &'a syn::Visibility,
    pub components: Vec<FieldModel<'a>>,
    pub resources: Vec<FieldModel<'a>>,
}

/// One field of the schema struct.
pub struct FieldModel<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    /// The type as the user wrote it, for messages (`Vec<u8>`, not `Vec < u8 >`).
    pub type_name: String,
}

/// Collects errors so that all of them are reported together.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn at(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn not_a_struct(&mut self, keyword: impl ToTokens, kind: &str, name: &syn::Ident) {
        self.at(
            keyword,
            format_args!(
                "`#[derive(Schema)]` works on a struct, not on {kind} `{name}`: \
                 list each component as a field of a struct"
            ),
        );
    }

    fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}

enum Role {
    Component,
    Resource,
}

impl<'a> SchemaModel<'a> {
    pub fn from_syn(input: &'a syn::DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let name = &input.ident;

        let fields = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(named) => Some(&named.named),
                syn::Fields::Unnamed(_) => {
                    errors.at(
                        &input.ident,
                        format_args!(
                            "`#[derive(Schema)]` needs named fields: each field of `{name}` \
                             names a component, e.g. `struct {name} {{ pos: Pos }}`"
                        ),
                    );
                    None
                }
                syn::Fields::Unit => {
                    errors.at(
                        &input.ident,
                        format_args!(
                            "schema `{name}` has no components: list them as fields, \
                             e.g. `struct {name} {{ pos: Pos }}`"
                        ),
                    );
                    None
                }
            },
            syn::Data::Enum(data) => {
                errors.not_a_struct(data.enum_token, "enum", name);
                None
            }
            syn::Data::Union(data) => {
                errors.not_a_struct(data.union_token, "union", name);
                None
            }
        };

        if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
            errors.at(
                &input.generics,
                format_args!(
                    "schema `{name}` cannot be generic: a schema fixes its component \
                     types once, so write them out as concrete field types"
                ),
            );
        }

        for attr in &input.attrs {
            if attr.path().is_ident("ecs") {
                let result = attr.parse_nested_meta(|meta| {
                    Err(meta.error(format_args!(
                        "unknown `#[ecs(...)]` key `{}` on schema `{name}`: \
                         no struct-level keys are supported",
                        path_string(&meta.path)
                    )))
                });
                if let Err(error) = result {
                    errors.push(error);
                }
            }
        }

        let mut components = Vec::new();
        let mut resources = Vec::new();
        for field in fields.into_iter().flatten() {
            let Some(ident) = &field.ident else { continue };
            let role = match field_role(field, name) {
                Ok(role) => role,
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            };
            let model = FieldModel {
                ident,
                ty: &field.ty,
                type_name: type_name(&field.ty),
            };
            match role {
                Role::Component => components.push(model),
                Role::Resource => resources.push(model),
            }
        }

        if fields.is_some() && components.is_empty() && errors.0.is_none() {
            let message = if resources.is_empty() {
                format!(
                    "schema `{name}` has no components: list them as fields, \
                     e.g. `struct {name} {{ pos: Pos }}`"
                )
            } else {
                format!(
                    "schema `{name}` has only resources and no components: add at least \
                     one field without `#[ecs(resource)]`"
                )
            };
            errors.at(&input.ident, message);
        }

        // Each component becomes a mask flag named after its field in upper case.
        for (i, later) in components.iter().enumerate() {
            let flag = flag_name(later.ident);
            if let Some(earlier) = components[..i].iter().find(|f| flag_name(f.ident) == flag) {
                errors.at(
                    later.ident,
                    format_args!(
                        "fields `{}` and `{}` of schema `{name}` would both be the mask flag \
                         `{name}Mask::{flag}`; rename one of them",
                        earlier.ident, later.ident
                    ),
                );
            }
        }

        if components.len() > MAX_COMPONENTS {
            errors.at(
                components[MAX_COMPONENTS].ident,
                format_args!(
                    "schema `{name}` has {} components, more than the {MAX_COMPONENTS} \
                     that the widest archetype mask (u128) can hold; this is the first \
                     field past the limit",
                    components.len()
                ),
            );
        }

        if resources.len() > MAX_COMPONENTS {
            errors.at(
                resources[MAX_COMPONENTS].ident,
                format_args!(
                    "schema `{name}` has {} resources, more than the {MAX_COMPONENTS} that \
                     a system's resource access mask (u128) can hold; this is the first \
                     resource past the limit",
                    resources.len()
                ),
            );
        }

        // One type, one field: a type's bit (or resource slot) is found from the
        // type alone, so a second field of the same type would be ambiguous.
        let all: Vec<&FieldModel> = components.iter().chain(&resources).collect();
        for (i, later) in all.iter().enumerate() {
            let key = later.ty.to_token_stream().to_string();
            if let Some(earlier) = all[..i]
                .iter()
                .find(|f| f.ty.to_token_stream().to_string() == key)
            {
                errors.at(
                    later.ty,
                    format_args!(
                        "type `{}` appears in two fields of schema `{name}` (`{}` and `{}`): \
                         each component or resource type may appear once; wrap one of them \
                         in a newtype to tell them apart",
                        later.type_name, earlier.ident, later.ident
                    ),
                );
            }
        }

        errors.finish(SchemaModel {
            ident: &input.ident,
            vis: &input.vis,
            components,
            resources,
        })
    }

    /// The span the generated items are given: the schema's name.
    pub fn span(&self) -> Span {
        self.ident.span()
    }
}

fn field_role(field: &syn::Field, schema: &syn::Ident) -> syn::Result<Role> {
    let mut role = Role::Component;
    let mut errors = Errors::default();
    for attr in &field.attrs {
        if !attr.path().is_ident("ecs") {
            continue;
        }
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("resource") {
                role = Role::Resource;
                Ok(())
            } else {
                Err(meta.error(format_args!(
                    "unknown `#[ecs(...)]` key `{}` on a field of schema `{schema}`: \
                     the only field key is `resource`",
                    path_string(&meta.path)
                )))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    errors.finish(role)
}

fn path_string(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// Renders a type the way a person writes it: `Vec<u8>`, `&'static str`.
pub fn type_name(ty: &syn::Type) -> String {
    let raw = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last();
            let next = chars.peek().copied();
            let glue_prev = matches!(prev, Some('<' | ':' | '&' | '(' | '[' | '\''));
            let glue_next = matches!(next, Some('<' | '>' | ':' | ',' | ')' | ']' | ';'));
            if glue_prev || glue_next {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The mask flag of a component field: its name in upper case (`pos` -> `POS`).
pub fn flag_name(field: &syn::Ident) -> String {
    field.to_string().trim_start_matches("r#").to_uppercase()
}
