/work/main/target-native/release/deps/schemecs_macros-830f9bdad682b5e6.d: ecs-macros/src/lib.rs ecs-macros/src/bundle.rs ecs-macros/src/check.rs ecs-macros/src/errors.rs ecs-macros/src/fresh.rs ecs-macros/src/generate/mod.rs ecs-macros/src/generate/column.rs ecs-macros/src/generate/component.rs ecs-macros/src/generate/krate.rs ecs-macros/src/generate/lifecycle.rs ecs-macros/src/generate/mask.rs ecs-macros/src/generate/resources.rs ecs-macros/src/generate/schema.rs ecs-macros/src/generate/snapshot.rs ecs-macros/src/generate/stand_in.rs ecs-macros/src/model.rs ecs-macros/src/relation.rs ecs-macros/src/soa.rs ecs-macros/src/stable_hash.rs

/work/main/target-native/release/deps/libschemecs_macros-830f9bdad682b5e6.so: ecs-macros/src/lib.rs ecs-macros/src/bundle.rs ecs-macros/src/check.rs ecs-macros/src/errors.rs ecs-macros/src/fresh.rs ecs-macros/src/generate/mod.rs ecs-macros/src/generate/column.rs ecs-macros/src/generate/component.rs ecs-macros/src/generate/krate.rs ecs-macros/src/generate/lifecycle.rs ecs-macros/src/generate/mask.rs ecs-macros/src/generate/resources.rs ecs-macros/src/generate/schema.rs ecs-macros/src/generate/snapshot.rs ecs-macros/src/generate/stand_in.rs ecs-macros/src/model.rs ecs-macros/src/relation.rs ecs-macros/src/soa.rs ecs-macros/src/stable_hash.rs

ecs-macros/src/lib.rs:
ecs-macros/src/bundle.rs:
ecs-macros/src/check.rs:
ecs-macros/src/errors.rs:
ecs-macros/src/fresh.rs:
ecs-macros/src/generate/mod.rs:
ecs-macros/src/generate/column.rs:
ecs-macros/src/generate/component.rs:
ecs-macros/src/generate/krate.rs:
ecs-macros/src/generate/lifecycle.rs:
ecs-macros/src/generate/mask.rs:
ecs-macros/src/generate/resources.rs:
ecs-macros/src/generate/schema.rs:
ecs-macros/src/generate/snapshot.rs:
ecs-macros/src/generate/stand_in.rs:
ecs-macros/src/model.rs:
ecs-macros/src/relation.rs:
ecs-macros/src/soa.rs:
ecs-macros/src/stable_hash.rs:
