//! Events and change detection.
//!
//! Both are declared in the schema, per field, and cost nothing in a schema
//! that does not declare them (the same storage and loops as without them).
//! A field marked `#[ecs(event)]` is an event type: systems send it with
//! [`EventWriter`](crate::event::EventWriter) and read it with
//! [`EventReader`](crate::event::EventReader). A component marked
//! `#[ecs(track)]` has change detection: the filters
//! [`Added<T>`](crate::query::Added) and
//! [`Changed<T>`](crate::query::Changed) select what was added or written,
//! and [`Removed<T>`](crate::change::Removed) lists the entities that lost
//! it. Both are world state: `Schedule::run` gives the sequential result on
//! any number of threads, and snapshots, checksums and saves include them.
//!
//! ```
//! use schemecs::prelude::*;
//!
//! #[derive(Debug)] struct Hp(i32);
//! #[derive(Debug)] struct Died(Entity);
//! #[derive(Default)] struct Ui(Vec<String>);
//!
//! #[derive(Schema)]
//! struct Game {
//!     #[ecs(track)] hp: Hp,        // Added<Hp>, Changed<Hp>, Removed<Hp>
//!     #[ecs(event)] died: Died,    // EventWriter<Died>, EventReader<Died>
//!     #[ecs(resource)] ui: Ui,
//! }
//!
//! fn damage(mut living: Query<&mut Hp>) {
//!     living.for_each_mut(|hp| hp.0 -= 10); // a `&mut Hp` handed out is a write
//! }
//! fn reap(living: Query<(Entity, &Hp)>, mut died: EventWriter<Died>, mut commands: Commands<Game>) {
//!     for (entity, hp) in living.iter() {
//!         if hp.0 <= 0 {
//!             died.send(Died(entity));
//!             commands.despawn(entity);
//!         }
//!     }
//! }
//! fn redraw(
//!     changed: Query<(Entity, &Hp), Changed<Hp>>,
//!     gone: Removed<Hp>,
//!     died: EventReader<Died>,
//!     mut ui: ResMut<Ui>,
//! ) {
//!     let (changed, gone, died) = (changed.iter().count(), gone.len(), died.len());
//!     ui.0.push(format!("{changed} bars redrawn, {gone} freed, {died} died"));
//! }
//!
//! let mut world = World::<Game>::new();
//! world.spawn((Hp(10),));
//! world.spawn((Hp(30),));
//! let mut schedule = Schedule::<Game>::new();
//! schedule.add(damage).add(reap).add(redraw);
//! schedule.run(&mut world);
//! schedule.run(&mut world);
//! assert_eq!(
//!     world.resource::<Ui>().0,
//!     ["1 bars redrawn, 1 freed, 1 died", "1 bars redrawn, 0 freed, 0 died"]
//! );
//! ```
//!
//! # Events
//!
//! Each reader reads each event once, in the order sent: a reader
//! after the writer in program order reads it in the same run, a reader
//! before the writer in the next. How long an event is kept follows from
//! that (the rule, and its one home, is the [`retention`](crate::retention)
//! module):
//!
//! * every event is kept through two schedule runs (or
//!   [`World::clear_trackers`](crate::world::World::clear_trackers) marks),
//!   for readers outside systems;
//! * past that, it is kept only for a reader of its type that has not run
//!   since it was sent: a schedule whose systems read it, until that
//!   schedule runs again; a system skipped by its run condition, until the
//!   system runs again;
//! * such a hold lasts [`HOLD_RUNS`](crate::retention::HOLD_RUNS) (256)
//!   runs of the world at most. A reader that comes back later reads what is
//!   still kept, and [`EventReader::missed`](crate::event::EventReader::missed)
//!   says exactly how many of its events were dropped unread.
//!
//! So the memory the queues take is bounded by what is sent in 256 runs,
//! however long a game stays in one state, and nothing is lost silently.
//! Records of removals ([`Removed<T>`](crate::change::Removed)) follow the
//! same rule.
//!
//! # Change detection
//!
//! `Changed<T>` means "written since this system's previous run, in program
//! order" (outside systems: since the last `World::clear_trackers`). Any
//! mutable access counts as a write: a `&mut T` item handed out by a query,
//! `get_mut`, an insert that replaces the value. So filter out what you will
//! not touch, rather than skip it inside the loop. A system reading an event
//! type or a tracked component never runs beside one writing it.
//!
//! `cargo run --release --example reactions` shows all three in a small game
//! loop.
