//! The game of benches/compile/game written against hecs instead of
//! schemecs, for comparing what a user waits for (benches/compile/run.sh
//! builds either): the same 64 component types (hecs has no schema, tracking
//! or sparse storage, so all are plain components), the same 3 resources
//! (plain structs), the same 2 events (`Vec`s), the same 20 systems (plain
//! functions over `World::query_mut`, run in the same order, each one's
//! `CommandBuffer` applied right after it) and the same `main`.
//!
//! run.sh edits this file: it changes the constant after the `EDIT-ME` line;
//! to add a component it appends the type and spawns it on the line after
//! `NEW-COMPONENT`.

use hecs::{CommandBuffer, Entity, With, Without, World};

// Motion.
pub struct Position(pub f32, pub f32);
pub struct Velocity(pub f32, pub f32);
pub struct Acceleration(pub f32, pub f32);
pub struct Rotation(pub f32);
pub struct Spin(pub f32);
pub struct Scale(pub f32);
pub struct Mass(pub f32);
pub struct Drag(pub f32);
pub struct Radius(pub f32);
pub struct Speed(pub f32);
// Combat.
pub struct Health(pub i32);
pub struct MaxHealth(pub i32);
pub struct Armor(pub i32);
pub struct Shield(pub i32);
pub struct Regen(pub i32);
pub struct Damage(pub i32);
pub struct Payload(pub i32);
pub struct Cooldown(pub u32);
pub struct FireRate(pub u32);
pub struct Ammo(pub u32);
pub struct Aggro(pub f32);
pub struct Owner(pub Entity);
pub struct Crit(pub u8);
pub struct Knockback(pub f32);
pub struct Poison {
    pub damage: i32,
    pub turns: u32,
}
pub struct Stun(pub u32);
// Progress.
pub struct Level(pub u32);
pub struct Experience(pub u32);
pub struct Gold(pub u32);
pub struct Score(pub u32);
pub struct Loot(pub u32);
pub struct Magnet(pub f32);
pub struct Inventory(pub Vec<u32>);
// Life.
pub struct Hunger(pub f32);
pub struct Thirst(pub f32);
pub struct Stamina(pub f32);
pub struct Mana(pub f32);
pub struct Lifetime(pub u32);
pub struct Age(pub u32);
pub struct Wander(pub u32);
pub struct Home(pub f32, pub f32);
pub struct Patrol(pub [f32; 4]);
pub struct Faction(pub u8);
pub struct Name(pub String);
// Presentation.
pub struct Sprite(pub u16);
pub struct Animation {
    pub frame: u16,
    pub frames: u16,
    pub timer: f32,
}
pub struct Color(pub [u8; 4]);
pub struct Outline(pub [u8; 4]);
pub struct Layer(pub i8);
pub struct Light(pub f32);
pub struct Shadow(pub f32);
pub struct Sound(pub u16);
pub struct Particles(pub u16);
pub struct Trail(pub u8);
// Tags.
pub struct Player;
pub struct Enemy;
pub struct Npc;
pub struct Bullet;
pub struct Pickup;
pub struct Dead;
pub struct Static;
pub struct Flying;
pub struct Boss;
pub struct Hidden;

pub struct Time {
    pub frame: u64,
    pub dt: f32,
}
/// A linear congruential generator: the game is the same on every run.
#[derive(Default)]
pub struct Rng(pub u64);
#[derive(Default)]
pub struct Stats {
    pub shots: u32,
    pub kills: u32,
    pub drops: u32,
    pub collected: u32,
}
pub struct Hit {
    pub target: Entity,
    pub damage: i32,
}
pub struct Died {
    pub at: (f32, f32),
    pub loot: u32,
}

impl Default for Time {
    fn default() -> Self {
        Time {
            frame: 0,
            dt: 1.0 / 60.0,
        }
    }
}

impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    /// A number in [-1, 1).
    pub fn signed(&mut self) -> f32 {
        self.next_u32() as f32 / (1u32 << 30) as f32 - 1.0
    }
}

/// Everything that is not an entity: the resources, and a queue per event.
#[derive(Default)]
pub struct Resources {
    pub time: Time,
    pub rng: Rng,
    pub stats: Stats,
    pub hits: Vec<Hit>,
    pub died: Vec<Died>,
}

fn advance_time(time: &mut Time) {
    time.frame += 1;
}

fn accelerate(world: &mut World, time: &Time) {
    for (vel, acc, mass, drag) in world.query_mut::<(&mut Velocity, &Acceleration, &Mass, &Drag)>()
    {
        let keep = 1.0 - drag.0 * time.dt;
        vel.0 = (vel.0 + acc.0 / mass.0 * time.dt) * keep;
        vel.1 = (vel.1 + acc.1 / mass.0 * time.dt) * keep;
    }
}

fn wander(world: &mut World) {
    for (vel, wander, speed) in
        world.query_mut::<With<Without<(&mut Velocity, &mut Wander, &Speed), &Stun>, &Npc>>()
    {
        wander.0 = wander.0.wrapping_mul(1103515245).wrapping_add(12345);
        let angle = (wander.0 >> 16) as f32 / 65536.0 * std::f32::consts::TAU;
        (vel.0, vel.1) = (angle.cos() * speed.0, angle.sin() * speed.0);
    }
}

fn chase(world: &mut World) {
    let mut players = world.query::<With<&Position, &Player>>();
    let mut enemies = world.query::<With<
        Without<Without<(&Position, &mut Velocity, &Speed, &Aggro, &Home), &Stun>, &Dead>,
        &Enemy,
    >>();
    for (pos, vel, speed, aggro, home) in enemies.iter() {
        let seen = players
            .iter()
            .find(|p| (p.0 - pos.0).hypot(p.1 - pos.1) < aggro.0);
        let (x, y) = seen.map_or((home.0, home.1), |p| (p.0, p.1));
        let (dx, dy) = (x - pos.0, y - pos.1);
        let length = dx.hypot(dy).max(1.0);
        (vel.0, vel.1) = (dx / length * speed.0, dy / length * speed.0);
    }
}

fn stun(world: &mut World, commands: &mut CommandBuffer) {
    for (entity, stun, vel) in world.query_mut::<(Entity, &mut Stun, &mut Velocity)>() {
        (vel.0, vel.1) = (0.0, 0.0);
        stun.0 = stun.0.saturating_sub(1);
        if stun.0 == 0 {
            commands.remove_one::<Stun>(entity);
        }
    }
}

fn movement(world: &mut World, time: &Time) {
    for (pos, vel) in world.query_mut::<Without<(&mut Position, &Velocity), &Static>>() {
        pos.0 += vel.0 * time.dt;
        pos.1 += vel.1 * time.dt;
    }
}

fn spin(world: &mut World, time: &Time) {
    for (rotation, spin) in world.query_mut::<(&mut Rotation, &Spin)>() {
        rotation.0 += spin.0 * time.dt;
    }
}

fn animate(world: &mut World, time: &Time) {
    for (animation, sprite) in world.query_mut::<(&mut Animation, &mut Sprite)>() {
        animation.timer += time.dt;
        if animation.timer >= 0.1 {
            animation.timer -= 0.1;
            animation.frame = (animation.frame + 1) % animation.frames;
            sprite.0 = sprite.0 - sprite.0 % 16 + animation.frame;
        }
    }
}

fn cool_down(world: &mut World) {
    for cooldown in world.query_mut::<&mut Cooldown>() {
        cooldown.0 = cooldown.0.saturating_sub(1);
    }
}

fn shoot(world: &mut World, rng: &mut Rng, stats: &mut Stats, commands: &mut CommandBuffer) {
    let guns = world.query_mut::<With<
        (
            Entity,
            &Position,
            &Rotation,
            &mut Cooldown,
            &FireRate,
            &mut Ammo,
            &Damage,
        ),
        &Player,
    >>();
    for (owner, pos, rotation, cooldown, rate, ammo, damage) in guns {
        if cooldown.0 > 0 || ammo.0 == 0 {
            continue;
        }
        (cooldown.0, ammo.0) = (rate.0, ammo.0 - 1);
        stats.shots += 1;
        let angle = rotation.0 + rng.signed() * 0.1;
        commands.spawn((
            Position(pos.0, pos.1),
            Velocity(angle.cos() * 400.0, angle.sin() * 400.0),
            Radius(2.0),
            Payload(damage.0),
            Owner(owner),
            Lifetime(90),
            Trail(8),
            Bullet,
        ));
    }
}

fn bullet_hits(world: &mut World, hits: &mut Vec<Hit>, commands: &mut CommandBuffer) {
    let mut bullets = world.query::<With<(Entity, &Position, &Payload), &Bullet>>();
    let mut targets = world.query::<With<Without<(Entity, &Position, &Radius), &Dead>, &Enemy>>();
    for (bullet, at, payload) in bullets.iter() {
        let touched = targets
            .iter()
            .find(|(_, pos, radius)| (pos.0 - at.0).hypot(pos.1 - at.1) < radius.0 + 2.0);
        if let Some((target, _, _)) = touched {
            hits.push(Hit {
                target,
                damage: payload.0,
            });
            commands.despawn(bullet);
        }
    }
}

fn apply_hits(world: &mut World, hits: &mut Vec<Hit>) {
    for hit in hits.drain(..) {
        if let Ok((health, armor, shield)) =
            world.query_one_mut::<(&mut Health, &Armor, Option<&mut Shield>)>(hit.target)
        {
            let mut damage = (hit.damage - armor.0).max(1);
            if let Some(shield) = shield {
                let absorbed = damage.min(shield.0);
                (shield.0, damage) = (shield.0 - absorbed, damage - absorbed);
            }
            health.0 -= damage;
        }
    }
}

fn poison(world: &mut World, commands: &mut CommandBuffer) {
    for (entity, health, poison) in world.query_mut::<(Entity, &mut Health, &mut Poison)>() {
        health.0 -= poison.damage;
        poison.turns -= 1;
        if poison.turns == 0 {
            commands.remove_one::<Poison>(entity);
        }
    }
}

fn regenerate(world: &mut World, time: &Time) {
    // EDIT-ME: run.sh changes the constant on the next line.
    const PERIOD: u64 = 30;
    if !time.frame.is_multiple_of(PERIOD) {
        return;
    }
    for (health, max, regen) in
        world.query_mut::<Without<(&mut Health, &MaxHealth, &Regen), &Dead>>()
    {
        health.0 = (health.0 + regen.0).min(max.0);
    }
}

/// hecs has no change detection: every living entity with health is looked at.
fn deaths(world: &mut World, died: &mut Vec<Died>, commands: &mut CommandBuffer) {
    for (entity, health, pos, loot) in
        world.query_mut::<Without<(Entity, &Health, &Position, Option<&Loot>), &Dead>>()
    {
        if health.0 <= 0 {
            died.push(Died {
                at: (pos.0, pos.1),
                loot: loot.map_or(0, |loot| loot.0),
            });
            commands.insert(entity, (Dead, Lifetime(30)));
        }
    }
}

fn drop_loot(died: &[Died], rng: &mut Rng, stats: &mut Stats, commands: &mut CommandBuffer) {
    for death in died {
        stats.kills += 1;
        if death.loot > 0 {
            stats.drops += 1;
            let (x, y) = (
                death.at.0 + rng.signed() * 8.0,
                death.at.1 + rng.signed() * 8.0,
            );
            commands.spawn((
                Position(x, y),
                Loot(death.loot),
                Lifetime(600),
                Sprite(7),
                Pickup,
            ));
        }
    }
}

fn collect(world: &mut World, stats: &mut Stats, commands: &mut CommandBuffer) {
    let mut players = world.query::<With<(&Position, &mut Gold, &Magnet), &Player>>();
    let mut pickups = world.query::<With<(Entity, &Position, &Loot), &Pickup>>();
    for (pickup, at, loot) in pickups.iter() {
        for (pos, gold, magnet) in players.iter() {
            if (pos.0 - at.0).hypot(pos.1 - at.1) < magnet.0 {
                gold.0 += loot.0;
                stats.collected += 1;
                commands.despawn(pickup);
                break;
            }
        }
    }
}

fn level_up(world: &mut World, died: &[Died]) {
    let gained = 10 * died.len() as u32;
    for (experience, level, max_health) in
        world.query_mut::<With<(&mut Experience, &mut Level, &mut MaxHealth), &Player>>()
    {
        experience.0 += gained;
        while experience.0 >= level.0 * 100 {
            experience.0 -= level.0 * 100;
            level.0 += 1;
            max_health.0 += 10;
        }
    }
}

fn needs(world: &mut World) {
    for (hunger, thirst, stamina, age) in
        world.query_mut::<With<(&mut Hunger, &mut Thirst, &mut Stamina, &mut Age), &Npc>>()
    {
        hunger.0 = (hunger.0 + 0.01).min(1.0);
        thirst.0 = (thirst.0 + 0.02).min(1.0);
        stamina.0 = (stamina.0 - 0.5 * (hunger.0 + thirst.0) * 0.01).max(0.0);
        age.0 += 1;
    }
}

fn expire(world: &mut World, commands: &mut CommandBuffer) {
    for (entity, lifetime) in world.query_mut::<(Entity, &mut Lifetime)>() {
        lifetime.0 -= 1;
        if lifetime.0 == 0 {
            commands.despawn(entity);
        }
    }
}

/// The 20 systems in the order of the schemecs game's schedule, each
/// system's commands applied right after it.
fn run_frame(world: &mut World, res: &mut Resources, commands: &mut CommandBuffer) {
    advance_time(&mut res.time);
    accelerate(world, &res.time);
    wander(world);
    chase(world);
    stun(world, commands);
    commands.run_on(world);
    movement(world, &res.time);
    spin(world, &res.time);
    animate(world, &res.time);
    cool_down(world);
    shoot(world, &mut res.rng, &mut res.stats, commands);
    commands.run_on(world);
    bullet_hits(world, &mut res.hits, commands);
    commands.run_on(world);
    apply_hits(world, &mut res.hits);
    poison(world, commands);
    commands.run_on(world);
    regenerate(world, &res.time);
    res.died.clear();
    deaths(world, &mut res.died, commands);
    commands.run_on(world);
    drop_loot(&res.died, &mut res.rng, &mut res.stats, commands);
    commands.run_on(world);
    collect(world, &mut res.stats, commands);
    commands.run_on(world);
    level_up(world, &res.died);
    needs(world);
    expire(world, commands);
    commands.run_on(world);
}

fn spawn_player(world: &mut World, i: u32) {
    let player = world.spawn((
        Position(i as f32 * 50.0, 0.0),
        Velocity(0.0, 0.0),
        Acceleration(0.0, 0.0),
        Rotation(i as f32),
        Mass(70.0),
        Drag(0.5),
        Radius(8.0),
        Health(100),
        MaxHealth(100),
        Armor(2),
        Shield(50),
        Regen(1),
    ));
    let rest = (
        Cooldown(0),
        FireRate(5),
        Ammo(10_000),
        Damage(25),
        Crit(5),
        Knockback(3.0),
    );
    world.insert(player, rest).expect("just spawned");
    let progress = (
        Level(1),
        Experience(0),
        Gold(0),
        Score(0),
        Magnet(40.0),
        Mana(50.0),
    );
    world.insert(player, progress).expect("just spawned");
    let looks = (
        Spin(2.0),
        Name(format!("player {i}")),
        Inventory(Vec::new()),
        Sprite(1),
        Player,
    );
    world.insert(player, looks).expect("just spawned");
}
fn spawn_enemy(world: &mut World, rng: &mut Rng, i: u32) {
    let (x, y) = (rng.signed() * 1000.0, rng.signed() * 1000.0);
    let enemy = world.spawn((
        Position(x, y),
        Velocity(0.0, 0.0),
        Acceleration(0.0, 0.0),
        Mass(50.0),
        Drag(0.2),
        Radius(10.0),
        Speed(30.0 + (i % 5) as f32 * 10.0),
        Health(60),
        MaxHealth(60),
        Armor((i % 3) as i32),
        Aggro(300.0),
        Home(x, y),
    ));
    let animation = Animation {
        frame: 0,
        frames: 4,
        timer: 0.0,
    };
    let rest = (
        Enemy,
        Loot(i % 4 * 5),
        Regen(2),
        Sprite(32),
        animation,
        Color([200, 40, 40, 255]),
    );
    world.insert(enemy, rest).expect("just spawned");
    if i.is_multiple_of(10) {
        world
            .insert(
                enemy,
                (Boss, Shield(100), Scale(2.0), Outline([255, 215, 0, 255])),
            )
            .expect("just spawned");
    }
    if i % 4 == 1 {
        world
            .insert(enemy, (Flying, Shadow(0.5)))
            .expect("just spawned");
    }
    if i % 6 == 2 {
        world
            .insert(enemy, (Patrol([x, y, x + 100.0, y]),))
            .expect("just spawned");
    }
    if i.is_multiple_of(7) {
        world
            .insert(
                enemy,
                (Poison {
                    damage: 1,
                    turns: 40,
                },),
            )
            .expect("just spawned");
    }
}

fn spawn_npc(world: &mut World, rng: &mut Rng, i: u32) {
    let npc = world.spawn((
        Position(rng.signed() * 1500.0, rng.signed() * 1500.0),
        Velocity(0.0, 0.0),
        Speed(20.0),
        Wander(rng.next_u32()),
        Hunger(0.0),
        Thirst(0.0),
        Stamina(1.0),
        Age(0),
        Name(format!("villager {i}")),
        Faction((i % 3) as u8),
        Sprite(64 + (i % 8) as u16),
        Npc,
    ));
    if i.is_multiple_of(3) {
        world
            .insert(
                npc,
                (
                    Animation {
                        frame: 0,
                        frames: 2,
                        timer: 0.0,
                    },
                    Sound(3),
                ),
            )
            .expect("just spawned");
    }
    if i.is_multiple_of(5) {
        world.insert(npc, (Stun(20),)).expect("just spawned");
    }
    if i.is_multiple_of(11) {
        world
            .insert(npc, (Static, Light(0.8)))
            .expect("just spawned");
    }
}

fn spawn_prop(world: &mut World, rng: &mut Rng, i: u32) {
    let prop = world.spawn((
        Position(rng.signed() * 2000.0, rng.signed() * 2000.0),
        Rotation(0.0),
        Scale(1.0 + (i % 4) as f32),
        Sprite(128 + (i % 32) as u16),
        Color([120, 120, 120, 255]),
        Layer((i % 3) as i8),
        // NEW-COMPONENT: run.sh adds a component to this spawn here.
        Static,
    ));
    match i % 4 {
        0 => world.insert(prop, (Spin(1.0), Light(0.5))),
        1 => world.insert(prop, (Particles(16), Sound(9))),
        2 => world.insert(prop, (Hidden,)),
        _ => world.insert(prop, (Outline([0, 0, 0, 255]), Shadow(1.0))),
    }
    .expect("just spawned");
}

fn main() {
    const FRAMES: usize = 300;
    let mut world = World::new();
    let mut resources = Resources::default();
    let mut commands = CommandBuffer::new();
    let mut rng = Rng(42);
    (0..2).for_each(|i| spawn_player(&mut world, i));
    (0..1500).for_each(|i| spawn_enemy(&mut world, &mut rng, i));
    (0..2000).for_each(|i| spawn_npc(&mut world, &mut rng, i));
    (0..500).for_each(|i| spawn_prop(&mut world, &mut rng, i));

    for _ in 0..FRAMES {
        run_frame(&mut world, &mut resources, &mut commands);
    }

    let mut checksum = world.len() as u64;
    for (pos, health) in world.query_mut::<(&Position, Option<&Health>)>() {
        let h = health.map_or(0, |h| h.0 as u64);
        checksum =
            checksum.wrapping_add((pos.0 as i64 as u64) ^ (pos.1 as i64 as u64) << 20 ^ h << 40);
    }
    let gold: u32 = world
        .query_mut::<&Gold>()
        .into_iter()
        .map(|gold| gold.0)
        .sum();
    let stats = &resources.stats;
    println!(
        "{FRAMES} frames, {} entities: {} shots, {} kills, {} drops, {} collected, {gold} gold; checksum {checksum:#018x}",
        world.len(),
        stats.shots,
        stats.kills,
        stats.drops,
        stats.collected
    );
}
