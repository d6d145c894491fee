//! The world's store of the systems' [`Local`](crate::system::Local) values: what
//! a `Local` may hold ([`LocalState`]), the values behind a small
//! object-safe trait ([`LocalValue`]), kept per schedule and system place
//! ([`Locals`]), and the places one system checks its values out of and
//! back in ([`LocalSlots`]). See `system/local.rs` for why a system's local
//! state is world state and how a value travels.

use crate::stable_hash::{StableHash, StableHasher};
use core::any::Any;
use core::fmt;
use std::sync::Arc;

/// What a [`Local`](crate::system::Local) can hold: a value the world can make (`Default`), copy
/// for a snapshot (`Clone`), hash for its checksum ([`StableHash`]) and hand to
/// a system on another thread (`Send + Sync`). The same with and without
/// feature `serde`: a save does not write a `Local` (see
/// `SavedLocalState` for what a `SavedLocal` holds).
///
/// Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept in a `Local`: a system's local state is world state",
    label = "`Local<{Self}>` needs `Default + Clone + StableHash + Send + Sync + 'static`",
    note = "snapshots clone a `Local`, checksums hash it and a new world starts it from `Default`: \
            derive `Default`, `Clone` and `schemecs::checksum::StableHash` for `{Self}`, or keep the value \
            in a resource of the schema"
)]
pub trait LocalState: Default + Clone + StableHash + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Default + Clone + StableHash + Send + Sync + 'static> LocalState for T {}

/// What a [`SavedLocal`](crate::system::SavedLocal) can hold (feature `serde`): a
/// [`LocalState`] that a save can also write and a load read back
/// (`Serialize + Deserialize`).
///
/// Implemented for every such type.
#[cfg(feature = "serde")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept in a `SavedLocal`: a save writes its value",
    label = "`SavedLocal<{Self}>` needs `Default + Clone + StableHash + Serialize + Deserialize + \
             Send + Sync + 'static`",
    note = "snapshots clone a `SavedLocal`, checksums hash it, saves write it and a new world \
            starts it from `Default`: derive `Default`, `Clone`, `schemecs::checksum::StableHash`, \
            `serde::Serialize` and `serde::Deserialize` for `{Self}`; or keep it in a `Local`, \
            which a save does not write (a world holding one then cannot be saved)"
)]
pub trait SavedLocalState: LocalState + serde::Serialize + serde::de::DeserializeOwned {}

#[cfg(feature = "serde")]
#[diagnostic::do_not_recommend]
impl<T: LocalState + serde::Serialize + serde::de::DeserializeOwned> SavedLocalState for T {}

/// A value in a [`Locals`] store, its type erased: what the store needs to
/// copy and hash it. Implemented for every [`LocalState`]; what saves a
/// `SavedLocal`'s value is kept beside it (see [`LocalSlot::Value`]).
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
}

/// Writes a value in the crate's inner save format (postcard): made for a
/// `SavedLocal<T>` by [`save_as`], whose `T` is the value's type.
#[cfg(feature = "serde")]
type SaveFn = fn(&dyn LocalValue) -> Result<Vec<u8>, String>;

/// The [`SaveFn`] of a `SavedLocal<T>`.
#[cfg(feature = "serde")]
fn save_as<T: SavedLocalState>(value: &dyn LocalValue) -> Result<Vec<u8>, String> {
    match value.as_any().downcast_ref::<T>() {
        Some(value) => postcard::to_allocvec(value).map_err(|error| error.to_string()),
        None => unreachable!("a place's save function is made for the type of its value"),
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
    /// The value. With feature `serde`, `save` writes it if a
    /// `SavedLocal` put it there; a plain `Local`'s value has none, and a
    /// world holding one cannot be saved.
    Value {
        value: Box<dyn LocalValue>,
        #[cfg(feature = "serde")]
        save: Option<SaveFn>,
    },
    /// A `SavedLocal`'s value loaded from a save, still in the inner save
    /// format: a save does not know the types of locals; the system that
    /// owns the place decodes it the first time it runs. `digest` is what
    /// the value's checksum was when saved, so the loaded world's checksum
    /// is the saved world's before any system runs.
    #[cfg(feature = "serde")]
    Saved { bytes: Vec<u8>, digest: u128 },
}

impl Clone for LocalSlot {
    fn clone(&self) -> Self {
        match self {
            LocalSlot::Out => LocalSlot::Out,
            LocalSlot::Value {
                value,
                #[cfg(feature = "serde")]
                save,
            } => LocalSlot::Value {
                value: value.clone_box(),
                #[cfg(feature = "serde")]
                save: *save,
            },
            #[cfg(feature = "serde")]
            LocalSlot::Saved { bytes, digest } => LocalSlot::Saved {
                bytes: bytes.clone(),
                digest: *digest,
            },
        }
    }

    fn clone_from(&mut self, source: &Self) {
        match (self, source) {
            (
                LocalSlot::Value {
                    value: target,
                    #[cfg(feature = "serde")]
                        save: target_save,
                },
                LocalSlot::Value {
                    value,
                    #[cfg(feature = "serde")]
                    save,
                },
            ) => {
                (**value).clone_into_slot(target);
                #[cfg(feature = "serde")]
                {
                    *target_save = *save;
                }
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
    systems: Vec<SystemLocals>,
}

/// The locals of one system (or run condition) of a schedule.
#[derive(Default)]
struct SystemLocals {
    /// Who keeps them, for the message of a save that cannot write one:
    /// set when they are first checked out on this world (or on the world
    /// it was copied from), `None` for a place no one checked out, or one
    /// loaded from a save (a save does not write names). Not world state:
    /// not in the checksum, and not saved.
    owner: Option<Owner>,
    /// Its locals in parameter order.
    slots: Vec<LocalSlot>,
}

impl Clone for SystemLocals {
    fn clone(&self) -> Self {
        SystemLocals {
            owner: self.owner.clone(),
            slots: self.slots.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.owner.clone_from(&source.owner);
        self.slots.clone_from(&source.slots);
    }
}

/// Who keeps some locals: a system, its run condition or a group's run
/// condition, by the system's name (for a group, its first system's).
#[derive(Clone)]
struct Owner {
    kind: OwnerKind,
    /// Shared, so that a copy of the world allocates nothing for it.
    name: Arc<str>,
}

#[derive(Clone, Copy)]
enum OwnerKind {
    System,
    Condition,
    GroupCondition,
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match self.kind {
            OwnerKind::System => write!(f, "system `{name}`"),
            OwnerKind::Condition => write!(f, "the run condition of system `{name}`"),
            OwnerKind::GroupCondition => {
                write!(
                    f,
                    "the run condition of the group that starts with system `{name}`"
                )
            }
        }
    }
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
        self.places(fingerprint, index, (OwnerKind::System, name))
    }

    /// The places of the locals kept by `owner` at `index` of schedule
    /// `fingerprint` (made empty the first time).
    fn places<'a>(
        &'a mut self,
        fingerprint: u64,
        index: usize,
        (kind, name): (OwnerKind, &'a str),
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
            systems.resize_with(index + 1, SystemLocals::default);
        }
        let system = &mut systems[index];
        if system.owner.is_none() {
            system.owner = Some(Owner {
                kind,
                name: Arc::from(name),
            });
        }
        LocalSlots {
            slots: &mut system.slots,
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
        self.places(
            fingerprint ^ CONDITIONS,
            index,
            (OwnerKind::Condition, name),
        )
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
        self.places(
            fingerprint ^ GROUP_CONDITIONS,
            index,
            (OwnerKind::GroupCondition, name),
        )
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
            for system in &schedule.systems {
                system.hash_slots(hasher);
            }
        }
    }
}

impl SystemLocals {
    /// Writes the system's locals into `hasher`: each value as its digest.
    fn hash_slots(&self, hasher: &mut StableHasher) {
        let slots = &self.slots;
        slots.len().stable_hash(hasher);
        for slot in slots {
            match slot {
                LocalSlot::Out => 0u8.stable_hash(hasher),
                LocalSlot::Value { value, .. } => {
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

    fn digest(&self) -> u128 {
        let mut hasher = StableHasher::new();
        self.hash_slots(&mut hasher);
        hasher.finish()
    }
}

impl Locals {
    /// Who keeps the locals that differ between `self` and `other`: per
    /// schedule (matched by fingerprint) and place, the system or run
    /// condition by name (`system number N of a schedule` where neither
    /// world knows the name, as after a load); a schedule whose locals only
    /// one world holds, as a whole. In the order of `self`'s schedules,
    /// then `other`'s.
    pub(crate) fn differing_owners(&self, other: &Locals) -> Vec<String> {
        let mut owners = Vec::new();
        let empty = SystemLocals::default().digest();
        let digest = |system: Option<&SystemLocals>| system.map_or(empty, SystemLocals::digest);
        let name = |mine: Option<&SystemLocals>, theirs: Option<&SystemLocals>, index: usize| {
            let owner = mine
                .and_then(|system| system.owner.as_ref())
                .or_else(|| theirs.and_then(|system| system.owner.as_ref()));
            match owner {
                Some(owner) => owner.to_string(),
                None => format!("system number {} of a schedule", index + 1),
            }
        };
        for schedule in &self.schedules {
            let theirs = other
                .schedules
                .iter()
                .find(|each| each.fingerprint == schedule.fingerprint);
            let Some(theirs) = theirs else {
                owners.push("a schedule that ran on the first world only".to_owned());
                continue;
            };
            let places = schedule.systems.len().max(theirs.systems.len());
            for index in 0..places {
                let (a, b) = (schedule.systems.get(index), theirs.systems.get(index));
                if digest(a) != digest(b) {
                    owners.push(name(a, b, index));
                }
            }
        }
        for schedule in &other.schedules {
            if !self
                .schedules
                .iter()
                .any(|each| each.fingerprint == schedule.fingerprint)
            {
                owners.push("a schedule that ran on the second world only".to_owned());
            }
        }
        owners
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
    /// Takes the value of the next place out, for a `Local<T>` (`Default`
    /// if there is none yet).
    pub(crate) fn take<T: LocalState>(&mut self) -> Box<T> {
        let at = self.advance();
        #[cfg(feature = "serde")]
        if let LocalSlot::Saved { .. } = self.slots[at] {
            panic!(
                "system `{}` keeps a `Local<{wanted}>` (its local number {at}), but the world \
                 holds a value loaded from a save in its place, which only a \
                 `SavedLocal<{wanted}>` reads: the world was loaded from a save made where this \
                 place was a `SavedLocal` (or from one made before `SavedLocal` existed, when a \
                 save wrote every `Local`). Make it a `SavedLocal<{wanted}>`",
                self.system,
                wanted = core::any::type_name::<T>(),
            );
        }
        self.take_value("Local", at).unwrap_or_default()
    }

    /// Takes the value of the next place out, for a `SavedLocal<T>`:
    /// decoded if it was loaded from a save, `Default` if there is none
    /// yet.
    #[cfg(feature = "serde")]
    pub(crate) fn take_saved<T: SavedLocalState>(&mut self) -> Box<T> {
        let at = self.advance();
        if let LocalSlot::Saved { bytes, digest } = &self.slots[at] {
            let value = self.decode(at, bytes, *digest);
            self.slots[at] = LocalSlot::Out;
            return value;
        }
        self.take_value("SavedLocal", at).unwrap_or_default()
    }

    /// The index of the next place, made if there is none.
    fn advance(&mut self) -> usize {
        let at = self.next;
        self.next += 1;
        if self.slots.len() <= at {
            self.slots.resize_with(at + 1, || LocalSlot::Out);
        }
        at
    }

    /// Takes the value of place `at` out, for a `param<T>`, if it holds
    /// one.
    fn take_value<T: LocalState>(&mut self, param: &str, at: usize) -> Option<Box<T>> {
        // What cannot be taken is left where it is (and the system
        // panics): the schedule it belongs to, or a fixed save, can go on.
        match &self.slots[at] {
            LocalSlot::Value { value, .. } if !value.as_any().is::<T>() => {
                let held = format!("a `{}`", value.type_name());
                panic!(
                    "{}",
                    mismatch(self.system, at, &param_name::<T>(param), &held)
                );
            }
            LocalSlot::Value { .. } => {}
            _ => return None,
        }
        match core::mem::replace(&mut self.slots[at], LocalSlot::Out) {
            LocalSlot::Value { value, .. } => match value.into_any().downcast::<T>() {
                Ok(value) => Some(value),
                Err(_) => unreachable!("the type was checked above"),
            },
            _ => unreachable!("the place was checked above"),
        }
    }

    /// Puts a value taken with [`LocalSlots::take`] back: a save cannot
    /// write it.
    pub(crate) fn put<T: LocalState>(&mut self, value: Option<Box<T>>) {
        self.put_value(
            value,
            #[cfg(feature = "serde")]
            None,
        );
    }

    /// Puts a value taken with [`LocalSlots::take_saved`] back: a save
    /// writes it.
    #[cfg(feature = "serde")]
    pub(crate) fn put_saved<T: SavedLocalState>(&mut self, value: Option<Box<T>>) {
        self.put_value(value, Some(save_as::<T>));
    }

    fn put_value<T: LocalState>(
        &mut self,
        value: Option<Box<T>>,
        #[cfg(feature = "serde")] save: Option<SaveFn>,
    ) {
        let at = self.next;
        self.next += 1;
        if let Some(value) = value {
            self.slots[at] = LocalSlot::Value {
                value,
                #[cfg(feature = "serde")]
                save,
            };
        }
    }

    #[cfg(feature = "serde")]
    fn decode<T: SavedLocalState>(&self, at: usize, bytes: &[u8], digest: u128) -> Box<T> {
        let wanted = param_name::<T>("SavedLocal");
        match postcard::from_bytes::<T>(bytes) {
            Ok(value) if self::digest(&value) == digest => Box::new(value),
            Ok(_) => panic!(
                "{}",
                mismatch(self.system, at, &wanted, "a value whose checksum differs")
            ),
            Err(error) => panic!(
                "{}",
                mismatch(
                    self.system,
                    at,
                    &wanted,
                    &format!("bytes that are not one ({error})")
                )
            ),
        }
    }
}

/// `param<T>`, as a message names a parameter.
fn param_name<T>(param: &str) -> String {
    format!("{param}<{}>", core::any::type_name::<T>())
}

/// The message of a world holding something other than a `T` where system
/// `system` keeps its `at`-th local, a `wanted` (`Local<T>` or
/// `SavedLocal<T>`).
fn mismatch(system: &str, at: usize, wanted: &str, held: &str) -> String {
    format!(
        "system `{system}` keeps a `{wanted}` (its local number {at}), but the world holds \
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

    use super::{LocalSlot, Locals, ScheduleLocals, SystemLocals};
    use crate::save::reject;
    use serde::de::{Deserializer, SeqAccess, Visitor};
    use serde::ser::{Error as _, SerializeSeq, Serializer};
    use serde::{Deserialize, Serialize};

    /// A digest as two `u64`s, low half first.
    fn halves(digest: u128) -> [u64; 2] {
        [digest as u64, (digest >> 64) as u64]
    }

    impl Locals {
        /// Why a save cannot write these locals, if it cannot: one of them
        /// is a plain `Local`'s value, which a save does not write (rather
        /// than leave it out, the save is refused), or is out of the world.
        pub(crate) fn unsaveable(&self) -> Option<String> {
            let systems = self.schedules.iter().flat_map(|schedule| &schedule.systems);
            for SystemLocals { owner, slots } in systems {
                let owner = match owner {
                    Some(owner) => owner.to_string(),
                    None => "a system".to_owned(),
                };
                for slot in slots {
                    match slot {
                        LocalSlot::Value {
                            value, save: None, ..
                        } => {
                            let kept = value.type_name();
                            return Some(format!(
                                "cannot save this world: {owner} keeps a `Local<{kept}>`, which \
                                 a save cannot write; make it a `SavedLocal<{kept}>` (its type \
                                 must be `Serialize + Deserialize`) or keep the value in a \
                                 resource of the schema"
                            ));
                        }
                        LocalSlot::Out => {
                            return Some(format!(
                                "cannot save this world: a local of {owner} is out of the \
                                 world (the system panicked while it held it)"
                            ));
                        }
                        LocalSlot::Value { .. } | LocalSlot::Saved { .. } => {}
                    }
                }
            }
            None
        }
    }

    impl Serialize for Locals {
        fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
            if let Some(reason) = self.unsaveable() {
                return Err(Ser::Error::custom(reason));
            }
            let mut seq = serializer.serialize_seq(Some(self.schedules.len()))?;
            for schedule in &self.schedules {
                let mut systems = Vec::with_capacity(schedule.systems.len());
                for system in &schedule.systems {
                    let mut saved = Vec::with_capacity(system.slots.len());
                    for slot in &system.slots {
                        saved.push(match slot {
                            LocalSlot::Value {
                                value,
                                save: Some(save),
                            } => {
                                let bytes = save(&**value).map_err(|error| {
                                    Ser::Error::custom(format!(
                                        "a `SavedLocal<{}>` cannot be saved: {error}",
                                        value.type_name()
                                    ))
                                })?;
                                (bytes, halves(value.digest()))
                            }
                            LocalSlot::Saved { bytes, digest } => (bytes.clone(), halves(*digest)),
                            LocalSlot::Value { save: None, .. } | LocalSlot::Out => {
                                unreachable!("`Locals::unsaveable` found none")
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
                    .map(|slots| SystemLocals {
                        owner: None,
                        slots: slots
                            .into_iter()
                            .map(|(bytes, [low, high])| LocalSlot::Saved {
                                bytes,
                                digest: u128::from(low) | u128::from(high) << 64,
                            })
                            .collect(),
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
