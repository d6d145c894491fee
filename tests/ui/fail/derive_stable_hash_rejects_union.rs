// A union's value is in whichever field was written last, which the derive
// cannot know: it says so and asks for an impl by hand.
use ecs::checksum::StableHash;

#[derive(StableHash)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
