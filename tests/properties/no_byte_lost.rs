//! No byte vanishes: every input byte ends up in content, in a call, or in
//! a marker or layout the format consumes, whatever splits the input, also
//! when a call's arguments cannot be read.
//!
//! Stated with two runs of the same input:
//! - fed byte by byte, a parser that rejects every call (no tool is
//!   declared, unknown tools are content) gives the input back as content,
//!   byte for byte: the engine hands every byte to the gate once and in
//!   order, after the events it caused, so a rejected call's content (one
//!   piece, right after its `rejected_call`) is its text up to the byte
//!   that ended it, and the content after it is the raw text up to the next
//!   call;
//! - the plain stream, at any split, has the same content before the first
//!   call, and its content after call `i` (up to the next call) is that raw
//!   text less only the byte that ended the call, markers of the format (a
//!   marker's start at the end) and layout.
//!
//! The inputs are the format's generated outputs with a token inserted
//! that no body syntax reads (a bare word, a bytes literal, a positional
//! argument, a bad escape, half a literal), so that most have a call whose
//! arguments became unreadable midway.

use super::*;
use std::sync::Arc;
use toolcall_stream::{Event, Tools};

/// Tokens that make a call's arguments unreadable in JSON, Python or
/// Gemma's syntax (or are text where they fall outside a call).
const UNREADABLE: &[&str] = &[
    "Paris", "tru", "nul", "-", "\\q", "\\N{X}", "b'z'", "'pos', ", "x  ", "*a", "{]", "}", ")",
    "::", "(",
];

/// `calls` with one [`UNREADABLE`] token inserted at a character boundary.
pub fn with_unreadable(calls: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (
        calls,
        any::<prop::sample::Index>(),
        prop::sample::select(UNREADABLE),
    )
        .prop_map(|(mut input, at, token)| {
            let mut at = at.index(input.len() + 1);
            // A character boundary, where the input is UTF-8 there.
            while at < input.len() && (input[at] & 0xC0) == 0x80 {
                at += 1;
            }
            input.splice(at..at, token.bytes());
            input
        })
}

/// The two runs' relation (see the module's docs).
pub fn check_no_byte_lost(
    format: Format,
    input: &[u8],
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    let Ok(_) = std::str::from_utf8(input) else {
        // Invalid bytes come back as U+FFFD: not the input's bytes.
        return Ok(());
    };
    let mut rejecting = Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .tools(Arc::new(Tools::from_json("[]").unwrap()))
        .unknown_tools_as_content(true)
        .build();
    let every_byte: Vec<usize> = (1..input.len()).collect();
    let gated = feed_cut(&mut rejecting, input, &every_byte);
    if gated.iter().any(|e| {
        matches!(
            e.as_event(),
            Event::Diagnostic {
                kind: DiagnosticKind::EmptyToolCall,
                ..
            }
        )
    }) || matches!(
        format,
        Format::OpenAi | Format::Inkling | Format::Muse | Format::FunctionaryV32
    ) {
        // A wrapper with nothing in it is dropped, and gpt-oss's (and
        // Inkling's, Muse's, Functionary v3.2's) headers are structure,
        // with or without calls.
        return Ok(());
    }
    let gated = Segments::of(&gated, |e| {
        matches!(
            e,
            Event::Diagnostic {
                kind: DiagnosticKind::RejectedCall,
                ..
            }
        )
    });
    let whole: String = std::iter::once(gated.before.as_str())
        .chain(gated.after.iter().map(String::as_str))
        .collect();
    // The model's end-of-turn tokens are dropped wherever they are.
    prop_assert_eq!(whole, as_content(format, input), "rejecting every call");

    let mut parser = build(format, ValueTermination::Lookahead, true, None);
    let plain = feed_cut(&mut parser, input, cuts);
    let plain = Segments::of(&plain, |e| matches!(e, Event::ToolCallStart { .. }));
    prop_assert_eq!(
        &plain.before,
        &gated.before,
        "content before the first call"
    );
    prop_assert_eq!(plain.after.len(), gated.after.len(), "calls");
    let markers: Vec<&str> = format.markers().map(|(_, spelled)| spelled).collect();
    let unmarked = |text: &str| {
        let mut text = text.to_owned();
        for marker in &markers {
            text = text.replace(marker, "");
        }
        text
    };
    for (i, (kept, raw)) in plain.after.iter().zip(&gated.after).enumerate() {
        // The rejected call's own text is its first content event; markers
        // are taken out of both sides (the format consumes them, or they
        // are content: either is right).
        let own = unmarked(&raw[..gated.first[i]]);
        let segment = own.clone() + &unmarked(&raw[gated.first[i]..]);
        let kept = unmarked(kept);
        let Some(leftover) = unmatched(&kept, &segment) else {
            return Err(TestCaseError::fail(format!(
                "after call {i}: content {kept:?} is not in the text from the call on {segment:?}"
            )));
        };
        for (at, run) in leftover {
            // What the call's own text holds is the call's.
            let from = at.max(own.len());
            let Some(mut rest) = segment.get(from..at + run.len()).map(str::to_owned) else {
                continue;
            };
            // A marker's start cut by the end of the output is consumed.
            let at_end = at + run.len() == segment.len();
            let cut = |rest: &str| at_end && markers.iter().any(|m| m.starts_with(rest.trim()));
            let mut cut_off = cut(&rest);
            if from == own.len() {
                // So is the byte that ended it.
                rest.drain(..rest.chars().next().map_or(0, char::len_utf8));
                cut_off |= cut(&rest);
            }
            let rest = rest.replace("json", "");
            let layout = rest
                .chars()
                .all(|c| c.is_whitespace() || "`;,[]".contains(c));
            prop_assert!(
                layout || cut_off,
                "after call {i}: {rest:?} of {segment:?} is neither in content {kept:?} nor \
                 the call's, a marker or layout"
            );
        }
    }
    Ok(())
}

/// Content before the first call, and after each call up to the next.
struct Segments {
    before: String,
    after: Vec<String>,
    /// The length of each segment's first content event.
    first: Vec<usize>,
}

impl Segments {
    /// `starts`: the event that begins a call's segment.
    fn of(events: &[OwnedEvent], starts: impl Fn(&Event<'_>) -> bool) -> Segments {
        let mut segments = Segments {
            before: String::new(),
            after: Vec::new(),
            first: Vec::new(),
        };
        let mut fresh = false;
        for event in events {
            let event = event.as_event();
            if starts(&event) {
                segments.after.push(String::new());
                segments.first.push(0);
                fresh = true;
                continue;
            }
            let Event::Content { text } = event else {
                continue;
            };
            match segments.after.last_mut() {
                Some(after) => {
                    if std::mem::take(&mut fresh) {
                        *segments.first.last_mut().unwrap() = text.len();
                    }
                    after.push_str(text)
                }
                None => segments.before.push_str(text),
            }
        }
        segments
    }
}

/// The runs of `tail` left when `kept` is matched in it as a subsequence,
/// from the end (what a call's end leaves is at the start), last first,
/// with where each starts; `None` if it is not one.
fn unmatched<'a>(kept: &str, tail: &'a str) -> Option<Vec<(usize, &'a str)>> {
    let mut runs = Vec::new();
    let mut end = tail.len();
    let mut tail_chars = tail.char_indices().rev().peekable();
    for c in kept.chars().rev() {
        loop {
            let (at, t) = tail_chars.next()?;
            if t == c {
                if at + t.len_utf8() < end {
                    runs.push((at + t.len_utf8(), &tail[at + t.len_utf8()..end]));
                }
                end = at;
                break;
            }
        }
    }
    if end > 0 {
        runs.push((0, &tail[..end]));
    }
    Some(runs)
}
