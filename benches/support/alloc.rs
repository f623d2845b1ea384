//! A global allocator that counts, per thread, the bytes a thread holds now
//! and at most, so that a test or a benchmark can state the peak heap of
//! what it runs on its own thread. Install it with `#[global_allocator]` in
//! a binary of its own.
//!
//! Why per thread: the test harness runs other threads (its output capture,
//! other tests) that allocate at any moment; a process-wide count would add
//! their allocations to the measured peak at random. A thread's own count
//! depends only on what that thread runs, so the same work gives the same
//! figure on every run, whatever else the machine or the process is doing.
//!
//! Memory a thread frees that another thread allocated lowers its count;
//! the count is signed so that this never wraps. The parser under test is
//! created, fed and dropped on one thread, so its count is exact.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // `const` initialisers with no destructor: reading them never
    // allocates, which an allocator's bookkeeping must not do.
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

pub struct Counting;

impl Counting {
    pub const fn new() -> Counting {
        Counting
    }

    /// Starts a measurement on this thread: its peak becomes what it holds
    /// now, which is returned.
    pub fn reset_peak(&self) -> isize {
        let now = CURRENT.with(Cell::get);
        PEAK.with(|peak| peak.set(now));
        now
    }

    /// The most bytes this thread held at once since its `reset_peak`.
    pub fn peak(&self) -> isize {
        PEAK.with(Cell::get)
    }

    fn add(bytes: usize) {
        // `try_with`: a thread's last frees can come after its locals are
        // gone; those are not counted.
        let _ = CURRENT.try_with(|current| {
            let now = current.get() + bytes as isize;
            current.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    fn sub(bytes: usize) {
        let _ = CURRENT.try_with(|current| current.set(current.get() - bytes as isize));
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are only bookkeeping and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            Self::add(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        if !ptr.is_null() {
            Self::add(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        Self::sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            Self::add(new_size);
            Self::sub(layout.size());
        }
        new
    }
}
