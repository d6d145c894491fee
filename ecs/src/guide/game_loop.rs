//! A game loop: run conditions, states and a fixed time step.
//!
//! # Run conditions
//!
//! A system added with `.run_if(condition)` (see
//! [`RunIfExt`](crate::condition::RunIfExt)) runs only when the condition
//! holds. A condition is a read-only system returning `bool` (`Res`,
//! `Query` with read-only items, `EventReader`, `Removed`, `Local`),
//! combined with `.and`, `.or` and [`not`](crate::condition::not), or one
//! of [`in_state`](crate::state::in_state),
//! [`on_event`](crate::condition::on_event) and
//! [`resource_changed`](crate::condition::resource_changed). Its reads count
//! in its system's access, it is evaluated when the system comes up in
//! program order, and a condition that writes is a compile error. A skipped
//! system records nothing, and its next run sees every event and change
//! since its last run. `schedule.add((a, b, c))` adds three systems in
//! order, and `(a, b, c).run_if(condition)` guards all three with one
//! condition, evaluated once per run, at `a`'s turn.
//!
//! # States
//!
//! A field marked `#[ecs(state)]` is a state, such as a game's phase, read
//! through [`State<T>`](crate::state::State). A system requests a transition
//! with [`NextState<T>`](crate::state::NextState); it is applied at the
//! start of the next run of a schedule with
//! [`on_exit`](crate::schedule::Schedule::on_exit)/[`on_enter`](crate::schedule::Schedule::on_enter)
//! systems for `T` (or told to with
//! [`apply_transitions`](crate::schedule::Schedule::apply_transitions)): the
//! exit systems of the state left, the switch, the enter systems of the
//! state entered, then the schedule's systems, which all see the new state.
//! The state a world starts in is entered too, as in bevy: the world's first
//! run of such a schedule runs the initial state's enter systems (before any
//! transition requested), and whether it ran is world state, so a restored
//! world does not enter it twice.
//!
//! # A fixed step
//!
//! A [`GameLoop`](crate::schedule::GameLoop) runs a fixed-step schedule a
//! whole number of times per frame, from an accumulator kept in the world's
//! [`FixedTime`](crate::schedule::FixedTime) resource (integer nanoseconds,
//! fed the frame's time, at most 250 ms of it per frame unless
//! `with_max_delta` says otherwise), then the per-frame schedule. The state,
//! a pending transition, the accumulator and each condition's locals are
//! world state: a rollback replays them exactly.
//!
//! ```
//! use core::time::Duration;
//! use schemecs::prelude::*;
//!
//! #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
//! enum Phase { #[default] Menu, Playing, Paused }
//! #[derive(Debug, PartialEq)] struct Pos(i64);
//! #[derive(Default)] struct Input { start: bool, pause: bool }
//! #[derive(Default)] struct Log(Vec<String>);
//!
//! #[derive(Schema)]
//! struct Game {
//!     pos: Pos,
//!     #[ecs(resource)] input: Input,
//!     #[ecs(resource)] log: Log,
//!     #[ecs(resource)] time: FixedTime,   // the fixed step's clock, in the world
//!     #[ecs(state)] phase: Phase,         // State<Phase>: the phase and a pending transition
//! }
//!
//! fn physics(mut q: Query<&mut Pos>) { q.for_each_mut(|p| p.0 += 1); }
//! fn controls(input: Res<Input>, mut next: NextState<Phase>) {
//!     match *next.current() {
//!         Phase::Menu if input.start => next.set(Phase::Playing),
//!         Phase::Playing if input.pause => next.set(Phase::Paused),
//!         Phase::Paused if input.pause => next.set(Phase::Playing),
//!         _ => {}
//!     }
//! }
//! fn spawn_level(mut commands: Commands<Game>) { commands.spawn((Pos(0),)); }
//! fn paused(mut log: ResMut<Log>) { log.0.push("paused".into()); }
//!
//! let mut fixed = Schedule::<Game>::new();
//! fixed.add(physics.run_if(in_state(Phase::Playing)));
//! let mut frame = Schedule::<Game>::new();
//! frame
//!     .on_exit(Phase::Menu, spawn_level)
//!     .on_enter(Phase::Paused, paused)
//!     .add(controls);
//! let mut game = GameLoop::new(fixed, frame);
//!
//! let mut world = World::<Game>::new();
//! *world.resource_mut::<FixedTime>() = FixedTime::from_hz(50);    // 20 ms steps
//! let frame_ms = [16, 16, 33, 16, 16, 16];
//! for (n, ms) in frame_ms.into_iter().enumerate() {
//!     *world.resource_mut::<Input>() = Input { start: n == 0, pause: n == 3 };
//!     game.run_frame(&mut world, Duration::from_millis(ms));
//! }
//! // Playing from frame 1's frame schedule on: frames 2 and 3 ran 3 fixed steps
//! // (frame 1's step ran in the menu); paused from frame 4's frame schedule on.
//! assert_eq!(world.query::<&Pos>().iter().collect::<Vec<_>>(), [&Pos(3)]);
//! assert_eq!(*world.state::<Phase>(), Phase::Paused);
//! assert_eq!(world.resource::<Log>().0, ["paused"]);
//! ```
//!
//! `cargo run --release --example game_loop` plays a menu, play, a pause and
//! a game over at a fixed 50 Hz step beside a wandering frame rate, from
//! scripted input, checks the phases it went through, then replays it
//! through a rollback every few frames and checks every frame's checksum.
