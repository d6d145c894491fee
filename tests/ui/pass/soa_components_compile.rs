// SoA components (one tracked) beside whole ones: queries, filters,
// `Changed`, options, systems, bundles and the per-entity accessors compile
// together.
use ecs::prelude::*;
use ecs::query::Fields;

#[derive(Soa, Clone, Copy, Debug, PartialEq)]
pub struct Pos {
    pub x: f32,
    pub y: f32,
}

#[derive(Soa, Clone, Copy)]
pub struct Vel {
    pub x: f32,
    pub y: f32,
}

pub struct Name(pub String);
pub struct Frozen;

#[derive(Schema)]
pub struct Physics {
    #[ecs(soa)]
    pos: Pos,
    #[ecs(soa, track)]
    vel: Vel,
    name: Name,
    frozen: Frozen,
}

fn integrate(mut movers: Query<(Fields<&mut Pos>, Fields<&Vel>), Without<Frozen>>) {
    movers.for_each_table_mut(|_, (pos, vel)| {
        for i in 0..pos.len() {
            pos.x[i] += vel.x[i];
        }
    });
}

fn steer(mut turned: Query<Fields<&mut Vel>, Changed<Vel>>) {
    turned.for_each_mut(|v| *v.y = 0.0);
}

fn report(named: Query<(&Name, Option<Fields<&Pos>>)>) {
    named.for_each(|(name, pos)| {
        let _ = (&name.0, pos.map(|p| p.get()));
    });
}

fn main() {
    let mut world = World::<Physics>::new();
    let e = world.spawn((Pos { x: 0.0, y: 0.0 }, Vel { x: 1.0, y: 1.0 }, Name("a".into())));
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(integrate).add(steer).add(report);
    schedule.run(&mut world);
    let pos: PosRef<'_> = world.get_soa::<Pos>(e).unwrap();
    assert_eq!(pos.get(), Pos { x: 1.0, y: 0.0 });
    if let Some(mut pos) = world.get_soa_mut::<Pos>(e) {
        pos.set(Pos { x: 2.0, y: 2.0 });
    }
    let _: Option<Pos> = world.remove::<Pos>(e).unwrap();
}
