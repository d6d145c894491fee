// A type is a system by its shape (a function of system parameters, a
// system with a run condition, a tuple of systems), never by an impl of its
// own: `SystemFn` is sealed, so `run_if` and `Schedule::add` see only the
// systems schemecs knows how to run.
use ecs::system::SystemFn;

pub struct Step;

impl SystemFn<fn()> for Step {}

fn main() {}
