use ecs::prelude::*;

struct Collider(u32);

// A hook takes the deferred world and the entity; this one takes the value.
fn register(collider: &Collider) {
    let _ = collider.0;
}

#[derive(Schema)]
struct Game {
    #[ecs(on_add = register)]
    collider: Collider,
}

fn main() {}
