//! [`Access`]: what a system parameter reads and writes, as masks.

use crate::query::TableCondition;

/// What one system parameter can touch, as bit masks over the schema's
/// components and resources. Queries know theirs at compile time, so two
/// parameters of one system are checked against each other by `const`
/// evaluation, and the schedule compares systems with the same rules.
///
/// Two accesses *conflict* on a component when one writes it and the other
/// reads or writes it, unless no entity is reached by both: one requires a
/// component the other excludes (`With<Vel>` against `Without<Vel>`), or,
/// for queries with [`Or`](crate::query::Or), every condition of one is disjoint
/// in that way from every condition of the other. Components lent whole
/// ([`Access::whole`]: the sparse ones) conflict even then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Components read through `&T`.
    pub reads: u128,
    /// Components written through `&mut T`.
    pub writes: u128,
    /// Components among `reads` and `writes` whose values are lent as one
    /// column, whatever the entities reached: the `#[ecs(sparse)]` ones, kept
    /// in one sparse set rather than a column per table. Disjoint entities
    /// do not keep two accesses to them apart.
    pub whole: u128,
    /// Components every reached entity has.
    pub required: u128,
    /// Components no reached entity has.
    pub excluded: u128,
    /// The reached entities exactly, when `required` and `excluded` alone do
    /// not say it: those matching any one of these conditions (a query with
    /// an [`Or`](crate::query::Or) filter). Empty otherwise; when not empty,
    /// `required` and `excluded` are what all of them share.
    pub any_of: &'static [TableCondition],
    /// Sparse components whose presence on an entity it observes: named in
    /// a query's items (`&T`, `Has<T>`, `Option<&T>`) or filter (`With<T>`,
    /// `Without<T>`, ...).
    pub presence: u128,
    /// Sparse components it adds to and removes from entities while its
    /// stage runs ([`SparseMut`](crate::command::SparseMut)): it conflicts with
    /// every parameter that observes their presence.
    pub presence_changed: u128,
    /// Tracked components whose removal log it reads
    /// ([`Removed`](crate::change::Removed)).
    pub removals_read: u128,
    /// Tracked components whose removal log it appends to when its run is
    /// applied ([`SparseMut`](crate::command::SparseMut)): a later reader of the log
    /// must wait for that.
    pub removals_logged: u128,
    /// Resources read (`Res<T>`).
    pub resource_reads: u128,
    /// Resources written (`ResMut<T>`).
    pub resource_writes: u128,
    /// Sees which entities exist and what they hold (any query): it would
    /// observe an earlier system's commands.
    pub observes_entities: bool,
    /// Walks the rows of the tables its conditions match (a query): it
    /// would see the rows a [`Spawner`](crate::command::Spawner) adds there.
    pub iterates: bool,
    /// Records [`Commands`](crate::command::Commands).
    pub commands: bool,
    /// Reserves entity ids while it runs ([`Spawner`](crate::command::Spawner)):
    /// a later system that reserves ids too waits until it is applied.
    pub reserves: bool,
    /// Allocates entity ids when its run is applied
    /// ([`UnnamedSpawner`](crate::command::UnnamedSpawner)): a later system that
    /// reserves ids waits until then.
    pub allocates: bool,
    /// Adds rows to the table of exactly its `required` components while it
    /// runs ([`Spawner`](crate::command::Spawner)), made alive when it is applied:
    /// a later system whose query can reach that table, or that shares
    /// anything else with it (and so may be handed a new id), waits until
    /// then.
    pub spawns: bool,
    /// Moves entities between the tables its `required` and `excluded`
    /// components match when its run is applied ([`Migrator`](crate::command::Migrator)):
    /// it conflicts with every parameter that can reach those tables' rows,
    /// and a later system that does waits until it is applied.
    pub moves: bool,
    /// Takes the whole world (`&mut World<S>`): conflicts with everything.
    pub world: bool,
}

impl Access {
    /// Touches nothing.
    pub const NONE: Access = Access {
        reads: 0,
        writes: 0,
        whole: 0,
        required: 0,
        excluded: 0,
        any_of: &[],
        presence: 0,
        presence_changed: 0,
        removals_read: 0,
        removals_logged: 0,
        resource_reads: 0,
        resource_writes: 0,
        observes_entities: false,
        iterates: false,
        commands: false,
        reserves: false,
        allocates: false,
        spawns: false,
        moves: false,
        world: false,
    };

    /// Whether no entity can be reached by both: one requires a component
    /// the other excludes, or, with [`Access::any_of`], that holds for every
    /// pair of their conditions.
    pub const fn disjoint_entities(&self, other: &Access) -> bool {
        if self.required & other.excluded != 0 || other.required & self.excluded != 0 {
            return true;
        }
        if self.any_of.is_empty() && other.any_of.is_empty() {
            return false;
        }
        // Each condition is satisfiable on its own (the filter dropped those
        // that are not), so two are disjoint exactly when one requires what
        // the other excludes; the reaches are disjoint when every pair is.
        let mut i = 0;
        while i < self.condition_count() {
            let mut j = 0;
            while j < other.condition_count() {
                if !self.condition(i).is_disjoint(other.condition(j)) {
                    return false;
                }
                j += 1;
            }
            i += 1;
        }
        true
    }

    const fn condition_count(&self) -> usize {
        if self.any_of.is_empty() {
            1
        } else {
            self.any_of.len()
        }
    }

    const fn condition(&self, i: usize) -> TableCondition {
        if self.any_of.is_empty() {
            TableCondition {
                required: self.required,
                excluded: self.excluded,
            }
        } else {
            self.any_of[i]
        }
    }

    /// The components both can reach with at least one of them writing.
    pub const fn component_conflicts(&self, other: &Access) -> u128 {
        let conflicts = (self.writes & (other.reads | other.writes)) | (other.writes & self.reads);
        if self.disjoint_entities(other) {
            return conflicts & (self.whole | other.whole);
        }
        conflicts
    }

    /// Whether one adds rows (a [`Spawner`](crate::command::Spawner)) to a table
    /// whose rows the other walks.
    pub const fn spawn_conflicts(&self, other: &Access) -> bool {
        (self.spawns && other.iterates && !self.disjoint_entities(other))
            || (other.spawns && self.iterates && !other.disjoint_entities(self))
    }

    /// Whether one moves entities between tables (a
    /// [`Migrator`](crate::command::Migrator)) whose rows the other can reach: walks,
    /// reads or writes (a table component), adds to or moves too.
    pub const fn move_conflicts(&self, other: &Access) -> bool {
        (self.moves && other.reaches_rows() && !self.disjoint_entities(other))
            || (other.moves && self.reaches_rows() && !other.disjoint_entities(self))
    }

    /// Whether it can see or change the rows of the tables it reaches: a
    /// query, a [`Spawner`](crate::command::Spawner) or a [`Migrator`](crate::command::Migrator).
    /// What only holds a sparse set whole ([`SparseMut`](crate::command::SparseMut))
    /// sees no row.
    const fn reaches_rows(&self) -> bool {
        self.iterates || self.spawns || self.moves || (self.reads | self.writes) & !self.whole != 0
    }

    /// The sparse components whose presence one changes while the other
    /// observes it: with [`Access::component_conflicts`], what keeps two
    /// parameters from running at once.
    pub const fn presence_conflicts(&self, other: &Access) -> u128 {
        (self.presence_changed & (other.presence | other.presence_changed))
            | (other.presence_changed & self.presence)
    }

    /// The tracked components whose removal log one appends to and the
    /// other reads or appends to.
    pub const fn removal_conflicts(&self, other: &Access) -> u128 {
        (self.removals_logged & (other.removals_read | other.removals_logged))
            | (other.removals_logged & self.removals_read)
    }

    /// The resources both borrow with at least one of them writing.
    pub const fn resource_conflicts(&self, other: &Access) -> u128 {
        (self.resource_writes & (other.resource_reads | other.resource_writes))
            | (other.resource_writes & self.resource_reads)
    }
}

#[cfg(test)]
mod tests {
    use super::{Access, TableCondition};

    const POS: u128 = 1;
    const VEL: u128 = 2;

    fn query(reads: u128, writes: u128, required: u128, excluded: u128) -> Access {
        Access {
            reads,
            writes,
            required: required | reads | writes,
            excluded,
            observes_entities: true,
            ..Access::NONE
        }
    }

    #[test]
    fn write_conflicts_with_read_and_write_but_reads_share() {
        let write_pos = query(0, POS, 0, 0);
        let read_pos = query(POS, 0, 0, 0);
        assert_eq!(write_pos.component_conflicts(&read_pos), POS);
        assert_eq!(read_pos.component_conflicts(&write_pos), POS);
        assert_eq!(write_pos.component_conflicts(&write_pos), POS);
        assert_eq!(read_pos.component_conflicts(&read_pos), 0);
        assert_eq!(write_pos.component_conflicts(&query(VEL, 0, 0, 0)), 0);
    }

    #[test]
    fn a_query_that_reads_what_it_writes_conflicts_with_every_other_user() {
        // `Query<&mut Pos, Changed<Pos>>` reads Pos through its filter and
        // writes it through its item.
        let changed_writer = query(POS, POS, 0, 0);
        let writer = query(0, POS, 0, 0);
        let reader = query(POS, 0, 0, 0);
        assert_eq!(changed_writer.component_conflicts(&writer), POS);
        assert_eq!(writer.component_conflicts(&changed_writer), POS);
        assert_eq!(changed_writer.component_conflicts(&changed_writer), POS);
        assert_eq!(changed_writer.component_conflicts(&reader), POS);
        assert_eq!(reader.component_conflicts(&changed_writer), POS);
    }

    #[test]
    fn with_against_without_is_disjoint() {
        let with_vel = query(0, POS, VEL, 0);
        let without_vel = query(0, POS, 0, VEL);
        assert!(with_vel.disjoint_entities(&without_vel));
        assert_eq!(with_vel.component_conflicts(&without_vel), 0);
        // Requiring Vel by reading it is as good as `With<Vel>`.
        let reads_vel = query(VEL, POS, 0, 0);
        assert_eq!(reads_vel.component_conflicts(&without_vel), 0);
        // Excluding something else proves nothing.
        let without_other = query(0, POS, 0, 4);
        assert_eq!(with_vel.component_conflicts(&without_other), POS);
    }

    #[test]
    fn a_component_lent_whole_conflicts_across_disjoint_entities() {
        // Two writers of a sparse `Pos`, kept apart by `With<Vel>` and
        // `Without<Vel>`: their entities differ, their column does not.
        let with_vel = Access {
            whole: POS,
            ..query(0, POS, VEL, 0)
        };
        let without_vel = Access {
            whole: POS,
            ..query(0, POS, 0, VEL)
        };
        assert!(with_vel.disjoint_entities(&without_vel));
        assert_eq!(with_vel.component_conflicts(&without_vel), POS);
        assert_eq!(without_vel.component_conflicts(&with_vel), POS);
        // A reader of it conflicts too; one of another component does not.
        let read = Access {
            whole: POS,
            ..query(POS, 0, 0, VEL)
        };
        assert_eq!(with_vel.component_conflicts(&read), POS);
        assert_eq!(with_vel.component_conflicts(&query(4, 0, 0, VEL)), 0);
    }

    const A: u128 = 8;
    const B: u128 = 16;

    fn condition(required: u128, excluded: u128) -> TableCondition {
        TableCondition { required, excluded }
    }

    /// A query writing `Pos` that reaches the tables of any of `conditions`,
    /// summarized as the filter does: what every condition shares.
    fn write_pos_where_any(conditions: Vec<TableCondition>) -> Access {
        let conditions: &'static [TableCondition] = conditions.leak();
        Access {
            writes: POS,
            required: conditions.iter().fold(!0, |all, c| all & c.required),
            excluded: conditions.iter().fold(!0, |all, c| all & c.excluded),
            any_of: conditions,
            observes_entities: true,
            ..Access::NONE
        }
    }

    #[test]
    fn or_overlaps_what_any_branch_overlaps() {
        // `Query<&mut Pos, Or<(With<A>, With<B>)>>` against
        // `Query<&mut Pos, Without<A>>`: an entity with B and without A is
        // reached by both.
        let a_or_b = write_pos_where_any(vec![condition(POS | A, 0), condition(POS | B, 0)]);
        let without_a = query(0, POS, 0, A);
        assert!(!a_or_b.disjoint_entities(&without_a));
        assert!(!without_a.disjoint_entities(&a_or_b));
        assert_eq!(a_or_b.component_conflicts(&without_a), POS);
        assert_eq!(without_a.component_conflicts(&a_or_b), POS);
    }

    #[test]
    fn or_is_disjoint_from_what_every_branch_is_disjoint_from() {
        // `Or<(With<A>, With<B>)>` against `(Without<A>, Without<B>)`.
        let a_or_b = write_pos_where_any(vec![condition(POS | A, 0), condition(POS | B, 0)]);
        let neither = query(0, POS, 0, A | B);
        assert!(a_or_b.disjoint_entities(&neither));
        assert!(neither.disjoint_entities(&a_or_b));
        assert_eq!(a_or_b.component_conflicts(&neither), 0);
        // Two `Or`s: `Or<(With<A>, With<B>)>` against
        // `Or<((Without<A>, Without<B>), (Without<Pos>,))>`.
        let other = write_pos_where_any(vec![condition(POS, A | B), condition(0, POS)]);
        assert!(a_or_b.disjoint_entities(&other));
        // ... but not against `Or<(Without<A>, Without<B>)>`: an entity with
        // A and without B is reached by both.
        let other = write_pos_where_any(vec![condition(POS, A), condition(POS, B)]);
        assert!(!a_or_b.disjoint_entities(&other));
    }

    #[test]
    fn what_all_branches_share_proves_disjointness_alone() {
        // `Or<((With<A>, With<B>), (With<A>, Without<B>))>` requires A
        // whatever the branch, so it is disjoint from `Without<A>`.
        let always_a = write_pos_where_any(vec![condition(POS | A | B, 0), condition(POS | A, B)]);
        assert_eq!(always_a.required, POS | A);
        assert!(always_a.disjoint_entities(&query(0, POS, 0, A)));
    }

    #[test]
    fn a_mover_conflicts_with_what_reaches_its_tables_rows() {
        // `Migrator<_, Heat, With<Vel>>`: moves rows among the tables with
        // `Vel`.
        let mover = Access {
            required: VEL,
            moves: true,
            observes_entities: true,
            ..Access::NONE
        };
        // A reader of any table component there, or a walker of its rows.
        let read_pos = query(POS, 0, 0, 0);
        assert!(mover.move_conflicts(&read_pos) && read_pos.move_conflicts(&mover));
        let walk = Access {
            iterates: true,
            ..query(0, 0, 0, 0)
        };
        assert!(mover.move_conflicts(&walk));
        assert!(mover.move_conflicts(&mover));
        // Not across disjoint entities, nor with a sparse set held whole,
        // nor with what reaches no row.
        assert!(!mover.move_conflicts(&query(POS, POS, 0, VEL)));
        let sparse = Access {
            whole: A,
            ..query(A, A, 0, 0)
        };
        assert!(!mover.move_conflicts(&sparse));
        assert!(!mover.move_conflicts(&Access {
            resource_writes: 1,
            commands: true,
            ..Access::NONE
        }));
        // Two movers of disjoint tables share a stage.
        let other = Access {
            excluded: VEL,
            ..mover
        };
        assert!(!mover.move_conflicts(&other));
    }

    #[test]
    fn resources_conflict_only_with_a_writer() {
        let read = Access {
            resource_reads: 1,
            ..Access::NONE
        };
        let write = Access {
            resource_writes: 1,
            ..Access::NONE
        };
        assert_eq!(read.resource_conflicts(&read), 0);
        assert_eq!(read.resource_conflicts(&write), 1);
        assert_eq!(write.resource_conflicts(&write), 1);
    }
}
