//! A global allocator that counts: the bytes allocated now and at most, so
//! that a test or a benchmark can state the peak heap of what it runs.
//! Install it with `#[global_allocator]` in a binary of its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct Counting {
    current: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    pub const fn new() -> Counting {
        Counting {
            current: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Starts a measurement: the peak becomes what is allocated now.
    pub fn reset_peak(&self) -> usize {
        let now = self.current.load(Ordering::SeqCst);
        self.peak.store(now, Ordering::SeqCst);
        now
    }

    /// The most bytes allocated at once since `reset_peak`.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    fn add(&self, bytes: usize) {
        let now = self.current.fetch_add(bytes, Ordering::SeqCst) + bytes;
        self.peak.fetch_max(now, Ordering::SeqCst);
    }

    fn sub(&self, bytes: usize) {
        self.current.fetch_sub(bytes, Ordering::SeqCst);
    }
}

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        if !ptr.is_null() {
            self.add(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        self.sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = System.realloc(ptr, layout, new_size);
        if !new.is_null() {
            self.add(new_size);
            self.sub(layout.size());
        }
        new
    }
}
