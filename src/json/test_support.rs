//! What the JSON and Python readers' tests share: their events owned and
//! merged, the pieces a text is cut into, and the value the events make.

use serde_json::{Map, Value};

use super::reader::{Fed, JsonEvent};

/// An event, owned, with adjacent text pieces joined (how they are cut
/// depends on the input's pieces; what they say does not).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Owned {
    Event(String),
    Key(String),
    Number(String),
    Text(String),
}

impl Owned {
    /// Adds `event` to `events`, joining text pieces.
    pub(crate) fn push(events: &mut Vec<Owned>, event: JsonEvent<'_>) {
        match event {
            JsonEvent::Text(piece) => match events.last_mut() {
                Some(Owned::Text(text)) => text.push_str(piece),
                _ => events.push(Owned::Text(piece.to_owned())),
            },
            JsonEvent::Key(key) => events.push(Owned::Key(key.to_owned())),
            JsonEvent::Number(number) => events.push(Owned::Number(number.to_owned())),
            other => events.push(Owned::Event(format!("{other:?}"))),
        }
    }
}

/// The ends of the pieces `text` is cut into at `cuts` (taken modulo its
/// length, kept at char boundaries), the last at its end.
pub(crate) fn piece_ends(text: &str, cuts: &[usize]) -> Vec<usize> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|c| c % (text.len() + 1))
        .filter(|&c| text.is_char_boundary(c))
        .collect();
    bounds.push(text.len());
    bounds.sort_unstable();
    bounds
}

/// The value the events describe.
pub(crate) fn build(events: &[Owned]) -> Value {
    let mut stack: Vec<(Value, Option<String>)> = Vec::new();
    let mut done = None;
    let mut string: Option<String> = None;
    let mut put = |stack: &mut Vec<(Value, Option<String>)>, value: Value| match stack.last_mut() {
        Some((Value::Array(items), _)) => items.push(value),
        Some((Value::Object(map), key)) => {
            map.insert(key.take().expect("a key"), value);
        }
        _ => done = Some(value),
    };
    for event in events {
        match event {
            Owned::Text(text) => string.as_mut().expect("in a string").push_str(text),
            Owned::Key(key) => stack.last_mut().expect("an object").1 = Some(key.clone()),
            Owned::Number(number) => put(&mut stack, serde_json::from_str(number).unwrap()),
            Owned::Event(event) => match event.as_str() {
                "BeginObject" => stack.push((Value::Object(Map::new()), None)),
                "BeginArray" => stack.push((Value::Array(Vec::new()), None)),
                "EndObject" | "EndArray" => {
                    let (value, _) = stack.pop().expect("open");
                    put(&mut stack, value);
                }
                "BeginString" | "BeginTextJson" => string = Some(String::new()),
                "EndString" => {
                    let value = Value::String(string.take().unwrap_or_default());
                    put(&mut stack, value);
                }
                "Null" => put(&mut stack, Value::Null),
                "Bool(true)" => put(&mut stack, Value::Bool(true)),
                "Bool(false)" => put(&mut stack, Value::Bool(false)),
                _ => {}
            },
        }
    }
    done.expect("a whole value")
}

/// Reads `text` in the pieces cut at `cuts` with `reader`'s `feed`, then
/// its `finish` unless the value ended: the events merged, and where in the
/// whole text the value ended.
pub(crate) fn read_in_pieces<R, E>(
    reader: &mut R,
    text: &str,
    cuts: &[usize],
    feed: impl Fn(&mut R, &str, &mut Vec<Owned>) -> Result<Fed, E>,
    finish: impl FnOnce(&mut R, &mut Vec<Owned>) -> Result<(), E>,
) -> Result<(Vec<Owned>, Option<usize>), E> {
    let mut events = Vec::new();
    let mut start = 0;
    let mut ended = None;
    for end in piece_ends(text, cuts) {
        if end < start || ended.is_some() {
            continue;
        }
        if let Fed::Done(used) = feed(reader, &text[start..end], &mut events)? {
            ended = Some(start + used);
        }
        start = end;
    }
    if ended.is_none() {
        finish(reader, &mut events)?;
    }
    Ok((events, ended))
}
