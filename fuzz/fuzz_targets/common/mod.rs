//! Shared by the fuzz targets: the parser they build, feeding helpers and
//! the event contract every output must keep.
#![allow(dead_code)]

use toolcall_stream::{Event, Format, Ids, Limits, OwnedEvent, Parser, ValueTermination};

/// The value-termination mode chosen by a header byte (its low bit).
pub fn mode(byte: u8) -> ValueTermination {
    if byte & 1 == 0 {
        ValueTermination::Lookahead
    } else {
        ValueTermination::Vllm
    }
}

/// The limits chosen by a header byte: the defaults when bit 1 is clear;
/// otherwise tight ones taken from the upper bits, so that short inputs
/// reach every bound.
pub fn limits(byte: u8) -> Limits {
    let mut limits = Limits::default();
    if byte & 2 != 0 {
        let bits = usize::from(byte >> 2);
        limits.max_calls = bits & 3;
        limits.max_parameters = (bits >> 2) & 3;
        limits.max_name_len = 1 + ((bits >> 4) & 3) * 3;
        limits.lookahead = 1 + ((bits >> 4) & 3) * 8;
    }
    limits
}

/// A Qwen3-Coder parser for a header byte (`mode` and `limits`), with
/// sequential ids, so that two runs over the same input give identical
/// events.
pub fn parser(header: u8) -> Parser {
    Parser::builder()
        .format(Format::Qwen3Coder)
        .value_termination(mode(header))
        .limits(limits(header))
        .ids(Ids::sequential("call_"))
        .build()
}

/// Feeds `chunks` in order, then finishes; returns every event, owned.
pub fn feed_chunks<'a>(
    parser: &mut Parser,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<OwnedEvent> {
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk).map(Event::into_owned));
    }
    events.extend(parser.finish().map(Event::into_owned));
    events
}

/// The documented contract of an event stream; panics with a description
/// of the breach (and the input, escaped) when it does not hold.
pub fn check_contract(events: &[OwnedEvent], input: &[u8]) {
    let ctx = || format!("input {:?}", String::from_utf8_lossy(input));
    // (index, arguments so far) of the open call.
    let mut open: Option<(usize, String)> = None;
    // (name, raw deltas) of the open parameter.
    let mut param: Option<(String, String)> = None;
    let mut next_index = 0;
    for event in events {
        // Every event serializes (ParameterEnd's value must be valid JSON).
        if let Err(e) = serde_json::to_string(event) {
            panic!("event {event:?} does not serialize: {e}; {}", ctx());
        }
        match event {
            OwnedEvent::Content { text } => {
                assert!(open.is_none(), "content {text:?} inside a call; {}", ctx());
            }
            OwnedEvent::ToolCallStart { index, id, name } => {
                assert!(open.is_none(), "call started inside a call; {}", ctx());
                assert_eq!(*index, next_index, "indexes must count calls; {}", ctx());
                assert!(!name.is_empty(), "empty function name; {}", ctx());
                assert_eq!(*id, format!("call_{index}"), "sequential id; {}", ctx());
                next_index += 1;
                open = Some((*index, String::new()));
            }
            OwnedEvent::ParameterStart { index, name } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter outside its call; {}",
                    ctx()
                );
                assert!(
                    param.is_none(),
                    "parameter started inside a parameter; {}",
                    ctx()
                );
                param = Some((name.clone(), String::new()));
            }
            OwnedEvent::ParameterDelta { index, text } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter delta outside its call; {}",
                    ctx()
                );
                match param.as_mut() {
                    Some((_, raw)) => raw.push_str(text),
                    None => panic!("parameter delta outside a parameter; {}", ctx()),
                }
            }
            OwnedEvent::ParameterEnd { index, name, value } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter end outside its call; {}",
                    ctx()
                );
                let Some((started, raw)) = param.take() else {
                    panic!("parameter end without start; {}", ctx());
                };
                assert_eq!(&started, name, "parameter end names another; {}", ctx());
                let Some(value) = value.as_deref() else {
                    panic!("a retaining parser left out a value; {}", ctx());
                };
                let parsed: serde_json::Value = serde_json::from_str(value)
                    .unwrap_or_else(|e| panic!("parameter value {value:?}: {e}; {}", ctx()));
                // No schema: every value is a JSON string of the raw text.
                assert_eq!(
                    parsed.as_str(),
                    Some(raw.as_str()),
                    "parameter deltas differ from the value; {}",
                    ctx()
                );
            }
            OwnedEvent::ArgumentsDelta { index, delta } => match open.as_mut() {
                Some((current, args)) if current == index => args.push_str(delta),
                _ => panic!("arguments delta for call {index} outside it; {}", ctx()),
            },
            OwnedEvent::ToolCallEnd {
                index, arguments, ..
            } => {
                let Some((current, args)) = open.take() else {
                    panic!("call end without start; {}", ctx());
                };
                assert_eq!(*index, current, "call end for another call; {}", ctx());
                assert!(param.is_none(), "call ended inside a parameter; {}", ctx());
                let Some(arguments) = arguments.as_deref() else {
                    panic!("a retaining parser left out the arguments; {}", ctx());
                };
                assert_eq!(
                    args,
                    arguments,
                    "arguments_delta concatenation differs from tool_call_end arguments; {}",
                    ctx()
                );
                let parsed: serde_json::Value =
                    serde_json::from_str(arguments).unwrap_or_else(|e| {
                        panic!("arguments {arguments:?} are not JSON: {e}; {}", ctx())
                    });
                assert!(
                    parsed.is_object(),
                    "arguments {arguments:?} are not an object; {}",
                    ctx()
                );
            }
            OwnedEvent::Diagnostic { message, .. } => {
                assert!(!message.is_empty(), "empty diagnostic message; {}", ctx());
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "a call was never ended; {}", ctx());
    assert!(param.is_none(), "a parameter was never ended; {}", ctx());
}
