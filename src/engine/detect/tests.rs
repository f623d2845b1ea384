//! `auto`'s unit tests.

use super::*;
use crate::format::Format;

#[test]
fn every_format_is_detected_or_said_not_to_be() {
    for format in Format::ALL {
        assert!(
            DETECTED.contains(format)
                || matches!(
                    format,
                    // Openers that are plain words; no opener at all (opt-in).
                    Format::Phi4MiniJson | Format::GigaChat3 | Format::BareJson
                    // Another format's openers: Hermes's `<tool_call>`,
                    // LFM2's markers, GLM's and Hermes's `<tool_call>`.
                    | Format::Ernie45 | Format::OpenPanguV2 | Format::TeleChat4
                    // GLM's tags, and bare JSON with no opener at all.
                    | Format::PoolsideV1
                    // Output that starts inside the prompt's header.
                    | Format::Inkling
                    // Muse: that too, and its `<|start|>` … `<|message|>`
                    // headers are gpt-oss's.
                    | Format::Muse
                    // Qwen3-Coder's `<function=`; a bare list, or Solar
                    // Open's `<|tool_calls|>`.
                    | Format::FunctionaryV31 | Format::Sarashina
                    // `>>>` is plain text, and the output starts inside
                    // the header the prompt opened.
                    | Format::FunctionaryV32
                ),
            "{format}"
        );
    }
}

#[test]
fn the_scouts_markers_keep_the_drivers_rules() {
    let (list, owners) = opener_list();
    assert!(owners
        .iter()
        .any(|(t, f)| *t == "<tool_call>" && f.len() == 5));
    for (_, a) in &list {
        for (_, b) in &list {
            assert!(a == b || !b.starts_with(a), "{a:?} is a prefix of {b:?}");
            // As a format's markers may: another marker only as its end
            // (MiniMax-M3's `]<]minimax[>[<tool_call>` ends with Hermes's).
            let inside = &a.as_bytes()[1..];
            assert!(
                memchr::memmem::find(inside, b.as_bytes())
                    .is_none_or(|at| at + b.len() == inside.len()),
                "{a:?} holds {b:?}"
            );
        }
    }
}

#[test]
fn a_shared_opener_written_as_a_word_is_refused_by_the_byte_after_it() {
    // Jamba, Hunyuan-A13B and MiniMax-M1 each wait for a JSON body after
    // `<tool_calls>`: `(` starts none, `[`, `{` and their own markers'
    // first byte may.
    let mut detect = Detect::new(Options::default());
    let mut sink = crate::sink::Push(|_: crate::Event<'_>| {});
    let formats = || [Format::Jamba, Format::HunyuanA13b, Format::MiniMax].into_iter();
    assert!(detect.refused_at_once("<tool_calls>", formats, " (plural", &mut sink));
    assert!(detect.refused_at_once("<tool_calls>", formats, "\n\tword", &mut sink));
    for after in ["[{\"name\"", " {\"name\"", "</tool_calls>", "", "  ", " é"] {
        assert!(
            !detect.refused_at_once("<tool_calls>", formats, after, &mut sink),
            "{after:?}"
        );
    }
    // Asked once per opener: the answer is kept.
    assert_eq!(detect.refusals.len(), 1);
    // A format that reads a name after its opener refuses nothing.
    let names = || [Format::Hermes, Format::Glm45].into_iter();
    assert!(!detect.refused_at_once("<tool_call>", names, " (plural", &mut sink));
}
