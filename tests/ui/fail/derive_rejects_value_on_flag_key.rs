// A key that is a flag takes no value: `#[ecs(debug = true)]` or
// `#[ecs(track(x))]` must say so, naming the key, rather than fail with a
// bare syntax error.
use ecs::schema::Schema;

pub struct Pos(pub i64);
pub struct Hp(pub u32);

#[derive(Schema)]
#[ecs(debug = true)]
pub struct Game {
    pos: Pos,
    #[ecs(track(always))]
    hp: Hp,
}

fn main() {}
