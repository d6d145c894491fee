//! An allocator that counts each thread's allocations, for the tests that
//! pin what a warm path allocates. A test binary installs it with
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: support::Counting = support::Counting;
//! ```
//!
//! and reads [`allocations`] before and after the code it measures, on the
//! same thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting each thread's allocations (`alloc`,
/// `alloc_zeroed` and `realloc`; freeing is not counted).
pub struct Counting;

thread_local! {
    // `const`-initialised and without `Drop`: using it allocates nothing and
    // registers nothing, so the allocator may.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    ALLOCATIONS.with(|count| count.set(count.get() + 1));
}

/// How many allocations the current thread has made so far (through
/// [`Counting`], when it is the global allocator; 0 otherwise).
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are this allocator's; the counter is
// only bookkeeping beside them and never touches the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which
        // is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, that is by
        // `System`, with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: `ptr` was allocated by `System` with `layout`, and
        // `new_size` is valid for it, as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
