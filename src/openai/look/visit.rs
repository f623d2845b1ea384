//! [`look`](super::look) through serde's visitors: any chunk, its fields
//! checked as the full decode checks them.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Look, Text};

/// [`look`](super::look) through serde's visitors.
pub(crate) fn look_serde(json: &str) -> Option<Look<'_>> {
    let top: Top<'_> = serde_json::from_str(json).ok()?;
    if top.error {
        return Some(Look::Error);
    }
    Some(match top.choice {
        Some(Choice {
            index,
            content: Some(raw),
            finish: false,
            tool_calls: false,
            calls_key,
            other,
        }) if top.choices == 1 && !top.usage => {
            let raw = raw.get();
            // Not a string: the full decode says what is wrong.
            let Text(content) = serde_json::from_str(raw).ok()?;
            let start = raw.as_ptr() as usize - json.as_ptr() as usize;
            Look::Text {
                index,
                content,
                span: start..start + raw.len(),
                other,
                calls_key,
            }
        }
        _ => Look::Other,
    })
}

/// The field names the look knows, at any level.
enum Name {
    Id,
    Object,
    Created,
    Model,
    SystemFingerprint,
    Choices,
    Usage,
    Error,
    Index,
    Delta,
    FinishReason,
    Logprobs,
    Role,
    Content,
    ReasoningContent,
    ToolCalls,
    Unknown,
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Name, E> {
                Ok(match name {
                    "id" => Name::Id,
                    "object" => Name::Object,
                    "created" => Name::Created,
                    "model" => Name::Model,
                    "system_fingerprint" => Name::SystemFingerprint,
                    "choices" => Name::Choices,
                    "usage" => Name::Usage,
                    "error" => Name::Error,
                    "index" => Name::Index,
                    "delta" => Name::Delta,
                    "finish_reason" => Name::FinishReason,
                    "logprobs" => Name::Logprobs,
                    "role" => Name::Role,
                    "content" => Name::Content,
                    "reasoning_content" => Name::ReasoningContent,
                    "tool_calls" => Name::ToolCalls,
                    _ => Name::Unknown,
                })
            }
        }
        deserializer.deserialize_identifier(NameVisitor)
    }
}

/// A string, checked and dropped (no copy unless it has escapes, and
/// then into the reader's scratch buffer).
struct Str;

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Str, D::Error> {
        struct StrVisitor;
        impl Visitor<'_> for StrVisitor {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Str, E> {
                Ok(Str)
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// A known field seen twice is an error, as in the full decode.
fn once<E: de::Error>(seen: &mut bool, name: &'static str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(E::duplicate_field(name));
    }
    Ok(())
}

struct Top<'a> {
    error: bool,
    usage: bool,
    choices: usize,
    choice: Option<Choice<'a>>,
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Top<'de>, D::Error> {
        struct TopVisitor;
        impl<'de> Visitor<'de> for TopVisitor {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a chat.completion.chunk")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
                let mut top = Top {
                    error: false,
                    usage: false,
                    choices: 0,
                    choice: None,
                };
                let mut seen = [false; 7];
                while let Some(name) = map.next_key::<Name>()? {
                    match name {
                        Name::Id => {
                            once(&mut seen[0], "id")?;
                            map.next_value::<Str>()?;
                        }
                        Name::Object => {
                            once(&mut seen[1], "object")?;
                            map.next_value::<Str>()?;
                        }
                        Name::Created => {
                            once(&mut seen[2], "created")?;
                            map.next_value::<u64>()?;
                        }
                        Name::Model => {
                            once(&mut seen[3], "model")?;
                            map.next_value::<Str>()?;
                        }
                        Name::SystemFingerprint => {
                            once(&mut seen[4], "system_fingerprint")?;
                            map.next_value::<Option<Str>>()?;
                        }
                        Name::Choices => {
                            once(&mut seen[5], "choices")?;
                            let Choices(count, first) = map.next_value()?;
                            (top.choices, top.choice) = (count, first);
                        }
                        Name::Usage => {
                            once(&mut seen[6], "usage")?;
                            top.usage = map.next_value::<Option<IgnoredAny>>()?.is_some();
                        }
                        Name::Error => {
                            top.error = true;
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                for (at, name) in ["id", "object", "created", "model"].into_iter().enumerate() {
                    if !seen[at] {
                        return Err(de::Error::missing_field(name));
                    }
                }
                if !seen[5] {
                    return Err(de::Error::missing_field("choices"));
                }
                Ok(top)
            }
        }
        deserializer.deserialize_map(TopVisitor)
    }
}

/// How many choices, and the first (the rest are not looked at: a chunk
/// of several goes the full way).
struct Choices<'a>(usize, Option<Choice<'a>>);

impl<'de> Deserialize<'de> for Choices<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Choices<'de>, D::Error> {
        struct ChoicesVisitor;
        impl<'de> Visitor<'de> for ChoicesVisitor {
            type Value = Choices<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of choices")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Choices<'de>, A::Error> {
                let first: Option<Choice<'de>> = seq.next_element()?;
                let mut count = usize::from(first.is_some());
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    count += 1;
                }
                Ok(Choices(count, first))
            }
        }
        deserializer.deserialize_seq(ChoicesVisitor)
    }
}

struct Choice<'a> {
    index: usize,
    content: Option<&'a RawValue>,
    finish: bool,
    tool_calls: bool,
    calls_key: bool,
    other: bool,
}

impl<'de> Deserialize<'de> for Choice<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Choice<'de>, D::Error> {
        struct ChoiceVisitor;
        impl<'de> Visitor<'de> for ChoiceVisitor {
            type Value = Choice<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a choice")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Choice<'de>, A::Error> {
                let mut choice = Choice {
                    index: 0,
                    content: None,
                    finish: false,
                    tool_calls: false,
                    calls_key: false,
                    other: false,
                };
                let (mut index, mut delta, mut finish, mut logprobs) = (false, false, false, false);
                while let Some(name) = map.next_key::<Name>()? {
                    match name {
                        Name::Index => {
                            once(&mut index, "index")?;
                            choice.index = map.next_value()?;
                        }
                        Name::Delta => {
                            once(&mut delta, "delta")?;
                            let Delta {
                                content,
                                tool_calls,
                                calls_key,
                                other,
                            } = map.next_value()?;
                            choice.content = content;
                            choice.tool_calls = tool_calls;
                            choice.calls_key = calls_key;
                            choice.other |= other;
                        }
                        Name::FinishReason => {
                            once(&mut finish, "finish_reason")?;
                            choice.finish = map.next_value::<Option<Str>>()?.is_some();
                        }
                        Name::Logprobs => {
                            once(&mut logprobs, "logprobs")?;
                            choice.other |= map.next_value::<Option<IgnoredAny>>()?.is_some();
                        }
                        // Kept in the choice's `extra`: it says something.
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            choice.other = true;
                        }
                    }
                }
                if !index {
                    return Err(de::Error::missing_field("index"));
                }
                if !delta {
                    return Err(de::Error::missing_field("delta"));
                }
                Ok(choice)
            }
        }
        deserializer.deserialize_map(ChoiceVisitor)
    }
}

struct Delta<'a> {
    content: Option<&'a RawValue>,
    tool_calls: bool,
    calls_key: bool,
    other: bool,
}

impl<'de> Deserialize<'de> for Delta<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Delta<'de>, D::Error> {
        struct DeltaVisitor;
        impl<'de> Visitor<'de> for DeltaVisitor {
            type Value = Delta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a delta")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Delta<'de>, A::Error> {
                let mut delta = Delta {
                    content: None,
                    tool_calls: false,
                    calls_key: false,
                    other: false,
                };
                let mut seen = [false; 4];
                while let Some(name) = map.next_key::<Name>()? {
                    match name {
                        Name::Content => {
                            once(&mut seen[0], "content")?;
                            delta.content = map.next_value()?;
                        }
                        Name::Role => {
                            once(&mut seen[1], "role")?;
                            delta.other |= map.next_value::<Option<Str>>()?.is_some();
                        }
                        Name::ReasoningContent => {
                            once(&mut seen[2], "reasoning_content")?;
                            delta.other |= map.next_value::<Option<Str>>()?.is_some();
                        }
                        // Not checked here: a chunk with calls goes the full way.
                        Name::ToolCalls => {
                            once(&mut seen[3], "tool_calls")?;
                            delta.calls_key = true;
                            delta.tool_calls = map.next_value::<Option<IgnoredAny>>()?.is_some();
                        }
                        // Kept in the delta's `extra`: it says something.
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            delta.other = true;
                        }
                    }
                }
                Ok(delta)
            }
        }
        deserializer.deserialize_map(DeltaVisitor)
    }
}
