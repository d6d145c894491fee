// A query tuple takes at most 12 items; the message says that tuples nest.
use ecs::prelude::*;

pub struct C0(pub u8);
pub struct C1(pub u8);
pub struct C2(pub u8);
pub struct C3(pub u8);
pub struct C4(pub u8);
pub struct C5(pub u8);
pub struct C6(pub u8);
pub struct C7(pub u8);
pub struct C8(pub u8);
pub struct C9(pub u8);
pub struct C10(pub u8);
pub struct C11(pub u8);
pub struct C12(pub u8);

#[derive(Schema)]
pub struct Big {
    c0: C0,
    c1: C1,
    c2: C2,
    c3: C3,
    c4: C4,
    c5: C5,
    c6: C6,
    c7: C7,
    c8: C8,
    c9: C9,
    c10: C10,
    c11: C11,
    c12: C12,
}

type Thirteen<'a> = (
    &'a C0,
    &'a C1,
    &'a C2,
    &'a C3,
    &'a C4,
    &'a C5,
    &'a C6,
    &'a C7,
    &'a C8,
    &'a C9,
    &'a C10,
    &'a C11,
    &'a C12,
);

fn main() {
    let world = World::<Big>::new();
    let _ = world.query::<Thirteen>().count();
}
