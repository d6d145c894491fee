//! [`Plan`]: which systems of a schedule may run at the same time, and why
//! the others wait.

use crate::system::{Access, Group, SystemNode};
use crate::world_impl::Schema;
use std::borrow::Cow;

/// Which systems run in which stage, and why each waits.
pub(super) struct Plan {
    /// System indices per stage, in program order.
    pub(super) stages: Vec<Vec<usize>>,
    /// Per system: the wait that puts it in its stage (the first of those
    /// that hold it latest), if it waits at all; the others are met by the
    /// same stage.
    pub(super) waits: Vec<Option<Wait>>,
}

pub(super) struct Wait {
    pub(super) on: usize,
    pub(super) reason: Reason,
}

#[derive(Clone, Copy)]
pub(super) enum Reason {
    Component {
        bit: u32,
        earlier_writes: bool,
    },
    Resource {
        bit: u32,
        earlier_writes: bool,
    },
    Removals {
        bit: u32,
        earlier_logs: bool,
    },
    Spawns {
        earlier_spawns: bool,
    },
    Moves {
        earlier_moves: bool,
    },
    Commands,
    Reservations,
    World {
        earlier_exclusive: bool,
    },
    /// The earlier system is the first of a group the later one is in:
    /// the group's run condition is decided at its turn.
    Group,
}

impl Reason {
    /// Whether the earlier system's side of the conflict reaches the world
    /// only when its run is applied: the removals it logs, the rows a
    /// [`Migrator`](crate::command::Migrator) moves. (What a
    /// `Spawner` hands over, whatever the conflict, is too: `Plan::new`
    /// checks that apart.)
    fn delivered_when_applied(self) -> bool {
        matches!(
            self,
            Reason::Removals {
                earlier_logs: true,
                ..
            } | Reason::Moves {
                earlier_moves: true
            }
        )
    }
}

impl Plan {
    /// Places each system in the earliest stage where running it cannot
    /// change the result of running the systems in program order:
    ///
    /// * after every earlier system it conflicts with;
    /// * after the stage where the commands of an earlier system are applied,
    ///   if it could observe them (it queries the world) — commands are
    ///   applied in program order, so that is once every system up to that
    ///   one has run;
    /// * an exclusive system, after everything before it (and everything
    ///   after it conflicts with it);
    /// * a system in a group with a run condition, in the stage of the
    ///   group's first system or later: the executor decides the group at
    ///   that system's turn, and the others follow.
    pub(super) fn new<S: Schema>(systems: &[SystemNode<S>], groups: &[Group<S>]) -> Plan {
        let n = systems.len();
        // A run condition's reads count as its system's, and a group's
        // condition's as each of its systems'.
        let accesses: Vec<_> = systems
            .iter()
            .map(|system| {
                let own = system.accesses();
                if system.groups.is_empty() {
                    return own;
                }
                let mut all = own.into_owned();
                for &group in &system.groups {
                    all.extend_from_slice(&groups[group as usize].condition.access);
                }
                Cow::Owned(all)
            })
            .collect();
        let mut stage_of = vec![0usize; n];
        // The stage after which the commands of systems ..=i are applied.
        let mut applied_after = vec![0usize; n];
        let mut waits: Vec<Option<Wait>> = (0..n).map(|_| None).collect();
        for i in 0..n {
            let later = &*accesses[i];
            let exclusive = later.iter().any(|access| access.world);
            let observes = later.iter().any(|access| access.observes_entities);
            let records = later
                .iter()
                .any(|access| access.commands || access.reserves);
            let mut stage = 0;
            if exclusive && i > 0 {
                stage = applied_after[i - 1] + 1;
            }
            // The stage the direct wait requires (the first of the waits that
            // require the latest one).
            let mut direct = 0;
            let mut wait = |bound: usize, on: usize, reason: Reason, stage: &mut usize| {
                *stage = (*stage).max(bound);
                if bound > direct {
                    direct = bound;
                    waits[i] = Some(Wait { on, reason });
                }
            };
            for j in 0..i {
                let earlier = &*accesses[j];
                if let Some(reason) = conflict(earlier, later) {
                    // What the earlier system hands over when it is applied
                    // (in program order, once every system before it has
                    // run) is there only after that, not after its stage.
                    // A `Spawner`'s new entities are alive only once it is
                    // applied; a later system that shares anything with it
                    // may have been handed one of their ids.
                    let spawner = earlier.iter().any(|access| access.spawns);
                    let bound = if reason.delivered_when_applied()
                        || spawner
                        || moves_rows_of(earlier, later)
                    {
                        applied_after[j] + 1
                    } else {
                        stage_of[j] + 1
                    };
                    wait(bound, j, reason, &mut stage);
                } else if earlier
                    .iter()
                    .any(|access| access.reserves || access.allocates)
                    && records
                {
                    // The ids a later reservation gets follow the earlier
                    // ones, which are settled when the earlier is applied.
                    wait(applied_after[j] + 1, j, Reason::Reservations, &mut stage);
                } else if earlier.iter().any(|access| access.commands) {
                    // Commands change what a query sees, and the ids that
                    // later spawns reserve: both must follow the earlier
                    // commands, as in program order.
                    let reason = if observes {
                        Reason::Commands
                    } else if records {
                        Reason::Reservations
                    } else {
                        continue;
                    };
                    wait(applied_after[j] + 1, j, reason, &mut stage);
                }
            }
            for &group in &systems[i].groups {
                let first = groups[group as usize].systems.start;
                if first < i {
                    wait(stage_of[first], first, Reason::Group, &mut stage);
                }
            }
            stage_of[i] = stage;
            applied_after[i] = if i == 0 {
                stage
            } else {
                stage.max(applied_after[i - 1])
            };
        }
        let stages_len = stage_of.iter().map(|&stage| stage + 1).max().unwrap_or(0);
        let mut stages = vec![Vec::new(); stages_len];
        for (i, &stage) in stage_of.iter().enumerate() {
            stages[stage].push(i);
        }
        Plan { stages, waits }
    }
}

/// Whether a [`Migrator`](crate::command::Migrator) of the earlier system moves rows
/// the later one can reach: those moves are made when the earlier system is
/// applied, whatever conflict [`conflict`] names first.
fn moves_rows_of(earlier: &[Access], later: &[Access]) -> bool {
    earlier
        .iter()
        .any(|a| a.moves && later.iter().any(|b| a.move_conflicts(b)))
}

/// Why two systems (their parameters' accesses) cannot run at once, if so.
fn conflict(earlier: &[Access], later: &[Access]) -> Option<Reason> {
    // Checked apart from the pairs below: a system without parameters has
    // no accesses to pair with, but it still may not run beside an
    // exclusive system.
    let exclusive = |accesses: &[Access]| accesses.iter().any(|access| access.world);
    if exclusive(earlier) || exclusive(later) {
        return Some(Reason::World {
            earlier_exclusive: exclusive(earlier),
        });
    }
    for a in earlier {
        for b in later {
            let components = a.component_conflicts(b) | a.presence_conflicts(b);
            if components != 0 {
                let bit = components.trailing_zeros();
                return Some(Reason::Component {
                    bit,
                    earlier_writes: (a.writes | a.presence_changed) & (1 << bit) != 0,
                });
            }
            if a.spawn_conflicts(b) {
                return Some(Reason::Spawns {
                    earlier_spawns: a.spawns,
                });
            }
            if a.move_conflicts(b) {
                return Some(Reason::Moves {
                    earlier_moves: a.moves,
                });
            }
            let removals = a.removal_conflicts(b);
            if removals != 0 {
                let bit = removals.trailing_zeros();
                return Some(Reason::Removals {
                    bit,
                    earlier_logs: a.removals_logged & (1 << bit) != 0,
                });
            }
            let resources = a.resource_conflicts(b);
            if resources != 0 {
                let bit = resources.trailing_zeros();
                return Some(Reason::Resource {
                    bit,
                    earlier_writes: a.resource_writes & (1 << bit) != 0,
                });
            }
        }
    }
    None
}
