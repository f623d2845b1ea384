//! How the adapters drive the wrapped stream: polled only when nothing is
//! queued, `Pending` passed on with nothing lost, dropped mid-stream
//! cleanly, adapted when not `Unpin`, and the parser there to look at.

use super::*;

/// A stream of chunks that counts how often it is polled and knows when it
/// is dropped; it answers `Pending` (after waking its task) every other
/// poll when `pending` is set, as a network stream does.
pub(crate) struct Counted {
    chunks: std::vec::IntoIter<&'static str>,
    polls: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
    pending: bool,
}

impl Counted {
    fn new(
        chunks: Vec<&'static str>,
        pending: bool,
    ) -> (Counted, Arc<AtomicUsize>, Arc<AtomicBool>) {
        let polls = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicBool::new(false));
        let counted = Counted {
            chunks: chunks.into_iter(),
            polls: polls.clone(),
            dropped: dropped.clone(),
            pending,
        };
        (counted, polls, dropped)
    }
}

impl Stream for Counted {
    type Item = &'static str;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<&'static str>> {
        let polls = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
        if self.pending && polls % 2 == 1 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.chunks.next())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

pub(crate) fn poll<S: Stream + Unpin>(stream: &mut S) -> Poll<Option<S::Item>> {
    Pin::new(stream).poll_next(&mut Context::from_waker(noop_waker_ref()))
}

#[test]
fn the_wrapped_stream_is_polled_only_when_the_queue_is_empty() {
    // One chunk with three events (content, call start, arguments), then
    // one with the rest.
    let first = "Hi <tool_call>\n<function=f>\n<parameter=a>\n1";
    let (inner, polls, _) = Counted::new(
        vec![first, "\n</parameter>\n</function>\n</tool_call>"],
        false,
    );
    let expected_first: Vec<OwnedEvent> = parser().feed(first).map(|e| e.into_owned()).collect();
    assert!(expected_first.len() >= 3, "{expected_first:?}");
    let mut events = inner.tool_calls(parser());
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "nothing is polled before the adapter is"
    );
    for (n, expected) in expected_first.iter().enumerate() {
        assert_eq!(poll(&mut events), Poll::Ready(Some(expected.clone())));
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "event {n}: the first chunk's events are queued"
        );
        assert_eq!(events.size_hint(), (expected_first.len() - n - 1, None));
    }
    // The queue is empty: the next poll reads the second chunk.
    assert!(matches!(poll(&mut events), Poll::Ready(Some(_))));
    assert_eq!(polls.load(Ordering::SeqCst), 2);
    let rest: Vec<OwnedEvent> = block_on((&mut events).collect());
    assert!(matches!(
        rest.last(),
        Some(OwnedEvent::ToolCallEnd { complete: true, .. })
    ));
    // The end was seen once; a fused adapter polls nothing after it.
    assert_eq!(polls.load(Ordering::SeqCst), 3);
    assert!(events.is_terminated());
    assert_eq!(poll(&mut events), Poll::Ready(None));
    assert_eq!(polls.load(Ordering::SeqCst), 3);
}

#[test]
fn chat_chunks_read_on_only_past_pieces_that_make_no_chunk() {
    // "<tool_" makes nothing yet: the adapter reads the next piece at once.
    let (inner, polls, _) = Counted::new(
        vec![
            "Hi ",
            "<tool_",
            "call>\n<function=f>\n",
            "</function></tool_call>",
        ],
        false,
    );
    let mut chunks = inner.chat_chunks(parser(), meta());
    let Poll::Ready(Some(first)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    // The space waits for what follows it: the call makes it layout.
    assert_eq!(first.choices[0].delta.content.as_deref(), Some("Hi"));
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    let Poll::Ready(Some(second)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    assert!(second.choices[0].delta.tool_calls.is_some());
    assert_eq!(
        polls.load(Ordering::SeqCst),
        3,
        "the piece that made nothing was read past"
    );
    // The end of the call completes its arguments, `{}`.
    let Poll::Ready(Some(third)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    let calls = third.choices[0]
        .delta
        .tool_calls
        .as_ref()
        .expect("the arguments");
    assert_eq!(
        calls[0].function.as_ref().unwrap().arguments.as_deref(),
        Some("{}")
    );
    assert_eq!(polls.load(Ordering::SeqCst), 4);
    let Poll::Ready(Some(last)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    assert_eq!(last.choices[0].finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(polls.load(Ordering::SeqCst), 5, "the end");
    assert!(chunks.is_terminated());
    assert!(poll(&mut chunks).is_ready());
    assert_eq!(polls.load(Ordering::SeqCst), 5);
}

#[test]
fn pending_is_passed_on_and_nothing_is_lost() {
    let cuts: Vec<&'static str> = CALL
        .as_bytes()
        .chunks(3)
        .map(|b| std::str::from_utf8(b).unwrap())
        .collect();
    let (inner, polls, _) = Counted::new(cuts.clone(), true);
    let mut events = inner.tool_calls(parser());
    assert_eq!(poll(&mut events), Poll::Pending);
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    let all: Vec<OwnedEvent> = block_on(events.collect());
    assert_eq!(all, fed(&mut parser(), CALL.as_bytes(), 3));
}

#[test]
fn dropping_mid_stream_drops_the_wrapped_stream() {
    let (inner, polls, dropped) = Counted::new(
        vec!["Hi <tool_call>\n<function=f>\n", "</function></tool_call>"],
        false,
    );
    let mut events = inner.tool_calls(parser());
    assert_eq!(
        poll(&mut events),
        Poll::Ready(Some(OwnedEvent::Content { text: "Hi ".into() }))
    );
    assert!(!dropped.load(Ordering::SeqCst));
    drop(events);
    assert!(dropped.load(Ordering::SeqCst));
    assert_eq!(polls.load(Ordering::SeqCst), 1);

    let (inner, _, dropped) = Counted::new(vec!["Hi ", "there"], false);
    let mut frames = inner.chat_chunks(parser(), meta()).sse();
    assert!(
        matches!(poll(&mut frames), Poll::Ready(Some(frame)) if frame.contains(r#""content":"Hi""#))
    );
    drop(frames);
    assert!(dropped.load(Ordering::SeqCst));
}

#[test]
fn a_stream_that_is_not_unpin_is_adapted() {
    let inner = stream::iter(pieces(CALL.as_bytes(), 5)).then(|piece| async move { piece });
    let events = std::pin::pin!(inner.tool_calls(parser()));
    assert_eq!(
        block_on(events.collect::<Vec<_>>()),
        fed(&mut parser(), CALL.as_bytes(), 5)
    );
}

#[test]
fn the_parser_is_there_to_look_at() {
    let (inner, _, _) = Counted::new(vec!["<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=text>\nHel"], false);
    let mut events = inner.tool_calls(parser());
    assert!(poll(&mut events).is_ready());
    let call = events.parser().partial_call().expect("a call being read");
    assert_eq!(call.name, "write");
    assert_eq!(call.arguments(), r#"{"path": "a.txt", "text": "Hel"}"#);
}
