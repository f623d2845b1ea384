//! The worst-case memory of one rewritten stream, measured: the heap the
//! stream's own state (`SseRewrite`) reaches while one event as large as
//! `--max-event-bytes` passes through it, against the formula the README
//! states. A counting allocator counts per thread, so tests running beside
//! this one do not count, and the figure is the same on every run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::json;
use toolcall_stream::{Format, Limits, Parser};

use super::log::RequestLog;
use super::stream_rewrite::{worst_case_bytes, SseRewrite};

struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every call is passed to the system allocator unchanged; the
// counters are thread-local `Cell`s with const initialisers, which never
// allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

fn count(delta: isize) {
    // `try_with`: a thread being torn down has no counters left.
    let _ = CURRENT.try_with(|current| {
        let now = current.get() + delta;
        current.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak heap above the level at the start of `work`.
fn peak_during(work: impl FnOnce()) -> usize {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    work();
    (PEAK.with(Cell::get) - base).max(0) as usize
}

fn frame(value: serde_json::Value) -> String {
    format!("data: {value}\n\n")
}

/// The heap one stream reaches while a call of `value_bytes` in one event
/// passes, read from the upstream in 64 KiB pieces.
fn one_big_event(max_event_bytes: usize, value_bytes: usize, hold: bool) -> usize {
    let mut limits = Limits::default();
    limits.max_held_call = 64 << 10;
    let builder = Parser::builder()
        .format(Format::Qwen3Coder)
        .limits(limits)
        .incomplete_calls_as_content(hold)
        .retain_arguments(false);
    let call = format!(
        "<tool_call>\n<function=write_file>\n<parameter=content>\n{}\n</parameter>\n</function>\n</tool_call>",
        "x".repeat(value_bytes)
    );
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        frame(
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let body = [
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": call}), None),
        chunk(json!({}), Some("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    drop(call);
    let mut sent = 0;
    let peak = peak_during(|| {
        let log = RequestLog::new(axum::http::Method::POST, "/v1/chat/completions");
        let mut rewrite = SseRewrite::new(builder, max_event_bytes, log);
        for piece in body.as_bytes().chunks(64 << 10) {
            sent += rewrite.piece(piece).len();
        }
        sent += rewrite.body_ended().len();
    });
    assert!(sent > value_bytes, "the call went out: {sent} bytes");
    peak
}

#[test]
fn one_event_at_the_bound_stays_within_the_stated_worst_case() {
    const E: usize = 1 << 20;
    for hold in [false, true] {
        let peak = one_big_event(E, E - 4096, hold);
        let bound = worst_case_bytes(E, Limits::default().max_held_value, 64 << 10);
        assert!(peak <= bound, "hold {hold}: peak {peak} > bound {bound}");
    }
}

#[test]
fn the_peak_grows_with_the_event_not_beyond_it() {
    let small = one_big_event(1 << 20, 16 << 10, false);
    let large = one_big_event(1 << 20, 900 << 10, false);
    // A larger event costs a bounded multiple of its size, nothing more.
    assert!(large - small <= 10 * (900 << 10), "{small} -> {large}");
}
