// `#[derive(Schema)]` (and `StableHash`, `Relation`, `Inverse`) take no
// name of the user's for their own: component and resource types named like
// the impls' generic parameters (`S`, `T`, `V`, `W`, `D`, `R0`, `R1`), tags
// named like their locals (`values`, `column`, `target`, ...), hooks and
// makers named like their parameters (`world`, `bits`, `staged`), fields
// named like anything, raw identifiers, and a module of the user's that
// redefines prelude names all compile and work.
#![allow(dead_code, non_camel_case_types, non_upper_case_globals, non_snake_case)]

use ecs::prelude::*;

use ecs::world::DeferredWorld;

pub struct Option;
pub struct Result;
pub struct Vec;
pub struct Box;
pub fn Some() {}
pub const None: () = ();
pub fn Ok() {}
pub fn Err() {}
pub trait Default {}
pub trait Clone {}

#[derive(::std::fmt::Debug, ::core::cmp::PartialEq, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct S(pub u8);
#[derive(::std::fmt::Debug, ::core::cmp::PartialEq, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct T(pub u8);
#[derive(::std::fmt::Debug, ::core::cmp::PartialEq, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct V(pub u8);
#[derive(::std::fmt::Debug, ::core::cmp::PartialEq, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct W(pub u8);
#[derive(::std::fmt::Debug, ::core::cmp::PartialEq, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct D {
    pub hasher: u8,
    pub r#type: u8,
}
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct __W(pub u8);
/// Tags named like the generated code's locals.
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct values;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct column;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct target;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct resources;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct hasher;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct source;
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct sources;
/// Resources named like the resources struct's parameters, in the other
/// order.
#[derive(::core::default::Default, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct R0(pub u8);
#[derive(::core::default::Default, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct R1(pub u8);
#[derive(::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct Entity2(pub u8);
#[derive(
    ::std::fmt::Debug, ::core::default::Default, ::core::clone::Clone, ::core::marker::Copy,
    ::core::cmp::PartialEq, ::core::cmp::Eq, ecs::checksum::StableHash,
)]
pub enum Phase {
    #[default]
    Menu,
    Playing { r#match: u8 },
}
#[derive(::core::clone::Clone, ecs::checksum::StableHash)]
pub struct Hit(pub u8);
#[derive(Relation, ::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct ChildOf {
    pub target: ecs::entity::Entity,
}
#[derive(Inverse, ::std::fmt::Debug, ::core::clone::Clone, ecs::checksum::StableHash)]
pub struct Children {
    pub sources: ::std::vec::Vec<ecs::entity::Entity>,
}

fn world(_: &mut DeferredWorld<'_, Game>, _: ecs::entity::Entity) {}
fn bits(_: &mut DeferredWorld<'_, Game>, _: ecs::entity::Entity) {}
fn staged() -> V {
    V(7)
}

#[derive(Schema)]
pub struct Game {
    #[ecs(requires(V = staged), on_add = world, on_remove = bits)]
    r#type: S,
    column: T,
    v: V,
    world: W,
    entity: D,
    mask: __W,
    schema: values,
    resources: column,
    values: target,
    hasher: resources,
    tick: hasher,
    r#match: source,
    sources: sources,
    other: Entity2,
    #[ecs(relation(inverse = children))]
    child_of: ChildOf,
    children: Children,
    #[ecs(resource)]
    r1: R1,
    #[ecs(resource)]
    r0: R0,
    #[ecs(state)]
    phase: Phase,
    #[ecs(event)]
    hit: Hit,
}

fn count(all: Query<(&S, &V, Has<values>)>, phase: Res<State<Phase>>, r0: Res<R0>) {
    assert_eq!(all.iter().count(), 2);
    assert!(all.iter().all(|(_, v, tagged)| v.0 == 7 && tagged));
    assert_eq!(*phase.get(), Phase::Menu);
    assert_eq!(r0.0, 0);
}

fn main() {
    let mut world = World::<Game>::new();
    let root = world.spawn((S(1), values, target, D { hasher: 1, r#type: 2 }));
    world.spawn((S(2), values, ChildOf { target: root }));
    assert_eq!(world.sources::<ChildOf>(root).len(), 1);
    let mut schedule = Schedule::<Game>::new();
    schedule.add(count);
    schedule.run(&mut world);
    let copy = world.clone();
    assert_eq!(copy.checksum(), world.checksum());
}
