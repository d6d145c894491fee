// The generated code names everything by absolute path, so a crate without
// the implicit prelude can derive and use a schema.
#![no_implicit_prelude]

#[derive(::std::fmt::Debug, ::std::cmp::PartialEq)]
pub struct Pos(pub i64);
#[derive(::std::fmt::Debug, ::std::cmp::PartialEq)]
pub struct Vel(pub i64);
#[derive(::std::fmt::Debug, ::std::cmp::PartialEq)]
pub struct Frozen;
#[derive(::std::fmt::Debug, ::std::default::Default)]
pub struct Tick(pub u64);

#[derive(::ecs::Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    frozen: Frozen,
    #[ecs(resource)]
    tick: Tick,
}

// A bundle, nested, generic: the derive names everything by absolute path.
#[derive(::ecs::Bundle)]
pub struct Motion {
    pos: Pos,
    vel: Vel,
}

#[derive(::ecs::Bundle)]
pub struct Held<T>(T, #[bundle] Motion);

mod systems {
    // A module inside a `#![no_implicit_prelude]` crate has no prelude either.
    #[derive(::ecs::Schema)]
    pub struct Inner {
        pos: super::Pos,
    }
}

fn main() {
    let mut world = ::ecs::world::World::<Physics>::new();
    let a = world.spawn((Pos(1), Vel(2)));
    let b = world.spawn((Pos(10), Vel(20), Frozen));
    world
        .query_filtered_mut::<(&mut Pos, &Vel), ::ecs::query::Without<Frozen>>()
        .for_each_mut(|(pos, vel)| pos.0 += vel.0);
    ::std::assert_eq!(world.get::<Pos>(a), ::std::option::Option::Some(&Pos(3)));
    ::std::assert_eq!(world.get::<Pos>(b), ::std::option::Option::Some(&Pos(10)));
    ::std::assert!(world.has::<Frozen>(b));
    world.resource_mut::<Tick>().0 += 1;
    ::std::assert_eq!(world.resource::<Tick>().0, 1);
    ::std::assert_eq!(
        <Physics as ::ecs::schema::Layout>::COMPONENT_NAMES,
        ["Pos", "Vel", "Frozen"]
    );
    ::std::assert_eq!(
        ::std::format!("{:?}", PhysicsMask::POS | PhysicsMask::FROZEN),
        "PhysicsMask(Pos | Frozen)"
    );

    let mut inner = ::ecs::world::World::<systems::Inner>::new();
    let e = inner.spawn((Pos(7),));
    ::std::assert_eq!(
        inner.remove::<Pos>(e),
        ::std::result::Result::Ok(::std::option::Option::Some(Pos(7)))
    );
    let c = world.spawn(Held(Frozen, Motion { pos: Pos(4), vel: Vel(5) }));
    ::std::assert_eq!(world.get::<Vel>(c), ::std::option::Option::Some(&Vel(5)));
    ::std::println!("{}", world.describe());
}
