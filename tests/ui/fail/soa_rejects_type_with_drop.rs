// A whole `Shell` exists only while it is read or written: its own `Drop`
// would run each time.
use ecs::prelude::*;

#[derive(Soa, Clone)]
pub struct Shell {
    pub x: i32,
    pub id: u64,
}

impl Drop for Shell {
    fn drop(&mut self) {}
}

fn main() {}
