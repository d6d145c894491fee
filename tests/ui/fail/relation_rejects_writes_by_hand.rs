use ecs::prelude::*;

#[derive(Relation)]
struct ChildOf(Entity);
#[derive(Inverse)]
struct Children(Vec<Entity>);

#[derive(Schema)]
struct Scene {
    #[ecs(relation(inverse = children))]
    child_of: ChildOf,
    children: Children,
}

// Moving a child by writing its relation would leave both lists as they were.
fn reparent(mut children: Query<&mut ChildOf>) {
    children.for_each_mut(|_| {});
}

fn main() {
    let mut world = World::<Scene>::new();
    let root = world.spawn(());
    let child = world.spawn((ChildOf(root),));
    if let Some(child_of) = world.get_mut::<ChildOf>(child) {
        child_of.0 = child;
    }
    if let Some(child_of) = world.view_mut::<ChildOf>().get_mut(child) {
        child_of.0 = child;
    }
    // The world keeps the lists: one inserted by hand would not match.
    world.insert(root, (Children(vec![child]),)).unwrap();
    let mut schedule = Schedule::<Scene>::new();
    schedule.add(reparent);
}
