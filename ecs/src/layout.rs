//! The ground of the schema: [`Layout`], the part of a schema that storage,
//! bundles and queries read, and the traits `#[derive(Schema)]` implements
//! for each field's type: [`Component`], [`Resource`] and their kinds. (The
//! generated column enum implements the hidden [`Column`], in `storage`.)
//! The rest of the schema, what needs the world (hooks, relations), is
//! [`Schema`](crate::schema::Schema), a layer above; this file names no type
//! of the world.

use crate::entity::Entity;
use crate::mask::Mask;
use crate::storage::{Column, Staged};

/// The part of a [`Schema`](crate::schema::Schema) that storage, bundles and
/// queries read: its mask, column and resource types, its names and its bit
/// sets. `#[derive(Schema)]` implements it together with `Schema`, which
/// extends it with what needs the world (hooks, relations); never implement
/// either by hand. Every `Schema` is a `Layout`, so a bound `S: Schema`
/// gives all of it; `Layout` appears in the bounds of the traits and types
/// that work below the world ([`Component`], [`Resource`], queries).
pub trait Layout: Sized + 'static {
    /// The archetype mask type: one bit per component.
    type Mask: Mask;
    /// The column type: one `Vec<T>` variant per component.
    #[doc(hidden)]
    type Column: Column;
    /// The struct of resources (`PhysicsResources`).
    type Resources;
    /// One [`Lent`](crate::__private::Lent) slot per resource, in field order:
    /// the resources, borrowed apart for systems running at once.
    #[doc(hidden)]
    type ResourceSlots<'a>;

    /// The schema struct's name, for messages.
    const NAME: &'static str;
    /// Component type names, indexed by bit.
    const COMPONENT_NAMES: &'static [&'static str];
    /// The schema struct's field of each component, indexed by bit (`pos`
    /// for `pos: Pos`): the keys of a save's readable form.
    const COMPONENT_FIELDS: &'static [&'static str];
    // The bit sets below (one bit per component, as in the mask) are read
    // by the runtime as constants, so that the code of a feature a schema
    // does not use (tracking, sparse sets, hooks) is left out; the derive
    // writes them from the field keys. They are hidden: they say nothing
    // the schema struct does not, and their type (`u128`, whatever the
    // mask's width) is not part of the public API.
    /// Bits of the components that carry data (`size_of::<T>() != 0`).
    #[doc(hidden)]
    const DATA_BITS: u128;
    /// Bits of the components marked `#[ecs(track)]` (change detection).
    #[doc(hidden)]
    const TRACKED_BITS: u128;
    /// Bits of the components marked `#[ecs(sparse)]`: kept in a sparse set
    /// keyed by entity index, never in a table column (no table's mask holds
    /// one of these bits).
    #[doc(hidden)]
    const SPARSE_BITS: u128;
    /// Bits of the components marked `#[ecs(soa)]`: their table columns
    /// keep each field in an array of its own ([`Soa`](crate::soa::Soa)).
    #[doc(hidden)]
    const SOA_BITS: u128 = 0;
    /// Bits of the relation components (`#[ecs(relation(inverse = ..))]`):
    /// each names a target entity, and the world keeps the target's list of
    /// sources (the inverse) in step with it.
    #[doc(hidden)]
    const RELATION_BITS: u128 = 0;
    /// Bits of the inverse components: the lists of sources the world keeps
    /// for the relations.
    #[doc(hidden)]
    const INVERSE_BITS: u128 = 0;
    /// Bits of the components with requirements (`#[ecs(requires(..))]`).
    #[doc(hidden)]
    const REQUIRING_BITS: u128 = 0;
    /// Bits of the components with an `on_add` hook.
    #[doc(hidden)]
    const ON_ADD_BITS: u128 = 0;
    /// Bits of the components with an `on_insert` hook.
    #[doc(hidden)]
    const ON_INSERT_BITS: u128 = 0;
    /// Bits of the components with an `on_remove` hook.
    #[doc(hidden)]
    const ON_REMOVE_BITS: u128 = 0;
    /// Bits of every component whose structural change does more than move
    /// values: relations, inverses, requirements, hooks. A bundle, command
    /// or despawn that touches none of them takes the plain path, so a
    /// schema that declares none of them pays nothing.
    #[doc(hidden)]
    const LIFECYCLE_BITS: u128 = Self::RELATION_BITS
        | Self::INVERSE_BITS
        | Self::REQUIRING_BITS
        | Self::ON_ADD_BITS
        | Self::ON_INSERT_BITS
        | Self::ON_REMOVE_BITS;
    /// Resource type names, indexed by [`Resource::BIT`] (the queues of the
    /// event types, `Events<T>`, come last).
    const RESOURCE_NAMES: &'static [&'static str];
    /// The schema struct's field of each resource, event and state, indexed
    /// like [`Layout::RESOURCE_NAMES`] (`score` for `score: Score`): the keys
    /// of a save's readable form.
    const RESOURCE_FIELDS: &'static [&'static str];
    /// Event type names (`#[ecs(event)]` fields), in field order.
    const EVENT_NAMES: &'static [&'static str];
    // The messages of the compile-time checks, one per component bit (per
    // resource bit for resource conflicts), written by `schema_texts!` below.
    // The three `*_CONFLICT_MESSAGES` are predicates: the check of a system's
    // parameters puts "parameters 1 and 3 of this system" before them.
    #[doc(hidden)]
    const SYSTEM_CONFLICT_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const SPARSE_CONFLICT_MESSAGES: &'static [&'static str];
    /// Per component: why a `Spawner` cannot spawn a bundle holding it (it
    /// is sparse or has a lifecycle).
    #[doc(hidden)]
    const SPAWNER_MESSAGES: &'static [&'static str];
    /// Per component: the end of the message for a `SparseMut` of it beside
    /// a parameter of the same system that tests its presence.
    #[doc(hidden)]
    const PRESENCE_CONFLICT_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const RESOURCE_CONFLICT_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const QUERY_ALIAS_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const BUNDLE_DUPLICATE_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const TAG_REFERENCE_MESSAGES: &'static [&'static str];
    /// Per component: why it cannot be borrowed whole (it is
    /// `#[ecs(soa)]`).
    #[doc(hidden)]
    const SOA_REFERENCE_MESSAGES: &'static [&'static str];
    /// Per component: why `Fields<&C>` does not apply (it is not
    /// `#[ecs(soa)]`).
    #[doc(hidden)]
    const NOT_SOA_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const KEPT_MESSAGES: &'static [&'static str];
    #[doc(hidden)]
    const NEVER_MATCHES_MESSAGES: &'static [&'static str];

    /// An empty column for component `bit`.
    #[doc(hidden)]
    fn new_column(bit: u32) -> Self::Column;

    /// Every resource, each in a slot of its own, free to be borrowed.
    #[doc(hidden)]
    fn resource_slots(resources: &mut Self::Resources) -> Self::ResourceSlots<'_>;

    /// Keeps of every event queue what `retention` says (see
    /// [`crate::retention`]).
    #[doc(hidden)]
    fn prune_events(resources: &mut Self::Resources, retention: &crate::retention::Retention<'_>);

    /// Clamps the ticks of every event queue (see [`crate::change`]).
    #[doc(hidden)]
    fn clamp_event_ticks(resources: &mut Self::Resources, now: u32);

    /// `Ok` if no event queue holds an event sent after tick `now` (a save
    /// being loaded).
    #[doc(hidden)]
    fn check_event_ticks(resources: &Self::Resources, now: u32) -> Result<(), String>;

    /// The components that those of `bits` require, transitively, less
    /// `bits` themselves (`#[ecs(requires(..))]`, closed by the derive).
    #[doc(hidden)]
    #[inline]
    fn required_by(bits: u128) -> u128 {
        let _ = bits;
        0
    }

    /// Stages the value a requirement makes for each component of `bits`
    /// (its `Default`, or the constructor the requirement names) onto the
    /// end of its column: next in line for an insert of staged values.
    #[doc(hidden)]
    #[inline]
    fn stage_required(bits: u128, staged: &mut Staged<Self>) {
        let _ = (bits, staged);
    }
}

/// The text consts of a derived `impl Schema`: the schema's name, its type
/// names, and every message of the compile-time checks, which name the schema
/// and the offending type. This is the one place where those messages are
/// worded. A `const` panic cannot format, so each message is put together
/// whole, per type, by `concat!`; `#[derive(Schema)]` passes only the names,
/// as string literals, in bit order:
///
/// ```text
/// impl Schema for Physics {
///     ::schemecs::__private::schema_texts! {
///         schema: "Physics",
///         components: ["Pos", "Vel"],
///         fields: ["pos", "vel"],
///         resources: ["Tick"],
///         resource_fields: ["tick", "hit", "phase"],
///         events: ["Hit"],
///         states: ["Phase"],
///     }
///     // ...
/// }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __schema_texts {
    (
        schema: $schema:literal,
        components: [$($component:literal),* $(,)?],
        fields: [$($field:literal),* $(,)?],
        resources: [$($resource:literal),* $(,)?],
        resource_fields: [$($resource_field:literal),* $(,)?],
        events: [$($event:literal),* $(,)?],
        states: [$($state:literal),* $(,)?] $(,)?
    ) => {
        const NAME: &'static str = $schema;
        const COMPONENT_NAMES: &'static [&'static str] = &[$($component),*];
        const COMPONENT_FIELDS: &'static [&'static str] = &[$($field),*];
        const RESOURCE_NAMES: &'static [&'static str] =
            &[$($resource,)* $(::core::concat!("Events<", $event, ">"),)* $(::core::concat!("State<", $state, ">"),)*];
        const RESOURCE_FIELDS: &'static [&'static str] = &[$($resource_field),*];
        const EVENT_NAMES: &'static [&'static str] = &[$($event),*];
        const QUERY_ALIAS_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "this query borrows component `", $component, "` of schema `", $schema,
            "` mutably and also reads or writes it in another item; a query may name a `&mut ",
            $component, "` only once and no other item may touch `", $component, "`"
        )),*];
        const BUNDLE_DUPLICATE_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "this bundle names component `", $component, "` of schema `", $schema,
            "` more than once; an entity holds at most one `", $component, "`, so list it once"
        )),*];
        const TAG_REFERENCE_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "`", $component, "` is a tag of schema `", $schema, "` (a zero-sized component: \
             a bit, no column), so it cannot be borrowed as `&", $component, "` or `&mut ",
            $component, "` in a query; use `Has<", $component, ">` for a bool, or the filters \
             `With<", $component, ">` / `Without<", $component, ">`"
        )),*];
        const SOA_REFERENCE_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "`", $component, "` is `#[ecs(soa)]` in schema `", $schema, "`: its table column \
             keeps each field in an array of its own, so there is no whole `", $component,
            "` to borrow; query `Fields<&", $component, ">` or `Fields<&mut ", $component,
            ">` (per entity: `", $component, "Ref` / `", $component, "Mut`, per table: one \
             slice per field), read one entity with `World::get_soa` / `get_soa_mut`, or \
             remove `#[ecs(soa)]` from the field"
        )),*];
        const NOT_SOA_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "`Fields<&", $component, ">` reads a component field by field, but `", $component,
            "` is not `#[ecs(soa)]` in schema `", $schema, "` (or is a tag, which has no \
             fields to store); query `&", $component, "` / `&mut ", $component, "`, or mark \
             the field `#[ecs(soa)]` (its type derives `Soa`)"
        )),*];
        const KEPT_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "`", $component, "` of schema `", $schema, "` is a relation or a relation's inverse \
             list, and the world keeps the two in step: a write through `&mut ", $component,
            "` (a query, `get_mut`, `view_mut`) or an inverse list inserted by hand would break the other \
             side; change relations by inserting or removing the relation (on the world or \
             through commands), and read them with `&", $component, "`, `World::target` or \
             `World::sources`"
        )),*];
        const NEVER_MATCHES_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "this query can never match: it requires component `", $component, "` of schema `",
            $schema, "` (by `&", $component, "`, `&mut ", $component, "` or `With<", $component,
            ">`) and excludes it (by `Without<", $component, ">`); remove one of the two"
        )),*];
        const SYSTEM_CONFLICT_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            " can reach the same `", $component,
            "` values of schema `", $schema, "`, and at least one of them writes `", $component,
            "`; read and write `", $component, "` through one query (e.g. a single `Query<&mut ",
            $component, ">`), or make the two queries' entities disjoint: one must require a \
             component (`With<C>` or `&C`) that the other excludes (`Without<C>`), with `C` a \
             table component, not `#[ecs(sparse)]`"
        )),*];
        const SPARSE_CONFLICT_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            " can reach `", $component, "` of schema `", $schema,
            "`, and at least one of them writes it; `", $component, "` is `#[ecs(sparse)]`: one \
             sparse set holds every entity's `", $component, "`, so no filter splits it between \
             two queries of one system; read and write `", $component, "` through one query \
             (e.g. a single `Query<&mut ", $component, ">`)"
        )),*];
        const PRESENCE_CONFLICT_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            ": one adds or removes `", $component, "` of schema `", $schema,
            "` at once (`SparseMut<", $schema, ", ", $component, ">`) while the other tests \
             which entities have it (`&", $component, "`, `Has<", $component, ">`, `With<",
            $component, ">`, `Without<", $component, ">`), which a query decides before the \
             system runs; ask `SparseMut::contains` or `SparseMut::get` instead, or move the \
             query to a system of its own"
        )),*];
        const SPAWNER_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            "a `Spawner<", $schema, ", B>` places its bundles' values straight into their \
             table, but `B` holds `", $component, "`, which is `#[ecs(sparse)]` or has hooks, a \
             relation role or requirements (schema `", $schema, "`), and so needs the world: \
             spawn bundles holding `", $component, "` through `Commands<", $schema, ">`"
        )),*];
        const RESOURCE_CONFLICT_MESSAGES: &'static [&'static str] = &[$(::core::concat!(
            " both take resource `", $resource, "` of schema `", $schema,
            "`, and at least one as `ResMut<", $resource, ">`; take it once, as `ResMut<",
            $resource, ">` if it is written"
        ),)* $(::core::concat!(
            " both reach event `", $event, "` of schema `", $schema,
            "`, and at least one sends it (an `EventWriter<", $event, ">` beside an `EventReader<",
            $event, ">`, or a second writer); a system takes one `EventWriter<", $event, ">` or \
             any number of readers: split the work into two systems, the reader after the writer"
        ),)* $(::core::concat!(
            " both take state `", $state, "` of schema `", $schema,
            "`, and at least one to request a transition (`NextState<", $state,
            ">`); take `NextState<", $state, ">` alone: `NextState::current` reads the state too"
        ),)*];
    };
}

/// Fails to evaluate (a compile error) for an `#[ecs(soa)]` component of
/// `S`, which has no whole value to borrow: the check of every `&C` and
/// `&mut C` access.
pub(crate) const fn whole_check<S: Layout>(bit: u32) {
    if S::SOA_BITS & (1u128 << bit) != 0 {
        panic!("{}", S::SOA_REFERENCE_MESSAGES[bit as usize]);
    }
}

/// Fails to evaluate (a compile error) unless component `bit` of `S` is
/// `#[ecs(soa)]`: the check of every field-by-field access.
pub(crate) const fn soa_check<S: Layout>(bit: u32) {
    if S::SOA_BITS & (1u128 << bit) == 0 {
        panic!("{}", S::NOT_SOA_MESSAGES[bit as usize]);
    }
}

/// Fails to evaluate (a compile error) for a relation or an inverse list of
/// `S`, which only the world writes: the check of every `&mut` access.
pub(crate) const fn kept_check<S: Layout>(bit: u32) {
    if (S::RELATION_BITS | S::INVERSE_BITS) & (1u128 << bit) != 0 {
        panic!("{}", S::KEPT_MESSAGES[bit as usize]);
    }
}

/// A component type of schema `S`: gives the type its bit and its column.
///
/// Implemented by `#[derive(Schema)]` for each component field's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a component of schema `{S}`",
    label = "not a component of `{S}`",
    note = "the components of `{S}` are the fields of its `#[derive(Schema)]` struct \
            (fields marked `#[ecs(resource)]` are resources, not components); \
            add a field of type `{Self}` to use it here"
)]
pub trait Component<S: Layout>: Sized + 'static {
    /// This component's bit in `S::Mask` (its field's position).
    const BIT: u32;

    /// How a column keeps this component's values: `Vec<Self>`, or
    /// `SoaVec<Self>` for a component marked `#[ecs(soa)]`.
    #[doc(hidden)]
    type Values: crate::storage::Values<Self> + 'static;

    /// This component's values, shared: see [`Component::values_mut`].
    #[doc(hidden)]
    fn values(column: &S::Column) -> &Self::Values;

    /// This component's values, as structural changes move them (whole
    /// values in and out, by row). For a tracked component only pushes are
    /// allowed here; the caller then stamps the column with
    /// [`Column::sync_ticks`].
    #[doc(hidden)]
    fn values_mut(column: &mut S::Column) -> &mut Self::Values;

    /// This component's values in a column of its own type. Never called
    /// for an `#[ecs(soa)]` component (each caller's compile-time check
    /// refuses one, see [`Layout::SOA_REFERENCE_MESSAGES`]).
    #[doc(hidden)]
    fn column(column: &S::Column) -> &Vec<Self>;
    /// This component's values in a column of its own type. For a tracked
    /// component only pushes are allowed here; the caller then stamps the
    /// column with [`Column::sync_ticks`].
    #[doc(hidden)]
    fn column_mut(column: &mut S::Column) -> &mut Vec<Self>;
    /// The entity this value points at, if `Self` is a relation of `S`
    /// (`None` for every other component).
    #[doc(hidden)]
    #[inline(always)]
    fn relation_target(&self) -> Option<Entity> {
        None
    }

    /// This component's values and, if it is tracked, their changed ticks
    /// (empty otherwise), to be written at `tick` (which a tracked column
    /// records for all of its rows at once; see `TrackedVec`).
    #[doc(hidden)]
    fn values_and_changed(column: &mut S::Column, tick: u32) -> (&mut [Self], &mut [u32]);
}

/// A component of schema `S` marked `#[ecs(track)]`: the world records, per
/// entity, when it was added and when it was last written, for the filters
/// [`Added`](crate::query::Added) and [`Changed`](crate::query::Changed) and the system
/// parameter [`Removed`](crate::change::Removed).
///
/// Implemented by `#[derive(Schema)]` for each tracked component.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tracked component of schema `{S}`",
    label = "`{Self}` has no change detection in `{S}`",
    note = "`Added<{Self}>`, `Changed<{Self}>` and `Removed<{Self}>` need the world to record \
            when each entity's `{Self}` was added, written or removed; mark its field in \
            `{S}` with `#[ecs(track)]` (it costs 8 bytes per entity of `{Self}` and a store \
            per write; untracked components cost nothing)"
)]
pub trait Tracked<S: Layout>: Component<S> {}

/// A sparse component of schema `S` (`#[ecs(sparse)]`) whose insertion and
/// removal move nothing but its own value: it has no hooks, no relation
/// role and no requirements. [`SparseMut`](crate::command::SparseMut) adds and
/// removes such values while other systems run.
///
/// Implemented by `#[derive(Schema)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added and removed through `SparseMut` in schema `{S}`",
    label = "not a plain sparse component of `{S}`",
    note = "`SparseMut<{S}, {Self}>` adds and removes `{Self}` while other systems run, which \
            needs `{Self}` stored apart from the tables: mark its field in `{S}` with \
            `#[ecs(sparse)]`; a component with hooks, a relation role or requirements changes \
            more than its own set, so record its changes with `Commands<{S}>` instead"
)]
pub trait SparseMutable<S: Layout>: Component<S> {}

/// A table component of schema `S` (not `#[ecs(sparse)]`) whose insertion
/// and removal move nothing but its entity's row: it has no hooks, no
/// relation role and no requirements. A [`Migrator`](crate::command::Migrator) adds
/// and removes such components while systems that cannot reach the tables
/// involved run beside it.
///
/// Implemented by `#[derive(Schema)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be added and removed through `Migrator` in schema `{S}`",
    label = "not a plain table component of `{S}`",
    note = "`Migrator<{S}, {Self}, F>` moves entities between the tables of `{S}` that `F` \
            matches; a sparse component moves no row, so add and remove it with \
            `SparseMut<{S}, {Self}>`; a component with hooks, a relation role or requirements \
            changes more than its entity's row, so record its changes with `Commands<{S}>` \
            instead"
)]
pub trait Migratable<S: Layout>: Component<S> {}

/// A resource type of schema `S`: a world-global singleton.
///
/// Implemented by `#[derive(Schema)]` for each `#[ecs(resource)]` field's type;
/// read it with [`World::resource`](crate::world::World::resource).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource of schema `{S}`",
    label = "not a resource of `{S}`",
    note = "resources are the fields of `{S}` marked `#[ecs(resource)]`; \
            add `#[ecs(resource)] name: {Self}` to the schema to use it here"
)]
pub trait Resource<S: Layout>: Sized + 'static {
    /// This resource's bit in a system's resource access (its position among
    /// the schema's resources).
    const BIT: u32;

    /// This resource's slot.
    #[doc(hidden)]
    fn slot<'s, 'a>(slots: &'s mut S::ResourceSlots<'a>) -> &'s mut crate::lend::Lent<'a, Self>;

    /// The resource inside the schema's resources struct.
    fn get(resources: &S::Resources) -> &Self;
    /// The resource inside the schema's resources struct.
    fn get_mut(resources: &mut S::Resources) -> &mut Self;
}
