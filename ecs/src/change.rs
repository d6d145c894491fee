//! Change detection, opted into per component with `#[ecs(track)]`: the
//! world's [`Tick`]s, the query filters [`Added`](crate::query::Added) and
//! [`Changed`](crate::query::Changed), and the removals a [`Removed`]
//! parameter lists.
//!
//! `Changed<T>` means "written since this system's previous run, in program
//! order"; it is defined on the sequential run, so a parallel run, a
//! snapshot and a save reproduce it exactly. How long removal records (and
//! events) are kept: [`retention`](crate::retention).

pub use crate::changes::Tick;
pub use crate::removed::Removed;
