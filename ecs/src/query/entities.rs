//! [`TableEntities`]: the entities of a table's rows, as the table form of a
//! query and the slice of an [`Entity`] item hand them out.

use crate::entity::{Entities, Entity};
use crate::storage::EntityIndex;
use core::fmt;
use core::iter::FusedIterator;

/// The entities of a table's rows (or of a row range), in row order: the
/// [`TableChunk::entities`](super::TableChunk::entities) of a chunk, and the slice of an [`Entity`] item
/// in the table form. A view of the table: it yields each [`Entity`] with
/// its generation, read from the world, as it goes.
#[derive(Clone, Copy)]
pub struct TableEntities<'a> {
    /// The rows' entities, by slot index.
    indices: &'a [EntityIndex],
    /// The world's entities, for the generations.
    entities: &'a Entities,
}

impl<'a> TableEntities<'a> {
    #[inline]
    pub(crate) fn new(indices: &'a [EntityIndex], entities: &'a Entities) -> Self {
        TableEntities { indices, entities }
    }

    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether there is no row.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The entity of row `row`; `None` past the end.
    #[inline]
    pub fn get(&self, row: usize) -> Option<Entity> {
        let index = *self.indices.get(row)?;
        Some(self.entities.entity(index))
    }

    /// The entities in row order.
    #[inline]
    pub fn iter(&self) -> TableEntitiesIter<'a> {
        TableEntitiesIter {
            indices: self.indices.iter(),
            entities: self.entities,
        }
    }

    /// The entity of row `row`, which must exist.
    #[inline]
    pub(crate) fn entity(&self, row: usize) -> Entity {
        self.entities.entity(self.indices[row])
    }

    /// The first row's entity, dropping it from the view.
    #[inline]
    pub(crate) fn take_first(&mut self) -> Option<Entity> {
        let (first, rest) = self.indices.split_first()?;
        self.indices = rest;
        Some(self.entities.entity(*first))
    }

    /// Rows `..mid` and `mid..`.
    #[inline]
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
        let (head, tail) = self.indices.split_at(mid);
        (
            TableEntities {
                indices: head,
                ..self
            },
            TableEntities {
                indices: tail,
                ..self
            },
        )
    }
}

/// No rows.
impl Default for TableEntities<'_> {
    fn default() -> Self {
        static NONE: Entities = Entities::new();
        TableEntities {
            indices: &[],
            entities: &NONE,
        }
    }
}

impl fmt::Debug for TableEntities<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for TableEntities<'a> {
    type Item = Entity;
    type IntoIter = TableEntitiesIter<'a>;

    #[inline]
    fn into_iter(self) -> TableEntitiesIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &TableEntities<'a> {
    type Item = Entity;
    type IntoIter = TableEntitiesIter<'a>;

    #[inline]
    fn into_iter(self) -> TableEntitiesIter<'a> {
        self.iter()
    }
}

/// Iterator over a [`TableEntities`], in row order.
#[derive(Clone)]
pub struct TableEntitiesIter<'a> {
    indices: core::slice::Iter<'a, EntityIndex>,
    entities: &'a Entities,
}

impl Iterator for TableEntitiesIter<'_> {
    type Item = Entity;

    #[inline]
    fn next(&mut self) -> Option<Entity> {
        let index = *self.indices.next()?;
        Some(self.entities.entity(index))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.indices.size_hint()
    }
}

impl DoubleEndedIterator for TableEntitiesIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Entity> {
        let index = *self.indices.next_back()?;
        Some(self.entities.entity(index))
    }
}

impl ExactSizeIterator for TableEntitiesIter<'_> {}

impl FusedIterator for TableEntitiesIter<'_> {}
