// An `#[ecs(soa)]` component has no whole value to borrow: `&Pos`,
// `&mut Pos`, `get`, `get_mut` and `view` say to use `Fields` or `get_soa`.
use ecs::prelude::*;
use ecs::query::Fields;

#[derive(Soa, Clone, Copy)]
pub struct Pos {
    pub x: f32,
}

#[derive(Soa, Clone, Copy)]
pub struct Vel {
    pub x: f32,
}

#[derive(Schema)]
pub struct Physics {
    #[ecs(soa)]
    pos: Pos,
    vel: Vel,
}

fn main() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos { x: 0.0 }, Vel { x: 1.0 }));
    world.query::<&Pos>().for_each(|_| {});
    let _ = world.get::<Pos>(e);
    let _ = world.view::<Pos>();
    // And the other way round: `Vel` derives `Soa` but is stored whole.
    world.query::<Fields<&Vel>>().for_each(|_| {});
}
