//! Run conditions: a system, or a group of systems, that runs only when a
//! condition holds (`.run_if(..)`, from [`RunIfExt`]).
//!
//! A condition is a function of read-only system parameters returning
//! `bool`, or one of the ready-made ones
//! ([`in_state`](crate::state::in_state), [`on_event`],
//! [`resource_changed`]), combined with [`ConditionExt::and`],
//! [`ConditionExt::or`] and [`not`].

pub use crate::system::{
    not, on_event, resource_changed, AndCondition, Condition, ConditionExt, ConditionFn,
    ConditionParam, IntoCondition, NotCondition, OnEvent, OrCondition, ResourceChanged, RunIf,
    RunIfExt,
};
