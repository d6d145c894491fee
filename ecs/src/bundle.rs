//! Bundles: components spawned, inserted or removed together: a tuple of
//! up to 12, or a struct with `#[derive(Bundle)]`.

use crate::entity::{Entities, Entity, EntityLocation};
use crate::layout::{Component, Layout};
use crate::mask::Mask;
use crate::misuse::Misuse;
use crate::storage::{
    is_sparse, table_part, Bins, Column, EntityIndex, Table, TableId, TableRow, Values,
};
/// The derive of the trait of the same name.
pub use schemecs_macros::Bundle;

/// Distinct components of schema `S` inserted or removed together: what
/// [`World::spawn`], [`World::insert`], [`World::remove_bundle`],
/// [`World::take`] and [`World::exchange`] (and the commands of the same
/// names) take.
///
/// A bundle is either a tuple of up to 12 components (or `()`, the empty
/// bundle), or a struct with `#[derive(Bundle)]` whose fields are
/// components. Tuples do not nest; a field of a derived bundle marked
/// `#[bundle]` is itself a bundle (a tuple or another derived struct), whose
/// components join the outer ones. The derive names no schema: the struct
/// is a bundle of every schema that has all of its components.
///
/// Naming one component twice, as in `(Pos(0), Pos(1))` or in two fields of
/// a derived bundle (nested ones included), fails to compile.
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Debug, PartialEq)] struct Body(f32);
/// #[derive(Debug, PartialEq)] struct Transform(i32, i32);
/// #[derive(Debug, PartialEq)] struct Velocity(i32, i32);
/// #[derive(Debug, PartialEq)] struct Shield(u8);
///
/// #[derive(Schema)]
/// struct Space { body: Body, transform: Transform, velocity: Velocity, shield: Shield }
///
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Motion { transform: Transform, velocity: Velocity }
///
/// #[derive(Bundle, Debug, PartialEq)]
/// struct Ship {
///     body: Body,
///     #[bundle]
///     motion: Motion,
/// }
///
/// let mut world = World::<Space>::new();
/// let ship = world.spawn(Ship {
///     body: Body(2.5),
///     motion: Motion { transform: Transform(0, 0), velocity: Velocity(1, 0) },
/// });
/// assert_eq!(world.get::<Velocity>(ship), Some(&Velocity(1, 0)));
/// world.insert(ship, (Shield(3),)).unwrap();
///
/// // A bundle is removed whole, or not at all.
/// let motion: Option<Motion> = world.remove_bundle(ship).unwrap();
/// assert_eq!(motion, Some(Motion { transform: Transform(0, 0), velocity: Velocity(1, 0) }));
/// assert_eq!(world.archetype(ship), Some(SpaceMask::BODY | SpaceMask::SHIELD));
/// ```
///
/// [`World::spawn`]: crate::world::World::spawn
/// [`World::insert`]: crate::world::World::insert
/// [`World::remove_bundle`]: crate::world::World::remove_bundle
/// [`World::take`]: crate::world::World::take
/// [`World::exchange`]: crate::world::World::exchange
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle of schema `{S}`",
    label = "not a bundle of `{S}`",
    note = "a bundle is a tuple of distinct components of `{S}`, such as `(Pos(0), Vel(1))` \
            or `(Pos(0),)` for one component (up to 12 per tuple), or a struct of them \
            with `#[derive(Bundle)]`"
)]
pub trait Bundle<S: Layout>: Sized + 'static {
    /// The bundle's components, as bits.
    const BITS: u128;
    /// Fails to evaluate (a compile error) if a component appears twice.
    #[doc(hidden)]
    const CHECK: ();
    /// [`Bundle::CHECK`], and for a bundle being spawned or inserted, fails
    /// if it holds a relation's inverse list, which only the world writes.
    #[doc(hidden)]
    const INSERT_CHECK: () = {
        let () = Self::CHECK;
        let kept = Self::BITS & S::INVERSE_BITS;
        if kept != 0 {
            panic!("{}", S::KEPT_MESSAGES[kept.trailing_zeros() as usize]);
        }
    };

    /// Whether dropping a value of the bundle can run code. If not, a value
    /// it overwrites is dropped on the spot instead of going to the trash,
    /// and the world skips emptying the trash after it.
    #[doc(hidden)]
    const NEEDS_DROP: bool = core::mem::needs_drop::<Self>();

    /// Writes the values into the row of `target`.
    #[doc(hidden)]
    fn place(self, target: &mut Placement<'_, S>);

    /// Takes the values out of the row of `source`; every component must be present.
    #[doc(hidden)]
    fn take(source: &mut Placement<'_, S>) -> Self;

    /// Pushes each value onto the end of `columns[bit]` (one column per
    /// component bit, tags included): how a command buffer keeps a bundle.
    #[doc(hidden)]
    fn stage(self, columns: &mut [S::Column]);

    /// Appends a row per bundle of `bundles` to the table of `target`, whose
    /// mask is exactly this bundle's. Each row's entity is taken (from the
    /// ones allocated ahead, or allocated then) after the iterator has
    /// produced the row's values and before they are pushed; if the iterator
    /// panics or ends early, dropping `target` undoes the entities allocated
    /// ahead and never given values, so every column ends as long as the
    /// entity list.
    #[doc(hidden)]
    fn extend<I: Iterator<Item = Self>>(bundles: I, target: &mut SpawnRows<'_, S>);

    /// Calls `f` with the bit and the target of each relation value in the
    /// bundle (see [`Layout::RELATION_BITS`](crate::schema::Layout::RELATION_BITS)), in the order of its fields:
    /// how an insert checks that every target is alive, and that no relation
    /// closes a cycle it must not, before it changes anything.
    #[doc(hidden)]
    #[inline(always)]
    fn relation_targets(&self, f: &mut impl FnMut(u32, Entity)) {
        let _ = f;
    }

    /// The bundle's components, as a mask.
    #[inline]
    fn mask() -> S::Mask {
        S::Mask::from_u128(Self::BITS)
    }
}

/// One entity's row, as bundles see it: the row's table columns, the table's
/// mask, the mask the entity had before (to tell an overwrite from a new
/// value), and the world's tag bags, sparse sets and trash. The masks are
/// table masks: they never hold a sparse bit (a sparse value goes to its set,
/// under the entity's index, which tells an overwrite by itself).
#[doc(hidden)]
pub struct Placement<'a, S: Layout> {
    pub(crate) columns: &'a mut [S::Column],
    pub(crate) mask: S::Mask,
    pub(crate) previous: S::Mask,
    pub(crate) row: usize,
    /// The entity, for its sparse values.
    pub(crate) entity: EntityIndex,
    pub(crate) bins: &'a mut Bins<S>,
    /// The tick an overwritten tracked component is stamped changed with.
    pub(crate) tick: u32,
}

impl<'a, S: Layout> Placement<'a, S> {
    /// Row `row` of `table`, for an entity whose archetype was `previous`
    /// (the table's own mask when nothing is added).
    #[inline(always)]
    pub(crate) fn at(
        table: &'a mut Table<S>,
        row: TableRow,
        previous: S::Mask,
        bins: &'a mut Bins<S>,
        tick: u32,
    ) -> Self {
        let mask = table.mask();
        let (entities, columns) = table.split_mut();
        // Read only where a bundle can hold a sparse component: the
        // migration paths of other schemas keep their loads.
        let entity = if const { S::SPARSE_BITS != 0 } {
            entities[row.index()]
        } else {
            EntityIndex(u32::MAX)
        };
        Placement {
            columns,
            mask,
            previous,
            row: row.index(),
            entity,
            bins,
            tick,
        }
    }
}

impl<S: Layout> Placement<'_, S> {
    /// Puts `value` at the row: pushes it if the entity did not have `C` (the
    /// row is being built at the end), else overwrites the old value, which
    /// goes to the trash. A tag has no column: a new tag's value goes to the
    /// world's bag of that tag, and a repeated tag's new value to the trash.
    // Always inlined, as `place`/`take` below: inside the inlined migration
    // loop LLVM otherwise calls it out of line (docs/PERFORMANCE.md).
    #[inline(always)]
    pub fn put<C: Component<S>>(&mut self, value: C) {
        // The component's kind in `const` blocks: each copy of `put` (one
        // per component of each bundle) then holds only its kind's path,
        // and the others are not even built (docs/PERFORMANCE.md, "The
        // user's compile time").
        if const { is_sparse::<S>(C::BIT) } {
            self.bins.put_sparse(self.entity, value, self.tick);
            return;
        }
        let present = self.previous.has(C::BIT);
        if const { S::DATA_BITS & (1 << C::BIT) != 0 } {
            let column = &mut self.columns[self.mask.index(C::BIT)];
            if present && const { S::TRACKED_BITS & (1 << C::BIT) != 0 } {
                column.mark_changed(self.row, self.tick);
            }
            let values = C::values_mut(column);
            if present {
                let old = values.replace(self.row, value);
                self.bins.discard(old);
            } else {
                // A tracked column is stamped by the caller once the row is
                // complete.
                values.push(value);
            }
        } else if present {
            self.bins.discard(value);
        } else {
            self.bins.push_tag(value);
        }
    }

    /// Takes the value at the row out of its column (swap-remove), out of its
    /// sparse set, or one value out of the tag's bag. The component must be
    /// present.
    // Always inlined: see `put`.
    #[inline(always)]
    pub fn take<C: Component<S>>(&mut self) -> C {
        if const { is_sparse::<S>(C::BIT) } {
            return match self.bins.sparse_mut().take(self.entity) {
                Some(value) => value,
                None => crate::__private::sparse_value_missing::<S>(C::BIT),
            };
        }
        debug_assert!(self.mask.has(C::BIT));
        if const { S::DATA_BITS & (1 << C::BIT) != 0 } {
            let column = &mut self.columns[self.mask.index(C::BIT)];
            if const { S::TRACKED_BITS & (1 << C::BIT) != 0 } {
                column.swap_remove_ticks(self.row);
            }
            C::values_mut(column).swap_remove(self.row)
        } else {
            self.bins.pop_tag()
        }
    }
}

/// The end of one table, where [`World::spawn_batch`](crate::world::World::spawn_batch)
/// appends rows: its columns, the world's tag bags, and what adds each row's
/// entity.
#[doc(hidden)]
pub struct SpawnRows<'a, S: Layout> {
    pub(crate) columns: &'a mut [S::Column],
    pub(crate) bins: &'a mut Bins<S>,
    pub(crate) entities: NewRows<'a>,
    /// The tick sparse tracked values are added at (table rows are stamped
    /// after the batch).
    pub(crate) tick: u32,
}

/// Adds one entity per new row of a table: allocates it and records it in
/// the table's entity list. When the batch's length is known, the world
/// allocates that many entities and fills the entity list ahead, in bulk
/// (`ahead` of them are still waiting for their row's values); dropping this
/// undoes the ones that never got values, so that an iterator that panics or
/// ends early leaves the table's columns and entity list the same length.
pub(crate) struct NewRows<'a> {
    pub(crate) table: TableId,
    pub(crate) allocator: &'a mut Entities,
    pub(crate) rows: &'a mut Vec<EntityIndex>,
    pub(crate) ahead: u32,
}

impl NewRows<'_> {
    /// The entity of `row`, a row this batch has pushed.
    #[inline(always)]
    pub(crate) fn entity_of(&self, row: TableRow) -> EntityIndex {
        self.rows[row.index()]
    }

    /// A new entity in the next row, whose values the caller then pushes.
    ///
    /// # Panics
    ///
    /// If the entity indices run out, as [`World::spawn`](crate::world::World::spawn).
    #[inline(always)]
    pub(crate) fn push(&mut self) -> TableRow {
        if self.ahead != 0 {
            self.ahead -= 1;
            return TableRow((self.rows.len() - 1 - self.ahead as usize) as u32);
        }
        let row = TableRow(self.rows.len() as u32);
        match self.allocator.alloc(EntityLocation {
            table: self.table,
            row,
        }) {
            Ok(entity) => {
                self.rows.push(entity.into());
                row
            }
            Err(error) => panic!("{error}"),
        }
    }
}

impl Drop for NewRows<'_> {
    fn drop(&mut self) {
        if self.ahead != 0 {
            self.rows.truncate(self.rows.len() - self.ahead as usize);
            self.allocator.unalloc_fresh_run(self.ahead);
        }
    }
}

/// [`Bundle::extend`] one row at a time: each bundle is [placed](Bundle::place)
/// in a new row, tags going to the world's bags and sparse values to their
/// sets. What a derived bundle does, and a tuple with tags or sparse
/// components.
#[doc(hidden)]
#[inline(always)]
pub fn extend_row_by_row<S: Layout, B: Bundle<S>, I: Iterator<Item = B>>(
    bundles: I,
    target: &mut SpawnRows<'_, S>,
) {
    let SpawnRows {
        columns,
        bins,
        entities,
        tick,
    } = target;
    let mask = table_part::<S>(B::mask());
    for bundle in bundles {
        let row = entities.push();
        bundle.place(&mut Placement {
            columns,
            mask,
            previous: S::Mask::EMPTY,
            row: row.index(),
            entity: entities.entity_of(row),
            bins,
            // Nothing is overwritten; table rows are stamped after, sparse
            // values as they are added.
            tick: *tick,
        });
    }
}

/// [`Bundle::stage`] of one component: pushes `value` onto `columns[C::BIT]`.
#[doc(hidden)]
#[inline(always)]
pub fn stage_component<S: Layout, C: Component<S>>(value: C, columns: &mut [S::Column]) {
    C::values_mut(&mut columns[C::BIT as usize]).push(value);
}

impl<S: Layout> Bundle<S> for () {
    const BITS: u128 = 0;
    const CHECK: () = ();

    #[inline]
    fn place(self, _: &mut Placement<'_, S>) {}

    #[inline]
    fn take(_: &mut Placement<'_, S>) -> Self {}

    #[inline]
    fn stage(self, _: &mut [S::Column]) {}

    #[inline]
    fn extend<I: Iterator<Item = Self>>(bundles: I, target: &mut SpawnRows<'_, S>) {
        for () in bundles {
            target.entities.push();
        }
    }
}

macro_rules! impl_bundle {
    ($($i:tt $c:ident),+) => {
        impl<S: Layout, $($c: Component<S>),+> Bundle<S> for ($($c,)+) {
            const BITS: u128 = 0 $(| (1u128 << $c::BIT))+;
            #[allow(unused_assignments)]
            const CHECK: () = {
                let mut seen = 0u128;
                let mut repeated = 0u128;
                $(
                    repeated |= seen & (1u128 << $c::BIT);
                    seen |= 1u128 << $c::BIT;
                )+
                if repeated != 0 {
                    panic!("{}", S::BUNDLE_DUPLICATE_MESSAGES[repeated.trailing_zeros() as usize]);
                }
            };

            // Always inlined: see `Placement::put`.
            #[inline(always)]
            #[allow(non_snake_case)]
            fn place(self, target: &mut Placement<'_, S>) {
                let ($($c,)+) = self;
                $(target.put($c);)+
            }

            // Always inlined: see `Placement::put`.
            #[inline(always)]
            fn take(source: &mut Placement<'_, S>) -> Self {
                ($(source.take::<$c>(),)+)
            }

            #[inline(always)]
            fn relation_targets(&self, f: &mut impl FnMut(u32, Entity)) {
                $(
                    if S::RELATION_BITS & (1u128 << $c::BIT) != 0 {
                        if let Some(target) = self.$i.relation_target() {
                            f($c::BIT, target);
                        }
                    }
                )+
            }

            #[inline]
            #[allow(non_snake_case)]
            fn stage(self, columns: &mut [S::Column]) {
                let ($($c,)+) = self;
                $(stage_component::<S, $c>($c, columns);)+
            }

            #[inline]
            fn extend<Bundles: Iterator<Item = Self>>(
                bundles: Bundles,
                target: &mut SpawnRows<'_, S>,
            ) {
                // Every component has a column (no tags, no sparse sets):
                // borrow each component's `Vec` once, then push plain values,
                // with no column lookup or match per row. The borrow cannot
                // fail for a table of this mask (distinct bits, distinct
                // columns).
                if const { Self::BITS & (!S::DATA_BITS | S::SPARSE_BITS) == 0 } {
                    let SpawnRows { columns, entities, .. } = &mut *target;
                    let mask = table_part::<S>(<Self as Bundle<S>>::mask());
                    if let Ok(borrowed) = columns.get_disjoint_mut([$(mask.index($c::BIT)),+]) {
                        let mut borrowed = borrowed.into_iter();
                        let vecs = ($($c::values_mut(
                            borrowed.next().expect("one column per component"),
                        ),)+);
                        for bundle in bundles {
                            entities.push();
                            $(vecs.$i.push(bundle.$i);)+
                        }
                        return;
                    }
                }
                extend_row_by_row(bundles, target);
            }
        }
    };
}

impl_bundle!(0 A);
impl_bundle!(0 A, 1 B);
impl_bundle!(0 A, 1 B, 2 C);
impl_bundle!(0 A, 1 B, 2 C, 3 D);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K);
impl_bundle!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H, 8 I, 9 J, 10 K, 11 L);

/// Never implemented: the bound of the [`Bundle`] impls of tuples past 12
/// components, which never apply, so that such a bundle fails with this
/// message rather than with "not a bundle".
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a bundle takes at most 12 components, and this one has more",
    label = "more than 12 components",
    note = "tuples do not nest: spawn (or insert) up to 12 components, then `insert` the \
            rest, e.g. `world.insert(entity, (M, N))`, or gather them in a struct with \
            `#[derive(Bundle)]`"
)]
pub trait BundleTooLong<S> {}

macro_rules! bundle_too_long {
    ($($c:ident),+) => {
        impl<S: Layout, $($c: 'static),+> Bundle<S> for ($($c,)+)
        where
            Misuse: BundleTooLong<S>,
        {
            const BITS: u128 = 0;
            const CHECK: () = ();

            fn place(self, _: &mut Placement<'_, S>) {
                unreachable!("a misuse impl never applies")
            }

            fn take(_: &mut Placement<'_, S>) -> Self {
                unreachable!("a misuse impl never applies")
            }

            fn stage(self, _: &mut [S::Column]) {
                unreachable!("a misuse impl never applies")
            }

            fn extend<Bundles: Iterator<Item = Self>>(_: Bundles, _: &mut SpawnRows<'_, S>) {
                unreachable!("a misuse impl never applies")
            }
        }
    };
}

bundle_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M);
bundle_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
bundle_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
bundle_too_long!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);
