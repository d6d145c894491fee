// A world owns its components: a bundle cannot borrow.
use ecs::prelude::*;

pub struct Name(pub String);

#[derive(Bundle)]
pub struct Named<'a> {
    name: &'a Name,
}

fn main() {}
