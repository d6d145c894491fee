//! [`Local`]: state a system keeps from one run to the next, kept in the
//! world it runs on; and, with feature `serde`, `SavedLocal`: the same, and
//! written by a save.
//!
//! A system's local state can change what the system does next (a cooldown,
//! a counter, a cache of last frame's targets), so it is world state: if it
//! lived in the [`Schedule`](crate::schedule::Schedule), a world restored from a
//! snapshot (`clone_from`, a rollback) or loaded from a save would go on with
//! the schedule's values from the future, and two peers of a rollback session
//! would drift apart without a word. Here a world holds the values of every
//! `Local` of every schedule that ran on it, in a `Locals` store keyed the
//! way its change windows are: by the schedule's fingerprint (a stable hash
//! of its systems' names, in order) and the system's place. `clone`,
//! `clone_from` and [`World::checksum`](crate::world::World::checksum) carry them,
//! and a new schedule with the same systems, run on a copied world, takes
//! them up where they were.
//!
//! Saves: a `Local<T>` needs nothing of serde, so that turning feature
//! `serde` on (by any crate of a build) only adds to what compiles. A save
//! writes the values of `SavedLocal`s, whose `T` is also `Serialize +
//! Deserialize`, and refuses a world holding a plain `Local`'s value, naming
//! the system: leaving the value out would make a loaded world go on
//! differently without a word.
//!
//! How a value travels: while a stage of systems runs, the world is lent out
//! in pieces and no one can copy it, so each system with a `Local` takes its
//! values out of the store just before its stage (a move of a `Box`, no
//! copy) and puts them back as soon as the stage ends. Between stages, and
//! whenever anyone can see the world, the values are in it.
//!
//! The store cannot know the types of the values: they are whatever types
//! the systems' signatures name, unknown to the schema. So it keeps each
//! value behind a small object-safe trait (`LocalValue`, in `world_impl/locals.rs`) that clones,
//! hashes and saves it, and a system gets its value back by downcasting.
//! This is the crate's one use of `Any`: once per `Local` per run, never per
//! entity, and nothing in a system without a `Local` pays for it.

use super::{Access, SystemParam};
use crate::changes::ChangeWindow;
use crate::lend::SplitWorld;
use crate::world_impl::Schema;
use crate::world_impl::{LocalSlots, LocalState, World};
use core::fmt;
use core::ops::{Deref, DerefMut};

/// A system parameter holding state of the system's own: made with
/// `Default` the first time the system runs on a world, kept across runs,
/// never shared (the same function added twice has two).
///
/// The value lives in the world, not in the schedule: a snapshot
/// (`clone`, `clone_from`) and a checksum include it, so a world rolled
/// back, and run by a new schedule with the same systems, goes on with the
/// value it had then. Hence `T` must be [`LocalState`]:
/// `Default + Clone + StableHash + Send + Sync + 'static`. A `Local`
/// borrows nothing the other systems use, so it never makes a system wait.
///
/// A save (feature `serde`) does not write a `Local`'s value: saving a
/// world that holds one is an error naming the system and the type. Keep
/// state that a save must carry in a `SavedLocal` (with feature `serde`;
/// its `T` is also `Serialize + Deserialize`) or in a resource of the
/// schema. A `Local` whose system never ran holds no value and does not
/// stop a save.
///
/// ```
/// use schemecs::prelude::*;
/// struct Pos(i64);
/// #[derive(Default)] struct Log(Vec<u32>);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] log: Log }
///
/// fn count(mut runs: Local<u32>, mut log: ResMut<Log>) {
///     *runs += 1;
///     log.0.push(*runs);
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(count).add(count);
/// schedule.run(&mut world);
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Log>().0, [1, 1, 2, 2]);
/// ```
///
/// A rollback restores the count, as it restores everything else:
///
/// ```
/// use schemecs::prelude::*;
/// #[derive(Clone)] struct Pos(i64);
/// #[derive(Clone, Default)] struct Shots(u32);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] shots: Shots }
///
/// fn fire(mut cooldown: Local<u8>, mut shots: ResMut<Shots>) {
///     if *cooldown == 0 {
///         shots.0 += 1;
///         *cooldown = 3;
///     } else {
///         *cooldown -= 1;
///     }
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(fire);
/// schedule.run(&mut world);
/// let saved = world.clone();
/// for _ in 0..3 {
///     schedule.run(&mut world);
/// }
/// world.clone_from(&saved); // back to after the first run: cooldown 3
/// for _ in 0..4 {
///     schedule.run(&mut world);
/// }
/// assert_eq!(world.resource::<Shots>().0, 2);
/// ```
pub struct Local<'s, T>(&'s mut T);

impl<'s, T> Local<'s, T> {
    /// The `Local` of `value` (for a run condition's own state).
    pub(crate) fn new(value: &'s mut T) -> Self {
        Local(value)
    }
}

/// The impls `Local` and `SavedLocal` share: they differ only in what
/// their value must be (`$bound`) and how it is checked out of and into the
/// world's store (`$take`, `$put`).
macro_rules! local_param {
    ($name:ident, $bound:path, $take:ident, $put:ident) => {
        impl<T> Deref for $name<'_, T> {
            type Target = T;

            #[inline]
            fn deref(&self) -> &T {
                self.0
            }
        }

        impl<T> DerefMut for $name<'_, T> {
            #[inline]
            fn deref_mut(&mut self) -> &mut T {
                self.0
            }
        }

        impl<T: fmt::Debug> fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(self.0).finish()
            }
        }

        impl<S: Schema, T: $bound> SystemParam<S> for $name<'_, T> {
            /// The value while the system holds it: from just before its
            /// stage to just after; `None` while it is in the world.
            type State = Option<Box<T>>;
            type Item<'w> = $name<'w, T>;
            const ACCESS: Access = Access::NONE;
            const CHECK: () = ();
            const LOCALS: usize = 1;

            fn init() -> Option<Box<T>> {
                None
            }

            fn check_out(state: &mut Option<Box<T>>, slots: &mut LocalSlots<'_>) {
                *state = Some(slots.$take::<T>());
            }

            fn check_in(state: &mut Option<Box<T>>, slots: &mut LocalSlots<'_>) {
                slots.$put(state.take());
            }

            fn prepare(_: &mut Option<Box<T>>, _: &World<S>, _: ChangeWindow) {}

            fn fetch<'w>(state: &'w mut Option<Box<T>>, _: &mut SplitWorld<'w, S>) -> $name<'w, T> {
                match state {
                    Some(value) => $name(value),
                    None => unreachable!(concat!(
                        "a system's `",
                        stringify!($name),
                        "` is taken out of the world before it runs"
                    )),
                }
            }
        }
    };
}

local_param!(Local, LocalState, take, put);

/// A [`Local`] that a save writes (feature `serde`): state of the system's
/// own, made with `Default` the first time the system runs on a world,
/// kept across runs and never shared, like a `Local`; and, unlike one,
/// written by a save of the world and read back by a load, so a loaded
/// world run by a new schedule with the same systems goes on with the
/// value it had when saved.
///
/// Hence `T` must be [`SavedLocalState`](crate::system::SavedLocalState): a
/// [`LocalState`] that is also `Serialize + Deserialize`. A snapshot and a
/// checksum take it in as they do a `Local`'s. A run condition may keep
/// one too.
///
/// ```
/// use schemecs::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)] struct Pos(i64);
/// #[derive(Default, Serialize, Deserialize)] struct Shots(u32);
/// #[derive(Schema)] struct Game { pos: Pos, #[ecs(resource)] shots: Shots }
///
/// fn fire(mut cooldown: SavedLocal<u8>, mut shots: ResMut<Shots>) {
///     if *cooldown == 0 {
///         shots.0 += 1;
///         *cooldown = 3;
///     } else {
///         *cooldown -= 1;
///     }
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(fire);
/// schedule.run(&mut world); // a shot; cooldown 3
/// let json = serde_json::to_string(&world).unwrap();
/// let mut loaded: World<Game> = serde_json::from_str(&json).unwrap();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(fire);
/// for _ in 0..3 {
///     schedule.run(&mut loaded);
/// }
/// // The cooldown went on from 3 (from `Default`, a second shot would
/// // have come on the first run):
/// assert_eq!(loaded.resource::<Shots>().0, 1);
/// schedule.run(&mut loaded);
/// assert_eq!(loaded.resource::<Shots>().0, 2);
/// ```
///
/// The same system with a plain `Local<u8>` makes the save an error that
/// names it:
///
/// ```
/// use schemecs::prelude::*;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)] struct Pos(i64);
/// #[derive(Schema)] struct Game { pos: Pos }
///
/// fn fire(mut cooldown: Local<u8>) {
///     *cooldown = cooldown.saturating_sub(1);
/// }
///
/// let mut world = World::<Game>::new();
/// let mut schedule = Schedule::<Game>::new();
/// schedule.add(fire);
/// schedule.run(&mut world);
/// let error = serde_json::to_string(&world).unwrap_err().to_string();
/// assert!(error.contains("system `fire` keeps a `Local<u8>`"), "{error}");
/// ```
#[cfg(feature = "serde")]
pub struct SavedLocal<'s, T>(&'s mut T);

#[cfg(feature = "serde")]
mod saved {
    use super::{Access, SavedLocal, SystemParam};
    use crate::changes::ChangeWindow;
    use crate::lend::SplitWorld;
    use crate::system::ConditionParam;
    use crate::world_impl::Schema;
    use crate::world_impl::{LocalSlots, SavedLocalState, World};
    use core::fmt;
    use core::ops::{Deref, DerefMut};

    local_param!(SavedLocal, SavedLocalState, take_saved, put_saved);

    /// A run condition may keep state of its own that a save writes; it
    /// needs nothing of the world.
    impl<S: Schema, T: SavedLocalState> ConditionParam<S> for SavedLocal<'_, T> {
        const SHARED: bool = true;

        #[inline]
        fn fetch_shared<'w>(
            state: &'w mut Option<Box<T>>,
            _: &'w World<S>,
        ) -> Option<SavedLocal<'w, T>> {
            state.as_deref_mut().map(SavedLocal)
        }
    }
}
