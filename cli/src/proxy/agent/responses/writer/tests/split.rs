//! Split invariance: the same answer, cut into chat chunks anywhere (text
//! at any character boundary, arguments at any byte boundary that is one),
//! gives the same response, and each item's deltas join to its text.

use std::collections::HashMap;

use proptest::prelude::*;
use proptest::sample::Index;

use super::*;

#[derive(Clone, Debug)]
enum Segment {
    Reasoning(String),
    Text(String),
    Call { name: String, arguments: String },
}

fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        "[a-zé✓ \n]{0,12}".prop_map(Segment::Reasoning),
        "[a-zé✓ \n\"]{0,12}".prop_map(Segment::Text),
        (
            prop::sample::select(vec!["ls", "apply_patch", "mcp__docs__search"]),
            "[a-z0-9é✓\"\\\\]{0,10}"
        )
            .prop_map(|(name, value)| Segment::Call {
                name: name.to_owned(),
                arguments: json!({"input": value}).to_string(),
            }),
    ]
}

/// `text` cut at up to three of its character boundaries, chosen by `cuts`.
fn pieces<'a>(text: &'a str, cuts: &mut impl Iterator<Item = Index>) -> Vec<&'a str> {
    let boundaries: Vec<usize> = (0..=text.len())
        .filter(|at| text.is_char_boundary(*at))
        .collect();
    let mut at: Vec<usize> = cuts
        .take(3)
        .map(|index| boundaries[index.index(boundaries.len())])
        .collect();
    at.push(0);
    at.push(text.len());
    at.sort_unstable();
    at.dedup();
    at.windows(2).map(|pair| &text[pair[0]..pair[1]]).collect()
}

/// The chunks of an answer, each segment whole (`cuts` empty) or cut.
fn chunks(segments: &[Segment], cuts: &[Index]) -> Vec<ChatCompletionChunk> {
    let whole = cuts.is_empty();
    let mut cuts = cuts.iter().copied().cycle();
    let mut chunks = Vec::new();
    let mut calls = 0;
    for segment in segments {
        match segment {
            Segment::Reasoning(text) | Segment::Text(text) => {
                let field = if matches!(segment, Segment::Text(_)) {
                    "content"
                } else {
                    "reasoning_content"
                };
                let parts = if whole {
                    vec![text.as_str()]
                } else {
                    pieces(text, &mut cuts)
                };
                for part in parts {
                    chunks.push(chunk(json!({ field: part }), None));
                }
            }
            Segment::Call { name, arguments } => {
                let id = format!("call_up{calls}");
                chunks.push(call(calls, Some(&id), Some(name), ""));
                let parts = if whole {
                    vec![arguments.as_str()]
                } else {
                    pieces(arguments, &mut cuts)
                };
                for part in parts {
                    chunks.push(call(calls, None, None, part));
                }
                calls += 1;
            }
        }
    }
    chunks.push(finish(if calls > 0 { "tool_calls" } else { "stop" }));
    chunks
}

fn answer_of(chunks: &[ChatCompletionChunk], calls: usize) -> (Vec<(String, Value)>, Value) {
    let mut writer = writer();
    let (events, mut answer) = run(&mut writer, chunks, Ending::End(calls));
    answer["created_at"] = 0.into();
    (events, answer)
}

/// Each item's deltas, joined, by item id.
fn joined_deltas(events: &[(String, Value)]) -> HashMap<String, String> {
    let mut joined: HashMap<String, String> = HashMap::new();
    for (kind, data) in events {
        if kind.ends_with(".delta") {
            let id = data["item_id"].as_str().unwrap().to_owned();
            joined
                .entry(id)
                .or_default()
                .push_str(data["delta"].as_str().unwrap());
        }
    }
    joined
}

/// An item's whole text as its deltas carry it.
fn item_text(item: &Value) -> String {
    let text = match item["type"].as_str().unwrap() {
        "message" | "reasoning" => &item["content"][0]["text"],
        "function_call" => &item["arguments"],
        _ => &item["input"],
    };
    text.as_str().unwrap().to_owned()
}

proptest! {
    #[test]
    fn the_answer_does_not_depend_on_how_it_was_cut(
        segments in prop::collection::vec(segment(), 1..6),
        cuts in prop::collection::vec(any::<Index>(), 1..24),
    ) {
        let calls = segments.iter().filter(|s| matches!(s, Segment::Call { .. })).count();
        let (_, whole) = answer_of(&chunks(&segments, &[]), calls);
        let (events, cut) = answer_of(&chunks(&segments, &cuts), calls);
        prop_assert_eq!(&cut, &whole);
        let joined = joined_deltas(&events);
        for item in cut["output"].as_array().unwrap() {
            let id = item["id"].as_str().unwrap();
            let text = item_text(item);
            prop_assert_eq!(joined.get(id).cloned().unwrap_or_default(), text);
        }
    }
}
