// A bundle is a tuple of at most 12 components; the message says how to add
// more.
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

fn main() {
    let mut world = World::<Big>::new();
    world.spawn((
        C0(0),
        C1(1),
        C2(2),
        C3(3),
        C4(4),
        C5(5),
        C6(6),
        C7(7),
        C8(8),
        C9(9),
        C10(10),
        C11(11),
        C12(12),
    ));
}
