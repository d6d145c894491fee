//! `#[derive(StableHash)]`: a struct writes its fields in declaration order,
//! an enum its variant's index and then the variant's fields; equal values
//! hash equal, and a change to any field or to the variant changes the hash.

use ecs::{checksum::StableHash, checksum::StableHasher, entity::Entity};

fn hash(value: &impl StableHash) -> u128 {
    let mut hasher = StableHasher::new();
    value.stable_hash(&mut hasher);
    hasher.finish()
}

/// The hash of the words `write` feeds a hasher: what a derive must match.
fn written(write: impl FnOnce(&mut StableHasher)) -> u128 {
    let mut hasher = StableHasher::new();
    write(&mut hasher);
    hasher.finish()
}

#[derive(Clone, StableHash)]
struct Body {
    pos: [f32; 2],
    mass: f64,
    name: String,
    parent: Option<Entity>,
}

fn body() -> Body {
    Body {
        pos: [1.5, -2.0],
        mass: 80.0,
        name: "probe".into(),
        parent: None,
    }
}

#[derive(StableHash)]
struct Pair(u32, u32);

#[derive(Clone, Copy, StableHash)]
struct Unit;

/// The same field types as `Pair`, declared the other way round by name.
#[derive(StableHash)]
struct Swapped {
    second: u32,
    first: u32,
}

#[derive(Clone, StableHash)]
enum Order {
    Idle,
    Move(f32, f32),
    Attack { target: u64, power: u8 },
}

#[derive(StableHash)]
struct Tagged<T, const N: usize> {
    values: [T; N],
}

#[derive(StableHash)]
struct Borrowed<'a, T: ?Sized> {
    value: &'a T,
}

/// A field named like the derive's own parameter.
#[derive(StableHash)]
struct Hygiene {
    hasher: u8,
    __field_0: u8,
}

#[test]
fn a_struct_writes_its_fields_in_declaration_order() {
    let b = body();
    let expected = written(|h| {
        b.pos.stable_hash(h);
        b.mass.stable_hash(h);
        b.name.stable_hash(h);
        b.parent.stable_hash(h);
    });
    assert_eq!(hash(&b), expected);
    assert_eq!(hash(&Pair(3, 4)), written(|h| (3u32, 4u32).stable_hash(h)));
    assert_eq!(hash(&Unit), written(|_| {}));
}

#[test]
fn equal_values_hash_equal() {
    assert_eq!(hash(&body()), hash(&body().clone()));
    let order = Order::Attack {
        target: 7,
        power: 3,
    };
    assert_eq!(hash(&order), hash(&order.clone()));
}

#[test]
fn a_change_to_any_field_changes_the_hash() {
    let base = hash(&body());
    let changes: [fn(&mut Body); 5] = [
        |b| b.pos[0] = -b.pos[0],
        |b| b.pos[1] += 1.0,
        |b| b.mass = -0.0,
        |b| b.name.push('!'),
        |b| b.parent = Some(Entity::from_bits(1 << 32).unwrap()),
    ];
    for (i, change) in changes.iter().enumerate() {
        let mut b = body();
        change(&mut b);
        assert_ne!(hash(&b), base, "change {i} went unseen");
    }
    assert_ne!(hash(&Pair(1, 2)), hash(&Pair(1, 3)));
    assert_ne!(hash(&Pair(1, 2)), hash(&Pair(0, 2)));
}

#[test]
fn field_order_counts_and_names_do_not() {
    // Swapping two values changes the hash...
    assert_ne!(hash(&Pair(1, 2)), hash(&Pair(2, 1)));
    // ...while the names of the fields are not part of it: declaration
    // order is.
    let swapped = Swapped {
        second: 1,
        first: 2,
    };
    assert_eq!(hash(&swapped), hash(&Pair(1, 2)));
}

#[test]
fn an_enum_writes_its_variant_then_its_fields() {
    assert_eq!(hash(&Order::Idle), written(|h| h.write_word(0)));
    assert_eq!(
        hash(&Order::Move(1.0, 2.0)),
        written(|h| {
            h.write_word(1);
            (1.0f32, 2.0f32).stable_hash(h);
        })
    );
    let attack = |target, power| Order::Attack { target, power };
    assert_eq!(
        hash(&attack(9, 4)),
        written(|h| {
            h.write_word(2);
            9u64.stable_hash(h);
            4u8.stable_hash(h);
        })
    );
    assert_ne!(hash(&attack(9, 4)), hash(&attack(9, 5)));
    assert_ne!(hash(&attack(9, 4)), hash(&attack(8, 4)));
}

#[test]
fn the_variant_counts_even_where_the_words_would_agree() {
    // `Move(0.0, 0.0)` and `Idle` differ only in the variant.
    assert_ne!(hash(&Order::Idle), hash(&Order::Move(0.0, 0.0)));
    #[derive(StableHash)]
    enum Either {
        Left(u32),
        Right(u32),
    }
    assert_ne!(hash(&Either::Left(5)), hash(&Either::Right(5)));
}

#[test]
fn generic_types_hash_through_their_parameters() {
    let tagged = Tagged::<f64, 2> { values: [0.5, 1.5] };
    assert_eq!(hash(&tagged), hash(&[0.5f64, 1.5]));
    let text = String::from("abc");
    let borrowed = Borrowed::<str> { value: &text };
    assert_eq!(hash(&borrowed), hash(&text));
}

#[test]
fn field_names_do_not_clash_with_the_derive() {
    let value = Hygiene {
        hasher: 1,
        __field_0: 2,
    };
    assert_eq!(hash(&value), hash(&(1u8, 2u8)));
}

/// Every field of a fixed size: a run of these is written a buffer at a
/// time rather than value by value, and must come out the same.
#[derive(Clone, Copy, StableHash)]
struct Particle {
    pos: [f32; 3],
    id: Entity,
    alive: bool,
    pair: (u16, i64),
    unit: Unit,
}

fn particle(i: u32) -> Particle {
    Particle {
        pos: [i as f32, -(i as f32), 0.5],
        id: Entity::from_bits((u64::from(i) << 32) | 1).unwrap(),
        alive: i % 3 == 0,
        pair: (i as u16, -i64::from(i)),
        unit: Unit,
    }
}

#[test]
fn a_run_of_values_writes_what_each_value_writes() {
    // Enough values to fill the hasher's buffer many times over, so runs
    // are split at its edges.
    let particles: Vec<Particle> = (1..5000).map(particle).collect();
    let one_by_one = |h: &mut StableHasher| {
        h.write_word(particles.len() as u64);
        for p in &particles {
            p.stable_hash(h);
        }
    };
    assert_eq!(hash(&particles), written(one_by_one));
    // From an odd place in the buffer too, and with a field changed.
    assert_eq!(
        hash(&(true, &particles)),
        written(|h| {
            true.stable_hash(h);
            one_by_one(h);
        })
    );
    let mut changed = particles.clone();
    changed[4321].pair.0 ^= 1;
    assert_ne!(hash(&changed), hash(&particles));
    // A type of no fixed size (`Body` has a `String`) takes the other path.
    let bodies = vec![body(), body()];
    assert_eq!(
        hash(&bodies),
        written(|h| {
            h.write_word(2);
            body().stable_hash(h);
            body().stable_hash(h);
        })
    );
}
