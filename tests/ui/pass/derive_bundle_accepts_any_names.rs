// `#[derive(Bundle)]` takes its generic parameters' names from no type of
// the struct and binds no name of the user's: component types named `S`,
// `I`, `__S`, `__I` and `Entity`, a generic bundle whose parameter is `S`,
// fields and unit structs named like the impl's locals, and raw
// identifiers all compile.
#![allow(dead_code, non_camel_case_types)]

use ecs::prelude::*;

mod types {
    #[derive(Debug, PartialEq)]
    pub struct S(pub u8);
    #[derive(Debug, PartialEq)]
    pub struct I(pub u8);
    #[derive(Debug, PartialEq)]
    pub struct __S(pub u8);
    #[derive(Debug, PartialEq)]
    pub struct __I(pub u8);
    #[derive(Debug, PartialEq)]
    pub struct __ecs_S(pub u8);
    /// A component named like the runtime's `Entity`.
    #[derive(Debug, PartialEq)]
    pub struct Entity(pub u8);
    /// Tags named like the impl's locals, old and new.
    #[derive(Debug, PartialEq)]
    pub struct __target;
    #[derive(Debug, PartialEq)]
    pub struct __columns;
    #[derive(Debug, PartialEq)]
    pub struct target;
}

use types::{Entity, __columns, __ecs_S, __target, target, __I, __S, I, S};

#[derive(Schema)]
pub struct Odd {
    s: S,
    i: I,
    s2: __S,
    i2: __I,
    s3: __ecs_S,
    entity: Entity,
    old_target: __target,
    old_columns: __columns,
    new_target: target,
}

mod bundles {
    use super::types::*;

    #[derive(ecs::bundle::Bundle, Debug)]
    pub struct Named {
        pub r#type: S,
        pub target: I,
        pub source: __S,
        pub columns: __I,
        pub f: __ecs_S,
        pub bundles: Entity,
    }

    #[derive(ecs::bundle::Bundle, Debug)]
    pub struct Tags(pub __target, pub __columns, pub target);

    #[derive(ecs::bundle::Bundle, Debug)]
    pub struct Generic<S, I> {
        pub seen: S,
        #[bundle]
        pub repeated: I,
    }
}

use bundles::{Generic, Named, Tags};

fn named(n: u8) -> Named {
    Named {
        r#type: S(n),
        target: I(n),
        source: __S(n),
        columns: __I(n),
        f: __ecs_S(n),
        bundles: Entity(n),
    }
}

fn count(everything: Query<(&S, Has<__target>)>) {
    assert_eq!(everything.iter().filter(|(_, tagged)| *tagged).count(), 1);
    assert_eq!(everything.iter().count(), 4);
}

fn main() {
    let mut world = World::<Odd>::new();
    let a = world.spawn(named(1));
    world.spawn_batch((2..5).map(named));
    let b = world.spawn(Generic {
        seen: S(9),
        repeated: Tags(__target, __columns, target),
    });
    assert_eq!(world.get::<S>(b), Some(&S(9)));
    assert_eq!(
        world.remove_bundle::<Named>(a).map(|named| named.map(|named| named.bundles)),
        Ok(Some(Entity(1)))
    );
    let mut schedule = Schedule::<Odd>::new();
    schedule.add(count);
    schedule.run(&mut world);
}
