//! A global allocator for the tests that count what the library allocates: it forwards
//! every call to the system allocator unchanged and calls its hook on every allocation
//! with the bytes it asks for (`alloc`, `alloc_zeroed`; `realloc` with the bytes it grows
//! by, zero when it shrinks). Frees are not counted: freeing a buffer made earlier is not
//! a new cost.
//!
//! Each test binary installs it with its own counter (per thread, atomic, or tracing):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: Counting = Counting(count);
//! ```
//!
//! The hook runs inside the allocator: it must not allocate (a `const`-initialised
//! thread-local `Cell` or an atomic), or guard against re-entry if it does.
//!
//! Shared by `crates/sinew/tests/{alloc,threads_alloc}.rs` and
//! `crates/sinew-scene/tests/steady_alloc.rs` (through `#[path]`).

use std::alloc::{GlobalAlloc, Layout, System};

/// The counting allocator; the field is the hook, called with the bytes requested.
pub struct Counting(pub fn(usize));

// SAFETY: forwards every call to the system allocator unchanged; the hook does not
// allocate (module docs).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (self.0)(layout.size());
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (self.0)(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (self.0)(new_size.saturating_sub(layout.size()));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
