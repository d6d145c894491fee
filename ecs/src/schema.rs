//! The traits `#[derive(Schema)]` implements: [`Schema`] for the schema
//! struct, [`Component`] for each component type, [`Resource`] for each
//! resource type. (The generated column enum implements the hidden
//! [`Column`], in `storage`.)

use crate::entity::Entity;
use crate::hook::{DeferredWorld, HookKind};
use crate::mask::Mask;
use crate::relations::RelationVisitor;
use crate::storage::{Column, Staged};
/// The derive of the trait of the same name.
pub use schemecs_macros::Schema;

/// A world's complete list of component and resource types, fixed at compile
/// time. Implement it with `#[derive(Schema)]`; never by hand.
///
/// The derive reads a struct whose fields are the components (one bit each, in
/// field order) and, marked `#[ecs(resource)]`, the resources:
///
/// ```
/// use schemecs::prelude::*;
/// use schemecs::mask::Mask;
///
/// #[derive(Debug, PartialEq)] pub struct Pos(pub i64);
/// #[derive(Debug, PartialEq)] pub struct Vel(pub i64);
/// #[derive(Debug, PartialEq, Default)] pub struct Frozen;   // zero-sized: a tag
/// #[derive(Debug, PartialEq, Default)] pub struct Tick(pub u64);
///
/// #[derive(Schema)]
/// pub struct Physics {
///     pos: Pos,
///     vel: Vel,
///     frozen: Frozen,
///     #[ecs(resource)]
///     tick: Tick,
/// }
///
/// assert_eq!(Physics::NAME, "Physics");
/// assert_eq!(Physics::COMPONENT_NAMES, ["Pos", "Vel", "Frozen"]);
/// assert_eq!(PhysicsMask::DATA, PhysicsMask::POS | PhysicsMask::VEL);
/// ```
///
/// # The `#[ecs(..)]` keys
///
/// A field without a key is a component. These keys, in `#[ecs(...)]` on
/// a field (several in one attribute, or in several), say otherwise or
/// give a component more; the struct itself takes none. Each links to its
/// chapter of the [guide](crate::guide):
///
/// | Key | Meaning |
/// | --- | --- |
/// | `resource` | A resource: one value per world, not a component ([`Res`], [`ResMut`], [`World::resource`]). [schema](crate::guide::schema) |
/// | `event` | An event type, whose queue the world keeps beside its resources ([`EventWriter`], [`EventReader`]). [events](crate::guide::events_and_changes) |
/// | `state` | A state, such as a game's phase: kept as the resource [`State<T>`](crate::state::State), changed through [`NextState`](crate::state::NextState). [game loop](crate::guide::game_loop) |
/// | `track` | A component with change detection: [`Added<T>`], [`Changed<T>`], [`Removed<T>`]. [changes](crate::guide::events_and_changes) |
/// | `sparse` | A component kept in a sparse set keyed by entity index instead of a table column: inserting or removing it moves nothing else. [sparse](crate::guide::sparse) |
/// | `soa` | A component stored field by field, one array per field; its type derives [`Soa`](crate::soa::Soa) and queries read it as [`Fields`](crate::query::Fields). [soa](crate::guide::soa) |
/// | `relation(inverse = <field>)` | A component that points at another entity (a [`Relation`]); the world keeps the target's list of sources in the field named (an [`Inverse`]). [relations](crate::guide::relations) |
/// | `relation(.., on_target_despawn = despawn)` | Despawning a target despawns its sources too; `= remove` (the default) takes the relation off them. [relations](crate::guide::relations) |
/// | `requires(T, U = make_u)` | Spawning or inserting this component adds the components it requires that the entity lacks, by `Default` or the named function, transitively, in the same migration. [hooks](crate::guide::hooks) |
/// | `on_add = f` | Runs `f(&mut DeferredWorld<S>, Entity)` when the component is added to an entity that lacked it (see [`DeferredWorld`]). [hooks](crate::guide::hooks) |
/// | `on_insert = f` | Runs `f` when an insert writes the component, added or overwritten. [hooks](crate::guide::hooks) |
/// | `on_remove = f` | Runs `f` when the component is taken: removed, or its entity despawned (the value is still there to read). [hooks](crate::guide::hooks) |
///
/// A component that an insert or an exchange writes over is neither added
/// nor taken: only its `on_insert` runs (see [`World::exchange`]).
///
/// Keys that make no sense together are compile errors that say why:
/// `resource` with `event`; `state` with any of `resource`, `event`,
/// `track`, `sparse`, `soa`; `track`, `sparse` or `soa` on a resource or
/// an event; `requires`, `relation` or a hook on a resource, an event or
/// a state; `soa` with `sparse` or with `relation`; `sparse` on a tag (a
/// zero-sized component); one key twice; and an unknown key, whose message
/// lists the keys above.
///
/// [`Relation`]: crate::relation::Relation
/// [`Inverse`]: crate::relation::Inverse
/// [`World::exchange`]: crate::world::World::exchange
/// [`World::resource`]: crate::world::World::resource
/// [`Res`]: crate::system::Res
/// [`ResMut`]: crate::system::ResMut
/// [`EventWriter`]: crate::event::EventWriter
/// [`EventReader`]: crate::event::EventReader
/// [`Added<T>`]: crate::query::Added
/// [`Changed<T>`]: crate::query::Changed
/// [`Removed<T>`]: crate::change::Removed
///
/// A sparse component's bit stays in the mask, so `get`, `has`,
/// `archetype`, bundles, commands, queries, filters and change detection
/// (with `track`) treat it like any other component; no table's archetype
/// ever holds it. A filter on it does not separate two systems' queries
/// (they are lent whole table columns), and its set is lent whole: two
/// writers of it never run at once, whatever their filters.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Pos(i32);
/// #[derive(Debug, PartialEq)] struct Stun(u32);
/// #[derive(Schema)]
/// struct Game { pos: Pos, #[ecs(sparse)] stun: Stun }
///
/// let mut world = World::<Game>::new();
/// let e = world.spawn((Pos(0), Stun(2)));
/// assert_eq!(world.archetype(e), Some(GameMask::POS | GameMask::STUN));
/// assert_eq!(world.describe().to_string().lines().last(), Some("  [Pos]: 1 entity"));
/// ```
///
/// Besides this impl the derive generates, next to the struct:
/// `PhysicsMask` (the archetype mask, see [`Mask`]), `PhysicsResources`
/// (the resources a `World<Physics>` owns) and a hidden column enum.
pub trait Schema: Sized + 'static {
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

    /// Hands `visitor` the relation whose field has `bit`, or whose inverse
    /// has it; does nothing for any other bit.
    #[doc(hidden)]
    #[inline]
    fn visit_relation<V: RelationVisitor<Self>>(bit: u32, visitor: &mut V) {
        let _ = (bit, visitor);
    }

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

    /// Runs the `kind` hook of the component of `bit` on `entity`.
    #[doc(hidden)]
    #[inline]
    fn run_hook(kind: HookKind, bit: u32, world: &mut DeferredWorld<'_, Self>, entity: Entity) {
        let _ = (kind, bit, world, entity);
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
///         resources: ["Tick"],
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
        resources: [$($resource:literal),* $(,)?],
        events: [$($event:literal),* $(,)?],
        states: [$($state:literal),* $(,)?] $(,)?
    ) => {
        const NAME: &'static str = $schema;
        const COMPONENT_NAMES: &'static [&'static str] = &[$($component),*];
        const RESOURCE_NAMES: &'static [&'static str] =
            &[$($resource,)* $(::core::concat!("Events<", $event, ">"),)* $(::core::concat!("State<", $state, ">"),)*];
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
            "` (a query, `get_mut`) or an inverse list inserted by hand would break the other \
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
pub(crate) const fn whole_check<S: Schema>(bit: u32) {
    if S::SOA_BITS & (1u128 << bit) != 0 {
        panic!("{}", S::SOA_REFERENCE_MESSAGES[bit as usize]);
    }
}

/// Fails to evaluate (a compile error) unless component `bit` of `S` is
/// `#[ecs(soa)]`: the check of every field-by-field access.
pub(crate) const fn soa_check<S: Schema>(bit: u32) {
    if S::SOA_BITS & (1u128 << bit) == 0 {
        panic!("{}", S::NOT_SOA_MESSAGES[bit as usize]);
    }
}

/// Fails to evaluate (a compile error) for a relation or an inverse list of
/// `S`, which only the world writes: the check of every `&mut` access.
pub(crate) const fn kept_check<S: Schema>(bit: u32) {
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
pub trait Component<S: Schema>: Sized + 'static {
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
    /// refuses one, see [`Schema::SOA_REFERENCE_MESSAGES`]).
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
pub trait Tracked<S: Schema>: Component<S> {}

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
pub trait SparseMutable<S: Schema>: Component<S> {}

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
pub trait Migratable<S: Schema>: Component<S> {}

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
pub trait Resource<S: Schema>: Sized + 'static {
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
