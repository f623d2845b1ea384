//! The UTF-8 boundary between a byte stream and the engine, which reads
//! `&str`.

use crate::engine::Engine;
use crate::event::{DiagnosticKind, Span};
use crate::sink::Sink;

/// UTF-8 around the engine: splits off complete characters for it, holds
/// an incomplete one, and replaces invalid bytes with U+FFFD as
/// `String::from_utf8_lossy` does, whatever the chunking.
#[derive(Default)]
pub(super) struct Utf8 {
    /// An incomplete character at the end of the last chunk.
    held: [u8; 4],
    pub(super) len: usize,
    reported: bool,
}

impl Utf8 {
    #[inline]
    pub(super) fn feed<S: Sink>(&mut self, chunk: &[u8], engine: &mut Engine, sink: &mut S) {
        // The common case at token-sized chunks: whole characters, nothing
        // held from the last chunk.
        if self.len == 0 && chunk.len() < SIMD_UTF8_MIN {
            // Nearly every token is ASCII: a test of its bytes' high bits
            // costs a fraction of `from_utf8`'s setup on a few bytes (the
            // `ascii` crate makes the `&str`: this crate has no `unsafe`).
            if let Ok(s) = ascii::AsciiStr::from_ascii(chunk) {
                return engine.run(s.as_str(), sink);
            }
            if let Ok(s) = std::str::from_utf8(chunk) {
                return engine.run(s, sink);
            }
        }
        let mut rest = chunk;
        // A long input goes through in blocks that stay in cache from
        // UTF-8 validation through the marker scan to the consumer: one
        // pass over memory instead of three, and the same events (the
        // engine does not care where its input is cut).
        while rest.len() > BLOCK {
            let mut cut = BLOCK;
            while cut > BLOCK - 3 && is_utf8_continuation(rest[cut]) {
                cut -= 1;
            }
            let (block, tail) = rest.split_at(cut);
            self.decode(block, engine, sink);
            rest = tail;
        }
        self.decode(rest, engine, sink);
    }

    pub(super) fn finish<S: Sink>(&mut self, engine: &mut Engine, sink: &mut S) {
        if self.len > 0 {
            let bad = self.len;
            self.len = 0;
            self.invalid(bad, engine, sink);
        }
        engine.finish(sink);
    }

    fn decode<S: Sink>(&mut self, mut input: &[u8], engine: &mut Engine, sink: &mut S) {
        if self.len > 0 {
            let held = self.len;
            let width = utf8_width(self.held[0]);
            let take = (width - held).min(input.len());
            let mut buf = self.held;
            buf[held..held + take].copy_from_slice(&input[..take]);
            match std::str::from_utf8(&buf[..held + take]) {
                Ok(s) => {
                    self.len = 0;
                    engine.run(s, sink);
                    input = &input[take..];
                }
                Err(e) => match e.error_len() {
                    None => {
                        self.held = buf;
                        self.len = held + take;
                        return;
                    }
                    Some(bad) => {
                        self.len = 0;
                        self.invalid(bad, engine, sink);
                        input = &input[bad.saturating_sub(held)..];
                    }
                },
            }
        }
        // Long chunks are nearly always valid: validate them with SIMD and
        // leave the error details to the standard library's slower path.
        if input.len() >= SIMD_UTF8_MIN {
            if let Ok(s) = simdutf8::basic::from_utf8(input) {
                return engine.run(s, sink);
            }
        }
        loop {
            match std::str::from_utf8(input) {
                Ok(s) => return engine.run(s, sink),
                Err(e) => {
                    let (valid, rest) = input.split_at(e.valid_up_to());
                    if let Ok(s) = std::str::from_utf8(valid) {
                        engine.run(s, sink);
                    }
                    match e.error_len() {
                        None => {
                            // A marker that cannot go on with this
                            // character's first byte is text now.
                            engine.next_starts_with(rest[0], sink);
                            self.held[..rest.len()].copy_from_slice(rest);
                            self.len = rest.len();
                            return;
                        }
                        Some(bad) => {
                            self.invalid(bad, engine, sink);
                            input = &rest[bad..];
                        }
                    }
                }
            }
        }
    }

    /// `bad` invalid bytes (an invalid sequence, or a character cut by the
    /// end), read as one U+FFFD.
    fn invalid<S: Sink>(&mut self, bad: usize, engine: &mut Engine, sink: &mut S) {
        let at = engine.input_offset();
        let held = engine.held_text_len();
        engine.cap_places(at + bad as u64);
        engine.run(REPLACEMENT, sink);
        engine.cap_places(u64::MAX);
        // Offsets count the input's bytes, not the replacement's.
        engine.replaced(REPLACEMENT.len(), bad, held, sink);
        if !self.reported {
            self.reported = true;
            let index = engine.current_call();
            engine.diag_at(
                sink,
                DiagnosticKind::InvalidUtf8,
                index,
                Span::new(at, at + bad as u64),
                format_args!(
                    "the input is not valid UTF-8; invalid bytes were replaced \
                     with U+FFFD (reported once per stream)"
                ),
            );
        }
    }
}

const REPLACEMENT: &str = "\u{FFFD}";

/// How much of a long chunk is decoded and parsed at a time.
pub(super) const BLOCK: usize = 64 << 10;

fn is_utf8_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

/// Below this many bytes the standard library's validation is as fast.
pub(super) const SIMD_UTF8_MIN: usize = 64;

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xf0..=0xf4 => 4,
        0xe0..=0xef => 3,
        _ => 2,
    }
}
