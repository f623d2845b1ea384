//! Answers that end short: cut by the token limit, failed (cut, timed
//! out, unreadable, the upstream's error), or grown past the byte limit.

use super::*;

#[test]
fn length_with_a_cut_call_is_incomplete_and_the_call_never_done() {
    let mut writer = writer();
    let chunks = [
        text("Reading."),
        call(0, Some("c"), Some("ls"), "{\"pa"),
        finish("length"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(0));
    assert_eq!(
        names(&events)[2..],
        [
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
        ]
        .into_iter()
        .chain(MESSAGE_EVENTS)
        .chain([
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.incomplete",
        ])
        .collect::<Vec<_>>()
    );
    let response = terminal(&events, &answer);
    assert_eq!(response["status"], "incomplete");
    assert_eq!(
        response["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(response["output"][0]["status"], "completed");
    assert_eq!(response["output"][1]["status"], "incomplete");
    assert_eq!(response["output"][1]["arguments"], "{\"pa");
    assert_eq!(response["output"][1]["id"], events[8].1["item"]["id"]);
    // Cut calls are not kept: no output can answer them.
    let (_, stored) = writer.stored().unwrap();
    assert_eq!(stored.items.len(), 2);
}

#[test]
fn length_mid_text_leaves_the_message_incomplete() {
    let mut writer = writer();
    let (events, answer) = run(
        &mut writer,
        &[text("Once upon"), finish("length")],
        Ending::End(0),
    );
    assert_eq!(
        names(&events)[5..],
        MESSAGE_EVENTS
            .into_iter()
            .chain(["response.incomplete"])
            .collect::<Vec<_>>()
    );
    assert_eq!(events[7].1["item"]["status"], "incomplete");
    assert_eq!(
        terminal(&events, &answer)["output"][0]["status"],
        "incomplete"
    );
}

#[test]
fn failing_mid_call_writes_no_done_call() {
    let mut writer = writer();
    let chunks = [call(0, Some("c"), Some("ls"), "{\"pa")];
    let failure = Failure::new(
        FailureKind::Cut,
        "the upstream closed the stream mid-answer",
    );
    let (events, answer) = run(&mut writer, &chunks, Ending::Fail(failure, 0));
    assert_eq!(
        names(&events)[2..],
        [
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.failed",
        ]
    );
    let response = terminal(&events, &answer);
    assert_eq!(response["status"], "failed");
    assert_eq!(
        response["error"],
        json!({"code": "server_error", "message": "the upstream closed the stream mid-answer"})
    );
    assert_eq!(response["output"][0]["status"], "incomplete");
    assert!(response["usage"]["output_tokens"].is_u64());
    assert!(writer.stored().is_none(), "a failed answer is not kept");
}

#[test]
fn failing_after_a_complete_call_completes_it() {
    let mut writer = writer();
    let chunks = [call(0, Some("c"), Some("ls"), "{}")];
    let failure = Failure::new(FailureKind::Timeout, "the upstream went silent");
    let (events, answer) = run(&mut writer, &chunks, Ending::Fail(failure, 1));
    assert_eq!(
        names(&events)[4..],
        [
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.failed",
        ]
    );
    assert_eq!(terminal(&events, &answer)["error"]["code"], "timeout");
}

#[test]
fn failing_mid_text_closes_the_message_incomplete() {
    let mut writer = writer();
    let failure = Failure::new(
        FailureKind::StreamError,
        "bad JSON in the upstream's stream",
    );
    let (events, answer) = run(&mut writer, &[text("Half")], Ending::Fail(failure, 0));
    assert_eq!(
        names(&events)[5..],
        MESSAGE_EVENTS
            .into_iter()
            .chain(["response.failed"])
            .collect::<Vec<_>>()
    );
    assert_eq!(events[7].1["item"]["status"], "incomplete");
    assert_eq!(events[7].1["item"]["content"][0]["text"], "Half");
    assert_eq!(
        terminal(&events, &answer)["output"][0]["status"],
        "incomplete"
    );
}

#[test]
fn an_upstream_error_names_its_code() {
    for (kind, code) in [
        (FailureKind::Upstream, "server_error"),
        (FailureKind::ContextLength, "context_length_exceeded"),
    ] {
        let mut writer = writer();
        let failure = Failure::new(kind, "upstream: it broke");
        let (events, answer) = run(&mut writer, &[], Ending::Fail(failure, 0));
        assert_eq!(
            names(&events),
            [
                "response.created",
                "response.in_progress",
                "response.failed"
            ]
        );
        let response = terminal(&events, &answer);
        assert_eq!(
            response["error"],
            json!({"code": code, "message": "upstream: it broke"})
        );
        assert_eq!(response["output"], json!([]));
    }
}

#[test]
fn an_answer_past_the_byte_limit_fails_too_large() {
    let mut writer = writer_with(10, &[]);
    let mut out = String::new();
    writer.chunk(&text("0123456789"), &mut out).unwrap();
    let failure = writer.chunk(&text("X"), &mut out).unwrap_err();
    assert_eq!(failure.kind, FailureKind::TooLarge);
    assert!(failure.message.contains("10 bytes"), "{}", failure.message);
    writer.fail(&failure, 0, &mut out);
    let events = events(&out);
    let (kind, last) = events.last().unwrap();
    assert_eq!(kind, "response.failed");
    assert_eq!(last["response"]["error"]["code"], "request_too_large");
    assert_eq!(
        last["response"]["output"][0]["content"][0]["text"],
        "0123456789"
    );
    let mut writer = writer_with(4, &[]);
    let failure = writer
        .chunk(&call(0, Some("c"), Some("ls"), "{\"a\":1}"), &mut out)
        .unwrap_err();
    assert_eq!(failure.kind, FailureKind::TooLarge);
}
