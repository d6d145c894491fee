//! The model: `syn::DeriveInput` -> [`SchemaModel`], the schema as the user
//! wrote it, before any check.
//!
//! Building the model rejects only what cannot be read at all (an `#[ecs(...)]`
//! attribute that is not a list of keys); everything else, even an enum or an
//! unknown key, is recorded as written for `check` to judge. The model borrows
//! the user's syntax, so every error and generated item can carry the user's
//! spans.

use crate::errors::Errors;
use proc_macro2::Span;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};

/// The schema struct as written: its name, visibility and generics, its
/// shape, its struct-level `#[ecs(...)]` keys and its named fields.
#[derive(Clone)]
pub struct SchemaModel<'a> {
    pub ident: &'a syn::Ident,
    pub vis: &'a syn::Visibility,
    pub generics: &'a syn::Generics,
    pub shape: Shape,
    /// The keys of `#[ecs(...)]` attributes on the struct itself.
    pub keys: Vec<syn::Path>,
    /// The named fields in order; empty unless `shape` is [`Shape::Named`].
    pub fields: Vec<FieldModel<'a>>,
}

/// What the input is. Only a struct with named fields can be a schema.
#[derive(Clone)]
pub enum Shape {
    Named,
    Tuple,
    Unit,
    Enum(syn::token::Enum),
    Union(syn::token::Union),
}

/// One named field of the schema struct.
#[derive(Clone)]
pub struct FieldModel<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    /// The type as the user wrote it, for messages (`Vec<u8>`, not `Vec < u8 >`).
    pub type_name: String,
    /// The keys of the field's `#[ecs(...)]` attributes.
    pub keys: Vec<syn::Path>,
    pub role: Role,
    /// `#[ecs(track)]`: a component whose additions and changes are recorded
    /// per entity (change detection).
    pub tracked: bool,
    /// `#[ecs(sparse)]`: a component kept in a sparse set keyed by entity
    /// index rather than in a table column.
    pub sparse: bool,
    /// `#[ecs(soa)]`: a component whose table column keeps each field in an
    /// array of its own (the type derives `Soa`).
    pub soa: bool,
    /// What the valued keys say: relation, requirements, hooks.
    pub lifecycle: Lifecycle,
}

/// The valued keys of a field: `relation(..)`, `requires(..)`, `on_add = ..`,
/// `on_insert = ..`, `on_remove = ..`.
#[derive(Clone, Default)]
pub struct Lifecycle {
    pub relation: Option<RelationModel>,
    /// Each `requires(..)` key's requirements, in order.
    pub requires: Vec<Requirement>,
    pub on_add: Vec<syn::Path>,
    pub on_insert: Vec<syn::Path>,
    pub on_remove: Vec<syn::Path>,
}

/// `relation(inverse = children, on_target_despawn = despawn)`.
#[derive(Clone)]
pub struct RelationModel {
    /// The `relation` key, for errors about the key as a whole.
    pub key: syn::Path,
    pub inverse: Option<syn::Ident>,
    pub on_target_despawn: Option<syn::Ident>,
    /// Keys inside `relation(..)` other than those two.
    pub unknown: Vec<syn::Path>,
}

/// One requirement in `requires(..)`: a type, and optionally the function
/// that makes its value (`Velocity = Velocity::still`).
#[derive(Clone)]
pub struct Requirement {
    pub ty: syn::Type,
    /// The type as written, to find it among the schema's fields.
    pub type_name: String,
    pub make: Option<syn::Path>,
}

impl syn::parse::Parse for Requirement {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let ty: syn::Type = input.parse()?;
        let make = if input.peek(syn::Token![=]) {
            input.parse::<syn::Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Requirement {
            type_name: type_name(&ty),
            ty,
            make,
        })
    }
}

/// What a field declares, read from its keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No key: a component, with a bit in the mask and (unless zero-sized) a column.
    Component,
    /// `#[ecs(resource)]`: a world-global singleton.
    Resource,
    /// `#[ecs(event)]`: an event type, whose queue (`Events<T>`) the world
    /// keeps beside its resources.
    Event,
    /// `#[ecs(state)]`: a state (an enum of phases), kept as the resource
    /// `State<T>`: the current value and a requested transition.
    State,
    /// A key the derive does not know, so what the user meant is unknown.
    Unknown,
}

/// The keys a field may carry.
/// The struct-level key that names the runtime crate, `#[ecs(crate = path)]`
/// (read by `generate::Krate`).
pub const CRATE_KEY: &str = "crate";
/// The struct-level key `#[ecs(debug)]`: diffs of the schema's worlds print
/// component values, so every component must be `Debug`.
pub const DEBUG_KEY: &str = "debug";
pub const RESOURCE_KEY: &str = "resource";
pub const EVENT_KEY: &str = "event";
pub const STATE_KEY: &str = "state";
pub const TRACK_KEY: &str = "track";
pub const SPARSE_KEY: &str = "sparse";
pub const SOA_KEY: &str = "soa";
pub const RELATION_KEY: &str = "relation";
pub const REQUIRES_KEY: &str = "requires";
pub const ON_ADD_KEY: &str = "on_add";
pub const ON_INSERT_KEY: &str = "on_insert";
pub const ON_REMOVE_KEY: &str = "on_remove";
const FIELD_KEYS: [&str; 11] = [
    RESOURCE_KEY,
    EVENT_KEY,
    STATE_KEY,
    TRACK_KEY,
    SPARSE_KEY,
    SOA_KEY,
    RELATION_KEY,
    REQUIRES_KEY,
    ON_ADD_KEY,
    ON_INSERT_KEY,
    ON_REMOVE_KEY,
];

impl<'a> SchemaModel<'a> {
    pub fn from_syn(input: &'a syn::DeriveInput, errors: &mut Errors) -> Self {
        let (shape, fields) = match &input.data {
            syn::Data::Struct(data) => match &data.fields {
                syn::Fields::Named(named) => (Shape::Named, Some(&named.named)),
                syn::Fields::Unnamed(_) => (Shape::Tuple, None),
                syn::Fields::Unit => (Shape::Unit, None),
            },
            syn::Data::Enum(data) => (Shape::Enum(data.enum_token), None),
            syn::Data::Union(data) => (Shape::Union(data.union_token), None),
        };
        let fields = fields.into_iter().flatten();
        SchemaModel {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            shape,
            keys: ecs_keys(
                &input.attrs,
                |key| key.is_ident(CRATE_KEY) || key.is_ident(DEBUG_KEY),
                &mut Lifecycle::default(),
                errors,
            ),
            fields: fields
                .map(|field| FieldModel::from_syn(field, errors))
                .collect(),
        }
    }

    /// Whether the struct carries `#[ecs(debug)]`.
    pub fn debug(&self) -> bool {
        self.keys.iter().any(|key| key.is_ident(DEBUG_KEY))
    }

    /// The span the generated items are given: the schema's name.
    pub fn span(&self) -> Span {
        self.ident.span()
    }

    /// The component fields in bit order: bit `i` is the `i`-th of them.
    pub fn components(&self) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields_in(Role::Component)
    }

    /// The fields the world keeps one value of, in the order of their
    /// resource bits: the resources, then the events (each stored as its
    /// queue, `Events<T>`), then the states (each stored as `State<T>`).
    pub fn resources(&self) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields_in(Role::Resource)
            .chain(self.fields_in(Role::Event))
            .chain(self.fields_in(Role::State))
    }

    /// The `#[ecs(resource)]` fields alone.
    pub fn plain_resources(&self) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields_in(Role::Resource)
    }

    /// The `#[ecs(event)]` fields.
    pub fn events(&self) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields_in(Role::Event)
    }

    /// The `#[ecs(state)]` fields.
    pub fn states(&self) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields_in(Role::State)
    }

    fn fields_in(&self, role: Role) -> impl Iterator<Item = &FieldModel<'a>> + Clone {
        self.fields.iter().filter(move |field| field.role == role)
    }
}

impl<'a> FieldModel<'a> {
    fn from_syn(field: &'a syn::Field, errors: &mut Errors) -> Self {
        let mut lifecycle = Lifecycle::default();
        let keys = ecs_keys(&field.attrs, is_field_key, &mut lifecycle, errors);
        let has = |name: &str| keys.iter().any(|key| key.is_ident(name));
        // A combination that makes no sense (`resource` with `event`) is
        // reported by `check`; the role is the first that applies.
        let role = if keys.iter().any(|key| !is_field_key(key)) {
            Role::Unknown
        } else if has(EVENT_KEY) {
            Role::Event
        } else if has(STATE_KEY) {
            Role::State
        } else if has(RESOURCE_KEY) {
            Role::Resource
        } else {
            Role::Component
        };
        FieldModel {
            ident: field.ident.as_ref().expect("a named field has a name"),
            ty: &field.ty,
            type_name: type_name(&field.ty),
            tracked: role == Role::Component && has(TRACK_KEY),
            sparse: role == Role::Component && has(SPARSE_KEY),
            soa: role == Role::Component && has(SOA_KEY),
            lifecycle,
            keys,
            role,
        }
    }

    /// Whether the field's type is written as one whose size is not known at
    /// compile time (`dyn Shape`, `[u8]`, `str`). A type whose name hides
    /// that (an alias) is not seen through.
    pub fn is_unsized(&self) -> bool {
        fn unsized_type(ty: &syn::Type) -> bool {
            match ty {
                syn::Type::TraitObject(_) | syn::Type::Slice(_) => true,
                syn::Type::Paren(inner) => unsized_type(&inner.elem),
                syn::Type::Group(inner) => unsized_type(&inner.elem),
                syn::Type::Path(path) => path.qself.is_none() && path.path.is_ident("str"),
                _ => false,
            }
        }
        unsized_type(self.ty)
    }

    /// The mask flag of a component field: its name in upper case (`pos` -> `POS`).
    pub fn flag_name(&self) -> String {
        self.ident
            .to_string()
            .trim_start_matches("r#")
            .to_uppercase()
    }
}

/// Whether `key` may appear in a field's `#[ecs(...)]`.
pub fn is_field_key(key: &syn::Path) -> bool {
    FIELD_KEYS.iter().any(|known| key.is_ident(known))
}

/// The keys of every `#[ecs(...)]` attribute among `attrs`, in order. The
/// valued keys (`relation(..)`, `requires(..)`, the hooks) put their values in
/// `lifecycle`; whatever follows an unknown key is skipped, so that `check`
/// reports the key alone rather than a syntax error after it.
fn ecs_keys(
    attrs: &[syn::Attribute],
    is_known: fn(&syn::Path) -> bool,
    lifecycle: &mut Lifecycle,
    errors: &mut Errors,
) -> Vec<syn::Path> {
    let mut keys = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("ecs")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if !is_known(&meta.path) {
                skip_to_comma(meta.input)?;
            } else if meta.path.is_ident(RELATION_KEY) {
                let mut relation = RelationModel {
                    key: meta.path.clone(),
                    inverse: None,
                    on_target_despawn: None,
                    unknown: Vec::new(),
                };
                if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("inverse") {
                            relation.inverse = Some(inner.value()?.parse()?);
                        } else if inner.path.is_ident("on_target_despawn") {
                            relation.on_target_despawn = Some(inner.value()?.parse()?);
                        } else {
                            skip_to_comma(inner.input)?;
                            relation.unknown.push(inner.path);
                        }
                        Ok(())
                    })?;
                }
                lifecycle.relation = Some(relation);
            } else if meta.path.is_ident(REQUIRES_KEY) {
                let content;
                syn::parenthesized!(content in meta.input);
                let list = content.parse_terminated(Requirement::parse, syn::Token![,])?;
                lifecycle.requires.extend(list);
            } else if meta.path.is_ident(ON_ADD_KEY) {
                lifecycle.on_add.push(meta.value()?.parse()?);
            } else if meta.path.is_ident(ON_INSERT_KEY) {
                lifecycle.on_insert.push(meta.value()?.parse()?);
            } else if meta.path.is_ident(ON_REMOVE_KEY) {
                lifecycle.on_remove.push(meta.value()?.parse()?);
            } else if meta.path.is_ident(CRATE_KEY) {
                // Read by `Krate::resolve`.
                skip_to_comma(meta.input)?;
            } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                // A flag (`debug`, `track`, ...) given a value or a list.
                let key = meta.path.to_token_stream().to_string();
                return Err(meta.error(format_args!(
                    "the `#[ecs(...)]` key `{key}` takes no value: write `#[ecs({key})]`"
                )));
            }
            keys.push(meta.path);
            Ok(())
        });
        if let Err(error) = parsed {
            errors.push(error);
        }
    }
    keys
}

/// Moves past the tokens up to the next top-level `,` (or the end).
pub(crate) fn skip_to_comma(input: ParseStream) -> syn::Result<()> {
    input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((token, next)) = rest.token_tree() {
            match token {
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ',' => break,
                _ => rest = next,
            }
        }
        Ok(((), rest))
    })
}

/// Renders a type the way a person writes it: `Vec<u8>`, `&'static str`.
fn type_name(ty: &syn::Type) -> String {
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
