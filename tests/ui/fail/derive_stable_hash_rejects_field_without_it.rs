// `#[derive(StableHash)]` writes every field, so each field's type must be
// `StableHash`: the error is at the field whose type is not.
use ecs::checksum::StableHash;

struct Handle(u32);

#[derive(StableHash)]
struct Pos {
    x: f32,
    handle: Handle,
}

#[derive(StableHash)]
enum Order {
    Idle,
    Hold(Handle),
}

fn main() {}
