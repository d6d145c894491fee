//! Which live [`Schedule`](crate::schedule::Schedule)s ran each schedule fingerprint
//! on a world: what lets a run refuse two live schedules of the same
//! systems that take turns on it, which share their change windows, event
//! cursors and `Local`s (see "Schedule identity" on `Schedule`).
//!
//! Not world state: a copy, a restored world (`clone_from`) and a loaded
//! one start with no owners, and the checksum and saves leave them out. A
//! record holds its schedule weakly, so a dropped schedule's fingerprint is
//! free for the next schedule built the same way.

use std::panic::Location;
use std::sync::{Arc, Weak};

/// What a schedule owns, one per schedule value: its identity in the
/// worlds it runs on.
#[derive(Debug)]
pub(crate) struct ScheduleOwner {
    /// Where the schedule was created, to name it in the message.
    pub(crate) created: &'static Location<'static>,
}

/// Per schedule fingerprint that ran on a world, the live schedules that
/// ran it, in the order they took it over: the last runs it now, each
/// earlier one was displaced by a later one while it lived.
#[derive(Debug, Default)]
pub(crate) struct ScheduleOwners {
    owners: Vec<(u64, Vec<Weak<ScheduleOwner>>)>,
}

/// Whether `held` is `owner`. A record keeps its schedule's allocation, so
/// no other schedule can have its address while the record lives.
fn is(held: &Weak<ScheduleOwner>, owner: &Arc<ScheduleOwner>) -> bool {
    core::ptr::eq(held.as_ptr(), Arc::as_ptr(owner))
}

impl ScheduleOwners {
    /// The live schedule that took `fingerprint` over from `owner` on the
    /// world, if one did: `owner` ran it, then another schedule of the
    /// same fingerprint did while `owner` lived, and that one lives.
    pub(crate) fn rival(
        &self,
        fingerprint: u64,
        owner: &Arc<ScheduleOwner>,
    ) -> Option<Arc<ScheduleOwner>> {
        let (_, held) = self.owners.iter().find(|(f, _)| *f == fingerprint)?;
        let (now, before) = held.split_last()?;
        if is(now, owner) || !before.iter().any(|held| is(held, owner)) {
            return None;
        }
        now.upgrade()
    }

    /// Records that `owner` runs `fingerprint` now (taking it over from
    /// the schedule that ran it, if another did; see
    /// [`ScheduleOwners::rival`]).
    pub(crate) fn claim(&mut self, fingerprint: u64, owner: &Arc<ScheduleOwner>) {
        match self.owners.iter_mut().find(|(f, _)| *f == fingerprint) {
            Some((_, held)) => {
                if held.last().is_some_and(|now| is(now, owner)) {
                    return;
                }
                held.retain(|held| held.strong_count() > 0 && !is(held, owner));
                held.push(Arc::downgrade(owner));
            }
            None => {
                // A record whose schedules are all gone (or forgotten) is
                // taken over, memory and all, so that neither rebuilding
                // schedules nor restoring the world (which forgets every
                // owner, then sees the same schedules claim again) grows
                // the list or allocates.
                let free = self
                    .owners
                    .iter_mut()
                    .find(|(_, held)| held.iter().all(|held| held.strong_count() == 0));
                match free {
                    Some((free, held)) => {
                        *free = fingerprint;
                        held.clear();
                        held.push(Arc::downgrade(owner));
                    }
                    None => self.owners.push((fingerprint, vec![Arc::downgrade(owner)])),
                }
            }
        }
    }

    /// Forgets who ran `fingerprint`.
    pub(crate) fn release(&mut self, fingerprint: u64) {
        for (f, held) in &mut self.owners {
            if *f == fingerprint {
                held.clear();
            }
        }
    }

    /// Forgets every owner (the world's state was replaced), keeping the
    /// records' memory for the claims that follow.
    pub(crate) fn clear(&mut self) {
        for (_, held) in &mut self.owners {
            held.clear();
        }
    }
}
