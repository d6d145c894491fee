//! Bundles: tuples of components inserted or removed together.

use crate::mask::Mask;
use crate::schema::{Component, Schema};
use crate::storage::{Bins, Table, TableRow};

/// A tuple of distinct components of schema `S`: what [`World::spawn`],
/// [`World::insert`] and [`World::remove_bundle`] take. Implemented for tuples
/// of up to 12 components (and `()`, the empty bundle).
///
/// Naming one component twice, as in `(Pos(0), Pos(1))`, fails to compile.
///
/// [`World::spawn`]: crate::World::spawn
/// [`World::insert`]: crate::World::insert
/// [`World::remove_bundle`]: crate::World::remove_bundle
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a bundle of schema `{S}`",
    label = "not a bundle of `{S}`",
    note = "a bundle is a tuple of distinct components of `{S}`, such as `(Pos(0), Vel(1))` \
            or `(Pos(0),)` for one component; up to 12 per tuple"
)]
pub trait Bundle<S: Schema>: Sized + 'static {
    /// The bundle's components, as bits.
    const BITS: u128;
    /// Fails to evaluate (a compile error) if a component appears twice.
    #[doc(hidden)]
    const CHECK: ();

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

    /// The bundle's components, as a mask.
    #[inline]
    fn mask() -> S::Mask {
        S::Mask::from_u128(Self::BITS)
    }
}

/// One entity's row, as bundles see it: the row's table columns, the table's
/// mask, the mask the entity had before (to tell an overwrite from a new
/// value), and the world's tag bags and trash.
#[doc(hidden)]
pub struct Placement<'a, S: Schema> {
    pub(crate) columns: &'a mut [S::Column],
    pub(crate) mask: S::Mask,
    pub(crate) previous: S::Mask,
    pub(crate) row: usize,
    pub(crate) bins: &'a mut Bins<S>,
}

impl<'a, S: Schema> Placement<'a, S> {
    /// Row `row` of `table`, for an entity whose archetype was `previous`
    /// (the table's own mask when nothing is added).
    #[inline(always)]
    pub(crate) fn at(
        table: &'a mut Table<S>,
        row: TableRow,
        previous: S::Mask,
        bins: &'a mut Bins<S>,
    ) -> Self {
        let mask = table.mask();
        let (_, columns) = table.split_mut();
        Placement {
            columns,
            mask,
            previous,
            row: row.index(),
            bins,
        }
    }
}

impl<S: Schema> Placement<'_, S> {
    /// Puts `value` at the row: pushes it if the entity did not have `C` (the
    /// row is being built at the end), else overwrites the old value, which
    /// goes to the trash. A tag has no column: a new tag's value goes to the
    /// world's bag of that tag, and a repeated tag's new value to the trash.
    // Always inlined, as `place`/`take` below: in the inlined `World::insert`
    // loop LLVM otherwise calls it out of line (add_remove: 169 -> 160 instr/op).
    #[inline(always)]
    pub fn put<C: Component<S>>(&mut self, value: C) {
        let present = self.previous.has(C::BIT);
        if S::Mask::DATA.has(C::BIT) {
            let values = C::column_mut(&mut self.columns[self.mask.index(C::BIT)]);
            if present {
                let old = core::mem::replace(&mut values[self.row], value);
                self.bins.discard(old);
            } else {
                values.push(value);
            }
        } else if present {
            self.bins.discard(value);
        } else {
            self.bins.push_tag(value);
        }
    }

    /// Takes the value at the row out of its column (swap-remove), or one value
    /// out of the tag's bag. The component must be present.
    // Always inlined: see `put`.
    #[inline(always)]
    pub fn take<C: Component<S>>(&mut self) -> C {
        debug_assert!(self.mask.has(C::BIT));
        if S::Mask::DATA.has(C::BIT) {
            C::column_mut(&mut self.columns[self.mask.index(C::BIT)]).swap_remove(self.row)
        } else {
            self.bins.pop_tag()
        }
    }
}

impl<S: Schema> Bundle<S> for () {
    const BITS: u128 = 0;
    const CHECK: () = ();

    #[inline]
    fn place(self, _: &mut Placement<'_, S>) {}

    #[inline]
    fn take(_: &mut Placement<'_, S>) -> Self {}

    #[inline]
    fn stage(self, _: &mut [S::Column]) {}
}

macro_rules! impl_bundle {
    ($($c:ident),+) => {
        impl<S: Schema, $($c: Component<S>),+> Bundle<S> for ($($c,)+) {
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

            #[inline]
            #[allow(non_snake_case)]
            fn stage(self, columns: &mut [S::Column]) {
                let ($($c,)+) = self;
                $($c::column_mut(&mut columns[$c::BIT as usize]).push($c);)+
            }
        }
    };
}

impl_bundle!(A);
impl_bundle!(A, B);
impl_bundle!(A, B, C);
impl_bundle!(A, B, C, D);
impl_bundle!(A, B, C, D, E);
impl_bundle!(A, B, C, D, E, F);
impl_bundle!(A, B, C, D, E, F, G);
impl_bundle!(A, B, C, D, E, F, G, H);
impl_bundle!(A, B, C, D, E, F, G, H, I);
impl_bundle!(A, B, C, D, E, F, G, H, I, J);
impl_bundle!(A, B, C, D, E, F, G, H, I, J, K);
impl_bundle!(A, B, C, D, E, F, G, H, I, J, K, L);
