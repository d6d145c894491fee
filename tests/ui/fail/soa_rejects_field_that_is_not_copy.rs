// Values are read back out of the arrays by copying each field.
use ecs::prelude::*;

#[derive(Soa, Clone)]
pub struct Label {
    pub size: f32,
    pub text: String,
}

fn main() {}
