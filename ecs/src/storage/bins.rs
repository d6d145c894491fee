//! Per-component side storage of a world: the values of tags, the sparse
//! sets, and values on their way to being dropped.

use super::{Column, EntityIndex, SparseSets, Values};
use crate::layout::{Component, Layout};
use crate::mask::{BitIter, Mask, MaskBits};

/// Two columns per component bit, and the sparse sets, beside the tables.
///
/// * `tags[bit]` holds the values of tag `bit` that live entities have. A tag
///   (zero-sized component) has no table column, but its values are kept so that
///   `remove` can hand one back and each is dropped exactly once. A bag of
///   zero-sized values is only a length. Entries of data components stay empty.
/// * `trash[bit]` holds values of component `bit` that the world has let go of
///   (despawned, overwritten) but not dropped yet. Every operation moves such
///   values here and drops them only after its bookkeeping is complete, so a
///   panicking `Drop` can never leave the world half-updated.
/// * `sparse` holds the values of the `#[ecs(sparse)]` components, by entity
///   (see [`SparseSets`]); they sit here, beside the trash their overwritten
///   and removed values go to, so that every path that places or takes a
///   bundle's values reaches them with the bins it already holds.
pub(crate) struct Bins<S: Layout> {
    tags: Box<[S::Column]>,
    trash: Box<[S::Column]>,
    sparse: SparseSets<S>,
}

impl<S: Layout> Default for Bins<S> {
    fn default() -> Self {
        let columns = || {
            (0..S::COMPONENT_NAMES.len() as u32)
                .map(S::new_column)
                .collect()
        };
        Bins {
            tags: columns(),
            trash: columns(),
            sparse: SparseSets::default(),
        }
    }
}

impl<S: Layout> Clone for Bins<S>
where
    S::Column: Clone,
{
    fn clone(&self) -> Self {
        Bins {
            tags: self.tags.clone(),
            trash: self.trash.clone(),
            sparse: self.sparse.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        super::clone_slice_from(&mut self.tags, &source.tags);
        super::clone_slice_from(&mut self.trash, &source.trash);
        self.sparse.clone_from(&source.sparse);
    }
}

impl<S: Layout> Bins<S> {
    /// Drops every tag value.
    pub(crate) fn clear_tags(&mut self) {
        for bag in self.tags.iter_mut() {
            bag.clear();
        }
    }

    /// Moves every tag value of `other` into this world's bags (the tags
    /// of rows made apart from the world, now its own).
    pub(crate) fn absorb_tags(&mut self, other: &mut Bins<S>) {
        for (mine, theirs) in self.tags.iter_mut().zip(other.tags.iter_mut()) {
            if !theirs.is_empty() {
                mine.append(theirs);
            }
        }
    }

    /// The tag bags, by bit (empty for data components).
    pub(crate) fn tags(&self) -> &[S::Column] {
        &self.tags
    }

    /// The sparse sets.
    #[inline]
    pub(crate) fn sparse(&self) -> &SparseSets<S> {
        &self.sparse
    }

    /// The sparse sets, mutably.
    #[inline]
    pub(crate) fn sparse_mut(&mut self) -> &mut SparseSets<S> {
        &mut self.sparse
    }

    /// The sparse sets and the trash columns, by bit.
    #[inline]
    pub(crate) fn sparse_and_trash_mut(&mut self) -> (&mut SparseSets<S>, &mut [S::Column]) {
        (&mut self.sparse, &mut self.trash)
    }

    /// Gives entity `index` the value of sparse component `C`; see
    /// [`SparseSets::put`] (an old value goes to the trash).
    #[inline]
    pub(crate) fn put_sparse<C: Component<S>>(&mut self, index: EntityIndex, value: C, tick: u32) {
        self.sparse.put(index, value, &mut self.trash, tick);
    }

    /// Keeps a value of tag `C` for an entity that now has it.
    #[inline]
    pub(crate) fn push_tag<C: Component<S>>(&mut self, value: C) {
        C::column_mut(&mut self.tags[C::BIT as usize]).push(value);
    }

    /// Takes back a value of tag `C` from an entity that loses it.
    #[inline]
    pub(crate) fn pop_tag<C: Component<S>>(&mut self) -> C {
        match C::column_mut(&mut self.tags[C::BIT as usize]).pop() {
            Some(value) => value,
            None => crate::__private::tag_bag_empty::<S>(C::BIT),
        }
    }

    /// A value of tag `C`: all values of a zero-sized type are alike.
    #[inline]
    pub(crate) fn tag<C: Component<S>>(&self) -> Option<&C> {
        C::column(&self.tags[C::BIT as usize]).first()
    }

    /// A value of tag `C`, mutably.
    #[inline]
    pub(crate) fn tag_mut<C: Component<S>>(&mut self) -> Option<&mut C> {
        C::column_mut(&mut self.tags[C::BIT as usize]).first_mut()
    }

    /// Moves one value of each tag of `tags` to the trash (an entity with
    /// those tags is going away).
    pub(crate) fn discard_tags(&mut self, tags: S::Mask) {
        for bit in tags.intersection(S::Mask::TAGS).iter_bits() {
            let bag = &mut self.tags[bit as usize];
            if let Some(last) = bag.len().checked_sub(1) {
                bag.discard_row(last, &mut self.trash[bit as usize]);
            }
        }
    }

    /// Puts `value` in the trash, to be dropped once the operation is
    /// done; a value whose drop runs nothing is dropped here.
    #[inline]
    pub(crate) fn discard<C: Component<S>>(&mut self, value: C) {
        if core::mem::needs_drop::<C>() {
            C::values_mut(&mut self.trash[C::BIT as usize]).push(value);
        }
    }

    /// The tag bags and the trash columns, by bit.
    #[inline]
    pub(crate) fn tags_and_trash_mut(&mut self) -> (&mut [S::Column], &mut [S::Column]) {
        (&mut self.tags, &mut self.trash)
    }

    /// The trash columns, by bit, for moving table rows into.
    #[inline]
    pub(crate) fn trash_mut(&mut self) -> &mut [S::Column] {
        &mut self.trash
    }

    /// Drops the trashed values of the components of `bits`. Call it once the
    /// world is consistent: a `Drop` that panics here leaves it so, and the
    /// other values are still dropped (as a `Vec` does for its elements).
    #[inline]
    pub(crate) fn empty_trash(&mut self, bits: S::Mask) {
        /// Empties the columns not reached yet when dropped: only happens
        /// while unwinding out of one column's `clear`.
        struct Remaining<'a, C: Column, B: MaskBits> {
            trash: &'a mut [C],
            bits: BitIter<B>,
        }

        impl<C: Column, B: MaskBits> Drop for Remaining<'_, C, B> {
            fn drop(&mut self) {
                for bit in &mut self.bits {
                    self.trash[bit as usize].clear();
                }
            }
        }

        let mut remaining = Remaining {
            trash: &mut self.trash,
            bits: bits.iter_bits(),
        };
        for bit in remaining.bits.by_ref() {
            remaining.trash[bit as usize].clear();
        }
    }

    /// Takes every tag value out (for [`World::clear`](crate::world::World::clear)),
    /// leaving empty bags.
    pub(crate) fn take_tags(&mut self) -> Box<[S::Column]> {
        let empty = (0..S::COMPONENT_NAMES.len() as u32)
            .map(S::new_column)
            .collect();
        core::mem::replace(&mut self.tags, empty)
    }
}
