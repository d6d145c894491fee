//! The toy physics simulation of "Exploring the Theory and Practice of
//! Concurrency in the Entity-Component-System Pattern" (OOPSLA 2025),
//! sections 2–3, written as systems and run by a `Schedule`.
//!
//! Objects sit on an integer line. Every object has a position (`Pos`); the
//! moving ones also have a velocity (`Vel`), so a *stationary* object is one
//! with `Pos` and no `Vel`. Two systems advance the world by one frame:
//!
//! * **inertia** (β, Figure 11(a)): every entity with `Pos` and `Vel` moves
//!   by its velocity;
//! * **collision** (δ, Figure 11(b)): when a moving object shares its cell
//!   with a stationary one, the moving object is destroyed, the stationary
//!   one starts moving with velocity ⌈v/2⌉, and a new object is created in
//!   that cell with velocity ⌈−v/2⌉.
//!
//! They run as the paper's schedule `conc(β) ⨟ seq(δ)` (Figure 13): inertia
//! is a system over a query, applied to all movers at once; collision is an
//! exclusive system (it takes `&mut World`), applied one match at a time, each
//! collision seeing the effects of the ones before it. The program prints
//! Figure 3(a) and, under each frame, the state in the notation of Lst. 3,
//! and checks both against the paper.
//!
//! Then it runs collision the other way, as `conc(δ)`: a system that records
//! its effects as `Commands`, all matches computed from the same snapshot.
//! Both movers now collide with the stationary object, and one write to its
//! velocity is lost, as in Figure 3(b). The paper calls the outcome
//! non-deterministic; here commands apply in the order they were recorded,
//! so the same write is lost on every run and every thread count (the later
//! mover's wins, so frame 3 differs from the figure, which shows the other
//! order):
//!
//! ```text
//! cargo run --release --example physics
//! ```

use schemecs::prelude::*;

/// A position on the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos(pub i64);

/// A velocity: cells per frame, the sign gives the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vel(pub i64);

/// The number of the frame the world currently shows (the first is 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame(pub u32);

impl Default for Frame {
    fn default() -> Self {
        Frame(1)
    }
}

/// Everything the simulation's world holds: two components and one resource.
///
/// The derive gives `Pos` bit 0 and `Vel` bit 1, so the world has at most the
/// archetypes `[Pos]` (stationary objects) and `[Pos, Vel]` (moving ones),
/// each a table with one plain `Vec` per component. The struct itself is
/// never built: it is the list of types.
#[derive(Schema)]
pub struct Physics {
    pos: Pos,
    vel: Vel,
    #[ecs(resource)]
    frame: Frame,
}

/// Number of cells drawn per frame: positions `0..WIDTH`.
const WIDTH: usize = 12;

/// Figure 3(a), "Sequential application results in only one collision".
const FIGURE_3A: [&str; 3] = [
    "Frame 1: _→_____s_←__",
    "Frame 2: _______3____",
    "Frame 3: ____←←____→_",
];

/// Figure 3(b)'s run, "Concurrent application results in two collisions",
/// with the lost write decided by recording order: both movers collide, and
/// the stationary object keeps the velocity the later one gave it (−1).
const FIGURE_3B: [&str; 3] = [
    "Frame 1: _→_____s_←__",
    "Frame 2: _______3____",
    "Frame 3: ____←_←_→___",
];

/// Lst. 3, the states behind those frames (without the `Metadata` part, the
/// Haskell model's next fresh entity, which this world does not expose).
const LISTING_3: [&str; 3] = [
    "Pos↦{e0 ↦ Pos 1, e1 ↦ Pos 7, e2 ↦ Pos 9} :+ Vel↦{e0 ↦ Vel 6, e2 ↦ Vel (-2)}",
    "Pos↦{e1 ↦ Pos 7, e2 ↦ Pos 7, e3 ↦ Pos 7} :+ Vel↦{e1 ↦ Vel 3, e2 ↦ Vel (-2), e3 ↦ Vel (-3)}",
    "Pos↦{e1 ↦ Pos 10, e2 ↦ Pos 5, e3 ↦ Pos 4} :+ Vel↦{e1 ↦ Vel 3, e2 ↦ Vel (-2), e3 ↦ Vel (-3)}",
];

/// What the program prints, and how to read it.
const LEGEND: &str = "\
The toy physics simulation of \"Exploring the Theory and Practice of Concurrency
in the Entity-Component-System Pattern\" (OOPSLA 2025), run as systems by a
Schedule and checked against the paper's Figure 3 and Lst. 3.

How to read it:
  Frame 1: _→_____s_←__    the line of cells 0 to 11 in frame 1. _ is an empty
                           cell, → an object moving right, ← one moving left,
                           s a stationary object (no velocity), and a digit
                           the number of objects sharing a cell.
  Pos↦{e0 ↦ Pos 1, …}      the state under a frame, in the paper's notation
   :+ Vel↦{e0 ↦ Vel 6, …}  (Lst. 3): per component, which entity has which
                           value. e0 is entity 0; Vel (-2) is a velocity of
                           -2, one cell left per frame. An entity in Pos↦ but
                           not in Vel↦ is stationary.
  conc(s)                  system s applied to all its matches at once, each
                           seeing the state before any of them.
  seq(s)                   s applied to one match at a time, each seeing the
                           effects of the ones before it.
  a ; b                    a, then b: one step from a frame to the next.

Each step, inertia moves every object by its velocity; then collide, where a
mover meets a stationary object, destroys the mover, sets the stationary one
moving at half the speed (rounded up) and creates a new object moving the
other way at half the speed.";

fn main() {
    println!("{LEGEND}\n");
    let mut world = start();

    // Lst. 2's loop: `inertia` over all movers, then `collide` one match at a
    // time, then the frame counter. `Schedule::run` equals running them in
    // this order; `describe` shows that nothing here can run at once.
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(inertia).add(collide).add(advance);

    // When to draw. Like the paper's main loop (Lst. 2, `loop`), we draw the
    // current state and then apply the whole schedule, so each frame shows
    // the world *between* steps:
    //
    // * Frame 1 is the start state.
    // * Frame 2 is after one step. Inertia brought e0 and e2 to cell 7, then
    //   collision destroyed e0, gave e1 velocity 3 and created e3 with
    //   velocity −3 at 7; e2 collided with nothing, because e1 was no longer
    //   stationary by then. Three objects share cell 7: the "3".
    // * Frame 3 is after the second step: inertia spreads them out, and no
    //   stationary object is left to collide with.
    //
    // Drawing between inertia and collision instead would also put a "3" at
    // cell 7 (e0, e1 and e2), but the state under it would not be line 2 of
    // Lst. 3, which shows e3 and the new velocities.
    println!("Figure 3(a), conc(inertia) ; seq(collide): applied one at a time, only one");
    println!("collision happens. Both movers reach cell 7 in frame 2; the first to collide");
    println!("sets the stationary object moving, so the other finds none left to hit.");
    println!("The schedule, as Schedule::describe gives it:\n");
    println!("{}", schedule.describe());
    let mut frames = Vec::new();
    let mut states = Vec::new();
    for step in 0..FIGURE_3A.len() {
        if step > 0 {
            schedule.run(&mut world);
        }
        let frame = draw(&mut world);
        let state = describe(&mut world);
        println!("{frame}");
        println!("         {state}");
        frames.push(frame);
        states.push(state);
    }

    // The example checks itself, so `cargo run --example physics` fails loudly
    // if the simulation (or the ECS under it) goes wrong.
    assert_eq!(frames, FIGURE_3A, "the frames differ from Figure 3(a)");
    assert_eq!(states, LISTING_3, "the states differ from Lst. 3");
    println!("checked: matches Figure 3(a), and the states match Lst. 3");

    println!("\nFigure 3(b), conc(inertia) ; conc(collide): applied at once, both movers");
    println!("collide with the stationary object, and of the two velocities they give it");
    println!("one is lost. The paper leaves which one open; here commands apply in the");
    println!("order recorded, so the later mover's (-1) wins, on every run and any number");
    println!("of threads.\n");
    let mut world = start();
    let mut schedule = Schedule::<Physics>::new();
    schedule.add(inertia).add(collide_concurrently).add(advance);
    let mut frames = Vec::new();
    for step in 0..FIGURE_3B.len() {
        if step > 0 {
            schedule.run(&mut world);
        }
        let frame = draw(&mut world);
        println!("{frame}");
        frames.push(frame);
    }
    assert_eq!(
        frames, FIGURE_3B,
        "the concurrent collision went differently"
    );
    println!("checked: matches Figure 3(b), frame 3 as the later write decides it");
}

/// The start state `c` of Figure 7 / Lst. 2: a mover at 1 heading right at 6
/// cells per frame, a stationary object at 7, a mover at 9 heading left.
fn start() -> World<Physics> {
    let mut world = World::<Physics>::new();
    world.spawn((Pos(1), Vel(6))); // e0
    world.spawn((Pos(7),)); // e1
    world.spawn((Pos(9), Vel(-2))); // e2
    world
}

/// Counts frames.
fn advance(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

/// The inertia system β, run as `conc(β)`: every entity with `Pos` and `Vel`
/// moves by its velocity. Each call sees only its own entity's components, so
/// the order does not matter; `for_each_mut` runs it over the column slices of
/// each matching table.
fn inertia(mut movers: Query<(&mut Pos, &Vel)>) {
    movers.for_each_mut(|(pos, vel)| pos.0 += vel.0);
}

/// The collision system δ, run as `seq(δ)`.
///
/// Its entity matches are the pairs ⟨mover, stationary⟩: the product of the
/// queries `Pos ∧ Vel` and `Pos ∧ ¬Vel` (Figure 9). Sequential production
/// (`roll`, Section 3.5) walks those pairs in a fixed order and, before each,
/// asks both queries again on the current state; a pair that no longer
/// matches is skipped. That is why, in Figure 3(a), only one of the two
/// movers at cell 7 collides: after the first collision the stationary
/// object has a velocity and no longer matches `Pos ∧ ¬Vel`.
///
/// The paper leaves the order of the matches unspecified; we sort by entity,
/// so the output is deterministic. Being exclusive (`&mut World`), the
/// system runs alone and sees each of its own changes at once.
fn collide(world: &mut World<Physics>) {
    let mut movers: Vec<Entity> = world
        .query_filtered::<Entity, (With<Pos>, With<Vel>)>()
        .iter()
        .collect();
    let mut stationary: Vec<Entity> = world
        .query_filtered::<Entity, (With<Pos>, Without<Vel>)>()
        .iter()
        .collect();
    movers.sort();
    stationary.sort();

    for &mover in &movers {
        for &still in &stationary {
            // Re-evaluate both queries on the state as it is now.
            let Ok((p_mover, v_mover)) = world
                .query::<(&Pos, &Vel)>()
                .get(mover)
                .map(|(pos, vel)| (pos.0, vel.0))
            else {
                continue;
            };
            let Ok(p_still) = world
                .query_filtered::<&Pos, Without<Vel>>()
                .get(still)
                .map(|pos| pos.0)
            else {
                continue;
            };
            if p_mover != p_still {
                continue;
            }

            // f_δ: detach Pos and Vel from the mover (despawn it), attach
            // Vel ⌈v/2⌉ to the stationary object, and create a fresh object at
            // the same position with Vel ⌈−v/2⌉.
            //
            // These touch different entities, so their order does not change
            // the resulting state. We spawn before we despawn so that the new
            // object takes a never-used slot (e3) rather than the mover's
            // freed one (which would come back as e0, second generation); the
            // printed state then reads exactly like Lst. 3.
            world.spawn((Pos(p_mover), Vel(half_up(-v_mover))));
            world
                .insert(still, (Vel(half_up(v_mover)),))
                .expect("the stationary object matched a query just now");
            world
                .despawn(mover)
                .expect("the mover matched a query just now");
        }
    }
}

/// The collision system δ, run as `conc(δ)`: every match is taken from the
/// same snapshot, and the effects are recorded as commands, applied after the
/// system in the order recorded. Both movers at cell 7 match the stationary
/// object there, so both collide; both give it a velocity, and the later
/// command wins.
fn collide_concurrently(
    movers: Query<(Entity, &Pos, &Vel)>,
    stationary: Query<(Entity, &Pos), Without<Vel>>,
    mut commands: Commands<Physics>,
) {
    let mut movers: Vec<(Entity, i64, i64)> = movers
        .iter()
        .map(|(entity, pos, vel)| (entity, pos.0, vel.0))
        .collect();
    let mut stationary: Vec<(Entity, i64)> = stationary
        .iter()
        .map(|(entity, pos)| (entity, pos.0))
        .collect();
    movers.sort();
    stationary.sort();
    for &(mover, p_mover, v_mover) in &movers {
        for &(still, p_still) in &stationary {
            if p_mover == p_still {
                commands.spawn((Pos(p_mover), Vel(half_up(-v_mover))));
                commands.insert(still, (Vel(half_up(v_mover)),));
                commands.despawn(mover);
            }
        }
    }
}

/// ⌈v/2⌉, as Figure 11(b) writes it.
///
/// Lst. 2 uses Haskell's `quot` (rounding toward zero) instead; the two agree
/// on even velocities, the only kind this run sees (6 → 3 and −3), and differ
/// on odd ones (⌈5/2⌉ = 3 but ``5 `quot` 2`` = 2). We follow the figure.
fn half_up(v: i64) -> i64 {
    v.div_euclid(2) + v.rem_euclid(2)
}

/// One frame in the notation of Figure 3: `→` and `←` for a lone object moving
/// right or left, `s` for a lone stationary one, `_` for an empty cell, and
/// the number of objects where several share a cell (`+` for ten or more).
/// Objects outside `0..WIDTH` are off screen.
fn draw(world: &mut World<Physics>) -> String {
    let mut cells: [(u32, char); WIDTH] = [(0, '_'); WIDTH];
    for (pos, vel) in world.query::<(&Pos, Option<&Vel>)>().iter() {
        let Some(cell) = usize::try_from(pos.0).ok().and_then(|i| cells.get_mut(i)) else {
            continue;
        };
        cell.0 += 1;
        cell.1 = match vel.map(|vel| vel.0.signum()) {
            Some(1) => '→',
            Some(-1) => '←',
            // No velocity, or a velocity of zero: it is not going anywhere.
            _ => 's',
        };
    }
    let line: String = cells
        .iter()
        .map(|&(count, glyph)| match count {
            0 | 1 => glyph,
            n => char::from_digit(n, 10).unwrap_or('+'),
        })
        .collect();
    format!("Frame {}: {line}", world.resource::<Frame>().0)
}

/// The state in the notation of Lst. 3: per component, the partial map from
/// entity to value, entities in order.
fn describe(world: &mut World<Physics>) -> String {
    let mut positions: Vec<(Entity, i64)> = world
        .query::<(Entity, &Pos)>()
        .iter()
        .map(|(entity, pos)| (entity, pos.0))
        .collect();
    let mut velocities: Vec<(Entity, i64)> = world
        .query::<(Entity, &Vel)>()
        .iter()
        .map(|(entity, vel)| (entity, vel.0))
        .collect();
    positions.sort();
    velocities.sort();
    format!(
        "Pos↦{{{}}} :+ Vel↦{{{}}}",
        partial_map("Pos", &positions),
        partial_map("Vel", &velocities)
    )
}

/// `e0 ↦ Pos 1, e2 ↦ Pos (-2)`, with negative numbers in parentheses as
/// Haskell's `show` writes them.
fn partial_map(component: &str, entries: &[(Entity, i64)]) -> String {
    entries
        .iter()
        .map(|&(entity, value)| {
            let value = if value < 0 {
                format!("({value})")
            } else {
                value.to_string()
            };
            format!("{} ↦ {component} {value}", name(entity))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `e3` for slot 3; a reused slot also shows its generation (`e0v2`).
fn name(entity: Entity) -> String {
    match entity.generation().get() {
        1 => format!("e{}", entity.index()),
        generation => format!("e{}v{generation}", entity.index()),
    }
}
