use proptest::prelude::*;

use super::*;

const BIG: usize = 1 << 20;

/// Decodes `chunks` in turn, then finishes; also returns `retry`.
fn decode_chunks<'a>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Result<(Vec<SseEvent>, Option<u64>), SseError> {
    let mut decoder = SseDecoder::new(BIG);
    let mut out = Vec::new();
    let mut input = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut out)?;
        input.extend_from_slice(chunk);
    }
    // Each byte examined once, but for a BOM (skipped, not scanned).
    let bom = match decoder.bom {
        Some(matched) => matched,
        None if input.starts_with(BOM) => BOM.len(),
        None => 0,
    };
    assert_eq!(decoder.examined + bom, input.len(), "{input:?}");
    decoder.finish(&mut out)?;
    Ok((out, decoder.retry()))
}

fn events(input: &[u8]) -> Vec<SseEvent> {
    decode_chunks([input]).expect("within the bound").0
}

fn data(events: &[SseEvent]) -> Vec<&str> {
    events.iter().map(|e| e.data.as_str()).collect()
}

fn event(data: &str, event: Option<&str>, id: Option<&str>) -> SseEvent {
    SseEvent {
        data: data.to_owned(),
        event: event.map(str::to_owned),
        id: id.map(str::to_owned),
        invalid_utf8: false,
    }
}

/// The spec's rules written plainly over the whole input, as a model:
/// lines split first, then each line parsed (with `finish`'s leniency).
fn model(input: &[u8]) -> (Vec<SseEvent>, Option<u64>) {
    let input = input.strip_prefix(BOM).unwrap_or(input);
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < input.len() {
        if input[i] == b'\r' || input[i] == b'\n' {
            lines.push(&input[start..i]);
            if input[i] == b'\r' && input.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    lines.push(&input[start..]);
    lines.push(b"");
    let (mut out, mut retry) = (Vec::new(), None);
    let (mut data, mut kind, mut id) = (Vec::new(), Vec::new(), Vec::new());
    for line in lines {
        if line.is_empty() {
            if !data.is_empty() {
                data.pop();
                let mut bad = false;
                out.push(SseEvent {
                    data: decode_utf8(&data, &mut bad),
                    event: (!kind.is_empty()).then(|| decode_utf8(&kind, &mut bad)),
                    id: (!id.is_empty()).then(|| decode_utf8(&id, &mut bad)),
                    invalid_utf8: bad,
                });
            }
            data.clear();
            kind.clear();
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                data.extend_from_slice(value);
                data.push(b'\n');
            }
            b"event" => kind = value.to_vec(),
            b"id" if !value.contains(&0) => id = value.to_vec(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let digits = std::str::from_utf8(value).unwrap_or_default();
                retry = Some(digits.parse().unwrap_or(u64::MAX));
            }
            _ => {}
        }
    }
    (out, retry)
}

/// Inputs that exercise every rule, for the split tests.
const CORPUS: &[&[u8]] = &[
    b"data: one\n\ndata: two\n\n",
    b": comment\ndata: a\r\ndata:b\r\n\r\n",
    b"data: x\ry\r\rdata: z\r\r",
    b"\xEF\xBB\xBFdata: bom\n\n",
    b"\xEF\xBBdata: not a bom\n\n",
    b"event: add\nid: 7\ndata: {\"a\":1}\ndata:\ndata\n\nid\ndata: d\n\n",
    b"data: \xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\n\n",
    b"data: bad \xFF\xC3 end\nevent: \xE2\x82\n\n",
    b"retry: 1500\nretry: 12a\nretry:\nfoo: bar\nfieldname\n\ndata: [DONE]",
    b"id: a\x00b\ndata: nul id\r\n\r\n:\r\n\n\n\r\r\ndata: last\r",
    b"data: x\n\n\xEF\xBB\xBFdata: second bom is text\n\n",
];

#[test]
fn sse_data_lines_join_and_the_last_newline_goes() {
    let got = events(b"data: a\ndata: b\ndata:\n\ndata: c\n\n");
    assert_eq!(data(&got), ["a\nb\n", "c"]);
}

#[test]
fn sse_one_space_after_the_colon_is_dropped() {
    assert_eq!(
        data(&events(b"data:x\n\ndata:  two\n\ndata: \n\n")),
        ["x", " two", ""]
    );
}

#[test]
fn sse_comments_unknown_fields_and_bare_names() {
    let got = events(b": hi\n:\ndatum: no\nDATA: no\nretryx\nfoo\n\ndata\n\n");
    assert_eq!(got, [event("", None, None)]);
}

#[test]
fn sse_event_and_id_fields() {
    let got = events(
        b"event: add\nevent: put\nid: 1\ndata: a\n\n\
          data: b\n\nid: x\x00y\ndata: c\n\nid\ndata: d\n\n",
    );
    // The type is the event's own; the id carries over, a NUL id is
    // ignored, and an empty id resets it.
    assert_eq!(
        got,
        [
            event("a", Some("put"), Some("1")),
            event("b", None, Some("1")),
            event("c", None, Some("1")),
            event("d", None, None),
        ]
    );
}

#[test]
fn sse_retry_is_digits_only() {
    assert_eq!(
        decode_chunks([&b"retry: 1500\n"[..]]).unwrap().1,
        Some(1500)
    );
    for bad in [
        &b"retry: 15s\n"[..],
        b"retry:\n",
        b"retry\n",
        b"retry: -1\n",
    ] {
        assert_eq!(decode_chunks([bad]).unwrap().1, None, "{bad:?}");
    }
    let huge = decode_chunks([&b"retry: 99999999999999999999999\n"[..]]).unwrap();
    assert_eq!(huge.1, Some(u64::MAX));
}

#[test]
fn sse_no_data_no_event() {
    // The type of an event without data does not leak into the next.
    let got = events(b"event: ping\n\n\n\ndata: a\n\n");
    assert_eq!(got, [event("a", None, None)]);
}

#[test]
fn sse_line_ends() {
    assert_eq!(
        data(&events(b"data: a\r\n\r\ndata: b\r\rdata: c\n\n")),
        ["a", "b", "c"]
    );
    // CR then LF in the next chunk is one line end, not a blank line.
    let (got, _) = decode_chunks([&b"data: a\r"[..], b"\ndata: b\r", b"\n\r", b"\n"]).unwrap();
    assert_eq!(data(&got), ["a\nb"]);
    let (got, _) = decode_chunks([&b"data: a\r"[..], b"\r"]).unwrap();
    assert_eq!(data(&got), ["a"]);
}

#[test]
fn sse_bom_at_the_start_only() {
    assert_eq!(data(&events(b"\xEF\xBB\xBFdata: a\n\n")), ["a"]);
    let split = [&b"\xEF"[..], b"\xBB", b"\xBF", b"data: a\n\n"];
    assert_eq!(data(&decode_chunks(split).unwrap().0), ["a"]);
    // A second BOM, or a BOM cut short, is text: the field is unknown.
    assert!(events(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n").is_empty());
    assert!(events(b"\xEF\xBBdata: a\n\n").is_empty());
    assert!(events(b"\xEF").is_empty());
}

#[test]
fn sse_finish_dispatches_the_last_event() {
    for body in [
        &b"data: [DONE]"[..],
        b"data: [DONE]\n",
        b"data: [DONE]\r",
        b"data: [DONE]\r\n",
    ] {
        assert_eq!(data(&events(body)), ["[DONE]"], "{body:?}");
    }
    assert!(events(b"event: x").is_empty());
    assert_eq!(events(b"data: a\n\n").len(), 1);
}

#[test]
fn sse_finish_leaves_a_new_decoder() {
    let mut decoder = SseDecoder::new(BIG);
    let mut out = Vec::new();
    decoder.feed(b"id: 1\ndata: a", &mut out).unwrap();
    decoder.finish(&mut out).unwrap();
    decoder.feed(b"\xEF\xBB\xBFdata: b\n\n", &mut out).unwrap();
    assert_eq!(out, [event("a", None, Some("1")), event("b", None, None)]);
}

#[test]
fn sse_utf8_split_inside_characters_stays_whole() {
    let text = "é € 😀".as_bytes();
    let mut decoder = SseDecoder::new(BIG);
    let mut out = Vec::new();
    decoder.feed(b"data: ", &mut out).unwrap();
    for byte in text {
        decoder.feed(std::slice::from_ref(byte), &mut out).unwrap();
    }
    decoder.feed(b"\n\n", &mut out).unwrap();
    assert_eq!(out, [event("é € 😀", None, None)]);
}

#[test]
fn sse_invalid_utf8_is_replaced_and_flagged() {
    let got = events(b"data: a\xFFb\xE2\x82\n\nevent: \xC3\ndata: ok\n\ndata: fine\n\n");
    assert_eq!(got[0].data, "a\u{FFFD}b\u{FFFD}");
    assert!(got[0].invalid_utf8);
    assert_eq!(
        (got[1].event.as_deref(), got[1].invalid_utf8),
        (Some("\u{FFFD}"), true)
    );
    assert!(!got[2].invalid_utf8);
}

#[test]
fn sse_corpus_matches_the_model() {
    for input in CORPUS {
        assert_eq!(decode_chunks([*input]).unwrap(), model(input), "{input:?}");
    }
}

#[test]
fn sse_split_anywhere_gives_the_same_events() {
    for input in CORPUS {
        let whole = decode_chunks([*input]).unwrap();
        for at in 0..=input.len() {
            let (a, b) = input.split_at(at);
            assert_eq!(decode_chunks([a, b]).unwrap(), whole, "{input:?} at {at}");
        }
        let bytes = input.chunks(1);
        assert_eq!(
            decode_chunks(bytes).unwrap(),
            whole,
            "{input:?} byte by byte"
        );
    }
}

#[test]
fn sse_event_at_the_bound_passes_past_it_fails() {
    // "data: " + 9 bytes + "\n" holds 10 bytes of data.
    let mut out = Vec::new();
    SseDecoder::new(10)
        .feed(b"data: 123456789\n\n", &mut out)
        .unwrap();
    assert_eq!(data(&out), ["123456789"]);
    let mut decoder = SseDecoder::new(10);
    let err = decoder.feed(b"data: 1234567890\n\n", &mut out);
    assert_eq!(err, Err(SseError::EventTooLarge { limit: 10 }));
    // Data lines, the type and the id count together.
    let mut decoder = SseDecoder::new(10);
    assert!(decoder
        .feed(b"id: 1234\nevent: 12\ndata: 1234\n", &mut out)
        .is_err());
}

#[test]
fn sse_long_line_fails_at_the_bound_without_holding_more() {
    const LIMIT: usize = 1 << 20;
    let mut decoder = SseDecoder::new(LIMIT);
    let mut out = Vec::new();
    decoder.feed(b"data: ", &mut out).unwrap();
    let piece = [b'x'; 4096];
    let mut fed = 0;
    let err = loop {
        match decoder.feed(&piece, &mut out) {
            Ok(()) => fed += piece.len(),
            Err(e) => break e,
        }
        assert!(decoder.held_bytes() <= LIMIT + 64);
        assert!(fed <= 10 << 20, "never failed");
    };
    assert_eq!(err, SseError::EventTooLarge { limit: LIMIT });
    assert!(fed <= LIMIT && fed + piece.len() > LIMIT);
    // Failed for good, and nothing held.
    assert_eq!(decoder.held_bytes(), 0);
    assert_eq!(decoder.feed(b"\n\n", &mut out), Err(err));
    assert_eq!(decoder.finish(&mut out), Err(err));
    assert!(out.is_empty());
}

#[test]
fn sse_long_ignored_lines_are_skipped_not_held() {
    let piece = [b'y'; 4096];
    for start in [
        &b": "[..],
        b"unknown: ",
        b"retry: 1",
        b"id: \x00",
        b"datadatadata",
    ] {
        // The bound counts them (below), but they are never held.
        let mut decoder = SseDecoder::new(16 << 20);
        let mut out = Vec::new();
        decoder.feed(start, &mut out).unwrap();
        for _ in 0..(10 << 20) / piece.len() {
            decoder.feed(&piece, &mut out).unwrap();
        }
        assert!(decoder.held_bytes() <= 64, "{start:?}");
        decoder.feed(b"\ndata: after\n\n", &mut out).unwrap();
        assert_eq!(data(&out), ["after"], "{start:?}");
    }
}

#[test]
fn sse_bytes_that_never_form_an_event_are_bounded_too() {
    const LIMIT: usize = 4096;
    // An endless line of no field, endless short lines of no field, and
    // endless comments without a blank line: each fails past the bound
    // instead of being read for ever.
    for piece in [&b"y"[..], b"x\n", b"{\"a\": 1}\n", b": ping\n"] {
        let mut decoder = SseDecoder::new(LIMIT);
        let mut out = Vec::new();
        let mut fed = 0;
        let err = loop {
            match decoder.feed(piece, &mut out) {
                Ok(()) => fed += piece.len(),
                Err(err) => break err,
            }
            assert!(fed <= 2 * LIMIT, "{piece:?} never failed");
        };
        assert_eq!(err, SseError::EventTooLarge { limit: LIMIT }, "{piece:?}");
        assert!(out.is_empty());
    }
    // Keep-alive comments each followed by a blank line go on for ever.
    let mut decoder = SseDecoder::new(LIMIT);
    let mut out = Vec::new();
    for _ in 0..10 * LIMIT {
        decoder.feed(b": ping\n\n", &mut out).unwrap();
    }
    decoder.feed(b"data: still here\n\n", &mut out).unwrap();
    assert_eq!(data(&out), ["still here"]);
}

#[test]
fn sse_each_byte_is_examined_once() {
    // Linear by design: the scanner counts each byte it looks at, and a
    // line end not yet seen never makes it look at a byte again.
    let line = vec![b'z'; 1 << 20];
    for piece in [1, 7, 4096, 1 << 16] {
        let mut decoder = SseDecoder::new(64 << 20);
        let mut out = Vec::new();
        let mut input = b"data: ".to_vec();
        // 50 MB in big pieces; 1 MB where the pieces are tiny.
        for _ in 0..if piece < 100 { 1 } else { 50 } {
            input.extend_from_slice(&line);
        }
        input.extend_from_slice(b"\r\n\r\n");
        for chunk in input.chunks(piece) {
            decoder.feed(chunk, &mut out).unwrap();
        }
        assert_eq!(decoder.examined, input.len());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data.len(), input.len() - 10);
    }
}

/// Lines of SSE built from the parts the rules care about.
fn sse_line() -> impl Strategy<Value = Vec<u8>> {
    let value = prop::collection::vec(
        prop::sample::select(vec![
            &b"a"[..],
            b" ",
            b":",
            b"\x00",
            b"7",
            b"\xC3\xA9",
            b"\xF0\x9F\x98\x80",
            b"\xFF",
            b"\xE2\x82",
            b"\xEF\xBB\xBF",
        ]),
        0..6,
    )
    .prop_map(|parts| parts.concat());
    let name = prop::sample::select(vec![
        &b"data"[..],
        b"data",
        b"data",
        b"event",
        b"id",
        b"retry",
        b"",
        b"dat",
        b"x",
        b"retryx",
    ]);
    let colon = prop::sample::select(vec![&b": "[..], b":", b"", b":  "]);
    let end = prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r"]);
    (name, colon, value, end).prop_map(|(n, c, v, e)| [n, c, &v, e].concat())
}

fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        4 => sse_line(),
        1 => prop::sample::select(vec![&b"\n"[..], b"\r\n", b"\r"]).prop_map(<[u8]>::to_vec),
    ];
    (
        any::<bool>(),
        prop::collection::vec(line, 0..24),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, cut)| {
            let mut stream = if bom { BOM.to_vec() } else { Vec::new() };
            stream.extend(lines.concat());
            if cut {
                // Ends without its line end: `finish` is lenient.
                stream.pop();
            }
            stream
        })
}

proptest! {
    #[test]
    fn sse_random_streams_split_anywhere(
        input in sse_stream(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&input[start..cut]);
            start = cut;
        }
        chunks.push(&input[start..]);
        let whole = decode_chunks([&input[..]]).unwrap();
        prop_assert_eq!(&whole, &model(&input));
        prop_assert_eq!(decode_chunks(chunks).unwrap(), whole);
    }

    #[test]
    fn sse_random_bytes_never_panic(
        input in prop::collection::vec(
            prop::sample::select(b"data:evnti ry\r\n\x00\xEF\xBB\xBF\xC3\x80".to_vec()),
            0..200,
        ),
        piece in 1usize..9,
    ) {
        let whole = decode_chunks([&input[..]]).unwrap();
        prop_assert_eq!(&whole, &model(&input));
        prop_assert_eq!(decode_chunks(input.chunks(piece)).unwrap(), whole);
    }
}
