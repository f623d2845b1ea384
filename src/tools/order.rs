//! The order a tools array declares each tool's parameters in, read from
//! its text: a parsed `Value` keeps an object's keys sorted, and a grammar
//! writes parameters in the order the model learned them from its chat
//! template, which renders them as declared.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow)]
    function: Option<&'a RawValue>,
    #[serde(borrow)]
    parameters: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Parameters<'a> {
    #[serde(borrow)]
    properties: Option<&'a RawValue>,
}

/// An object's keys, in order, its values skipped.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Keys, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
                Ok(Keys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

/// For each entry of the tools array `text`, its parameters' names in the
/// order declared; `None` where they cannot be read (the entry is checked,
/// and refused, by the reading of its `Value`).
pub(super) fn declared(text: &str) -> Vec<Option<Vec<String>>> {
    let Ok(entries) = serde_json::from_str::<Vec<&RawValue>>(text) else {
        return Vec::new();
    };
    entries.iter().map(|entry| of_entry(entry.get())).collect()
}

fn of_entry(entry: &str) -> Option<Vec<String>> {
    let entry: Entry<'_> = serde_json::from_str(entry).ok()?;
    let parameters = match entry.function {
        Some(function) => {
            serde_json::from_str::<Entry<'_>>(function.get())
                .ok()?
                .parameters
        }
        None => entry.parameters,
    }?;
    let properties = serde_json::from_str::<Parameters<'_>>(parameters.get())
        .ok()?
        .properties?;
    serde_json::from_str::<Keys>(properties.get())
        .ok()
        .map(|k| k.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parameters_come_in_the_order_written() {
        let text = r#"[{"type": "function", "function": {"name": "f", "parameters":
            {"type": "object", "properties": {"zeta": {}, "alpha": {"properties": {"y": 1, "x": 2}}, "mid": {}}}}},
            {"name": "flat", "parameters": {"properties": {"b": {}, "a": {}}}},
            {"name": "none"}]"#;
        let order = super::declared(text);
        let names = |i: usize| order[i].clone().unwrap_or_default();
        assert_eq!(names(0), ["zeta", "alpha", "mid"]);
        assert_eq!(names(1), ["b", "a"]);
        assert_eq!(order[2], None);
        assert!(super::declared("not json").is_empty());
    }
}
