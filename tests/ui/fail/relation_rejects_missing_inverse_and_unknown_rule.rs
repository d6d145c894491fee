use ecs::prelude::*;

#[derive(Relation)]
struct ChildOf(Entity);
#[derive(Relation)]
struct Targets(Entity);
#[derive(Inverse)]
struct TargetedBy(Vec<Entity>);

#[derive(Schema)]
struct Scene {
    #[ecs(relation)]
    child_of: ChildOf,
    #[ecs(relation(inverse = targeted_by, on_target_despawn = delete))]
    targets: Targets,
    targeted_by: TargetedBy,
}

fn main() {}
