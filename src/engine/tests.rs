//! The engine on its own, with a recording sink.

use super::*;
use crate::event::DiagnosticKind as Kind;
use crate::format::Format;
use crate::sink::{Events, Recorder};
use crate::{Event, Limits};

struct Fed {
    engine: Engine,
    recorder: Recorder,
}

impl Fed {
    fn new(opts: Options) -> Fed {
        Fed {
            engine: Engine::new(opts),
            recorder: Recorder::default(),
        }
    }

    fn qwen() -> Fed {
        Fed::new(Options::default())
    }

    fn run(&mut self, s: &str) {
        self.recorder.clear();
        self.engine.begin_output();
        self.engine.run(s, &mut self.recorder);
    }

    fn finish(&mut self) {
        self.recorder.clear();
        self.engine.begin_output();
        self.engine.finish(&mut self.recorder);
    }

    fn events(&self) -> Vec<Event<'_>> {
        Events::new(&self.recorder, self.engine.arguments_buffer()).collect()
    }

    fn content(&self) -> String {
        self.events()
            .iter()
            .filter_map(|e| match e {
                Event::Content { text } => Some(*text),
                _ => None,
            })
            .collect()
    }

    /// Feeds `input` one character at a time and returns the most held.
    fn max_held(&mut self, input: &str) -> usize {
        let mut most = 0;
        for (i, c) in input.char_indices() {
            self.run(&input[i..i + c.len_utf8()]);
            most = most.max(self.engine.held_len());
        }
        most
    }
}

#[test]
fn content_is_released_as_soon_as_it_cannot_start_a_marker() {
    let mut m = Fed::qwen();
    m.run("abc<t");
    assert_eq!(m.content(), "abc");
    m.run("x");
    assert_eq!(m.content(), "<tx");
    m.run("a<");
    assert_eq!(m.content(), "a");
}

#[test]
fn held_text_is_bounded_by_the_lookahead_window() {
    let limits = Limits::default();
    let bound = limits.lookahead + 64 + limits.max_name_len;
    let long = "word ".repeat(2000);
    for format in Format::ALL {
        for input in [
            format!("<tool_call>{long}"),
            format!("<function={}", "n".repeat(10_000)),
            format!("<tool_call>{}", "n".repeat(10_000)),
            format!("<tool_call><function=f></function>{}", " ".repeat(10_000)),
            format!("<function=f>{}", "\n".repeat(10_000)),
            format!("<tool_call>f\n{}", "\n".repeat(10_000)),
            format!("<tool_call>f<arg_key>k</arg_key>{}", " ".repeat(10_000)),
            format!(
                "<tool_call><function=f><parameter=p>x\n</parameter>{}",
                " ".repeat(10_000)
            ),
            format!(
                "<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value>{}",
                " ".repeat(10_000)
            ),
            format!("<tool_call><function=f><parameter=p={}", " ".repeat(10_000)),
            "<".repeat(10_000),
        ] {
            let mut m = Fed::new(Options {
                format: *format,
                ..Options::default()
            });
            let most = m.max_held(&input);
            assert!(
                most <= bound,
                "{format}: held {most} bytes for {:?}…",
                &input[..24]
            );
        }
    }
}

#[test]
fn a_name_being_read_is_counted_once() {
    let mut m = Fed::qwen();
    m.run("<tool_call><function=abc");
    assert_eq!(m.engine.held_len(), "<tool_call><function=abc".len());
}

#[test]
fn a_value_streams_without_being_held() {
    let mut m = Fed::qwen();
    m.run("<tool_call><function=f><parameter=p>");
    let most = m.max_held(&"line of a big file\n".repeat(5_000));
    assert!(most <= 1, "held {most} bytes of a streaming value");
    let mut m = Fed::new(Options {
        format: Format::Glm45,
        ..Options::default()
    });
    m.run("<tool_call>f\n<arg_key>p</arg_key>\n<arg_value>");
    let most = m.max_held(&"line of a big file\n".repeat(5_000));
    assert_eq!(most, 0, "held {most} bytes of a streaming GLM value");
}

#[test]
fn a_name_longer_than_the_limit_is_not_a_name() {
    let opts = Options {
        limits: Limits {
            max_name_len: 8,
            ..Limits::default()
        },
        ..Options::default()
    };
    let mut m = Fed::new(opts);
    m.run("<tool_call><function=much_too_long></function></tool_call>");
    let mut content = m.content();
    m.finish();
    content += &m.content();
    assert!(content.starts_with("<tool_call><function=much_too_long>"));
}

#[test]
fn reset_forgets_the_previous_stream() {
    let mut m = Fed::qwen();
    m.run("<tool_call><function=f><parameter=p>abc");
    m.engine.reset();
    m.run("plain");
    assert_eq!(m.content(), "plain");
    m.finish();
    assert!(m.events().is_empty());
}

#[test]
fn a_closer_at_the_very_end_is_accepted() {
    let mut m = Fed::qwen();
    m.run("<tool_call><function=f><parameter=p>\nv\n</parameter>");
    m.finish();
    let end = m.events().into_iter().find_map(|e| match e {
        Event::ToolCallEnd {
            arguments,
            complete,
            ..
        } => Some((arguments.map(str::to_owned), complete)),
        _ => None,
    });
    assert_eq!(end, Some((Some(r#"{"p": "v"}"#.to_owned()), false)));
}

/// The model's end of turn (`Role::EndOfTurn`): the output ends there.
#[test]
fn the_end_of_turn_is_never_content() {
    fn parse(format: Format, input: &str) -> crate::Message {
        crate::Parser::new(format).parse(input)
    }
    let kinds = |m: &crate::Message| m.diagnostics.iter().map(|d| d.kind).collect::<Vec<_>>();

    let m = parse(Format::Hermes, "Done.<|im_end|>");
    assert_eq!(m.content.as_deref(), Some("Done."));
    assert!(m.diagnostics.is_empty());

    // A special token in prose ends the turn too; text after it reads on.
    let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let m = parse(Format::Hermes, &format!("a<|im_end|>b{call}<|endoftext|>"));
    assert_eq!(m.content.as_deref(), Some("ab"));
    assert_eq!(m.tool_calls.len(), 1);

    // Inside a value: the call is cut off there, as at the end.
    let m = parse(
        Format::Qwen3Coder,
        "<tool_call>\n<function=f>\n<parameter=a>\nx<|im_end|>y",
    );
    assert_eq!(m.tool_calls[0].arguments, r#"{"a": "x"}"#);
    assert!(!m.tool_calls[0].complete);
    assert_eq!(kinds(&m), [Kind::Truncated]);
    assert_eq!(m.content.as_deref(), Some("y"));

    // A tentative opening goes back to content.
    let m = parse(Format::Qwen3Coder, "<tool_call><|im_end|>");
    assert_eq!(m.content.as_deref(), Some("<tool_call>"));

    // Inside JSON, markers are JSON text.
    let m = parse(
        Format::Hermes,
        r#"<tool_call>{"name": "f", "arguments": {"a": "<|im_end|>"}}</tool_call>"#,
    );
    assert_eq!(m.tool_calls[0].arguments, r#"{"a": "<|im_end|>"}"#);
    assert!(m.content.is_none());
}

#[test]
fn an_end_of_turn_split_anywhere_is_dropped_the_same() {
    let input = "It is sunny.<|eot_id|>";
    let whole = crate::Parser::new(Format::Llama3Json).parse(input);
    for at in 1..input.len() {
        let mut parser = crate::Parser::new(Format::Llama3Json);
        let mut content = String::new();
        for piece in [&input[..at], &input[at..]] {
            for event in parser.feed(piece.as_bytes()) {
                if let Event::Content { text } = event {
                    content.push_str(text);
                }
            }
        }
        for event in parser.finish() {
            if let Event::Content { text } = event {
                content.push_str(text);
            }
        }
        assert_eq!(
            Some(content.as_str()),
            whole.content.as_deref(),
            "split at {at}"
        );
    }
}
