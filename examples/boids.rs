//! Boids: a flock of 200 birds and two hawks, run by a `Schedule` for 100
//! frames and written out as one animated SVG, with the schedule's stage plan
//! beside it as a Graphviz graph.
//!
//! Each frame, five systems run:
//!
//! * `film` records where every bird is and where it heads (`Film`);
//! * `index` bins the birds into a grid (`Grid`), so that each bird looks at
//!   its neighbouring cells only; `film` and `index` only read the birds, so
//!   they share the first stage;
//! * `flock` steers each bird: away from birds too close (separation), along
//!   with its neighbours (alignment), toward their centre (cohesion), away
//!   from hawks and walls. It runs in parallel chunks (`par_for_each_mut`)
//!   and writes each bird's `Steer`;
//! * `hunt` turns each hawk toward the nearest bird. It writes the `Vel` that
//!   `flock` reads, but its query takes `With<Hawk>` and flock's
//!   `Without<Hawk>`: no entity is in both, so the two share a stage;
//! * `fly` applies the steering and moves everything.
//!
//! The frames run twice, with `Schedule::run` and with `run_sequential`, and
//! the program checks that both films are the same, bit for bit. Then it
//! writes `boids.svg` (open it in a browser: it loops) and `schedule.dot`
//! (`dot -Tsvg schedule.dot -o schedule.svg` draws it) into `boids/` under
//! the target directory, and prints both paths.
//!
//! ```text
//! cargo run --release --example boids
//! ```

use schemecs::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Birds in the flock.
const BIRDS: usize = 200;
/// Hawks hunting it.
const HAWKS: usize = 2;
/// Frames filmed.
const FRAMES: usize = 100;
/// Seconds each frame is shown in the SVG.
const SECONDS_PER_FRAME: f32 = 0.1;

/// The sky, in pixels: `0..WIDTH` by `0..HEIGHT`.
const WIDTH: f32 = 640.0;
const HEIGHT: f32 = 400.0;
/// A bird sees the birds this close (and the grid's cells are this wide).
const SIGHT: f32 = 40.0;
/// A bird moves away from birds this close.
const PERSONAL_SPACE: f32 = 14.0;
/// A bird flees hawks this close.
const FEAR: f32 = 90.0;
/// A bird turns back when this close to a wall.
const MARGIN: f32 = 50.0;
/// Speeds, in pixels per frame.
const BIRD_SPEED: (f32, f32) = (1.5, 3.5);
const HAWK_SPEED: f32 = 3.0;

/// A position in the sky.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: f32,
    y: f32,
}

/// A velocity, in pixels per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel {
    x: f32,
    y: f32,
}

/// What a bird's surroundings ask of its velocity this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Steer {
    x: f32,
    y: f32,
}

/// A predator: it chases the nearest bird, and birds flee it.
#[derive(Debug)]
struct Hawk;

/// Where the birds are, binned into square cells of side [`SIGHT`]: what
/// `flock` and `hunt` read, so that a bird looks at nine cells rather than
/// at the whole flock.
#[derive(Debug, Default)]
struct Grid {
    /// Per cell, row by row: the position and velocity of each bird in it.
    cells: Vec<Vec<(Pos, Vel)>>,
    hawks: Vec<Pos>,
}

/// One frame: per entity (in query order, the same every frame), where it
/// is, which way it heads (degrees) and whether it is a hawk.
type Shot = Vec<(Entity, Pos, f32, bool)>;

/// Every frame, as `film` recorded it.
#[derive(Debug, Default, PartialEq)]
struct Film {
    frames: Vec<Shot>,
}

#[derive(Schema)]
struct Sky {
    pos: Pos,
    vel: Vel,
    steer: Steer,
    hawk: Hawk,
    #[ecs(resource)]
    grid: Grid,
    #[ecs(resource)]
    film: Film,
}

const COLUMNS: usize = (WIDTH / SIGHT) as usize + 1;
const ROWS: usize = (HEIGHT / SIGHT) as usize + 1;

impl Grid {
    /// The cell of `pos` (positions outside the sky go to the edge cells).
    fn cell(pos: Pos) -> (usize, usize) {
        let column = (pos.x / SIGHT).clamp(0.0, (COLUMNS - 1) as f32) as usize;
        let row = (pos.y / SIGHT).clamp(0.0, (ROWS - 1) as f32) as usize;
        (column, row)
    }

    /// The birds in the cell of `pos` and the eight around it.
    fn near(&self, pos: Pos) -> impl Iterator<Item = &(Pos, Vel)> {
        let (column, row) = Grid::cell(pos);
        let columns = column.saturating_sub(1)..=(column + 1).min(COLUMNS - 1);
        let rows = row.saturating_sub(1)..=(row + 1).min(ROWS - 1);
        rows.flat_map(move |row| {
            columns
                .clone()
                .flat_map(move |column| &self.cells[row * COLUMNS + column])
        })
    }

    /// The steering of a bird at `pos` flying at `vel`.
    fn steer(&self, pos: Pos, vel: Vel) -> Steer {
        let (mut apart, mut along, mut toward, mut seen) = ((0.0, 0.0), (0.0, 0.0), (0.0, 0.0), 0);
        for (other, other_vel) in self.near(pos) {
            let (dx, dy) = (other.x - pos.x, other.y - pos.y);
            let distance2 = dx * dx + dy * dy;
            // Itself (and any bird exactly on top of it), or out of sight.
            if distance2 == 0.0 || distance2 > SIGHT * SIGHT {
                continue;
            }
            seen += 1;
            along = (along.0 + other_vel.x, along.1 + other_vel.y);
            toward = (toward.0 + dx, toward.1 + dy);
            if distance2 < PERSONAL_SPACE * PERSONAL_SPACE {
                apart = (apart.0 - dx / distance2, apart.1 - dy / distance2);
            }
        }
        let mut steer = Steer::default();
        if seen > 0 {
            let n = seen as f32;
            steer.x += 0.05 * (along.0 / n - vel.x) + 0.004 * toward.0 / n + 1.5 * apart.0;
            steer.y += 0.05 * (along.1 / n - vel.y) + 0.004 * toward.1 / n + 1.5 * apart.1;
        }
        for hawk in &self.hawks {
            let (dx, dy) = (pos.x - hawk.x, pos.y - hawk.y);
            let distance2 = dx * dx + dy * dy;
            if distance2 > 0.0 && distance2 < FEAR * FEAR {
                steer.x += 12.0 * dx / distance2;
                steer.y += 12.0 * dy / distance2;
            }
        }
        let (wall_x, wall_y) = away_from_walls(pos);
        Steer {
            x: steer.x + wall_x,
            y: steer.y + wall_y,
        }
    }

    /// The bird nearest to `pos`, if there is one.
    fn nearest_bird(&self, pos: Pos) -> Option<Pos> {
        let distance2 = |bird: &Pos| (bird.x - pos.x).powi(2) + (bird.y - pos.y).powi(2);
        self.cells
            .iter()
            .flatten()
            .map(|(bird, _)| *bird)
            .min_by(|a, b| distance2(a).total_cmp(&distance2(b)))
    }
}

/// A push back toward the middle, for anything within [`MARGIN`] of a wall.
fn away_from_walls(pos: Pos) -> (f32, f32) {
    let push = |at: f32, size: f32| {
        if at < MARGIN {
            0.3
        } else if at > size - MARGIN {
            -0.3
        } else {
            0.0
        }
    };
    (push(pos.x, WIDTH), push(pos.y, HEIGHT))
}

/// Records every entity's position and heading.
fn film(sky: Query<(Entity, &Pos, &Vel, Has<Hawk>)>, mut film: ResMut<Film>) {
    let shot = sky
        .iter()
        .map(|(entity, pos, vel, hawk)| (entity, *pos, vel.y.atan2(vel.x).to_degrees(), hawk))
        .collect();
    film.frames.push(shot);
}

/// Bins the birds and the hawks into the grid, reusing its memory.
fn index(
    birds: Query<(&Pos, &Vel), Without<Hawk>>,
    hawks: Query<&Pos, With<Hawk>>,
    mut grid: ResMut<Grid>,
) {
    grid.cells.resize_with(COLUMNS * ROWS, Vec::new);
    grid.cells.iter_mut().for_each(Vec::clear);
    for (pos, vel) in birds.iter() {
        let (column, row) = Grid::cell(*pos);
        grid.cells[row * COLUMNS + column].push((*pos, *vel));
    }
    grid.hawks.clear();
    grid.hawks.extend(hawks.iter().copied());
}

/// Steers each bird by the birds and hawks around it, in parallel chunks:
/// each bird writes only its own `Steer`.
fn flock(mut birds: Query<(&Pos, &Vel, &mut Steer), Without<Hawk>>, grid: Res<Grid>) {
    birds.par_for_each_mut(|(pos, vel, steer)| *steer = grid.steer(*pos, *vel));
}

/// Turns each hawk toward the nearest bird.
fn hunt(mut hawks: Query<(&Pos, &mut Vel), With<Hawk>>, grid: Res<Grid>) {
    hawks.for_each_mut(|(pos, vel)| {
        if let Some(prey) = grid.nearest_bird(*pos) {
            let (dx, dy) = (prey.x - pos.x, prey.y - pos.y);
            let distance = (dx * dx + dy * dy).sqrt().max(1.0);
            let (wall_x, wall_y) = away_from_walls(*pos);
            vel.x += 0.25 * dx / distance + wall_x;
            vel.y += 0.25 * dy / distance + wall_y;
        }
    });
}

/// Applies the steering, keeps each speed in its range, and moves
/// everything; a wall turns back whatever reaches it.
fn fly(mut sky: Query<(&mut Pos, &mut Vel, Option<&Steer>, Has<Hawk>)>) {
    sky.par_for_each_mut(|(pos, vel, steer, hawk)| {
        if let Some(steer) = steer {
            vel.x += steer.x;
            vel.y += steer.y;
        }
        let (slowest, fastest) = if hawk { (1.0, HAWK_SPEED) } else { BIRD_SPEED };
        let speed = (vel.x * vel.x + vel.y * vel.y).sqrt().max(f32::EPSILON);
        let scale = speed.clamp(slowest, fastest) / speed;
        vel.x *= scale;
        vel.y *= scale;
        pos.x += vel.x;
        pos.y += vel.y;
        if !(0.0..=WIDTH).contains(&pos.x) {
            vel.x = -vel.x;
            pos.x = pos.x.clamp(0.0, WIDTH);
        }
        if !(0.0..=HEIGHT).contains(&pos.y) {
            vel.y = -vel.y;
            pos.y = pos.y.clamp(0.0, HEIGHT);
        }
    });
}

/// The flock at the start: birds scattered by a seeded random stream, each
/// heading its own way; hawks in two corners.
fn start() -> World<Sky> {
    let mut random = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        // xorshift64, 24 bits of it as a number in 0..1.
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        (random >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut world = World::<Sky>::new();
    world.spawn_batch((0..BIRDS).map(|_| {
        let pos = Pos {
            x: MARGIN + next() * (WIDTH - 2.0 * MARGIN),
            y: MARGIN + next() * (HEIGHT - 2.0 * MARGIN),
        };
        let angle = next() * std::f32::consts::TAU;
        let vel = Vel {
            x: 2.0 * angle.cos(),
            y: 2.0 * angle.sin(),
        };
        (pos, vel, Steer::default())
    }));
    for corner in 0..HAWKS {
        let x = if corner % 2 == 0 { 10.0 } else { WIDTH - 10.0 };
        world.spawn((Pos { x, y: 10.0 }, Vel { x: 0.0, y: 1.0 }, Hawk));
    }
    world
}

fn schedule() -> Schedule<Sky> {
    let mut schedule = Schedule::<Sky>::new();
    schedule.add(film).add(index).add(flock).add(hunt).add(fly);
    schedule
}

fn main() -> std::io::Result<()> {
    let mut schedule = schedule();
    println!("{}", schedule.describe());

    let began = Instant::now();
    let mut world = start();
    for _ in 0..FRAMES {
        schedule.run(&mut world);
    }
    let took = began.elapsed();
    let mut again = start();
    let mut sequential = self::schedule();
    for _ in 0..FRAMES {
        sequential.run_sequential(&mut again);
    }
    let film = world.resource::<Film>();
    assert_eq!(film.frames.len(), FRAMES);
    assert!(
        film == again.resource::<Film>(),
        "Schedule::run and run_sequential filmed different flights"
    );
    println!(
        "{FRAMES} frames of {BIRDS} birds and {HAWKS} hawks in {:.1} ms",
        took.as_secs_f64() * 1e3
    );
    println!("checked: Schedule::run and run_sequential filmed the same frames, bit for bit");

    let directory = target_dir().join("boids");
    std::fs::create_dir_all(&directory)?;
    let svg = directory.join("boids.svg");
    let dot = directory.join("schedule.dot");
    std::fs::write(&svg, animation(film))?;
    std::fs::write(&dot, schedule.to_dot())?;
    println!("\nwrote the flight, an animated SVG (open it in a browser):");
    println!("  {}", svg.display());
    println!("wrote the stage plan, a Graphviz graph (draw it with dot -Tsvg):");
    println!("  {}", dot.display());
    Ok(())
}

/// The film as one SVG that loops: per entity, one triangle moved by an
/// `animateTransform` whose values are its positions, frame by frame, and
/// turned by another whose values are its headings. Coordinates are whole
/// pixels and angles whole degrees, which keeps the file small.
fn animation(film: &Film) -> String {
    let duration = FRAMES as f32 * SECONDS_PER_FRAME;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{}" height="{}">
<rect width="{WIDTH}" height="{HEIGHT}" fill="#10202f"/>
<text x="8" y="16" font-family="sans-serif" font-size="11" fill="#8aa4bb">schemecs boids: {BIRDS} birds, {HAWKS} hawks, {FRAMES} frames of a Schedule, looping</text>
<defs>
<path id="bird" d="M5 0L-3 3L-3 -3Z" fill="#e6eef5"/>
<path id="hawk" d="M9 0L-6 6L-6 -6Z" fill="#ff6b5b"/>
</defs>"##,
        WIDTH * 1.5,
        HEIGHT * 1.5
    );
    let first = &film.frames[0];
    for (track, &(entity, _, _, hawk)) in first.iter().enumerate() {
        let mut places = String::new();
        let mut headings = String::new();
        let mut heading = 0.0f32;
        for (number, frame) in film.frames.iter().enumerate() {
            let (seen, pos, toward, _) = frame[track];
            assert_eq!(seen, entity, "the entities kept their order");
            // Unwound, so that turning from 179° to -179° goes 2° and not
            // 358° the other way.
            heading = if number == 0 {
                toward
            } else {
                heading + (toward - heading + 540.0).rem_euclid(360.0) - 180.0
            };
            let separator = if number == 0 { "" } else { ";" };
            let _ = write!(places, "{separator}{:.0} {:.0}", pos.x, pos.y);
            let _ = write!(headings, "{separator}{heading:.0}");
        }
        let shape = if hawk { "hawk" } else { "bird" };
        let _ = writeln!(
            svg,
            r##"<g><animateTransform attributeName="transform" type="translate" dur="{duration}s" repeatCount="indefinite" values="{places}"/><use href="#{shape}"><animateTransform attributeName="transform" type="rotate" dur="{duration}s" repeatCount="indefinite" values="{headings}"/></use></g>"##
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Where the files go: `CARGO_TARGET_DIR` if it is set, else the directory
/// above this program that holds cargo's `CACHEDIR.TAG` (the workspace's
/// `target/`, wherever it was run from), else `target` here.
fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    exe.ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf)
}
