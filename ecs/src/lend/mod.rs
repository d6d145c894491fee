//! Lending one world to several borrowers at once, without `unsafe`: every
//! column and every resource in a [`Lent`] slot of its own, handed out to one
//! writer or to any number of readers.
//!
//! Queries take their columns from here (one table at a time, or every table
//! of a [`SplitWorld`]), and so do the systems of one schedule stage; both
//! sit above this module, and it knows neither. [`Lent`] itself knows no
//! schema, so that the schema's resource slots can be made of it.

mod split;

pub(crate) use split::recycle;
pub(crate) use split::SplitBuffers;
pub(crate) use split::SplitWorld;

/// One column or resource being lent out: free, lent to readers, or lent to
/// one writer.
///
/// A slot hands out one exclusive borrow, or any number of shared ones. A
/// borrow that would alias panics: the compile-time checks of queries and
/// systems and the schedule's plan make that unreachable, so the panic is a
/// last line of defence.
#[doc(hidden)]
pub enum Lent<'a, T> {
    /// Not lent yet.
    Free(&'a mut T),
    /// Lent to readers.
    Shared(&'a T),
    /// Lent to a writer.
    Taken,
}

pub(crate) const ALIASING: &str =
    "schemecs internal error: a column or resource was lent to a writer and to \
                        another borrower at once; the conflict checks of queries, systems \
                        and the schedule should have prevented this";

impl<'a, T> Lent<'a, T> {
    /// The value, shared with any other readers.
    #[inline]
    pub(crate) fn shared(&mut self) -> &'a T {
        let value: &'a T = match core::mem::replace(self, Lent::Taken) {
            Lent::Free(value) => value,
            Lent::Shared(value) => value,
            Lent::Taken => panic!("{ALIASING}"),
        };
        *self = Lent::Shared(value);
        value
    }

    /// The value, for one writer.
    #[inline]
    pub(crate) fn exclusive(&mut self) -> &'a mut T {
        match core::mem::replace(self, Lent::Taken) {
            Lent::Free(value) => value,
            _ => panic!("{ALIASING}"),
        }
    }
}
