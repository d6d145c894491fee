//! Sparse sets: the storage of the components marked `#[ecs(sparse)]`.
//!
//! A sparse component keeps its bit in the schema's mask (so queries, access
//! checks and messages treat it like any other), but no table's mask ever
//! holds a sparse bit: an entity's table is chosen by its other components,
//! and inserting or removing a sparse component moves nothing but the
//! component's own value. An entity's full archetype is its table's mask
//! plus [`SparseSets::mask_of`] its index.
//!
//! Each sparse component has one [`SparseSet`]:
//!
//! ```text
//! slots  (by entity index):  [ABSENT, 1, ABSENT, 0, ...]   entity -> dense slot
//! owners (by dense slot):    [3, 1]                        dense slot -> entity
//! values (by dense slot):    [v3, v1]                      a column of the component
//! ```
//!
//! `slots[owners[d]] == d` for every dense slot `d`, and `values` (with its
//! ticks, for a tracked component) is as long as `owners`. Removal is a
//! swap-remove of the dense slot, which moves the last owner into it and fixes
//! that owner's entry of `slots`. The dense order is therefore the order of
//! insertions disturbed by removals; queries never iterate in it (they go by
//! table rows and look each entity up), so it does not show in any result.
//!
//! The values live in the schema's own column type, so the tracked ticks,
//! cloning, saving and hashing of columns serve sparse values unchanged.

use crate::entity::Entity;
use crate::layout::{Component, Layout};
use crate::mask::Mask;
use crate::storage::{Column, EntityIndex, Staged};

/// The entry of [`SparseSet::slots`] of an entity without the component.
pub(crate) const ABSENT: u32 = u32::MAX;

/// The values of one sparse component, by entity; see the module docs.
pub(crate) struct SparseSet<S: Layout> {
    /// The values, densely, in the column type of the schema.
    values: S::Column,
    /// Which entity owns which dense slot.
    index: SparseIndex,
}

/// The owners of a sparse set's dense slots and, by entity, each one's
/// slot: everything of a [`SparseSet`] but its values, so that the two can
/// be lent apart (queries take the values only; a
/// [`SparseMut`](crate::command::SparseMut) takes both).
#[derive(Clone, Default)]
pub(crate) struct SparseIndex {
    /// The entity owning each dense slot.
    owners: Vec<EntityIndex>,
    /// By entity index, its dense slot, or [`ABSENT`]; entries past the end
    /// are absent too (the vector grows only as entities gain the component).
    slots: Vec<u32>,
}

impl SparseIndex {
    /// The dense slot of entity `index`, if it has the component.
    #[inline]
    pub(crate) fn slot(&self, index: EntityIndex) -> Option<usize> {
        match self.slots.get(index.0 as usize) {
            Some(&slot) if slot != ABSENT => Some(slot as usize),
            _ => None,
        }
    }

    /// The owner of each dense slot.
    #[inline]
    pub(crate) fn owners(&self) -> &[EntityIndex] {
        &self.owners
    }

    /// The dense slot of entity `index` if it has the component; otherwise
    /// records `index` as the owner of the next dense slot, whose value the
    /// caller pushes at once, and returns `None`. One lookup of the entity's
    /// entry serves both cases.
    #[inline]
    pub(crate) fn slot_or_claim(&mut self, index: EntityIndex) -> Option<usize> {
        let at = index.0 as usize;
        let entry = match self.slots.get_mut(at) {
            Some(entry) => entry,
            None => grow(&mut self.slots, at),
        };
        if *entry != ABSENT {
            return Some(*entry as usize);
        }
        *entry = self.owners.len() as u32;
        self.owners.push(index);
        None
    }

    /// Forgets that entity `index` has the component, if it has: returns
    /// its dense slot, whose value the caller swap-removes at once, and
    /// moves the last owner into that slot. The entity's entry is looked up
    /// once and the entries borrowed once, so that the fix-up of the moved
    /// owner needs no second check of the first.
    #[inline]
    pub(crate) fn release(&mut self, index: EntityIndex) -> Option<usize> {
        let slots = &mut self.slots[..];
        let entry = slots.get_mut(index.0 as usize)?;
        if *entry == ABSENT {
            return None;
        }
        let dense = core::mem::replace(entry, ABSENT) as usize;
        self.owners.swap_remove(dense);
        if let Some(&moved) = self.owners.get(dense) {
            slots[moved.0 as usize] = dense as u32;
        }
        Some(dense)
    }

    fn clear(&mut self) {
        self.owners.clear();
        self.slots.clear();
    }
}

/// Makes room in a [`SparseIndex`]'s entries for entity index `at` and
/// returns its entry (out of line: once per new highest index).
#[cold]
#[inline(never)]
fn grow(slots: &mut Vec<u32>, at: usize) -> &mut u32 {
    slots.resize(at + 1, ABSENT);
    &mut slots[at]
}

impl<S: Layout> Clone for SparseSet<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        SparseSet {
            values: self.values.clone(),
            index: self.index.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.values.clone_from(&source.values);
        self.index.owners.clone_from(&source.index.owners);
        self.index.slots.clone_from(&source.index.slots);
    }
}

impl<S: Layout> SparseSet<S> {
    fn new(bit: u32) -> Self {
        SparseSet {
            values: S::new_column(bit),
            index: SparseIndex::default(),
        }
    }

    /// A set of the given values and their owners (a loaded save, whose
    /// caller has checked that every owner is alive and that there are as
    /// many values as owners); `Err` with an owner named twice.
    #[cfg(feature = "serde")]
    pub(crate) fn from_parts(
        values: S::Column,
        owners: Vec<EntityIndex>,
    ) -> Result<Self, EntityIndex> {
        let mut slots = Vec::new();
        for (dense, &owner) in owners.iter().enumerate() {
            let index = owner.0 as usize;
            if slots.len() <= index {
                slots.resize(index + 1, ABSENT);
            }
            if slots[index] != ABSENT {
                return Err(owner);
            }
            slots[index] = dense as u32;
        }
        Ok(SparseSet {
            values,
            index: SparseIndex { owners, slots },
        })
    }

    /// The dense slot of entity `index`, if it has the component.
    #[inline]
    pub(crate) fn slot(&self, index: EntityIndex) -> Option<usize> {
        self.index.slot(index)
    }

    /// Bit `i` set where `entities[i]` (at most 64 of them) has the
    /// component.
    #[inline]
    pub(crate) fn presence(&self, entities: &[EntityIndex]) -> u64 {
        if self.index.owners.is_empty() {
            return 0;
        }
        let slots = &self.index.slots;
        entities.iter().enumerate().fold(0, |word, (i, index)| {
            let present = slots.get(index.0 as usize).is_some_and(|&s| s != ABSENT);
            word | u64::from(present) << i
        })
    }

    /// Takes entity `index`'s value out, to the end of `trash` (a column of
    /// the same component) if it has drop glue ([`Column::discard_row`]);
    /// whether it had one.
    #[inline]
    fn discard(&mut self, index: EntityIndex, trash: &mut S::Column) -> bool {
        let Some(dense) = self.index.release(index) else {
            return false;
        };
        self.values.discard_row(dense, trash);
        true
    }

    /// The values, by dense slot.
    #[inline]
    pub(crate) fn values(&self) -> &S::Column {
        &self.values
    }

    /// The values, by dense slot, mutably: no value may be added or removed
    /// through it.
    #[inline]
    pub(crate) fn values_mut(&mut self) -> &mut S::Column {
        &mut self.values
    }

    /// The owner of each dense slot.
    #[inline]
    pub(crate) fn owners(&self) -> &[EntityIndex] {
        self.index.owners()
    }

    /// The values (no value may be added or removed through them but
    /// together with the index) and the index, apart, for lending out.
    #[inline]
    pub(crate) fn parts_mut(&mut self) -> (&mut S::Column, &mut SparseIndex) {
        (&mut self.values, &mut self.index)
    }
}

/// The sparse sets of a world: one [`SparseSet`] per sparse component, in bit
/// order. Empty (and never consulted: every use is behind a constant
/// `S::SPARSE_BITS != 0`) in a schema without sparse components.
pub(crate) struct SparseSets<S: Layout> {
    sets: Box<[SparseSet<S>]>,
}

impl<S: Layout> Default for SparseSets<S> {
    fn default() -> Self {
        SparseSets {
            sets: sparse_bits::<S>().map(SparseSet::new).collect(),
        }
    }
}

impl<S: Layout> Clone for SparseSets<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        SparseSets {
            sets: self.sets.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        super::clone_slice_from(&mut self.sets, &source.sets);
    }
}

/// The sparse component bits of `S`, lowest first.
#[inline]
pub(crate) fn sparse_bits<S: Layout>() -> impl Iterator<Item = u32> {
    S::Mask::from_u128(S::SPARSE_BITS).iter_bits()
}

/// Whether component `bit` of `S` is sparse.
#[inline(always)]
pub(crate) const fn is_sparse<S: Layout>(bit: u32) -> bool {
    S::SPARSE_BITS & (1u128 << bit) != 0
}

/// The part of `mask` a table holds: every bit but the sparse ones.
#[inline(always)]
pub(crate) fn table_part<S: Layout>(mask: S::Mask) -> S::Mask {
    if const { S::SPARSE_BITS == 0 } {
        mask
    } else {
        mask.difference(S::Mask::from_u128(S::SPARSE_BITS))
    }
}

impl<S: Layout> SparseSets<S> {
    /// Sets of the given parts, one per sparse bit in order: a loaded save,
    /// whose caller has checked the parts.
    #[cfg(feature = "serde")]
    pub(crate) fn from_sets(sets: Vec<SparseSet<S>>) -> Self {
        SparseSets { sets: sets.into() }
    }

    /// The set of sparse component `bit`.
    #[inline(always)]
    pub(crate) fn set(&self, bit: u32) -> &SparseSet<S> {
        &self.sets[position::<S>(bit)]
    }

    #[inline(always)]
    fn set_mut(&mut self, bit: u32) -> &mut SparseSet<S> {
        &mut self.sets[position::<S>(bit)]
    }

    /// Every set, in bit order (with [`sparse_bits`]).
    #[inline]
    pub(crate) fn sets(&self) -> &[SparseSet<S>] {
        &self.sets
    }

    /// Every set, mutably, in bit order, for lending out.
    #[inline]
    pub(crate) fn sets_mut(&mut self) -> &mut [SparseSet<S>] {
        &mut self.sets
    }

    /// Whether entity `index` has sparse component `bit`.
    #[inline]
    pub(crate) fn has(&self, bit: u32, index: EntityIndex) -> bool {
        self.set(bit).slot(index).is_some()
    }

    /// The sparse components entity `index` has.
    #[inline]
    pub(crate) fn mask_of(&self, index: EntityIndex) -> S::Mask {
        let mut mask = S::Mask::EMPTY;
        if const { S::SPARSE_BITS != 0 } {
            for (set, bit) in self.sets.iter().zip(sparse_bits::<S>()) {
                if set.slot(index).is_some() {
                    mask = mask.with(bit);
                }
            }
        }
        mask
    }

    /// Entity `index`'s value of sparse component `C`.
    #[inline]
    pub(crate) fn get<C: Component<S>>(&self, index: EntityIndex) -> Option<&C> {
        let set = self.set(C::BIT);
        let dense = set.slot(index)?;
        C::column(&set.values).get(dense)
    }

    /// Entity `index`'s value of sparse component `C`, mutably; a tracked
    /// one is marked changed at `tick`.
    #[inline]
    pub(crate) fn get_mut<C: Component<S>>(
        &mut self,
        index: EntityIndex,
        tick: u32,
    ) -> Option<&mut C> {
        let set = self.set_mut(C::BIT);
        let dense = set.slot(index)?;
        if const { S::TRACKED_BITS & (1u128 << C::BIT) != 0 } {
            set.values.mark_changed(dense, tick);
        }
        C::column_mut(&mut set.values).get_mut(dense)
    }

    /// The (added, changed) ticks of entity `index`'s value of tracked
    /// sparse component `bit`, if it has one.
    #[inline]
    pub(crate) fn row_ticks(&self, bit: u32, index: EntityIndex) -> Option<(u32, u32)> {
        let set = self.set(bit);
        set.values.row_ticks(set.slot(index)?)
    }

    /// Sets the ticks of entity `index`'s value of tracked sparse component
    /// `bit`; nothing if it has none.
    #[inline]
    pub(crate) fn set_row_ticks(&mut self, bit: u32, index: EntityIndex, ticks: (u32, u32)) {
        let set = self.set_mut(bit);
        if let Some(dense) = set.slot(index) {
            set.values.set_row_ticks(dense, ticks);
        }
    }

    /// Gives entity `index` the value of `C`: pushed as added at `tick` if
    /// it had none, else written over the old value (which goes to `trash`;
    /// a tracked value is marked changed at `tick`).
    #[inline]
    pub(crate) fn put<C: Component<S>>(
        &mut self,
        index: EntityIndex,
        value: C,
        trash: &mut [S::Column],
        tick: u32,
    ) {
        let set = self.set_mut(C::BIT);
        match set.index.slot_or_claim(index) {
            Some(dense) => {
                if const { S::TRACKED_BITS & (1u128 << C::BIT) != 0 } {
                    set.values.mark_changed(dense, tick);
                }
                let old = core::mem::replace(&mut C::column_mut(&mut set.values)[dense], value);
                // The trash keeps values whose drop runs code until the
                // operation is done; any other is dropped here.
                if core::mem::needs_drop::<C>() {
                    C::column_mut(&mut trash[C::BIT as usize]).push(old);
                }
            }
            None => {
                C::column_mut(&mut set.values).push(value);
                if const { S::TRACKED_BITS & (1u128 << C::BIT) != 0 } {
                    set.values.sync_ticks(tick);
                }
            }
        }
    }

    /// Takes entity `index`'s value of `C` out, if it has one.
    #[inline]
    pub(crate) fn take<C: Component<S>>(&mut self, index: EntityIndex) -> Option<C> {
        let set = self.set_mut(C::BIT);
        let dense = set.index.release(index)?;
        if const { S::TRACKED_BITS & (1u128 << C::BIT) != 0 } {
            set.values.swap_remove_ticks(dense);
        }
        Some(C::column_mut(&mut set.values).swap_remove(dense))
    }

    /// Moves entity `index`'s value of sparse component `bit` to `trash`;
    /// whether it had one.
    #[inline]
    pub(crate) fn discard(
        &mut self,
        bit: u32,
        index: EntityIndex,
        trash: &mut [S::Column],
    ) -> bool {
        self.set_mut(bit).discard(index, &mut trash[bit as usize])
    }

    /// [`SparseSets::discard_all`] of each of `entities`, which are being
    /// despawned together and whose slots `freed` now tells (the sets hold
    /// no other dead entity), set by set. A set holding fewer values than
    /// there are entities looks at its own owners instead (the values left
    /// keep an order of their own), unless it is tracked: then the
    /// positions in `entities` of those that had a value are appended, in
    /// order, to the set's list in `released` (one list per set). Returns
    /// the components some entity had.
    pub(crate) fn discard_many(
        &mut self,
        entities: &[Entity],
        freed: impl Fn(EntityIndex) -> bool,
        trash: &mut [S::Column],
        released: &mut [Vec<u32>],
    ) -> S::Mask {
        let mut lost = S::Mask::EMPTY;
        for (set, released) in self.sets.iter_mut().zip(released) {
            let bit = set.values.bit();
            let trash = &mut trash[bit as usize];
            let tracked = S::TRACKED_BITS & (1u128 << bit) != 0;
            let before = set.index.owners.len();
            if !tracked && before < entities.len() {
                // Last slot first: a value moved into a slot left is one
                // already looked at.
                for dense in (0..before).rev() {
                    let owner = set.index.owners[dense];
                    if freed(owner) {
                        set.discard(owner, trash);
                    }
                }
            } else {
                for (position, &entity) in (0..).zip(entities) {
                    if set.discard(entity.into(), trash) && tracked {
                        released.push(position);
                    }
                }
            }
            if set.index.owners.len() < before {
                lost = lost.with(bit);
            }
        }
        lost
    }

    /// The number of sparse sets (of sparse components in the schema).
    pub(crate) fn len(&self) -> usize {
        self.sets.len()
    }

    /// Moves every sparse value of entity `index` to `trash` (it is being
    /// despawned); returns the components it had.
    #[inline]
    pub(crate) fn discard_all(&mut self, index: EntityIndex, trash: &mut [S::Column]) -> S::Mask {
        let mut lost = S::Mask::EMPTY;
        if const { S::SPARSE_BITS != 0 } {
            // Each set is asked for the entity without its bit: no set's
            // position is counted from its bit (a popcount per set, which
            // with default flags is a dozen instructions beside a lookup of
            // a few), and the bit is read off the values only for a set
            // that holds the entity, most often none of them.
            for set in self.sets.iter_mut() {
                if let Some(dense) = set.index.release(index) {
                    let bit = set.values.bit();
                    set.values.discard_row(dense, &mut trash[bit as usize]);
                    lost = lost.with(bit);
                }
            }
        }
        lost
    }

    /// Gives entity `index` the next staged value of sparse component `bit`,
    /// as [`SparseSets::put`] does.
    pub(crate) fn put_staged(
        &mut self,
        bit: u32,
        index: EntityIndex,
        staged: &mut Staged<S>,
        trash: &mut [S::Column],
        tick: u32,
    ) {
        let set = self.set_mut(bit);
        // One lookup of the entity's entry: its slot, or the next one
        // claimed for the value pushed here.
        match set.index.slot_or_claim(index) {
            Some(dense) => {
                let old_ticks = set.values.row_ticks(dense);
                staged.pop_into(bit, &mut set.values);
                set.values.sync_ticks(tick);
                // The old value goes (to the trash if it has drop glue) and
                // the new one, last, takes its slot: for a tracked
                // component, a change.
                set.values.discard_row(dense, &mut trash[bit as usize]);
                if let Some((added, _)) = old_ticks {
                    set.values.set_row_ticks(dense, (added, tick));
                }
            }
            None => {
                staged.pop_into(bit, &mut set.values);
                set.values.sync_ticks(tick);
            }
        }
    }

    /// Empties every set, returning the values for the caller to drop once
    /// the world is consistent.
    pub(crate) fn take_values(&mut self) -> Vec<S::Column> {
        self.sets
            .iter_mut()
            .zip(sparse_bits::<S>())
            .map(|(set, bit)| {
                set.index.clear();
                core::mem::replace(&mut set.values, S::new_column(bit))
            })
            .collect()
    }

    /// Clamps the ticks of every tracked set (see [`crate::change`]).
    pub(crate) fn clamp_ticks(&mut self, now: u32) {
        for set in self.sets.iter_mut() {
            set.values.clamp_ticks(now);
        }
    }
}

/// The position of sparse component `bit` among the sparse components.
#[inline(always)]
pub(crate) fn position<S: Layout>(bit: u32) -> usize {
    (S::SPARSE_BITS & ((1u128 << bit) - 1)).count_ones() as usize
}
