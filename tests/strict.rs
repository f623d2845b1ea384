//! Strict mode and unknown tools as content: calls that fail come back as
//! their text, byte for byte; calls that pass are the lenient parser's
//! calls; the events do not depend on how the input is split.

mod common;

use std::sync::Arc;

use common::{check_contract, chunked, feed_cut, fixtures, message_of, one_shot, Fixture, Rng};
use toolcall_stream::{coalesce, DiagnosticKind, Format, Limits, Message, Parser, Role, Tools};

fn strict(fixture: &Fixture) -> Parser {
    builder(fixture).strict(true).build()
}

fn builder(fixture: &Fixture) -> toolcall_stream::ParserBuilder {
    fixture.builder()
}

/// The calls as the stream gives them, unreadable ones too (`parse` returns
/// those as content whatever the mode).
fn lenient(fixture: &Fixture) -> Message {
    let mut parser = builder(fixture).strict(false).build();
    message_of(&one_shot(&mut parser, &fixture.input))
}

/// Every call of every fixture names a tool that is not declared, so all
/// are rejected: the content is the input.
fn rejecting_all(fixture: &Fixture) -> Parser {
    builder(fixture)
        .tools(Arc::new(Tools::from_json("[]").unwrap()))
        .unknown_tools_as_content(true)
        .build()
}

/// Whether the lenient parser's call `index` is clean: complete, and no
/// diagnostic about it other than `closer_in_value` (and a wrapper left
/// unclosed, which is known only after the call ends).
fn clean(message: &Message, index: usize) -> bool {
    message.tool_calls[index].complete
        && !message.diagnostics.iter().any(|d| {
            d.index == Some(message.tool_calls[index].index)
                && d.kind != DiagnosticKind::CloserInValue
                && d.kind != DiagnosticKind::UnclosedToolCall
        })
}

#[test]
fn strict_keeps_exactly_the_clean_calls() {
    for fixture in fixtures() {
        let lenient = lenient(&fixture);
        let strict = strict(&fixture).parse(&fixture.input);
        let kept: Vec<_> = (0..lenient.tool_calls.len())
            .filter(|&i| clean(&lenient, i))
            .map(|i| &lenient.tool_calls[i])
            .collect();
        assert_eq!(strict.tool_calls.len(), kept.len(), "{}", fixture.name);
        for (i, (got, want)) in strict.tool_calls.iter().zip(&kept).enumerate() {
            assert_eq!(got.index, i, "{}: calls are renumbered", fixture.name);
            assert_eq!(
                (&got.name, &got.arguments, got.complete),
                (&want.name, &want.arguments, want.complete),
                "{}",
                fixture.name
            );
        }
        let rejected = lenient.tool_calls.len() - kept.len();
        let reported = strict
            .diagnostics
            .iter()
            .filter(|d| d.kind == DiagnosticKind::RejectedCall)
            .count();
        assert_eq!(reported, rejected, "{}", fixture.name);
        if rejected == 0 {
            assert_eq!(strict.content, lenient.content, "{}", fixture.name);
        }
    }
}

#[test]
fn rejected_calls_come_back_as_their_text() {
    let mut whole = 0;
    for fixture in fixtures() {
        let lenient = lenient(&fixture);
        let message = rejecting_all(&fixture).parse(&fixture.input);
        assert!(message.tool_calls.is_empty(), "{}", fixture.name);
        let input = String::from_utf8_lossy(&fixture.input);
        let content = message.content.clone().unwrap_or_default();
        // Only a wrapper with nothing in it is dropped, as it is without
        // the gate.
        if lenient
            .diagnostics
            .iter()
            .any(|d| d.kind == DiagnosticKind::EmptyToolCall)
        {
            continue;
        }
        if fixture.format == Format::OpenAi {
            // gpt-oss: the headers and ends of messages that are not calls
            // are structure, and `analysis` is reasoning; each rejected
            // call comes back whole, header and all.
            assert!(content.len() <= input.len(), "{}", fixture.name);
            assert_eq!(
                content.matches("to=functions.").count(),
                lenient.tool_calls.len(),
                "{}: {content:?}",
                fixture.name
            );
        } else if fixture.format == Format::Muse {
            // Muse: headers and message ends are structure, `to=self`
            // reasoning; each rejected call comes back whole, its ATEM
            // block and all.
            assert!(content.len() <= input.len(), "{}", fixture.name);
            assert_eq!(
                content.matches("<atem:invoke name=").count(),
                lenient.tool_calls.len()
                    + lenient
                        .content
                        .as_deref()
                        .map_or(0, |c| c.matches("<atem:invoke name=").count()),
                "{}: {content:?}",
                fixture.name
            );
        } else if fixture.format == Format::Inkling {
            // Inkling: block markers and message ends are structure, a
            // thinking block reasoning; each rejected call comes back
            // whole, from its block's opener on.
            assert!(content.len() <= input.len(), "{}", fixture.name);
            assert_eq!(
                content.matches("<|content_invoke_tool_json|>").count(),
                lenient.tool_calls.len(),
                "{}: {content:?}",
                fixture.name
            );
        } else if fixture.format == Format::FunctionaryV32 {
            // Functionary v3.2: headers are structure, `all`'s body
            // content; each rejected call comes back as its recipient and
            // body.
            assert!(content.len() <= input.len(), "{}", fixture.name);
            for call in &lenient.tool_calls {
                assert!(
                    content.contains(&call.name),
                    "{}: {content:?}",
                    fixture.name
                );
            }
        } else if fixture.hold_text_after_wrapper {
            // Held stray text is content before the call's text, so the
            // order differs; nothing is lost or repeated.
            assert_eq!(content.len(), input.len(), "{}", fixture.name);
        } else {
            // Markup around the content (`Role::Layout`, Kimi K3's response
            // channel) and the model's end of turn are structure, never
            // content.
            let mut input = input.into_owned();
            // (Inside a JSON string an end-of-turn token is string text.)
            let in_json = fixture.name == "end_of_turn_inside_arguments";
            let dropped = |role: &Role| match role {
                Role::Layout => true,
                Role::EndOfTurn => !in_json,
                _ => false,
            };
            for (_, marker) in fixture.format.markers().filter(|(r, _)| dropped(r)) {
                input = input.replace(marker, "");
            }
            assert_eq!(content, input, "{}", fixture.name);
        }
        whole += 1;
    }
    assert!(whole > 80, "only {whole} fixtures compared");
}

#[test]
fn strict_events_do_not_depend_on_the_split() {
    let mut rng = Rng(0x5757_0001);
    for fixture in fixtures() {
        for make in [strict, rejecting_all] {
            let mut parser = make(&fixture);
            let expected = coalesce(one_shot(&mut parser, &fixture.input));
            check_contract(&expected, &fixture.name);
            for size in [1, 2, 3, 5, 8, 13] {
                let events = chunked(&mut parser, &fixture.input, size);
                let context = format!("{} at chunk size {size}", fixture.name);
                check_contract(&events, &context);
                assert_eq!(coalesce(events), expected, "{context}");
            }
            for _ in 0..8 {
                let cuts = rng.cuts(fixture.input.len());
                let events = feed_cut(&mut parser, &fixture.input, &cuts);
                assert_eq!(coalesce(events), expected, "{} cuts {cuts:?}", fixture.name);
            }
            // The iterator and push forms agree.
            let streamed = message_of(&chunked(&mut parser, &fixture.input, 4));
            assert_eq!(parser.parse(&fixture.input), streamed, "{}", fixture.name);
        }
    }
}

#[test]
fn a_call_longer_than_the_bound_streams_out_as_content() {
    let value = "x".repeat(10_000);
    let text = format!(
        "a<tool_call>\n<function=f>\n<parameter=v>\n{value}\n</parameter>\n</function>\n</tool_call>b"
    );
    let mut limits = Limits::default();
    limits.max_held_call = 1000;
    let mut parser = Parser::builder().strict(true).limits(limits).build();
    let mut held_most = 0;
    let mut events = Vec::new();
    for chunk in text.as_bytes().chunks(7) {
        events.extend(parser.feed(chunk).map(|e| e.into_owned()));
        held_most = held_most.max(parser.held_back());
    }
    events.extend(parser.finish().map(|e| e.into_owned()));
    assert!(held_most <= 1000 + 256, "held {held_most} bytes");
    let message = message_of(&events);
    assert!(message.tool_calls.is_empty());
    assert_eq!(message.content.as_deref(), Some(text.as_str()));
    let kinds: Vec<_> = message.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        [DiagnosticKind::LimitExceeded, DiagnosticKind::RejectedCall]
    );
}

#[test]
fn a_clean_call_after_a_rejected_one_is_call_zero() {
    let text = "<tool_call>\n<function=bad>\n<parameter=a>\n1\n</function>\n</tool_call>\n\
                <tool_call>\n<function=good>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>";
    let message = Parser::builder().strict(true).build().parse(text);
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].index, 0);
    assert_eq!(message.tool_calls[0].name, "good");
    assert_eq!(
        message.content.as_deref(),
        Some("<tool_call>\n<function=bad>\n<parameter=a>\n1\n</function>\n</tool_call>\n")
    );
    assert!(message.diagnostics.iter().all(|d| d.index.is_none()));
}

/// Without strict mode, a call longer than `max_held_call` that failed no
/// check is passed on as it streams (held no further), renumbered like
/// any other; a short call cut off is content.
#[test]
fn incomplete_calls_as_content_releases_a_long_call_at_the_bound() {
    let value = "y".repeat(10_000);
    let long = format!(
        "<tool_call>\n<function=write>\n<parameter=v>\n{value}\n</parameter>\n</function>\n</tool_call>"
    );
    let cut = "<tool_call>\n<function=rm>\n<parameter=path>\n/tmp";
    let mut limits = Limits::default();
    limits.max_held_call = 1000;
    let builder = || {
        Parser::builder()
            .incomplete_calls_as_content(true)
            .limits(limits)
            .ids(toolcall_stream::Ids::sequential("call_"))
    };
    for (text, calls, complete) in [
        (cut.to_owned(), 0, None),
        (long.clone(), 1, Some(true)),
        (format!("{long}\n{cut}"), 1, Some(true)),
        (long[..5_000].to_owned(), 1, Some(false)),
    ] {
        let mut parser = builder().build();
        let mut held_most = 0;
        let mut events = Vec::new();
        for chunk in text.as_bytes().chunks(5) {
            events.extend(parser.feed(chunk).map(|e| e.into_owned()));
            held_most = held_most.max(parser.held_back());
        }
        events.extend(parser.finish().map(|e| e.into_owned()));
        check_contract(&events, "released");
        assert!(held_most <= 1000 + 256, "held {held_most} bytes");
        let message = message_of(&events);
        assert_eq!(message.tool_calls.len(), calls, "{text:.60}");
        if let Some(complete) = complete {
            let call = &message.tool_calls[0];
            assert_eq!(call.index, 0);
            assert_eq!(call.complete, complete);
            let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
            assert!(args["v"].as_str().unwrap().starts_with("yyy"));
        }
        // The same events whatever the split.
        let whole = coalesce(one_shot(&mut builder().build(), text.as_bytes()));
        assert!(
            coalesce(events) == whole,
            "split changes the events: {text:.60}"
        );
    }
}
