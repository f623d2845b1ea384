//! The events read the way Codex reads them (`codex-rs/codex-api/src/sse/
//! responses.rs`, as /work/shared/research/agent-apis.md §1 sums it up):
//! by `data.type`; items (calls included) only from
//! `response.output_item.done`; the turn ends only at `response.completed`,
//! whose `response.id` is a string and whose usage counts are integers.

use super::*;

/// What Codex makes of one answer.
#[derive(Debug)]
struct Turn {
    response_id: String,
    /// The items of `response.output_item.done`, in order.
    items: Vec<Value>,
    usage: (u64, u64, u64),
}

fn read_like_codex(sse: &str) -> Result<Turn, String> {
    let mut decoder = SseDecoder::new(1 << 24);
    let mut decoded = Vec::new();
    decoder.feed(sse.as_bytes(), &mut decoded).unwrap();
    decoder.finish(&mut decoded).unwrap();
    let mut items = Vec::new();
    for event in decoded {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| e.to_string())?;
        let Some(kind) = data.get("type").and_then(Value::as_str) else {
            continue;
        };
        match kind {
            "response.output_item.done" => items.push(codex_item(&data["item"])?),
            "response.completed" => {
                let response = &data["response"];
                let id = response["id"]
                    .as_str()
                    .ok_or("response.id is not a string")?;
                let usage = &response["usage"];
                let count = |key: &str| {
                    usage[key]
                        .as_u64()
                        .ok_or_else(|| format!("usage.{key} is not an integer"))
                };
                let usage = (
                    count("input_tokens")?,
                    count("output_tokens")?,
                    count("total_tokens")?,
                );
                return Ok(Turn {
                    response_id: id.to_owned(),
                    items,
                    usage,
                });
            }
            "response.failed" => {
                let error = &data["response"]["error"];
                return Err(format!("failed: {} {}", error["code"], error["message"]));
            }
            "response.incomplete" => {
                let reason = &data["response"]["incomplete_details"]["reason"];
                return Err(format!("Incomplete response returned, reason: {reason}"));
            }
            _ => {}
        }
    }
    Err("stream closed before response.completed".to_owned())
}

/// An item as Codex's `ResponseItem` takes it (the fields it requires).
fn codex_item(item: &Value) -> Result<Value, String> {
    let string = |key: &str| {
        item[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{} item without a string `{key}`", item["type"]))
    };
    match item["type"].as_str() {
        Some("function_call") => {
            string("call_id")?;
            string("name")?;
            let arguments = string("arguments")?;
            serde_json::from_str::<Value>(&arguments).map_err(|e| e.to_string())?;
        }
        Some("custom_tool_call") => {
            string("call_id")?;
            string("name")?;
            string("input")?;
        }
        Some("message") => {
            string("role")?;
            let content = item["content"]
                .as_array()
                .ok_or("message without content")?;
            for part in content {
                if part["type"] != "output_text" || !part["text"].is_string() {
                    return Err(format!("unreadable message part {part}"));
                }
            }
        }
        Some("reasoning") => {
            item["summary"]
                .as_array()
                .ok_or("reasoning without summary")?;
        }
        other => return Err(format!("unknown item {other:?}")),
    }
    Ok(item.clone())
}

fn write(chunks: &[ChatCompletionChunk], ending: Ending) -> (String, Value) {
    let mut writer = writer();
    let mut out = String::new();
    for chunk in chunks {
        writer.chunk(chunk, &mut out).unwrap();
    }
    match ending {
        Ending::End(calls) => writer.end(calls, &mut out),
        Ending::Fail(failure, calls) => writer.fail(&failure, calls, &mut out),
    }
    (out, writer.answer())
}

#[test]
fn codex_reads_the_calls_and_ends_the_turn() {
    let chunks = [
        reasoning("Patch, then search."),
        text("Editing."),
        call(
            0,
            Some("call_1"),
            Some("apply_patch"),
            "{\"input\":\"*** Begin Patch\\n*** End Patch\\n\"}",
        ),
        call(1, Some("call_2"), Some("mcp__docs__search"), "{\"q\":"),
        call(1, None, None, "\"x\"}"),
        finish("tool_calls"),
    ];
    let (sse, answer) = write(&chunks, Ending::End(2));
    let turn = read_like_codex(&sse).unwrap();
    assert_eq!(turn.response_id, answer["id"]);
    assert_eq!(turn.items, answer["output"].as_array().unwrap()[..]);
    let calls: Vec<(&str, &str)> = turn.items[2..]
        .iter()
        .map(|item| {
            (
                item["call_id"].as_str().unwrap(),
                item["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(calls, [("call_1", "apply_patch"), ("call_2", "search")]);
    assert_eq!(turn.items[2]["input"], "*** Begin Patch\n*** End Patch\n");
    assert_eq!(turn.items[3]["namespace"], "mcp__docs__");
    let (input, output, total) = turn.usage;
    assert_eq!(input + output, total);
    assert!(output > 0);
}

#[test]
fn codex_never_runs_a_cut_call() {
    let chunks = [
        call(0, Some("call_1"), Some("ls"), "{}"),
        call(
            1,
            Some("call_2"),
            Some("apply_patch"),
            "{\"input\":\"*** Begin",
        ),
        finish("length"),
    ];
    let (sse, _) = write(&chunks, Ending::End(1));
    let error = read_like_codex(&sse).unwrap_err();
    assert_eq!(
        error,
        "Incomplete response returned, reason: \"max_output_tokens\""
    );
    // The complete call was done; the cut one never was.
    let done: Vec<Value> = events(&sse)
        .into_iter()
        .filter(|(kind, _)| kind == "response.output_item.done")
        .map(|(_, data)| data["item"]["call_id"].clone())
        .collect();
    assert_eq!(done, [json!("call_1")]);
}

#[test]
fn codex_sees_a_failure_with_its_code() {
    let failure = Failure::new(FailureKind::ContextLength, "prompt too long");
    let (sse, _) = write(&[], Ending::Fail(failure, 0));
    assert_eq!(
        read_like_codex(&sse).unwrap_err(),
        "failed: \"context_length_exceeded\" \"prompt too long\""
    );
}

#[test]
fn codex_reads_a_plain_answer() {
    let (sse, answer) = write(&[text("Hi."), finish("stop")], Ending::End(0));
    let turn = read_like_codex(&sse).unwrap();
    assert_eq!(turn.items.len(), 1);
    assert_eq!(turn.items[0]["content"][0]["text"], "Hi.");
    assert_eq!(turn.response_id, answer["id"]);
}
