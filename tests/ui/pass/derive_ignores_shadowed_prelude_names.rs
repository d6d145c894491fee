// The generated code is fully path-qualified: user items named like prelude
// items, in the same module as the derive, change nothing.
#![allow(dead_code, non_snake_case, non_upper_case_globals)]

use ecs::{entity::Entity, query::Has, schema::Schema, query::With, query::Without, world::World};

pub struct Option;
pub struct Result;
pub struct Vec;
pub struct Box;
pub struct String;
pub fn Some() {}
pub const None: () = ();
pub fn Ok() {}
pub fn Err() {}
pub trait Default {}
pub trait Clone {}
pub trait Copy {}
pub trait Debug {}
pub trait Iterator {}
pub trait Sized {}
pub trait Send {}
pub trait Sync {}
pub trait Fn {}
pub trait Drop {}
pub trait PartialEq {}
pub trait Eq {}
pub trait Hash {}
pub trait Into {}
pub trait From {}

#[derive(::std::fmt::Debug, ::std::cmp::PartialEq)]
pub struct Pos(pub i64);
#[derive(::std::fmt::Debug, ::std::cmp::PartialEq)]
pub struct Frozen;
#[derive(::std::default::Default)]
pub struct Tick(pub u64);

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    frozen: Frozen,
    #[ecs(resource)]
    tick: Tick,
}

fn main() {
    let mut world = World::<Physics>::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2), Frozen));
    world
        .query_filtered_mut::<&mut Pos, Without<Frozen>>()
        .for_each_mut(|pos| pos.0 *= 10);
    let mut seen: ::std::vec::Vec<(Entity, i64, bool)> = world
        .query::<(Entity, &Pos, Has<Frozen>)>()
        .iter()
        .map(|(e, p, f)| (e, p.0, f))
        .collect();
    seen.sort_by_key(|&(_, p, _)| p);
    assert_eq!(seen, [(b, 2, true), (a, 10, false)]);
    assert_eq!(world.query_filtered::<Entity, With<Frozen>>().count(), 1);
    world.resource_mut::<Tick>().0 = 5;
    assert_eq!(world.resource::<Tick>().0, 5);
    assert_eq!(
        world.remove::<Frozen>(b),
        ::std::result::Result::Ok(::std::option::Option::Some(Frozen))
    );
}
