//! Latency: content is released as soon as it cannot be the start of a
//! marker, so it is never held back by more than the longest marker's
//! length minus one byte (Qwen3-Coder's longest is `</parameter>`: 11
//! bytes), whatever the chunking. Checked after every chunk of generated
//! chat content (prose, and code full of `<` that is not a marker).

use toolcall_stream::{Event, Format, Parser};

#[path = "../benches/support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

const LONGEST_MARKER: usize = "</parameter>".len();

/// Feeds `input` in `chunk`-byte pieces; after each, the content released
/// so far must be everything fed but what the parser says it holds, and
/// that must be under the longest marker. Returns the most held.
fn check_release(input: &str, chunk: usize) -> usize {
    let mut parser = Parser::new(Format::Qwen3Coder);
    let mut released = String::new();
    let mut fed = 0;
    let mut most = 0;
    for piece in input.as_bytes().chunks(chunk) {
        for event in parser.feed(piece) {
            match event {
                Event::Content { text } => released.push_str(text),
                other => panic!("content only expected, got {other:?}"),
            }
        }
        fed += piece.len();
        let held = parser.held_back();
        assert_eq!(
            released.len() + held,
            fed,
            "chunk {chunk}, after {fed} bytes"
        );
        assert!(
            held < LONGEST_MARKER,
            "chunk {chunk}: {held} bytes held after {fed}: {:?}",
            &input.as_bytes()[fed - held..fed]
        );
        most = most.max(held);
    }
    for event in parser.finish() {
        if let Event::Content { text } = event {
            released.push_str(text);
        }
    }
    assert_eq!(released, input);
    most
}

#[test]
fn prose_and_code_are_held_back_less_than_a_marker() {
    let prose = transcript::content_only(64 << 10).text;
    let code = transcript::content_code(64 << 10).text;
    for chunk in [1, 2, 3, 4, 7, 16, 64] {
        check_release(&prose, chunk);
        let most = check_release(&code, chunk);
        if chunk == 1 {
            // Code holds `<parameter x>`: `<parameter` waits for its `=`.
            assert_eq!(most, "<parameter".len());
        }
    }
}

#[test]
fn a_partial_marker_is_released_when_a_non_ascii_character_starts() {
    let mut parser = Parser::new(Format::Qwen3Coder);
    assert_eq!(parser.feed("a <tool_c").count(), 1);
    assert_eq!(parser.held_back(), "<tool_c".len());
    // The first byte of `é` cannot continue a marker: `<tool_c` is content
    // at once, and only the incomplete character waits.
    let text: Vec<String> = parser
        .feed(b"\xc3")
        .map(|e| match e {
            Event::Content { text } => text.to_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(text, ["<tool_c"]);
    assert_eq!(parser.held_back(), 1);
}

/// Prose that mentions the wrapper's opener, as coding agents often write:
/// content after it is released as soon as it shows the opener was not a
/// call, not when a look-ahead window runs out. Qwen3-Coder holds at most
/// the opener and the whitespace after it; GLM, whose name follows the
/// opener, at most the opener and the next word (a name is one word).
#[test]
fn content_after_a_tool_call_mentioned_in_prose_is_not_held() {
    let prose = "I will use <tool_call> tags when needed. Each <tool_call> block wraps one \
                 call; write <tool_call>, then the function (</tool_call> closes it).\n"
        .repeat(20);
    for format in Format::ALL {
        let mut parser = Parser::new(*format);
        let (mut fed, mut released, mut most) = (0, String::new(), 0);
        for byte in prose.as_bytes() {
            for event in parser.feed(std::slice::from_ref(byte)) {
                match event {
                    Event::Content { text } => released.push_str(text),
                    other => panic!("{format}: content only expected, got {other:?}"),
                }
            }
            fed += 1;
            assert_eq!(released.len() + parser.held_back(), fed, "{format}");
            most = most.max(parser.held_back());
        }
        for event in parser.finish() {
            if let Event::Content { text } = event {
                released.push_str(text);
            }
        }
        assert_eq!(released, prose, "{format}");
        let bound = match format {
            Format::Qwen3Coder => "<tool_call> ".len(),
            _ => "<tool_call> block ".len(),
        };
        assert!(most <= bound, "{format}: held {most} bytes, bound {bound}");
    }
}
