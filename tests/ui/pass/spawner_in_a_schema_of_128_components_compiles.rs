// A spawner in a schema of 128 components, the most a schema holds: its
// access names every component but its bundle's (which must not overflow
// the `u128` mask).
use ecs::prelude::*;
use ecs::command::Spawner;

support::schema_with_fillers! {
    /// 64 pairs of fillers: components 0 to 127.
    struct Widest [
        f0 t0 f1 t1 f2 t2 f3 t3 f4 t4 f5 t5 f6 t6 f7 t7
        f8 t8 f9 t9 f10 t10 f11 t11 f12 t12 f13 t13 f14 t14 f15 t15
        f16 t16 f17 t17 f18 t18 f19 t19 f20 t20 f21 t21 f22 t22 f23 t23
        f24 t24 f25 t25 f26 t26 f27 t27 f28 t28 f29 t29 f30 t30 f31 t31
        f32 t32 f33 t33 f34 t34 f35 t35 f36 t36 f37 t37 f38 t38 f39 t39
        f40 t40 f41 t41 f42 t42 f43 t43 f44 t44 f45 t45 f46 t46 f47 t47
        f48 t48 f49 t49 f50 t50 f51 t51 f52 t52 f53 t53 f54 t54 f55 t55
        f56 t56 f57 t57 f58 t58 f59 t59 f60 t60 f61 t61 f62 t62 f63 t63
    ] {}
}

fn emit(mut spawner: Spawner<Widest, (Filler<0>, FillerTag<63>)>) {
    spawner.spawn((Filler(1), FillerTag));
}

fn main() {
    let mut world = World::<Widest>::new();
    let mut schedule = Schedule::<Widest>::new();
    schedule.add(emit);
    schedule.run(&mut world);
    assert_eq!(world.len(), 1);
}
