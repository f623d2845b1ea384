//! A call body that opens the output without a marker
//! (`Json::open_at_start`): Llama 3 writes `{"name": …, "parameters": …}`
//! bare, xLAM a bare list. Only at the start: whitespace before the body
//! is content, as it would be before a marker, and any other first byte
//! makes the whole output content from there on, so that a `{` later in
//! prose never starts a call.
//!
//! The body is then read as one after a wrapper's opener whose opener is
//! empty: held until its name shows it is a call, content byte for byte
//! if it is not.
//!
//! With `Json::open_at_line_start`, every line starts as the output does:
//! content's text (`content_line`) goes back to `Start` after each `\n`,
//! and after a call's JSON, a line end among the layout does the same
//! (`after`). Formats without the flag never look for line ends.

use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::state::{leading_ws, State};
use crate::engine::Engine;
use crate::format::Description;
use crate::sink::Sink;

impl State {
    /// Where a stream starts: at `Start` when a body may open it.
    pub(crate) fn initial(desc: &Description) -> State {
        if desc
            .json
            .is_some_and(|json| json.open_at_start || json.open_at_line_start)
        {
            State::Start
        } else {
            State::Content
        }
    }
}

impl Engine {
    /// Text at the start of the output. Whitespace is content and keeps the
    /// state; the first other byte decides, and is left for the state it
    /// leads to.
    pub(in crate::engine) fn start_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        if self.in_reasoning() && self.desc().has(crate::format::Role::ReasoningClose) {
            // Reasoning before the content: the content's start is still
            // to come.
            self.content(sink, s);
            return s.len();
        }
        let ws = leading_ws(s);
        if ws > 0 {
            self.content(sink, &s[..ws]);
            return ws;
        }
        let Some(&first) = s.as_bytes().first() else {
            return 0;
        };
        let opens = self.opens_body(first, false) || (first == b'`' && self.json().fenced);
        // Inside a code block of the text (an option), a body is text.
        if !opens || self.in_code_block() {
            self.state = State::Content;
            return 0;
        }
        // An opener of no bytes: what follows is held as after one, and
        // the call begins here.
        self.call.message.from = self.call.message.at;
        self.hold_start("");
        self.hold.opening = Opening::Wrapper;
        self.unclosed_wrapper = true;
        self.name.clear();
        self.begin_json(true);
        if self.json().unmarked_needs_tool {
            // JSON that is not a call of the request's tools is content here.
            self.json.body.needs_tool = true;
            self.json.content_json = true;
        }
        if S::WANTS_RAW {
            // Strict mode: the opening starts at this byte.
            sink.raw("", true);
        }
        0
    }

    /// Content in a format whose bodies may open any line: up to and
    /// including the next `\n`, after which a line starts.
    #[inline(never)]
    pub(in crate::engine) fn content_line<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        match memchr::memchr(b'\n', s.as_bytes()) {
            Some(at) => {
                self.content(sink, &s[..=at]);
                self.state = State::Start;
                at + 1
            }
            None => {
                self.content(sink, s);
                s.len()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::Compiled;
    use crate::format::{BodyKeys, Description, Json, Role};
    use crate::{Ids, Message, MessageBuilder, Parser};
    use std::sync::OnceLock;

    static BARE: Description = Description::json(
        "bare_test",
        &[(Role::CallOpen, "<|call|>")],
        Json {
            open_at_start: true,
            body_separator: Some(b';'),
            fenced: true,
            ..Json::body(BodyKeys {
                name: &["name"],
                arguments: &["arguments"],
                list: true,
                name_is_key: false,
            })
        },
    );

    fn compiled() -> &'static Compiled {
        static C: OnceLock<Compiled> = OnceLock::new();
        C.get_or_init(|| Compiled::new(&BARE).expect("valid test description"))
    }

    /// With a marker, whose calls open anywhere, and bodies that open
    /// any line.
    static LINES: Description = Description::json(
        "lines_test",
        &[(Role::CallOpen, "<|call|>")],
        Json {
            open_at_line_start: true,
            fenced: true,
            ..Json::body(BodyKeys {
                name: &["name"],
                arguments: &["arguments"],
                list: true,
                name_is_key: false,
            })
        },
    );

    fn lines() -> &'static Compiled {
        static C: OnceLock<Compiled> = OnceLock::new();
        C.get_or_init(|| Compiled::new(&LINES).expect("valid test description"))
    }

    /// As `parse`, with `LINES`.
    fn parse_lines(text: &str) -> Message {
        let whole = parse_split_with(lines(), text, 0);
        for (at, _) in text.char_indices() {
            let cut = parse_split_with(lines(), text, at);
            assert_eq!(
                serde_json::to_value(&cut).unwrap(),
                serde_json::to_value(&whole).unwrap(),
                "cut at {at} of {text:?}"
            );
        }
        whole
    }

    fn parse_split(text: &str, at: usize) -> Message {
        parse_split_with(compiled(), text, at)
    }

    fn parse_split_with(format: &'static Compiled, text: &str, at: usize) -> Message {
        let mut parser = Parser::builder()
            .ids(Ids::sequential("call_"))
            .build_with(format);
        let mut message = MessageBuilder::new();
        let (a, b) = text.split_at(at);
        parser.feed_with(a.as_bytes(), |e| message.push(e));
        parser.feed_with(b.as_bytes(), |e| message.push(e));
        parser.finish_with(|e| message.push(e));
        message.finish()
    }

    /// Parses `text` whole and cut at every character border; all must
    /// agree.
    fn parse(text: &str) -> Message {
        let whole = parse_split(text, 0);
        for (at, _) in text.char_indices() {
            let cut = parse_split(text, at);
            assert_eq!(
                serde_json::to_value(&cut).unwrap(),
                serde_json::to_value(&whole).unwrap(),
                "cut at {at} of {text:?}"
            );
        }
        whole
    }

    fn calls(m: &Message) -> Vec<(String, String)> {
        m.tool_calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect()
    }

    #[test]
    fn a_bare_body_at_the_start_is_a_call() {
        let m = parse("  {\"name\": \"f\", \"arguments\": {\"a\": 1}}");
        assert_eq!(calls(&m), [("f".into(), "{\"a\": 1}".into())]);
        // Whitespace-only content.
        assert_eq!(m.content, None);
    }

    #[test]
    fn a_bare_list_and_a_fenced_body_at_the_start_are_calls() {
        let m =
            parse("[{\"name\": \"f\", \"arguments\": {}}, {\"name\": \"g\", \"arguments\": {}}]");
        assert_eq!(m.tool_calls.len(), 2);
        let m = parse("```json\n{\"name\": \"f\", \"arguments\": {}}\n```");
        assert_eq!(calls(&m), [("f".into(), "{}".into())]);
        assert_eq!(m.content, None);
    }

    #[test]
    fn a_brace_after_text_is_content() {
        let text = "See {\"name\": \"f\", \"arguments\": {}} here.";
        let m = parse(text);
        assert!(m.tool_calls.is_empty());
        assert_eq!(m.content.as_deref(), Some(text));
    }

    #[test]
    fn a_bare_object_that_is_not_a_call_is_content_byte_for_byte() {
        for text in [
            "{name} is a placeholder",
            "{\"city\": \"Paris\"} and more",
            "[1, 2]",
        ] {
            let m = parse(text);
            assert!(m.tool_calls.is_empty(), "{text}");
            assert_eq!(m.content.as_deref(), Some(text));
        }
    }

    #[test]
    fn bodies_separated_by_the_separator_are_calls() {
        let m = parse(
            "{\"name\": \"f\", \"arguments\": {}}; {\"name\": \"g\", \"arguments\": {\"b\": \"x\"}}",
        );
        assert_eq!(
            calls(&m),
            [
                ("f".into(), "{}".into()),
                ("g".into(), "{\"b\": \"x\"}".into())
            ]
        );
        assert_eq!(m.content, None);
    }

    #[test]
    fn a_separator_then_text_is_content() {
        let m = parse("{\"name\": \"f\", \"arguments\": {}}; then {\"a\": 1}");
        assert_eq!(m.tool_calls.len(), 1);
        assert_eq!(m.content.as_deref(), Some("; then {\"a\": 1}"));
        let m = parse("{\"name\": \"f\", \"arguments\": {}}; {\"a\": 1}");
        assert_eq!(m.tool_calls.len(), 1);
        assert_eq!(m.content.as_deref(), Some("; {\"a\": 1}"));
    }

    #[test]
    fn the_marker_still_opens_a_body_anywhere() {
        let m = parse("Sure. <|call|>{\"name\": \"f\", \"arguments\": {}}");
        assert_eq!(m.tool_calls.len(), 1);
        assert_eq!(m.content.as_deref(), Some("Sure. "));
    }

    #[test]
    fn with_line_starts_a_body_opens_any_line_and_only_there() {
        let call = "{\"name\": \"f\", \"arguments\": {\"a\": 1}}";
        let m = parse_lines(&format!("Text.\n  {call}\nMore {call}"));
        assert_eq!(calls(&m), [("f".into(), "{\"a\": 1}".into())]);
        assert_eq!(
            m.content.as_deref(),
            Some(format!("Text.\n  \nMore {call}").as_str())
        );
        // A list and a fence after prose; the marker still opens mid-line.
        let m = parse_lines(&format!(
            "a\n[{call}]\nb\n```json\n{call}\n```\nc <|call|>{call}"
        ));
        assert_eq!(m.tool_calls.len(), 3);
        assert_eq!(m.content.as_deref(), Some("a\n\nb\n\nc "));
    }

    #[test]
    fn with_line_starts_json_that_is_no_call_is_quiet_content() {
        let call = "{\"name\": \"f\", \"arguments\": {}}";
        let text = format!("{{\"a\": 1}}\n[1, 2]\n{{nope}}\n[]\n{call}\n{call}");
        let m = parse_lines(&text);
        assert_eq!(m.tool_calls.len(), 2);
        assert_eq!(
            m.content.as_deref(),
            Some("{\"a\": 1}\n[1, 2]\n{nope}\n[]\n")
        );
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        // The layout between two calls is dropped; before text, content.
        let m = parse_lines(&format!("{call}\n  \n{call} then\nend"));
        assert_eq!(m.tool_calls.len(), 2);
        assert_eq!(m.content.as_deref(), Some(" then\nend"));
    }

    #[test]
    fn without_line_starts_a_later_line_is_content() {
        let text = "x\n{\"name\": \"f\", \"arguments\": {}}";
        let m = parse(text);
        assert!(m.tool_calls.is_empty());
        assert_eq!(m.content.as_deref(), Some(text));
    }

    /// Laguna's bare JSON (`Json::unmarked_needs_tool`): after reasoning that
    /// opened the output, at every split; a tool the request does not name,
    /// or no tools at all, leave it content.
    #[test]
    fn an_unmarked_body_after_reasoning_needs_a_requested_tool() {
        use crate::{Format, Reasoning, Tools};
        let tools = Tools::from_json(
            r#"[{"type": "function", "function": {"name": "f", "parameters": {}}}]"#,
        )
        .unwrap();
        let call = "{\"name\": \"f\", \"arguments\": {\"a\": 1}}";
        let parser = |reasoning, tools: Option<&Tools>| {
            let mut b = Parser::builder()
                .format(Format::PoolsideV1)
                .reasoning(reasoning)
                .ids(Ids::sequential("call_"));
            if let Some(tools) = tools {
                b = b.tools(tools.clone());
            }
            b.build()
        };
        for (reasoning, text) in [
            (
                Reasoning::On,
                format!("<think>\nwhich tool?\n</think>\n\n{call}"),
            ),
            (Reasoning::Started, format!("which tool?</think>\n{call}")),
        ] {
            let whole = parser(reasoning, Some(&tools)).parse(&text);
            assert_eq!(whole.tool_calls.len(), 1, "{text:?}: {whole:?}");
            assert_eq!(whole.tool_calls[0].arguments, "{\"a\": 1}");
            assert!(whole
                .reasoning
                .as_deref()
                .is_some_and(|r| r.contains("which tool?")));
            assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
            for (at, _) in text.char_indices() {
                let mut p = parser(reasoning, Some(&tools));
                let mut message = MessageBuilder::new();
                for piece in [&text[..at], &text[at..]] {
                    p.feed_with(piece.as_bytes(), |e| message.push(e));
                }
                p.finish_with(|e| message.push(e));
                assert_eq!(
                    serde_json::to_value(message.finish()).unwrap(),
                    serde_json::to_value(&whole).unwrap(),
                    "cut at {at} of {text:?}"
                );
            }
            // No tools: content, quietly.
            let none = parser(reasoning, None).parse(&text);
            assert!(none.tool_calls.is_empty());
            assert!(none.diagnostics.is_empty(), "{:?}", none.diagnostics);
        }
        // Text before it, or another name: content, quietly.
        for text in [format!("Here:\n{call}"), call.replace("\"f\"", "\"g\"")] {
            let m = parser(Reasoning::Off, Some(&tools)).parse(&text);
            assert!(m.tool_calls.is_empty(), "{text:?}");
            assert_eq!(m.content.as_deref(), Some(text.as_str()));
            assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
        }
    }
}
