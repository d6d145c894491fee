// A system takes at most eight parameters.
use ecs::prelude::*;

pub struct A(pub i64);
pub struct B(pub i64);
pub struct C(pub i64);
pub struct D(pub i64);
pub struct E(pub i64);
pub struct F(pub i64);
pub struct G(pub i64);
pub struct H(pub i64);
pub struct I(pub i64);

#[derive(Schema)]
pub struct Letters {
    a: A,
    b: B,
    c: C,
    d: D,
    e: E,
    f: F,
    g: G,
    h: H,
    i: I,
}

#[allow(clippy::too_many_arguments)]
fn nine(
    _a: Query<&A>,
    _b: Query<&B>,
    _c: Query<&C>,
    _d: Query<&D>,
    _e: Query<&E>,
    _f: Query<&F>,
    _g: Query<&G>,
    _h: Query<&H>,
    _i: Query<&I>,
) {
}

fn main() {
    let mut world = World::<Letters>::new();
    let mut schedule = Schedule::<Letters>::new();
    schedule.add(nine);
    schedule.run(&mut world);
}
