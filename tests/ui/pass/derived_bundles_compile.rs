// Derived bundles, named, tuple and generic, nested, go wherever a tuple
// bundle goes. The generated impl names everything by absolute path: items
// named like prelude items or primitive types beside the derive change
// nothing.
#![allow(dead_code, non_camel_case_types)]

use ecs::prelude::*;

use ecs::command::CommandBuffer;

#[derive(Debug, PartialEq)]
pub struct Pos(pub i64);
#[derive(Debug, PartialEq)]
pub struct Vel(pub i64);
#[derive(Debug, PartialEq)]
pub struct Body(pub u8);
#[derive(Debug, PartialEq)]
pub struct Docked;

#[derive(Schema)]
pub struct Space {
    pos: Pos,
    vel: Vel,
    body: Body,
    docked: Docked,
}

mod bundles {
    use super::{Body, Docked, Pos, Vel};

    pub struct Option;
    pub struct Some;
    pub struct Self_;
    pub struct u32;
    pub struct u128;
    pub struct usize;
    pub trait Iterator {}
    pub trait FnMut {}
    pub trait Sized {}
    pub const seen: () = ();
    pub const target: () = ();

    #[derive(ecs::bundle::Bundle, ::std::fmt::Debug)]
    pub struct Motion {
        pub pos: Pos,
        pub vel: Vel,
    }

    #[derive(ecs::bundle::Bundle, ::std::fmt::Debug)]
    pub struct Ship(pub Body, #[bundle] pub Motion);

    #[derive(ecs::bundle::Bundle, ::std::fmt::Debug)]
    pub struct Pair<A, B: Send>
    where
        A: Sync,
    {
        pub first: A,
        #[bundle]
        pub second: (B, Docked),
    }

    #[derive(ecs::bundle::Bundle, ::std::fmt::Debug)]
    pub struct Moored {
        pub body: Body,
        #[bundle]
        pub pair: Pair<Vel, Pos>,
    }
}

use bundles::{Moored, Motion, Pair, Ship};

fn motion(n: i64) -> Motion {
    Motion {
        pos: Pos(n),
        vel: Vel(n),
    }
}

fn launch(mut commands: Commands<Space>) {
    let e = commands.spawn(Ship(Body(1), motion(1)));
    commands.remove_bundle::<Motion>(e);
    commands.insert(e, motion(2));
}

fn main() {
    let mut world = World::<Space>::new();
    let ship = world.spawn(Ship(Body(0), motion(0)));
    world.spawn_batch((0..3).map(|n| Ship(Body(n as u8), motion(n))));
    let _: Option<Motion> = world.remove_bundle(ship).unwrap();
    world.insert(ship, motion(5)).unwrap();
    let _: Motion = world
        .exchange::<Motion, _>(ship, Pair { first: Vel(1), second: (Pos(2), Docked) })
        .unwrap();
    let _: Moored = world.take(ship).unwrap();
    let mut buffer = CommandBuffer::<Space>::new();
    buffer.spawn(&world, Ship(Body(9), motion(9)));
    buffer.apply(&mut world);
    let mut schedule = Schedule::<Space>::new();
    schedule.add(launch);
    schedule.run(&mut world);
}
