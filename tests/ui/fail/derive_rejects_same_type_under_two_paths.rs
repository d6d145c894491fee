// The same type reached through an alias is still the same type: its bit
// would be ambiguous. (The derive's own check compares the types as written,
// so this one is caught by the compiler, as conflicting impls.)
use ecs::schema::Schema;

pub struct Pos(pub i64);
pub type Position = Pos;

#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    position: Position,
}

fn main() {}
