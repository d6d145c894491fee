//! The model test over a schema of more than 64 components: the five of the
//! model follow 64 fillers (data and tags alternating), so masks are `u128`
//! and every migration of a model component goes through bits 64 and up.

use crate::{Tag, A, B, C, D};

support::schema_with_fillers! {
    /// Bits: 0 to 63 fillers, then A 64, B 65 (sparse), Tag 66, C 67, D 68.
    pub struct Model [
        f0 t0 f1 t1 f2 t2 f3 t3 f4 t4 f5 t5 f6 t6 f7 t7
        f8 t8 f9 t9 f10 t10 f11 t11 f12 t12 f13 t13 f14 t14 f15 t15
        f16 t16 f17 t17 f18 t18 f19 t19 f20 t20 f21 t21 f22 t22 f23 t23
        f24 t24 f25 t25 f26 t26 f27 t27 f28 t28 f29 t29 f30 t30 f31 t31
    ] {
        a: A,
        #[ecs(sparse)]
        b: B,
        tag: Tag,
        c: C,
        d: D,
    }
}

#[allow(
    clippy::duplicate_mod,
    reason = "the harness is compiled once per schema"
)]
#[path = "harness.rs"]
mod harness;

#[test]
fn random_operations_match_the_reference_model_with_u128_masks() {
    assert_eq!(std::mem::size_of::<ModelMask>(), 16);
    assert_eq!(ModelMask::A.bits(), 1 << 64);
    harness::run_seeds();
}
