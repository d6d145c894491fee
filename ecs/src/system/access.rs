//! [`Access`]: what a system parameter reads and writes, as masks.

/// What one system parameter can touch, as bit masks over the schema's
/// components and resources. Queries know theirs at compile time, so two
/// parameters of one system are checked against each other by `const`
/// evaluation, and the schedule compares systems with the same rules.
///
/// Two accesses *conflict* on a component when one writes it and the other
/// reads or writes it, unless their table conditions are disjoint: one
/// requires a component the other excludes (`With<Vel>` against
/// `Without<Vel>`), so no entity is reached by both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Components read through `&T`.
    pub reads: u128,
    /// Components written through `&mut T`.
    pub writes: u128,
    /// Components every reached entity has.
    pub required: u128,
    /// Components no reached entity has.
    pub excluded: u128,
    /// Resources read (`Res<T>`).
    pub resource_reads: u128,
    /// Resources written (`ResMut<T>`).
    pub resource_writes: u128,
    /// Sees which entities exist and what they hold (any query): it would
    /// observe an earlier system's commands.
    pub observes_entities: bool,
    /// Records [`Commands`](crate::Commands).
    pub commands: bool,
    /// Takes the whole world (`&mut World<S>`): conflicts with everything.
    pub world: bool,
}

impl Access {
    /// Touches nothing.
    pub const NONE: Access = Access {
        reads: 0,
        writes: 0,
        required: 0,
        excluded: 0,
        resource_reads: 0,
        resource_writes: 0,
        observes_entities: false,
        commands: false,
        world: false,
    };

    /// Whether no entity can be reached by both: one requires a component
    /// the other excludes.
    pub const fn disjoint_entities(&self, other: &Access) -> bool {
        self.required & other.excluded != 0 || other.required & self.excluded != 0
    }

    /// The components both can reach with at least one of them writing.
    pub const fn component_conflicts(&self, other: &Access) -> u128 {
        if self.disjoint_entities(other) {
            return 0;
        }
        (self.writes & (other.reads | other.writes)) | (other.writes & self.reads)
    }

    /// The resources both borrow with at least one of them writing.
    pub const fn resource_conflicts(&self, other: &Access) -> u128 {
        (self.resource_writes & (other.resource_reads | other.resource_writes))
            | (other.resource_writes & self.resource_reads)
    }
}

#[cfg(test)]
mod tests {
    use super::Access;

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
