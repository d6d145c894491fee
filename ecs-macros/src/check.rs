//! The checks: each `check_*` function looks at one property of the
//! [`SchemaModel`] and adds an error, at the user's tokens, for every place
//! that breaks it. All of them run, so one build shows every mistake; the
//! generator runs only on a model that passed them all and never re-checks.

use crate::errors::Errors;
use crate::model::{
    is_field_key, FieldModel, SchemaModel, Shape, EVENT_KEY, RESOURCE_KEY, SPARSE_KEY, STATE_KEY,
    TRACK_KEY,
};
use quote::ToTokens;

/// The widest archetype mask (`u128`) has this many bits.
pub const MAX_COMPONENTS: usize = 128;

/// Runs every check on `model`, in the order their errors are reported.
pub fn check(model: &SchemaModel, errors: &mut Errors) {
    check_is_struct(model, errors);
    check_not_generic(model, errors);
    check_struct_keys(model, errors);
    check_field_keys(model, errors);
    check_key_combinations(model, errors);
    check_has_components(model, errors);
    check_flag_names(model, errors);
    check_component_count(model, errors);
    check_resource_count(model, errors);
    check_duplicate_types(model, errors);
    check_sized_fields(model, errors);
}

/// A schema is a struct with named fields: each field names a component.
fn check_is_struct(model: &SchemaModel, errors: &mut Errors) {
    let name = model.ident;
    match &model.shape {
        Shape::Named => {}
        Shape::Tuple => errors.at(
            name,
            format_args!(
                "`#[derive(Schema)]` needs named fields: each field of `{name}` \
                 names a component, e.g. `struct {name} {{ pos: Pos }}`"
            ),
        ),
        Shape::Unit => errors.at(name, no_components(name)),
        Shape::Enum(keyword) => errors.at(keyword, not_a_struct("enum", name)),
        Shape::Union(keyword) => errors.at(keyword, not_a_struct("union", name)),
    }
}

fn not_a_struct(kind: &str, name: &syn::Ident) -> String {
    format!(
        "`#[derive(Schema)]` works on a struct, not on {kind} `{name}`: \
         list each component as a field of a struct"
    )
}

fn no_components(name: &syn::Ident) -> String {
    format!(
        "schema `{name}` has no components: list them as fields, \
         e.g. `struct {name} {{ pos: Pos }}`"
    )
}

/// A schema fixes its component types once.
fn check_not_generic(model: &SchemaModel, errors: &mut Errors) {
    let generics = model.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        errors.at(
            generics,
            format_args!(
                "schema `{}` cannot be generic: a schema fixes its component \
                 types once, so write them out as concrete field types",
                model.ident
            ),
        );
    }
}

/// No struct-level key exists.
fn check_struct_keys(model: &SchemaModel, errors: &mut Errors) {
    for key in &model.keys {
        errors.at(
            key,
            format_args!(
                "unknown `#[ecs(...)]` key `{}` on schema `{}`: \
                 no struct-level keys are supported",
                path_string(key),
                model.ident
            ),
        );
    }
}

/// A misspelt field key must not silently turn a resource into a component.
fn check_field_keys(model: &SchemaModel, errors: &mut Errors) {
    let keys = model.fields.iter().flat_map(|field| &field.keys);
    for key in keys.filter(|key| !is_field_key(key)) {
        errors.at(
            key,
            format_args!(
                "unknown `#[ecs(...)]` key `{}` on a field of schema `{}`: \
                 the field keys are `resource` (a world-global singleton), `event` (an \
                 event type), `state` (a state with transitions, such as a game's phase), \
                 `track` (a component with change detection) and `sparse` (a component kept \
                 in a sparse set)",
                path_string(key),
                model.ident
            ),
        );
    }
}

/// A field is one of component (optionally tracked, optionally sparse),
/// resource or event.
fn check_key_combinations(model: &SchemaModel, errors: &mut Errors) {
    for field in &model.fields {
        let has = |name: &str| field.keys.iter().filter(|key| key.is_ident(name)).count();
        let (resource, event, track) = (has(RESOURCE_KEY), has(EVENT_KEY), has(TRACK_KEY));
        let sparse = has(SPARSE_KEY);
        let state = has(STATE_KEY);
        let message = if state > 0 && resource + event + track + sparse > 0 {
            Some(format!(
                "field `{}` of schema `{}` is marked `state` and another key: a state is kept \
                 as one value with its pending transition, not as a resource, an event queue \
                 or a component; give it `#[ecs(state)]` alone",
                field.ident, model.ident
            ))
        } else if resource > 0 && event > 0 {
            Some(format!(
                "field `{}` of schema `{}` is marked both `resource` and `event`: a field is \
                 a resource (one value) or an event type (a queue of values), not both",
                field.ident, model.ident
            ))
        } else if track > 0 && resource + event > 0 {
            Some(format!(
                "field `{}` of schema `{}`: `track` (change detection) applies to components \
                 only, not to {}; remove `track`, or the other key to make it a component",
                field.ident,
                model.ident,
                if resource > 0 { "resources" } else { "events" }
            ))
        } else if sparse > 0 && resource + event > 0 {
            Some(format!(
                "field `{}` of schema `{}`: `sparse` (sparse-set storage) applies to components \
                 only, not to {}; remove `sparse`, or the other key to make it a component",
                field.ident,
                model.ident,
                if resource > 0 { "resources" } else { "events" }
            ))
        } else if resource > 1 || event > 1 || track > 1 || sparse > 1 || state > 1 {
            Some(format!(
                "field `{}` of schema `{}` repeats a `#[ecs(...)]` key; give each key once",
                field.ident, model.ident
            ))
        } else {
            None
        };
        if let Some(message) = message {
            errors.at(field.ident, message);
        }
    }
}

/// A schema without components has no archetypes to store. Checked only when
/// nothing else is wrong: a struct that is no schema at all, or a field whose
/// role is unknown, says more than a count.
fn check_has_components(model: &SchemaModel, errors: &mut Errors) {
    let named = matches!(model.shape, Shape::Named);
    if !named || !errors.is_empty() || model.components().next().is_some() {
        return;
    }
    let name = model.ident;
    if model.resources().next().is_none() {
        errors.at(name, no_components(name));
    } else {
        errors.at(
            name,
            format_args!(
                "schema `{name}` has only resources and events and no components: add \
                 at least one field without `#[ecs(resource)]` or `#[ecs(event)]`"
            ),
        );
    }
}

/// Each component becomes a mask flag named after its field in upper case.
fn check_flag_names(model: &SchemaModel, errors: &mut Errors) {
    let components: Vec<&FieldModel> = model.components().collect();
    for (i, later) in components.iter().enumerate() {
        let flag = later.flag_name();
        if let Some(earlier) = components[..i].iter().find(|f| f.flag_name() == flag) {
            errors.at(
                later.ident,
                format_args!(
                    "fields `{}` and `{}` of schema `{name}` would both be the mask flag \
                     `{name}Mask::{flag}`; rename one of them",
                    earlier.ident,
                    later.ident,
                    name = model.ident,
                ),
            );
        }
    }
}

/// One bit per component, in a mask at most `u128` wide.
fn check_component_count(model: &SchemaModel, errors: &mut Errors) {
    if let Some((count, first_past)) = past_the_limit(model.components()) {
        let message = format!(
            "schema `{}` has {count} components, more than the {MAX_COMPONENTS} \
             that the widest archetype mask (u128) can hold; this is the first \
             field past the limit",
            model.ident
        );
        errors.at(first_past.ident, message);
    }
}

/// One bit per resource in a system's resource access, at most `u128` wide.
fn check_resource_count(model: &SchemaModel, errors: &mut Errors) {
    if let Some((count, first_past)) = past_the_limit(model.resources()) {
        let message = format!(
            "schema `{}` has {count} resources, more than the {MAX_COMPONENTS} that \
             a system's resource access mask (u128) can hold; this is the first \
             resource past the limit",
            model.ident
        );
        errors.at(first_past.ident, message);
    }
}

/// How many `fields` there are, and the first past [`MAX_COMPONENTS`], if any.
fn past_the_limit<'m, 'a: 'm>(
    mut fields: impl Iterator<Item = &'m FieldModel<'a>> + Clone,
) -> Option<(usize, &'m FieldModel<'a>)> {
    let count = fields.clone().count();
    fields
        .nth(MAX_COMPONENTS)
        .map(|first_past| (count, first_past))
}

/// One type, one field: a type's bit (or resource slot) is found from the
/// type alone, so a second field of the same type would be ambiguous.
fn check_duplicate_types(model: &SchemaModel, errors: &mut Errors) {
    let fields: Vec<&FieldModel> = model.components().chain(model.resources()).collect();
    for (i, later) in fields.iter().enumerate() {
        if let Some(earlier) = fields[..i].iter().find(|f| same_type(f, later)) {
            errors.at(
                later.ty,
                format_args!(
                    "type `{}` appears in two fields of schema `{}` (`{}` and `{}`): \
                     each component, resource or event type may appear once; wrap one of them \
                     in a newtype to tell them apart",
                    later.type_name, model.ident, earlier.ident, later.ident
                ),
            );
        }
    }
}

/// Whether two fields have the same type as written (an alias is not seen
/// through; the compiler rejects that case as conflicting impls).
pub fn same_type(a: &FieldModel, b: &FieldModel) -> bool {
    a.ty.to_token_stream().to_string() == b.ty.to_token_stream().to_string()
}

fn path_string(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// A component or resource is stored by value, so its size must be known.
/// Only the last field can be unsized as far as the struct goes; the compiler
/// itself rejects an unsized field anywhere else, at the field, so this check
/// stays quiet there to leave one error per mistake.
fn check_sized_fields(model: &SchemaModel, errors: &mut Errors) {
    let Some(last) = model.fields.last() else {
        return;
    };
    if last.is_unsized() {
        errors.at(
            last.ty,
            format_args!(
                "field `{}` of schema `{}` has type `{ty}`, whose size is not known at \
                 compile time; components and resources are stored by value, so give it \
                 a type of known size, such as `Box<{ty}>`",
                last.ident,
                model.ident,
                ty = last.type_name,
            ),
        );
    }
}
