//! The values of recorded commands, staged in typed columns until the
//! commands are applied.

use super::column::{Column, Values};
use crate::layout::{Component, Layout};

/// The values of recorded bundles: one column per component bit (tags
/// included), each value pushed when its command is recorded. No type
/// erasure: a bundle's values go into the typed columns.
///
/// While the commands are replayed, each column is reversed, so that its last
/// value is the earliest one not applied yet: the one [`Staged::pop_into`]
/// moves.
#[doc(hidden)]
pub struct Staged<S: Layout> {
    /// Empty until the first bundle is recorded; then one column per bit.
    columns: Vec<S::Column>,
}

impl<S: Layout> Default for Staged<S> {
    fn default() -> Self {
        Staged {
            columns: Vec::new(),
        }
    }
}

impl<S: Layout> Staged<S> {
    /// The columns, one per bit, created at the first use.
    pub(crate) fn columns(&mut self) -> &mut [S::Column] {
        if self.columns.is_empty() {
            self.columns = (0..S::COMPONENT_NAMES.len() as u32)
                .map(S::new_column)
                .collect();
        }
        &mut self.columns
    }

    /// Moves the next value of component `bit` to the end of `to` (a column
    /// of the same component).
    #[inline]
    pub(crate) fn pop_into(&mut self, bit: u32, to: &mut S::Column) {
        // Without ticks: the structural operation stamps `to` when it is done.
        self.columns[bit as usize].pop_into(to);
    }

    /// Pushes `value` onto the end of its component's column: for a
    /// requirement's value, next in line for an insert of staged values.
    #[inline]
    pub fn push<C: Component<S>>(&mut self, value: C) {
        C::values_mut(&mut self.columns()[C::BIT as usize]).push(value);
    }

    /// Moves every value of `other` after the values here, column by column.
    pub(crate) fn append(&mut self, other: &mut Staged<S>) {
        if !other.columns.is_empty() {
            for (to, from) in self.columns().iter_mut().zip(&mut other.columns) {
                to.append(from);
            }
        }
    }

    /// Drops every value.
    pub(crate) fn clear(&mut self) {
        for column in &mut self.columns {
            column.clear();
        }
    }

    /// Reverses every column, so that its last value is the earliest one:
    /// the next one [`Staged::pop_into`] moves.
    pub(crate) fn reverse(&mut self) {
        for column in &mut self.columns {
            column.reverse();
        }
    }
}
