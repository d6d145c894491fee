//! The checks: each `check_*` function looks at one property of the
//! [`SchemaModel`] and adds an error, at the user's tokens, for every place
//! that breaks it. All of them run, so one build shows every mistake; the
//! generator runs only on a model that passed them all and never re-checks.

use crate::errors::Errors;
use crate::model::{
    is_field_key, FieldModel, Role, SchemaModel, Shape, CRATE_KEY, DEBUG_KEY, EVENT_KEY,
    ON_ADD_KEY, ON_INSERT_KEY, ON_REMOVE_KEY, RELATION_KEY, REQUIRES_KEY, RESOURCE_KEY, SOA_KEY,
    SPARSE_KEY, STATE_KEY, TRACK_KEY,
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
    check_lifecycle_roles(model, errors);
    check_relations(model, errors);
    check_requirements(model, errors);
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

/// The struct-level keys are `crate = path` (read by `Krate::resolve`) and
/// `debug`.
fn check_struct_keys(model: &SchemaModel, errors: &mut Errors) {
    let known = |key: &&syn::Path| key.is_ident(CRATE_KEY) || key.is_ident(DEBUG_KEY);
    for key in model.keys.iter().filter(|key| !known(key)) {
        errors.at(
            key,
            format_args!(
                "unknown `#[ecs(...)]` key `{}` on schema `{}`: the keys a schema takes \
                 are `crate = path` (the path of the `schemecs` crate, for a renamed \
                 dependency) and `debug` (diffs of its worlds print component values); the \
                 other keys go on its fields",
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
                 `track` (a component with change detection), `sparse` (a component kept \
                 in a sparse set), `soa` (a component stored field by field), \
                 `relation(inverse = ..)` (a component pointing at another \
                 entity), `requires(..)` (components added with this one) and the hooks \
                 `on_add = f`, `on_insert = f`, `on_remove = f`",
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
        let soa = has(SOA_KEY);
        let state = has(STATE_KEY);
        let message = if state > 0 && resource + event + track + sparse + soa > 0 {
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
        } else if soa > 0 && resource + event > 0 {
            Some(format!(
                "field `{}` of schema `{}`: `soa` (field-by-field storage) applies to \
                 components only, not to {}; remove `soa`, or the other key to make it a \
                 component",
                field.ident,
                model.ident,
                if resource > 0 { "resources" } else { "events" }
            ))
        } else if soa > 0 && field.lifecycle.relation.is_some() {
            Some(format!(
                "field `{}` of schema `{}` is marked both `soa` and `relation(..)`: the world \
                 reads and keeps a relation's value whole, to find its target; remove `soa`",
                field.ident, model.ident
            ))
        } else if soa > 0 && sparse > 0 {
            Some(format!(
                "field `{}` of schema `{}` is marked both `soa` and `sparse`: a sparse set \
                 keeps whole values by entity, while `soa` splits a table column field by \
                 field; keep one of them",
                field.ident, model.ident
            ))
        } else if resource > 1 || event > 1 || track > 1 || sparse > 1 || soa > 1 || state > 1 {
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

/// The lifecycle keys (`relation`, `requires`, the hooks) are for
/// components, each given once.
fn check_lifecycle_roles(model: &SchemaModel, errors: &mut Errors) {
    for field in &model.fields {
        if !matches!(field.role, Role::Component | Role::Unknown) {
            let key = field.keys.iter().find(|key| {
                [
                    RELATION_KEY,
                    REQUIRES_KEY,
                    ON_ADD_KEY,
                    ON_INSERT_KEY,
                    ON_REMOVE_KEY,
                ]
                .iter()
                .any(|name| key.is_ident(name))
            });
            if let Some(key) = key {
                errors.at(
                    key,
                    format_args!(
                        "field `{}` of schema `{}`: `{}` applies to components only, not to \
                         resources, events or states; remove it",
                        field.ident,
                        model.ident,
                        path_string(key)
                    ),
                );
            }
            continue;
        }
        let repeated = |name: &str| field.keys.iter().filter(|key| key.is_ident(name)).count() > 1;
        for name in [RELATION_KEY, ON_ADD_KEY, ON_INSERT_KEY, ON_REMOVE_KEY] {
            if repeated(name) {
                errors.at(
                    field.ident,
                    format_args!(
                        "field `{}` of schema `{}` has `{name}` twice; give it once",
                        field.ident, model.ident
                    ),
                );
            }
        }
    }
}

/// Each relation names its inverse, a component field of the schema kept by
/// the world for that relation alone.
fn check_relations(model: &SchemaModel, errors: &mut Errors) {
    let mut inverses: Vec<&syn::Ident> = Vec::new();
    for field in model.components() {
        let Some(relation) = &field.lifecycle.relation else {
            continue;
        };
        for key in &relation.unknown {
            errors.at(
                key,
                format_args!(
                    "unknown key `{}` in the relation `{}` of schema `{}`: a relation takes \
                     `inverse = <field>` and optionally `on_target_despawn = despawn` or \
                     `on_target_despawn = remove`",
                    path_string(key),
                    field.ident,
                    model.ident
                ),
            );
        }
        if let Some(rule) = &relation.on_target_despawn {
            if rule != "despawn" && rule != "remove" {
                errors.at(
                    rule,
                    format_args!(
                        "`on_target_despawn = {rule}` in relation `{}` of schema `{}`: say \
                         `despawn` (despawning a target despawns the entities pointing at it) or \
                         `remove` (they lose the relation; the default)",
                        field.ident, model.ident
                    ),
                );
            }
        }
        let Some(inverse) = &relation.inverse else {
            errors.at(
                &relation.key,
                format_args!(
                    "relation `{}` of schema `{}` needs its inverse: \
                     `relation(inverse = <field>)`, naming the component field of the list of \
                     sources the world keeps on each target (e.g. `children: Children`, with \
                     `#[derive(Inverse)] struct Children(Vec<Entity>);`)",
                    field.ident, model.ident
                ),
            );
            continue;
        };
        let Some(target) = model.components().find(|other| other.ident == inverse) else {
            errors.at(
                inverse,
                format_args!(
                    "the inverse `{inverse}` of relation `{}` is not a component field of schema \
                     `{}`; add a field for the list of sources (e.g. `{inverse}: Children`, with \
                     `#[derive(Inverse)] struct Children(Vec<Entity>);`) or name an existing one",
                    field.ident, model.ident
                ),
            );
            continue;
        };
        if target.ident == field.ident || target.lifecycle.relation.is_some() {
            errors.at(
                inverse,
                format_args!(
                    "the inverse `{inverse}` of relation `{}` of schema `{}` is itself a \
                     relation; the inverse is a separate field holding the list of sources",
                    field.ident, model.ident
                ),
            );
        } else if inverses.contains(&inverse) {
            errors.at(
                inverse,
                format_args!(
                    "`{inverse}` of schema `{}` is already the inverse of another relation; \
                     give each relation a list of its own",
                    model.ident
                ),
            );
        } else if has_lifecycle_keys(target) {
            errors.at(
                inverse,
                format_args!(
                    "`{inverse}` of schema `{}` is the inverse of relation `{}`, which the world \
                     keeps; it cannot have hooks or requirements of its own (put them on the \
                     relation `{}`)",
                    model.ident, field.ident, field.ident
                ),
            );
        }
        inverses.push(inverse);
    }
}

/// Whether `field` has requirements or hooks.
fn has_lifecycle_keys(field: &FieldModel) -> bool {
    let lifecycle = &field.lifecycle;
    !lifecycle.requires.is_empty()
        || !lifecycle.on_add.is_empty()
        || !lifecycle.on_insert.is_empty()
        || !lifecycle.on_remove.is_empty()
}

/// Each requirement is a component of the schema, not an inverse, and the
/// requirements form no cycle.
fn check_requirements(model: &SchemaModel, errors: &mut Errors) {
    let components: Vec<&FieldModel> = model.components().collect();
    let inverses: Vec<&syn::Ident> = components
        .iter()
        .filter_map(|field| field.lifecycle.relation.as_ref()?.inverse.as_ref())
        .collect();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); components.len()];
    let mut known = true;
    for (from, field) in components.iter().enumerate() {
        for requirement in &field.lifecycle.requires {
            let found = components
                .iter()
                .position(|other| other.type_name == requirement.type_name);
            match found {
                None => {
                    known = false;
                    errors.at(
                        &requirement.ty,
                        format_args!(
                            "`{}` requires `{}`, which is not a component of schema `{}`; add \
                             a field of type `{}` to `{}`, or remove it from `requires` (a \
                             requirement names the type exactly as its field does)",
                            field.type_name,
                            requirement.type_name,
                            model.ident,
                            requirement.type_name,
                            model.ident
                        ),
                    );
                }
                Some(to) if inverses.contains(&components[to].ident) => errors.at(
                    &requirement.ty,
                    format_args!(
                        "`{}` requires `{}`, the inverse list of a relation of schema `{}`, \
                         which the world keeps; require the relation instead, or nothing",
                        field.type_name, requirement.type_name, model.ident
                    ),
                ),
                Some(to) => edges[from].push(to),
            }
        }
    }
    if !known {
        return;
    }
    if let Some(cycle) = find_cycle(&edges) {
        let names: Vec<String> = cycle
            .iter()
            .map(|&at| format!("`{}`", components[at].type_name))
            .collect();
        let first = components[cycle[0]];
        let requirement = first
            .lifecycle
            .requires
            .iter()
            .find(|requirement| {
                requirement.type_name == components[cycle[1 % cycle.len()]].type_name
            })
            .expect("the cycle's first edge is a requirement");
        errors.at(
            &requirement.ty,
            format_args!(
                "the requirements of schema `{}` go round in a cycle: {} requires {}; a \
                 component cannot require itself, directly or through others, so remove one \
                 of these requirements",
                model.ident,
                names.join(" requires "),
                names[0]
            ),
        );
    }
}

/// A cycle in the graph `edges` (node -> the nodes it points at), as its
/// nodes in order from the lowest one found, if there is one.
fn find_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0: not seen, 1: on the current path, 2: done.
    fn walk(
        at: usize,
        edges: &[Vec<usize>],
        state: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[at] = 1;
        path.push(at);
        for &next in &edges[at] {
            if state[next] == 1 {
                let start = path
                    .iter()
                    .position(|&node| node == next)
                    .expect("on the path");
                return Some(path[start..].to_vec());
            }
            if state[next] == 0 {
                if let Some(cycle) = walk(next, edges, state, path) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        state[at] = 2;
        None
    }
    let mut state = vec![0u8; edges.len()];
    for start in 0..edges.len() {
        if state[start] == 0 {
            if let Some(cycle) = walk(start, edges, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}
