//! A format that exists only for tests: markers that do not start with
//! `<`, markers that are not ASCII, names that end at a line end, in the
//! shapes that Mistral (`[TOOL_CALLS]`) and DeepSeek
//! (`<｜tool▁call▁begin｜>`) use. It proves that the driver and the grammar
//! depend on the description alone.

use super::{Description, NameEnd, Role};

pub(crate) static BRACKETS: Description = Description {
    name: "test_brackets",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "[TOOL_CALLS]"),
        (Role::CallClose, "[/TOOL_CALLS]"),
        (Role::FuncOpen, "<｜tool▁call▁begin｜>"),
        (Role::FuncClose, "<｜tool▁call▁end｜>"),
        (Role::ParamOpen, "[ARG "),
        (Role::ParamClose, "[/ARG]"),
    ],
    func_name_end: NameEnd::Byte(b'\n'),
    param_name_end: NameEnd::Byte(b']'),
    strip_one_newline: false,
    call_confirmed_by: &[],
    bare_confirmed_by: &[],
    follows: &[
        (
            Role::ParamClose,
            &[Role::ParamOpen, Role::FuncClose, Role::CallClose],
        ),
        (Role::FuncClose, &[Role::CallClose, Role::FuncOpen]),
        (Role::CallClose, &[Role::CallOpen]),
    ],
    ..Description::BLANK
};

/// Items without a type word (`Description::item_type` unset): the
/// function opener follows the item's opener at once.
pub(crate) static ITEMS: Description = Description {
    name: "test_items",
    markers: &[
        (Role::CallOpen, "[CALLS]"),
        (Role::CallClose, "[/CALLS]"),
        (Role::ItemOpen, "[ITEM]"),
        (Role::ItemClose, "[/ITEM]"),
        (Role::FuncOpen, "<fn="),
        (Role::FuncClose, "</fn>"),
        (Role::ParamOpen, "<p="),
        (Role::ParamClose, "</p>"),
    ],
    func_name_end: NameEnd::Byte(b'>'),
    param_name_end: NameEnd::Byte(b'>'),
    follows: &[
        (Role::ParamClose, &[Role::ParamOpen, Role::FuncClose]),
        (Role::FuncClose, &[Role::ItemClose]),
    ],
    ..BRACKETS
};

#[cfg(test)]
mod item_tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::engine::Compiled;
    use crate::{Ids, Message, Parser};

    fn parse(input: &str) -> Message {
        static COMPILED: OnceLock<Compiled> = OnceLock::new();
        let compiled = COMPILED.get_or_init(|| Compiled::new(&ITEMS).expect("valid test format"));
        Parser::builder()
            .ids(Ids::sequential("call_"))
            .build_with(compiled)
            .parse(input)
    }

    fn kinds(message: &Message) -> Vec<&'static str> {
        message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str())
            .collect()
    }

    #[test]
    fn an_item_without_a_type_word_holds_its_function() {
        let m = parse("[CALLS][ITEM]<fn=f><p=a>1</p></fn>[/ITEM] [ITEM]<fn=g></fn>[/ITEM][/CALLS]");
        let calls: Vec<_> = m
            .tool_calls
            .iter()
            .map(|c| (&*c.name, &*c.arguments))
            .collect();
        assert_eq!(calls, [("f", r#"{"a": "1"}"#), ("g", "{}")]);
        assert_eq!(m.content, None);
        assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    }

    #[test]
    fn missing_item_markers_are_reported() {
        let m = parse("[CALLS][ITEM]<fn=f></fn>[ITEM]<fn=g></fn>[/ITEM]<fn=h></fn>[/CALLS]");
        assert_eq!(m.tool_calls.len(), 3);
        assert_eq!(kinds(&m), ["unclosed_function", "missing_tool_call_open"]);
        assert_eq!(m.diagnostics[0].index, Some(0));
        assert_eq!(m.diagnostics[1].index, Some(2));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;
    use crate::engine::Compiled;
    use crate::{coalesce, Event, Ids, OwnedEvent, Parser};

    fn parser() -> Parser {
        static COMPILED: OnceLock<Compiled> = OnceLock::new();
        let compiled =
            COMPILED.get_or_init(|| Compiled::new(&BRACKETS).expect("valid test format"));
        Parser::builder()
            .ids(Ids::sequential("call_"))
            .build_with(compiled)
    }

    const INPUT: &str = "Before [TOOL_CALLS]<｜tool▁call▁begin｜>get_weather\n\
        [ARG city]Paris [/ARG] ok[/ARG][ARG days]3[/ARG]<｜tool▁call▁end｜>[/TOOL_CALLS] \
        after [TOOL_CALLS and <｜tool▁call▁end and [ARG x";

    fn events(cuts: &[usize]) -> Vec<OwnedEvent> {
        let mut parser = parser();
        let input = INPUT.as_bytes();
        let mut events = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain([input.len()].iter()) {
            events.extend(parser.feed(&input[start..cut]).map(Event::into_owned));
            start = cut;
        }
        events.extend(parser.finish().map(Event::into_owned));
        coalesce(events)
    }

    #[test]
    fn markers_of_any_bytes_are_found_whole() {
        let message = parser().parse(INPUT);
        assert_eq!(message.tool_calls.len(), 1, "{message:?}");
        let call = &message.tool_calls[0];
        assert_eq!(call.name, "get_weather");
        assert_eq!(
            call.arguments,
            r#"{"city": "Paris [/ARG] ok", "days": "3"}"#
        );
        assert_eq!(
            message.content.as_deref(),
            Some("Before  after [TOOL_CALLS and <｜tool▁call▁end and [ARG x")
        );
        let kinds: Vec<_> = message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str())
            .collect();
        assert_eq!(kinds, ["closer_in_value"]);
    }

    #[test]
    fn every_cut_even_inside_a_character_gives_the_same_events() {
        let whole = events(&[]);
        for cut in 1..INPUT.len() {
            assert_eq!(events(&[cut]), whole, "cut at byte {cut}");
        }
        let bytewise: Vec<usize> = (1..INPUT.len()).collect();
        assert_eq!(events(&bytewise), whole, "byte by byte");
    }

    #[test]
    fn a_partial_non_ascii_marker_waits_for_its_character() {
        let mut parser = parser();
        assert_eq!(parser.feed("[TOOL_CALLS]").count(), 0);
        let opener = "<｜tool▁call▁begin｜>".as_bytes();
        // `<` and the first byte of `｜`: still a marker's prefix, held.
        assert_eq!(parser.feed(&opener[..2]).count(), 0);
        assert_eq!(parser.held_back(), "[TOOL_CALLS]".len() + 2);
        // The rest completes the function opener; the name follows.
        assert_eq!(parser.feed(&opener[2..]).count(), 0);
        assert_eq!(parser.held_back(), "[TOOL_CALLS]".len() + opener.len());
        let started: Vec<_> = parser.feed("f\n").map(Event::into_owned).collect();
        assert!(
            matches!(&started[..], [OwnedEvent::ToolCallStart { name, .. }] if name == "f"),
            "{started:?}"
        );
    }
}
