//! The compile-time check that no two parameters of a system conflict: the
//! message, which names the two by position.
//!
//! Each pair of parameters is checked by a `const` of its own,
//! [`ParamPair::CHECK`](super::ParamPair::CHECK) (beside the macro that
//! writes the pairs), so that when one fails the compiler's error names the
//! pair's types (`evaluation of ParamPair::<Physics, 1, Query<'_, &mut
//! Pos>, 3, Query<'_, &Pos>>::CHECK failed`), which no `const` can write on
//! stable Rust (`core::any::type_name` is not `const`). The message itself
//! says which parameters by position; the schema's texts say what both
//! reach and what to do about it.
//!
//! The error is reported at the `panic!` in `ParamPair::CHECK`, in this
//! crate (rustc 1.86 points at that line; later ones at `core`'s
//! `panic.rs`, with that line below); the user's `Schedule::add` call comes
//! last, in the note "the above error was encountered while instantiating".
//! A `const` evaluation error cannot be moved to a caller's span (neither
//! `#[track_caller]` nor a diagnostic attribute applies to it), and a
//! trait-bound error, which the compiler does report at the call, cannot
//! depend on masks computed by a `const` on stable Rust.

use super::Access;
use crate::world_impl::Schema;

/// Why parameters `first` and `second` (positions from 1) of a system of
/// schema `S` conflict, if they do: which two, and the component or
/// resource they both reach.
pub(crate) const fn conflict<S: Schema>(
    a: &Access,
    first: usize,
    b: &Access,
    second: usize,
) -> Option<Message> {
    let components = a.component_conflicts(b);
    let presence = a.presence_conflicts(b);
    let overlap = !a.disjoint_entities(b);
    let predicate = if a.spawns && b.spawns {
        TWO_SPAWNERS
    } else if a.moves && b.moves && overlap {
        TWO_MIGRATORS
    } else if ((a.moves && b.spawns) || (a.spawns && b.moves)) && overlap {
        SPAWNS_INTO_MIGRATOR
    } else if a.spawn_conflicts(b) {
        SPAWNS_INTO_QUERY
    } else if presence != 0 && components & presence == 0 {
        S::PRESENCE_CONFLICT_MESSAGES[presence.trailing_zeros() as usize]
    } else if components != 0 {
        let bit = components.trailing_zeros() as usize;
        if S::SPARSE_BITS & (1 << bit) != 0 {
            S::SPARSE_CONFLICT_MESSAGES[bit]
        } else {
            S::SYSTEM_CONFLICT_MESSAGES[bit]
        }
    } else {
        let resources = a.resource_conflicts(b);
        if resources == 0 {
            return None;
        }
        S::RESOURCE_CONFLICT_MESSAGES[resources.trailing_zeros() as usize]
    };
    Some(Message::new(&[
        "parameters ",
        position(first),
        " and ",
        position(second),
        " of this system",
        predicate,
    ]))
}

/// The end of the message for two `Spawner`s in one system.
const TWO_SPAWNERS: &str = ": both are `Spawner`s, and a system takes one (the entities it spawns \
    are made alive, in the order their ids were reserved, when it is applied); spawn one of the \
    bundles through `Commands`, or from a system of its own";

/// The end of the message for a `Spawner` beside a query of the same system
/// that can reach the table it adds rows to.
const SPAWNS_INTO_QUERY: &str = ": one is a `Spawner`, which adds rows to the table of its \
    bundle's components while the system runs, and the other is a query that can reach that \
    table, whose rows it takes before the run; make the query exclude the table (`Without<C>` \
    of a component of the bundle, or require one the bundle lacks), or move it to another system";

/// The end of the message for two `Migrator`s of one system whose reaches
/// meet.
const TWO_MIGRATORS: &str = ": both are `Migrator`s that can reach the same tables, and the \
    moves of one would displace the rows the other recorded; make their filters disjoint (one \
    requires a component the other excludes), or move one to a system of its own, which runs \
    after this one";

/// The end of the message for a `Spawner` beside a `Migrator` of the same
/// system whose reach holds the spawner's table.
const SPAWNS_INTO_MIGRATOR: &str = ": one is a `Spawner`, which adds rows to the table of its \
    bundle's components, and the other a `Migrator` that can reach that table, whose moves would \
    displace those rows before they are made alive; make the migrator's filter exclude the table \
    (`Without<C>` of a component of the bundle), or move one of them to another system";

/// A message put together in `const` evaluation, which cannot format (a
/// `const` panic takes one `&str`): its parts, copied one after another
/// into a buffer, as many whole parts as fit.
pub(crate) struct Message {
    bytes: [u8; 2048],
    len: usize,
}

impl Message {
    pub(crate) const fn new(parts: &[&str]) -> Message {
        let mut message = Message {
            bytes: [0; 2048],
            len: 0,
        };
        let mut part = 0;
        while part < parts.len() {
            let bytes = parts[part].as_bytes();
            if message.len + bytes.len() > message.bytes.len() {
                break;
            }
            let mut i = 0;
            while i < bytes.len() {
                message.bytes[message.len + i] = bytes[i];
                i += 1;
            }
            message.len += bytes.len();
            part += 1;
        }
        message
    }

    /// The text: whole `&str` parts, so always UTF-8.
    pub(crate) const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "two parameters of this system conflict",
        }
    }
}

/// Position `n` (from 1) as text: a system has at most 8 parameters.
const fn position(n: usize) -> &'static str {
    match n {
        1 => "1",
        2 => "2",
        3 => "3",
        4 => "4",
        5 => "5",
        6 => "6",
        7 => "7",
        8 => "8",
        _ => "?",
    }
}

#[cfg(test)]
mod tests {
    //! `conflict` runs in `const` evaluation when a system is added, where a
    //! conflict is a compile error, which the UI suite checks. Called here
    //! at run time, where it returns the message.
    use super::conflict;
    use crate::layout::{Component, Layout, Resource};
    use crate::query::{With, Without};
    use crate::system::{Access, Query, Res, ResMut, SystemParam};

    // Values are never read: the tests look at accesses only.
    #[allow(dead_code)]
    struct Pos(i32);
    #[allow(dead_code)]
    struct Vel(i32);
    #[allow(dead_code)]
    struct Heat(i32);
    #[derive(Default)]
    struct Gravity;

    #[derive(schemecs_macros::Schema)]
    struct Game {
        pos: Pos,
        vel: Vel,
        #[ecs(sparse)]
        heat: Heat,
        #[ecs(resource)]
        gravity: Gravity,
    }

    fn access<P: SystemParam<Game>>() -> Access {
        P::ACCESS
    }

    /// The message the check of a system with `params` fails with, if it
    /// does: the first conflict, in the order a system's `CHECK` evaluates
    /// the pairs.
    fn rejection(params: &[Access]) -> Option<String> {
        for (i, a) in params.iter().enumerate() {
            for (j, b) in params.iter().enumerate().skip(i + 1) {
                if let Some(message) = conflict::<Game>(a, i + 1, b, j + 1) {
                    return Some(message.as_str().to_owned());
                }
            }
        }
        None
    }

    fn component_bit<T: Component<Game>>() -> usize {
        T::BIT as usize
    }

    #[test]
    fn conflicting_parameters_are_rejected_by_position_with_the_message_of_the_component() {
        let write_pos = access::<Query<&mut Pos>>();
        let read_pos = access::<Query<&Pos>>();
        let gravity = access::<Res<Gravity>>();
        let pos = Game::SYSTEM_CONFLICT_MESSAGES[component_bit::<Pos>()];
        assert_eq!(
            rejection(&[write_pos, read_pos]),
            Some(format!("parameters 1 and 2 of this system{pos}"))
        );
        // The conflicting pair is the second and third parameter.
        assert_eq!(
            rejection(&[gravity, read_pos, write_pos]),
            Some(format!("parameters 2 and 3 of this system{pos}"))
        );
        // Disjoint entities keep two writers of a table component apart...
        let with_vel = access::<Query<&mut Pos, With<Vel>>>();
        let without_vel = access::<Query<&mut Pos, Without<Vel>>>();
        assert_eq!(rejection(&[with_vel, without_vel, gravity]), None);
        assert_eq!(rejection(&[read_pos, read_pos, gravity]), None);
    }

    #[test]
    fn a_sparse_component_and_a_resource_have_messages_of_their_own() {
        let heat = Game::SPARSE_CONFLICT_MESSAGES[component_bit::<Heat>()];
        let hot_movers = access::<Query<&mut Heat, With<Vel>>>();
        let cold_rest = access::<Query<&Heat, Without<Vel>>>();
        assert_eq!(
            rejection(&[hot_movers, cold_rest]),
            Some(format!("parameters 1 and 2 of this system{heat}"))
        );
        let gravity = Game::RESOURCE_CONFLICT_MESSAGES[<Gravity as Resource<Game>>::BIT as usize];
        let read = access::<Res<Gravity>>();
        let write = access::<ResMut<Gravity>>();
        assert_eq!(
            rejection(&[read, read, write]),
            Some(format!("parameters 1 and 3 of this system{gravity}"))
        );
        assert_eq!(rejection(&[read, read]), None);
    }

    #[test]
    fn a_message_reads_as_one_sentence() {
        let message = rejection(&[access::<Query<&mut Pos>>(), access::<Query<&Pos>>()]);
        assert_eq!(
            message.as_deref(),
            Some(
                "parameters 1 and 2 of this system can reach the same `Pos` values of schema \
                 `Game`, and at least one of them writes `Pos`; read and write `Pos` through one \
                 query (e.g. a single `Query<&mut Pos>`), or make the two queries' entities \
                 disjoint: one must require a component (`With<C>` or `&C`) that the other \
                 excludes (`Without<C>`), with `C` a table component, not `#[ecs(sparse)]`"
            )
        );
    }
}
