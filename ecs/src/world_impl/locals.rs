//! The world's store of the systems' [`Local`](crate::system::Local) values: what
//! a `Local` may hold ([`LocalState`]), the values behind a small
//! object-safe trait ([`LocalValue`]), kept per schedule and system place
//! ([`Locals`]), and the places one system checks its values out of and
//! back in ([`LocalSlots`]). See `system/local.rs` for why a system's local
//! state is world state and how a value travels.

use crate::stable_hash::{StableHash, StableHasher};
use core::any::Any;

/// What a [`Local`](crate::system::Local) can hold: a value the world can make (`Default`), copy
/// for a snapshot (`Clone`), hash for its checksum ([`StableHash`]), hand to
/// a system on another thread (`Send + Sync`) and, with feature `serde`,
/// save and load (`Serialize + Deserialize`).
///
/// Implemented for every such type.
#[cfg(not(feature = "serde"))]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept in a `Local`: a system's local state is world state",
    label = "`Local<{Self}>` needs `Default + Clone + StableHash + Send + Sync + 'static`",
    note = "snapshots clone a `Local`, checksums hash it and a new world starts it from `Default`: \
            derive `Default`, `Clone` and `schemecs::checksum::StableHash` for `{Self}`, or keep the value \
            in a resource of the schema"
)]
pub trait LocalState: Default + Clone + StableHash + Send + Sync + 'static {}

#[cfg(not(feature = "serde"))]
#[diagnostic::do_not_recommend]
impl<T: Default + Clone + StableHash + Send + Sync + 'static> LocalState for T {}

/// What a [`Local`](crate::system::Local) can hold: a value the world can make (`Default`), copy
/// for a snapshot (`Clone`), hash for its checksum ([`StableHash`]), hand to
/// a system on another thread (`Send + Sync`) and, with feature `serde`,
/// save and load (`Serialize + Deserialize`).
///
/// Implemented for every such type.
#[cfg(feature = "serde")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept in a `Local`: a system's local state is world state",
    label = "`Local<{Self}>` needs `Default + Clone + StableHash + Serialize + Deserialize + Send \
             + Sync + 'static`",
    note = "snapshots clone a `Local`, checksums hash it, saves write it and a new world starts it \
            from `Default`: derive `Default`, `Clone`, `schemecs::checksum::StableHash`, \
            `serde::Serialize` and `serde::Deserialize` for `{Self}`, or keep the value in a \
            resource of the schema"
)]
pub trait LocalState:
    Default
    + Clone
    + StableHash
    + serde::Serialize
    + serde::de::DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

#[cfg(feature = "serde")]
#[diagnostic::do_not_recommend]
impl<T> LocalState for T where
    T: Default
        + Clone
        + StableHash
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

/// A value in a [`Locals`] store, its type erased: what the store needs to
/// copy, hash and save it. Implemented for every [`LocalState`].
pub(crate) trait LocalValue: Send + Sync + 'static {
    fn clone_box(&self) -> Box<dyn LocalValue>;
    /// Makes `target` a copy of `self`, in place when it holds the same
    /// type (keeping its allocations).
    fn clone_into_slot(&self, target: &mut Box<dyn LocalValue>);
    /// The digest of the value's [`StableHash`], on a hasher of its own.
    fn digest(&self) -> u128;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync>;
    fn type_name(&self) -> &'static str;
    /// The value in the crate's inner save format (postcard).
    #[cfg(feature = "serde")]
    fn save(&self) -> Result<Vec<u8>, String>;
}

impl<T: LocalState> LocalValue for T {
    fn clone_box(&self) -> Box<dyn LocalValue> {
        Box::new(self.clone())
    }

    fn clone_into_slot(&self, target: &mut Box<dyn LocalValue>) {
        match target.as_any_mut().downcast_mut::<T>() {
            Some(same) => same.clone_from(self),
            None => *target = self.clone_box(),
        }
    }

    fn digest(&self) -> u128 {
        digest(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync> {
        self
    }

    fn type_name(&self) -> &'static str {
        core::any::type_name::<T>()
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Result<Vec<u8>, String> {
        postcard::to_allocvec(self).map_err(|error| error.to_string())
    }
}

/// The digest of `value` that a world's checksum takes in for a local.
fn digest<T: StableHash + ?Sized>(value: &T) -> u128 {
    let mut hasher = StableHasher::new();
    value.stable_hash(&mut hasher);
    hasher.finish()
}

/// One place of a [`Locals`] store.
pub(crate) enum LocalSlot {
    /// Taken out by the system that owns it, for its stage (or never put
    /// back, after a panic in it).
    Out,
    /// The value.
    Value(Box<dyn LocalValue>),
    /// A value loaded from a save, still in the inner save format: a save
    /// does not know the types of locals; the system that owns the place
    /// decodes it the first time it runs. `digest` is what the value's
    /// checksum was when saved, so the loaded world's checksum is the saved
    /// world's before any system runs.
    #[cfg(feature = "serde")]
    Saved { bytes: Vec<u8>, digest: u128 },
}

impl Clone for LocalSlot {
    fn clone(&self) -> Self {
        match self {
            LocalSlot::Out => LocalSlot::Out,
            LocalSlot::Value(value) => LocalSlot::Value(value.clone_box()),
            #[cfg(feature = "serde")]
            LocalSlot::Saved { bytes, digest } => LocalSlot::Saved {
                bytes: bytes.clone(),
                digest: *digest,
            },
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (LocalSlot::Value(target), LocalSlot::Value(value)) => {
                (**value).clone_into_slot(target)
            }
            (target, source) => *target = source.clone(),
        }
    }
}

/// The locals of one schedule on one world.
struct ScheduleLocals {
    /// The schedule's fingerprint (see [`Locals`]).
    fingerprint: u64,
    /// Per system, by its place in the schedule: its locals in parameter
    /// order (empty for a system without any).
    systems: Vec<Vec<LocalSlot>>,
}

impl Clone for ScheduleLocals {
    fn clone(&self) -> Self {
        ScheduleLocals {
            fingerprint: self.fingerprint,
            systems: self.systems.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.fingerprint = source.fingerprint;
        self.systems.clone_from(&source.systems);
    }
}

/// What tells the locals of a schedule's run conditions apart from those of
/// its systems (see [`Locals::condition`]).
const CONDITIONS: u64 = 0x636f_6e64_6974_696f;

/// Mixed into a schedule's fingerprint for the places of its groups' run
/// conditions' locals (see [`Locals::group_condition`]).
const GROUP_CONDITIONS: u64 = 0x6772_6f75_7063_6f6e;

/// The values of the [`Local`](crate::system::Local)s of every schedule that ran on a world, per
/// schedule (by fingerprint, in the order they first ran) and per system
/// (by place). Part of the world: cloned, hashed and saved with it.
#[derive(Default)]
pub(crate) struct Locals {
    schedules: Vec<ScheduleLocals>,
}

/// `clone_from` keeps the allocations of the places, and of the values
/// whose types match (`Vec::clone_from` clones element by element), so a
/// ring of snapshots allocates nothing once warm.
impl Clone for Locals {
    fn clone(&self) -> Self {
        Locals {
            schedules: self.schedules.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.schedules.clone_from(&source.schedules);
    }
}

impl Locals {
    /// The places of the locals of system `index` of schedule `fingerprint`
    /// (made empty the first time).
    pub(crate) fn system<'a>(
        &'a mut self,
        fingerprint: u64,
        index: usize,
        name: &'a str,
    ) -> LocalSlots<'a> {
        let at = match self
            .schedules
            .iter()
            .position(|schedule| schedule.fingerprint == fingerprint)
        {
            Some(at) => at,
            None => {
                self.schedules.push(ScheduleLocals {
                    fingerprint,
                    systems: Vec::new(),
                });
                self.schedules.len() - 1
            }
        };
        let systems = &mut self.schedules[at].systems;
        if systems.len() <= index {
            systems.resize_with(index + 1, Vec::new);
        }
        LocalSlots {
            slots: &mut systems[index],
            next: 0,
            system: name,
        }
    }

    /// The places of the locals of the run condition of system `index` of
    /// schedule `fingerprint`: kept as if of another schedule, whose
    /// fingerprint is this one's with [`CONDITIONS`] mixed in, so that
    /// neither the system's places nor the save format change.
    pub(crate) fn condition<'a>(
        &'a mut self,
        fingerprint: u64,
        index: usize,
        name: &'a str,
    ) -> LocalSlots<'a> {
        self.system(fingerprint ^ CONDITIONS, index, name)
    }

    /// The places of the locals of the run condition of group `index` of
    /// schedule `fingerprint` (its groups numbered in the order their
    /// tuples were converted, inner before outer): kept as if of another
    /// schedule again, so that neither the systems' places nor the save
    /// format change.
    pub(crate) fn group_condition<'a>(
        &'a mut self,
        fingerprint: u64,
        index: usize,
        name: &'a str,
    ) -> LocalSlots<'a> {
        self.system(fingerprint ^ GROUP_CONDITIONS, index, name)
    }

    /// Drops the locals of schedule `fingerprint` (its systems', their
    /// conditions' and its groups' conditions').
    pub(crate) fn forget_schedule(&mut self, fingerprint: u64) {
        self.schedules.retain(|schedule| {
            schedule.fingerprint != fingerprint
                && schedule.fingerprint != fingerprint ^ CONDITIONS
                && schedule.fingerprint != fingerprint ^ GROUP_CONDITIONS
        });
    }

    /// Whether no schedule with a `Local` ran on the world.
    pub(crate) fn is_empty(&self) -> bool {
        self.schedules.is_empty()
    }
}

/// Each value is taken in as its digest (see [`LocalValue::digest`]), so
/// that a loaded world, whose values are not decoded yet, hashes as the
/// saved one did.
impl StableHash for Locals {
    fn stable_hash(&self, hasher: &mut StableHasher) {
        self.schedules.len().stable_hash(hasher);
        for schedule in &self.schedules {
            schedule.fingerprint.stable_hash(hasher);
            schedule.systems.len().stable_hash(hasher);
            for slots in &schedule.systems {
                slots.len().stable_hash(hasher);
                for slot in slots {
                    match slot {
                        LocalSlot::Out => 0u8.stable_hash(hasher),
                        LocalSlot::Value(value) => {
                            1u8.stable_hash(hasher);
                            value.digest().stable_hash(hasher);
                        }
                        #[cfg(feature = "serde")]
                        LocalSlot::Saved { digest, .. } => {
                            1u8.stable_hash(hasher);
                            digest.stable_hash(hasher);
                        }
                    }
                }
            }
        }
    }
}

/// The places of one system's locals, handed to its parameters in order:
/// each [`Local`](crate::system::Local) takes the next one.
#[doc(hidden)]
pub struct LocalSlots<'a> {
    slots: &'a mut Vec<LocalSlot>,
    next: usize,
    /// The system's name, for messages.
    system: &'a str,
}

impl LocalSlots<'_> {
    /// Takes the value of the next place out (`Default` if there is none
    /// yet).
    pub(crate) fn take<T: LocalState>(&mut self) -> Box<T> {
        let at = self.next;
        self.next += 1;
        if self.slots.len() <= at {
            self.slots.resize_with(at + 1, || LocalSlot::Out);
        }
        // What cannot be taken is left where it is (and the system
        // panics): the schedule it belongs to, or a fixed save, can go on.
        match &self.slots[at] {
            LocalSlot::Value(value) if !value.as_any().is::<T>() => {
                let held = format!("a `{}`", value.type_name());
                panic!(
                    "{}",
                    mismatch(self.system, at, core::any::type_name::<T>(), &held)
                );
            }
            #[cfg(feature = "serde")]
            LocalSlot::Saved { bytes, digest } => {
                let value = self.decode(at, bytes, *digest);
                self.slots[at] = LocalSlot::Out;
                return value;
            }
            _ => {}
        }
        match core::mem::replace(&mut self.slots[at], LocalSlot::Out) {
            LocalSlot::Value(value) => match value.into_any().downcast::<T>() {
                Ok(value) => value,
                Err(_) => unreachable!("the type was checked above"),
            },
            _ => Box::default(),
        }
    }

    /// Puts a value taken with [`LocalSlots::take`] back.
    pub(crate) fn put<T: LocalState>(&mut self, value: Option<Box<T>>) {
        let at = self.next;
        self.next += 1;
        if let Some(value) = value {
            self.slots[at] = LocalSlot::Value(value);
        }
    }

    #[cfg(feature = "serde")]
    fn decode<T: LocalState>(&self, at: usize, bytes: &[u8], digest: u128) -> Box<T> {
        let wanted = core::any::type_name::<T>();
        match postcard::from_bytes::<T>(bytes) {
            Ok(value) if self::digest(&value) == digest => Box::new(value),
            Ok(_) => panic!(
                "{}",
                mismatch(self.system, at, wanted, "a value whose checksum differs")
            ),
            Err(error) => panic!(
                "{}",
                mismatch(
                    self.system,
                    at,
                    wanted,
                    &format!("bytes that are not one ({error})")
                )
            ),
        }
    }
}

/// The message of a world holding something other than a `T` where system
/// `system` keeps its `at`-th `Local<T>`.
fn mismatch(system: &str, at: usize, wanted: &str, held: &str) -> String {
    format!(
        "system `{system}` keeps a `Local<{wanted}>` (its local number {at}), but the world holds \
         {held} in its place: a schedule whose systems have the same names as this one's, with \
         other locals, ran on this world or on the one it was copied or loaded from. Schedules \
         are told apart by their systems' names, in order: give one of them other names with \
         `Schedule::add_named`"
    )
}

#[cfg(feature = "serde")]
mod save {
    //! With feature `serde`: a store saves as a sequence of schedules, each
    //! `(fingerprint, systems)`, a system's locals as a sequence of
    //! `(bytes, digest)`: the value in postcard's format (whatever format the
    //! world is saved in, since loading cannot know the value's type) and
    //! its checksum digest, as two `u64`s, low half first (formats such as
    //! `serde_json::Value` hold no `u128`).

    use super::{LocalSlot, Locals, ScheduleLocals};
    use crate::save::reject;
    use serde::de::{Deserializer, SeqAccess, Visitor};
    use serde::ser::{Error as _, SerializeSeq, Serializer};
    use serde::{Deserialize, Serialize};

    /// A digest as two `u64`s, low half first.
    fn halves(digest: u128) -> [u64; 2] {
        [digest as u64, (digest >> 64) as u64]
    }

    impl Serialize for Locals {
        fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
            let mut seq = serializer.serialize_seq(Some(self.schedules.len()))?;
            for schedule in &self.schedules {
                let mut systems = Vec::with_capacity(schedule.systems.len());
                for slots in &schedule.systems {
                    let mut saved = Vec::with_capacity(slots.len());
                    for slot in slots {
                        saved.push(match slot {
                            LocalSlot::Value(value) => {
                                let bytes = value.save().map_err(|error| {
                                    Ser::Error::custom(format!(
                                        "a `Local<{}>` cannot be saved: {error}",
                                        value.type_name()
                                    ))
                                })?;
                                (bytes, halves(value.digest()))
                            }
                            LocalSlot::Saved { bytes, digest } => (bytes.clone(), halves(*digest)),
                            LocalSlot::Out => {
                                return Err(Ser::Error::custom(
                                    "a `Local` is out of the world: a system that panicked \
                                     still holds it",
                                ))
                            }
                        });
                    }
                    systems.push(saved);
                }
                seq.serialize_element(&(schedule.fingerprint, systems))?;
            }
            seq.end()
        }
    }

    impl<'de> Deserialize<'de> for Locals {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_seq(LocalsVisitor)
        }
    }

    struct LocalsVisitor;

    impl<'de> Visitor<'de> for LocalsVisitor {
        type Value = Locals;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("the locals of the systems of each schedule")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Locals, A::Error> {
            let mut schedules = Vec::new();
            while let Some((fingerprint, systems)) =
                seq.next_element::<(u64, Vec<Vec<(Vec<u8>, [u64; 2])>>)>()?
            {
                if schedules
                    .iter()
                    .any(|schedule: &ScheduleLocals| schedule.fingerprint == fingerprint)
                {
                    return Err(reject::<A::Error>(format!(
                        "the locals of schedule {fingerprint:#x} are saved twice"
                    )));
                }
                let systems = systems
                    .into_iter()
                    .map(|slots| {
                        slots
                            .into_iter()
                            .map(|(bytes, [low, high])| LocalSlot::Saved {
                                bytes,
                                digest: u128::from(low) | u128::from(high) << 64,
                            })
                            .collect()
                    })
                    .collect();
                schedules.push(ScheduleLocals {
                    fingerprint,
                    systems,
                });
            }
            Ok(Locals { schedules })
        }
    }
}
