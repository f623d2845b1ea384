//! Any sequence of chunks an upstream (or the parser) may send, in any
//! order: no panic, one terminal event, last; every item added is done
//! at most once, after it was added; the terminal response is the answer.

use proptest::prelude::*;

use super::*;

#[derive(Clone, Debug)]
enum Step {
    Text(String),
    Reasoning(String),
    Call {
        index: usize,
        id: Option<String>,
        name: Option<String>,
        arguments: String,
    },
    Finish(&'static str),
    Usage(u64, u64),
}

fn step() -> impl Strategy<Value = Step> {
    let name = prop::sample::select(vec![
        "ls",
        "apply_patch",
        "mcp__docs__search",
        "search",
        "x",
    ]);
    prop_oneof![
        "[a-z ]{0,4}".prop_map(Step::Text),
        "[a-z ]{0,4}".prop_map(Step::Reasoning),
        (
            0..4usize,
            prop::option::of(prop::sample::select(vec!["0", "1", "call_a"])),
            prop::option::of(name),
            "[{}\":a-z0-9]{0,6}"
        )
            .prop_map(|(index, id, name, arguments)| Step::Call {
                index,
                id: id.map(str::to_owned),
                name: name.map(str::to_owned),
                arguments,
            }),
        prop::sample::select(vec!["stop", "length", "tool_calls", "content_filter"])
            .prop_map(Step::Finish),
        (any::<u64>(), any::<u64>()).prop_map(|(p, c)| Step::Usage(p, c)),
    ]
}

fn chunk_of(step: &Step) -> ChatCompletionChunk {
    match step {
        Step::Text(text) => chunk(json!({"content": text}), None),
        Step::Reasoning(text) => chunk(json!({"reasoning_content": text}), None),
        Step::Call {
            index,
            id,
            name,
            arguments,
        } => call(*index, id.as_deref(), name.as_deref(), arguments),
        Step::Finish(reason) => finish(reason),
        Step::Usage(prompt, completion) => usage(*prompt, *completion, json!({})),
    }
}

proptest! {
    #[test]
    fn any_chunks_make_a_well_formed_stream(
        steps in prop::collection::vec(step(), 0..24),
        complete_calls in 0..5usize,
        fails in any::<bool>(),
        max_answer_bytes in prop::sample::select(vec![8usize, 1 << 20]),
    ) {
        let mut writer = writer_with(max_answer_bytes, &["call_a"]);
        let mut out = String::new();
        let mut failure = None;
        for step in &steps {
            if let Err(too_large) = writer.chunk(&chunk_of(step), &mut out) {
                failure = Some(too_large);
                break;
            }
        }
        match (failure, fails) {
            (Some(failure), _) => writer.fail(&failure, complete_calls, &mut out),
            (None, true) => writer.fail(&Failure::new(FailureKind::Cut, "cut"), complete_calls, &mut out),
            (None, false) => writer.end(complete_calls, &mut out),
        }
        let events = events(&out);
        let terminals: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, (kind, _))| matches!(kind.as_str(),
                "response.completed" | "response.incomplete" | "response.failed"))
            .map(|(at, _)| at)
            .collect();
        prop_assert_eq!(terminals, vec![events.len() - 1]);
        let answer = writer.answer();
        prop_assert_eq!(&events[events.len() - 1].1["response"], &answer);
        let mut added = HashSet::new();
        let mut done = HashSet::new();
        for (kind, data) in &events {
            let id = data["item"]["id"].as_str().unwrap_or_default().to_owned();
            match kind.as_str() {
                "response.output_item.added" => prop_assert!(added.insert(id)),
                "response.output_item.done" => {
                    prop_assert!(added.contains(&id));
                    prop_assert!(done.insert(id));
                }
                _ => {}
            }
        }
        let call_ids: Vec<&str> = answer["output"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|item| item["call_id"].as_str())
            .collect();
        let unique: HashSet<&&str> = call_ids.iter().collect();
        prop_assert_eq!(unique.len(), call_ids.len());
        prop_assert!(!call_ids.contains(&"call_a"));
        prop_assert!(answer["usage"]["total_tokens"].is_u64());
    }
}
