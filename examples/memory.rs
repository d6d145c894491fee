//! How many bytes a world spends per entity beyond the components' own data:
//! the entity's slot (generation and location) and its row's bookkeeping in
//! its table.
//!
//! A counting allocator wraps the system one and keeps the number of live
//! heap bytes. The program spawns 1,000,000 entities of two 12-byte
//! components in one batch, subtracts the 24 bytes per entity of component
//! data, and prints what is left per entity; then it despawns them all,
//! spawns as many again, and prints it once more (freed slots are reused,
//! and whatever the despawns left allocated still counts).
//!
//! ```text
//! cargo run --release --example memory
//! ```

use schemecs::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes currently allocated.
struct Counting {
    live: AtomicUsize,
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are this allocator's; the counter is
// only bookkeeping beside them and never touches the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which
        // is `System::alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            self.live.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, that is by
        // `System`, with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`, and
        // `new_size` is valid for it, as the caller guarantees.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
            self.live.fetch_add(new_size, Ordering::Relaxed);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting {
    live: AtomicUsize::new(0),
};

fn live() -> usize {
    ALLOCATOR.live.load(Ordering::Relaxed)
}

/// A 12-byte component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct A(pub [f32; 3]);

/// Another 12-byte component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct B(pub [f32; 3]);

#[derive(Schema)]
pub struct Two {
    a: A,
    b: B,
}

const ENTITIES: usize = 1_000_000;
const DATA: usize = size_of::<A>() + size_of::<B>();

fn spawn_all(world: &mut World<Two>) {
    let spawned = world.spawn_batch((0..ENTITIES).map(|i| {
        let x = i as f32;
        (A([x, 0.0, 0.0]), B([0.0, x, 0.0]))
    }));
    assert_eq!(spawned.len(), ENTITIES);
}

fn report(what: &str, bytes: usize) {
    let beyond = bytes as f64 / ENTITIES as f64 - DATA as f64;
    println!(
        "{what}: {bytes} live bytes, {:.2} per entity, {beyond:.2} beyond the {DATA} of component data",
        bytes as f64 / ENTITIES as f64
    );
}

fn main() {
    assert_eq!(DATA, 24);
    let before = live();
    let mut world = World::<Two>::new();
    let empty = live() - before;
    println!("an empty world: {empty} live bytes");

    spawn_all(&mut world);
    let after_spawn = live() - before;
    report("after spawning 1,000,000", after_spawn);

    let handles: Vec<Entity> = world.iter().collect();
    for entity in handles {
        world.despawn(entity).expect("every entity is alive");
    }
    assert!(world.is_empty());
    spawn_all(&mut world);
    let after_cycle = live() - before;
    report(
        "after despawning all and spawning 1,000,000 again",
        after_cycle,
    );

    let check: Vec<(A, B)> = world
        .query::<(&A, &B)>()
        .iter()
        .map(|(a, b)| (*a, *b))
        .collect();
    assert_eq!(check.len(), ENTITIES);
    assert!(check.iter().all(|(a, b)| a.0[0] == b.0[1]));
}
