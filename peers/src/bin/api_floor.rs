//! The least work a per-chunk API can do for a 4-byte piece of a value, to
//! put toolcall-stream's per-chunk cost in proportion. Two shapes, each doing
//! only the unavoidable part: validate UTF-8, look for `<`, decide whether
//! the piece needs JSON escaping, keep the arguments, produce the two events
//! of a value piece (raw text and arguments fragment).
//!
//! * `iterator`: what `Parser::feed` returns: events recorded as spans of an
//!   output buffer the text is copied into, then handed out as `&str`.
//! * `callback`: events passed at once to a closure, borrowing the chunk.
//!
//! ```text
//! cargo run --release --manifest-path peers/Cargo.toml --bin api_floor -- iterator
//! valgrind --tool=callgrind target/release/api_floor callback   # instructions per chunk
//! ```

use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

#[allow(dead_code)] // read only through black_box
enum Event<'a> {
    Raw(usize, &'a str),
    Arguments(usize, &'a str),
}

enum Recorded {
    Raw(usize, Range<usize>),
    Arguments(usize, Range<usize>),
}

fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

#[derive(Default)]
struct Floor {
    text: String,
    events: Vec<Recorded>,
    arguments: String,
}

impl Floor {
    #[inline(never)]
    fn feed(&mut self, chunk: &[u8]) -> impl Iterator<Item = Event<'_>> {
        self.text.clear();
        self.events.clear();
        let s = std::str::from_utf8(chunk).unwrap_or("");
        if memchr::memchr(b'<', s.as_bytes()).is_none() && !needs_escape(s) {
            let start = self.text.len();
            self.text.push_str(s);
            let span = start..self.text.len();
            self.arguments.push_str(s);
            self.events.push(Recorded::Raw(0, span.clone()));
            self.events.push(Recorded::Arguments(0, span));
        }
        let text = &self.text;
        self.events.iter().map(move |e| match e {
            Recorded::Raw(i, r) => Event::Raw(*i, &text[r.clone()]),
            Recorded::Arguments(i, r) => Event::Arguments(*i, &text[r.clone()]),
        })
    }

    #[inline(never)]
    fn feed_with(&mut self, chunk: &[u8], sink: &mut dyn FnMut(Event<'_>)) {
        let s = std::str::from_utf8(chunk).unwrap_or("");
        if memchr::memchr(b'<', s.as_bytes()).is_none() && !needs_escape(s) {
            self.arguments.push_str(s);
            sink(Event::Raw(0, s));
            sink(Event::Arguments(0, s));
        }
    }
}

fn main() {
    let shape = std::env::args().nth(1).unwrap_or_default();
    let input = "let x = compute(a, b) + other_value; ".repeat(300_000);
    let mut floor = Floor::default();
    let mut events = 0usize;
    let start = Instant::now();
    for chunk in input.as_bytes().chunks(4) {
        match shape.as_str() {
            "iterator" => floor.feed(chunk).for_each(|e| {
                black_box(e);
                events += 1;
            }),
            "callback" => floor.feed_with(chunk, &mut |e| {
                black_box(e);
                events += 1;
            }),
            _ => {
                eprintln!("usage: api_floor iterator|callback");
                std::process::exit(2);
            }
        }
        if floor.arguments.len() > 1 << 16 {
            floor.arguments.clear();
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let chunks = input.len().div_ceil(4);
    println!(
        "{shape}: {events} events, {:.0} MB/s, {:.1} ns a chunk",
        input.len() as f64 / 1e6 / seconds,
        seconds * 1e9 / chunks as f64
    );
}
