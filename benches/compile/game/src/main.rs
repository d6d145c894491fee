//! A top-down arena game of the size and shape of a real one, written the way
//! a user of schemecs writes it: one schema of 64 components (54 with data,
//! of which 4 tracked and 2 sparse, and 10 tags), 3 resources, 2 events and
//! 20 systems. It exists to time how long a user's crate takes to build
//! (benches/compile/run.sh); benches/peers/compile_hecs is the same game on
//! hecs.
//!
//! run.sh edits this file: it changes the constant after the `EDIT-ME` line;
//! to add a component it appends the type, adds a field after the one
//! marked `LAST-FIELD` and spawns it on the line after `NEW-COMPONENT`.

// Queries with filters are long types; clippy would flag most systems.
#![allow(clippy::type_complexity)]

use schemecs::prelude::*;

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

#[derive(Schema)]
pub struct Game {
    position: Position,
    velocity: Velocity,
    acceleration: Acceleration,
    rotation: Rotation,
    spin: Spin,
    scale: Scale,
    mass: Mass,
    drag: Drag,
    radius: Radius,
    speed: Speed,
    #[ecs(track)]
    health: Health,
    max_health: MaxHealth,
    armor: Armor,
    shield: Shield,
    regen: Regen,
    damage: Damage,
    payload: Payload,
    cooldown: Cooldown,
    fire_rate: FireRate,
    #[ecs(track)]
    ammo: Ammo,
    aggro: Aggro,
    owner: Owner,
    crit: Crit,
    knockback: Knockback,
    #[ecs(sparse)]
    poison: Poison,
    #[ecs(sparse)]
    stun: Stun,
    level: Level,
    #[ecs(track)]
    experience: Experience,
    #[ecs(track)]
    gold: Gold,
    score: Score,
    loot: Loot,
    magnet: Magnet,
    inventory: Inventory,
    hunger: Hunger,
    thirst: Thirst,
    stamina: Stamina,
    mana: Mana,
    lifetime: Lifetime,
    age: Age,
    wander: Wander,
    home: Home,
    patrol: Patrol,
    faction: Faction,
    name: Name,
    sprite: Sprite,
    animation: Animation,
    color: Color,
    outline: Outline,
    layer: Layer,
    light: Light,
    shadow: Shadow,
    sound: Sound,
    particles: Particles,
    trail: Trail,
    player: Player,
    enemy: Enemy,
    npc: Npc,
    bullet: Bullet,
    pickup: Pickup,
    dead: Dead,
    static_: Static,
    flying: Flying,
    boss: Boss,
    hidden: Hidden, // LAST-FIELD: run.sh adds a component after this line.
    #[ecs(resource)]
    time: Time,
    #[ecs(resource)]
    rng: Rng,
    #[ecs(resource)]
    stats: Stats,
    #[ecs(event)]
    hit: Hit,
    #[ecs(event)]
    died: Died,
}

fn advance_time(mut time: ResMut<Time>) {
    time.frame += 1;
}

fn accelerate(mut bodies: Query<(&mut Velocity, &Acceleration, &Mass, &Drag)>, time: Res<Time>) {
    for (vel, acc, mass, drag) in bodies.iter_mut() {
        let keep = 1.0 - drag.0 * time.dt;
        vel.0 = (vel.0 + acc.0 / mass.0 * time.dt) * keep;
        vel.1 = (vel.1 + acc.1 / mass.0 * time.dt) * keep;
    }
}

fn wander(mut walkers: Query<(&mut Velocity, &mut Wander, &Speed), (With<Npc>, Without<Stun>)>) {
    for (vel, wander, speed) in walkers.iter_mut() {
        wander.0 = wander.0.wrapping_mul(1103515245).wrapping_add(12345);
        let angle = (wander.0 >> 16) as f32 / 65536.0 * std::f32::consts::TAU;
        (vel.0, vel.1) = (angle.cos() * speed.0, angle.sin() * speed.0);
    }
}

fn chase(
    players: Query<&Position, With<Player>>,
    mut enemies: Query<
        (&Position, &mut Velocity, &Speed, &Aggro, &Home),
        (With<Enemy>, Without<Stun>, Without<Dead>),
    >,
) {
    for (pos, vel, speed, aggro, home) in enemies.iter_mut() {
        let seen = players
            .iter()
            .find(|p| (p.0 - pos.0).hypot(p.1 - pos.1) < aggro.0);
        let (x, y) = seen.map_or((home.0, home.1), |p| (p.0, p.1));
        let (dx, dy) = (x - pos.0, y - pos.1);
        let length = dx.hypot(dy).max(1.0);
        (vel.0, vel.1) = (dx / length * speed.0, dy / length * speed.0);
    }
}

fn stun(mut stunned: Query<(Entity, &mut Stun, &mut Velocity)>, mut commands: Commands<Game>) {
    for (entity, stun, vel) in stunned.iter_mut() {
        (vel.0, vel.1) = (0.0, 0.0);
        stun.0 = stun.0.saturating_sub(1);
        if stun.0 == 0 {
            commands.remove::<Stun>(entity);
        }
    }
}

fn movement(mut movers: Query<(&mut Position, &Velocity), Without<Static>>, time: Res<Time>) {
    movers.for_each_mut(|(pos, vel)| {
        pos.0 += vel.0 * time.dt;
        pos.1 += vel.1 * time.dt;
    });
}

fn spin(mut spinners: Query<(&mut Rotation, &Spin)>, time: Res<Time>) {
    spinners.for_each_mut(|(rotation, spin)| rotation.0 += spin.0 * time.dt);
}

fn animate(mut animated: Query<(&mut Animation, &mut Sprite)>, time: Res<Time>) {
    for (animation, sprite) in animated.iter_mut() {
        animation.timer += time.dt;
        if animation.timer >= 0.1 {
            animation.timer -= 0.1;
            animation.frame = (animation.frame + 1) % animation.frames;
            sprite.0 = sprite.0 - sprite.0 % 16 + animation.frame;
        }
    }
}

fn cool_down(mut weapons: Query<&mut Cooldown>) {
    weapons.for_each_mut(|cooldown| cooldown.0 = cooldown.0.saturating_sub(1));
}

fn shoot(
    mut guns: Query<
        (
            Entity,
            &Position,
            &Rotation,
            &mut Cooldown,
            &FireRate,
            &mut Ammo,
            &Damage,
        ),
        With<Player>,
    >,
    mut rng: ResMut<Rng>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Game>,
) {
    for (owner, pos, rotation, cooldown, rate, ammo, damage) in guns.iter_mut() {
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

fn bullet_hits(
    bullets: Query<(Entity, &Position, &Payload), With<Bullet>>,
    targets: Query<(Entity, &Position, &Radius), (With<Enemy>, Without<Dead>)>,
    mut hits: EventWriter<Hit>,
    mut commands: Commands<Game>,
) {
    for (bullet, at, payload) in bullets.iter() {
        let touched = targets
            .iter()
            .find(|(_, pos, radius)| (pos.0 - at.0).hypot(pos.1 - at.1) < radius.0 + 2.0);
        if let Some((target, _, _)) = touched {
            hits.send(Hit {
                target,
                damage: payload.0,
            });
            commands.despawn(bullet);
        }
    }
}

fn apply_hits(
    hits: EventReader<Hit>,
    mut targets: Query<(&mut Health, &Armor, Option<&mut Shield>)>,
) {
    for hit in hits.read() {
        if let Ok((health, armor, shield)) = targets.get_mut(hit.target) {
            let mut damage = (hit.damage - armor.0).max(1);
            if let Some(shield) = shield {
                let absorbed = damage.min(shield.0);
                (shield.0, damage) = (shield.0 - absorbed, damage - absorbed);
            }
            health.0 -= damage;
        }
    }
}

fn poison(mut poisoned: Query<(Entity, &mut Health, &mut Poison)>, mut commands: Commands<Game>) {
    for (entity, health, poison) in poisoned.iter_mut() {
        health.0 -= poison.damage;
        poison.turns -= 1;
        if poison.turns == 0 {
            commands.remove::<Poison>(entity);
        }
    }
}

fn regenerate(
    mut healing: Query<(&mut Health, &MaxHealth, &Regen), Without<Dead>>,
    time: Res<Time>,
) {
    // EDIT-ME: run.sh changes the constant on the next line.
    const PERIOD: u64 = 30;
    if !time.frame.is_multiple_of(PERIOD) {
        return;
    }
    for (health, max, regen) in healing.iter_mut() {
        health.0 = (health.0 + regen.0).min(max.0);
    }
}

fn deaths(
    wounded: Query<(Entity, &Health, &Position, Option<&Loot>), (Changed<Health>, Without<Dead>)>,
    mut died: EventWriter<Died>,
    mut commands: Commands<Game>,
) {
    for (entity, health, pos, loot) in wounded.iter() {
        if health.0 <= 0 {
            died.send(Died {
                at: (pos.0, pos.1),
                loot: loot.map_or(0, |loot| loot.0),
            });
            commands.insert(entity, (Dead, Lifetime(30)));
        }
    }
}

fn drop_loot(
    died: EventReader<Died>,
    mut rng: ResMut<Rng>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Game>,
) {
    for death in died.read() {
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

fn collect(
    mut players: Query<(&Position, &mut Gold, &Magnet), With<Player>>,
    pickups: Query<(Entity, &Position, &Loot), With<Pickup>>,
    mut stats: ResMut<Stats>,
    mut commands: Commands<Game>,
) {
    for (pickup, at, loot) in pickups.iter() {
        for (pos, gold, magnet) in players.iter_mut() {
            if (pos.0 - at.0).hypot(pos.1 - at.1) < magnet.0 {
                gold.0 += loot.0;
                stats.collected += 1;
                commands.despawn(pickup);
                break;
            }
        }
    }
}

fn level_up(
    died: EventReader<Died>,
    mut players: Query<(&mut Experience, &mut Level, &mut MaxHealth), With<Player>>,
) {
    let gained = 10 * died.len() as u32;
    for (experience, level, max_health) in players.iter_mut() {
        experience.0 += gained;
        while experience.0 >= level.0 * 100 {
            experience.0 -= level.0 * 100;
            level.0 += 1;
            max_health.0 += 10;
        }
    }
}

fn needs(mut living: Query<(&mut Hunger, &mut Thirst, &mut Stamina, &mut Age), With<Npc>>) {
    living.for_each_mut(|(hunger, thirst, stamina, age)| {
        hunger.0 = (hunger.0 + 0.01).min(1.0);
        thirst.0 = (thirst.0 + 0.02).min(1.0);
        stamina.0 = (stamina.0 - 0.5 * (hunger.0 + thirst.0) * 0.01).max(0.0);
        age.0 += 1;
    });
}

fn expire(mut mortal: Query<(Entity, &mut Lifetime)>, mut commands: Commands<Game>) {
    for (entity, lifetime) in mortal.iter_mut() {
        lifetime.0 -= 1;
        if lifetime.0 == 0 {
            commands.despawn(entity);
        }
    }
}

fn spawn_player(world: &mut World<Game>, i: u32) {
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

fn spawn_enemy(world: &mut World<Game>, rng: &mut Rng, i: u32) {
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

fn spawn_npc(world: &mut World<Game>, rng: &mut Rng, i: u32) {
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

fn spawn_prop(world: &mut World<Game>, rng: &mut Rng, i: u32) {
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
    let mut world = World::<Game>::new();
    let mut rng = Rng(42);
    (0..2).for_each(|i| spawn_player(&mut world, i));
    (0..1500).for_each(|i| spawn_enemy(&mut world, &mut rng, i));
    (0..2000).for_each(|i| spawn_npc(&mut world, &mut rng, i));
    (0..500).for_each(|i| spawn_prop(&mut world, &mut rng, i));

    let mut schedule = Schedule::<Game>::new();
    schedule
        .add(advance_time)
        .add(accelerate)
        .add(wander)
        .add(chase)
        .add(stun)
        .add(movement)
        .add(spin)
        .add(animate)
        .add(cool_down)
        .add(shoot)
        .add(bullet_hits)
        .add(apply_hits)
        .add(poison)
        .add(regenerate)
        .add(deaths)
        .add(drop_loot)
        .add(collect)
        .add(level_up)
        .add(needs)
        .add(expire);
    for _ in 0..FRAMES {
        schedule.run(&mut world);
    }

    let mut checksum = world.len() as u64;
    for (pos, health) in world.query::<(&Position, Option<&Health>)>().iter() {
        let h = health.map_or(0, |h| h.0 as u64);
        checksum =
            checksum.wrapping_add((pos.0 as i64 as u64) ^ (pos.1 as i64 as u64) << 20 ^ h << 40);
    }
    let gold: u32 = world.query::<&Gold>().iter().map(|gold| gold.0).sum();
    let stats = world.resource::<Stats>();
    println!(
        "{FRAMES} frames, {} entities: {} shots, {} kills, {} drops, {} collected, {gold} gold; checksum {checksum:#018x}",
        world.len(),
        stats.shots,
        stats.kills,
        stats.drops,
        stats.collected
    );
}
