//! The replay upstream's misbehaviours (`model: "fault/…"`), for the
//! proxy's hardening tests and its fault soak bench:
//!
//! | `model` | response |
//! |---|---|
//! | `fault/endless_body` | `200 application/json` whose body never ends (64 KiB pieces) |
//! | `fault/long_line/<bytes>` | SSE whose first line is `<bytes>` long, without a line end, then a normal end |
//! | `fault/big_event/<bytes>` | one event carrying a whole Qwen3-Coder call whose `content` parameter is `<bytes>` long, then `stop` and `[DONE]` |
//! | `fault/invalid_utf8` | a chunk whose content holds a byte that is not UTF-8, then `stop` and `[DONE]` |
//! | `fault/<gzip\|deflate\|br\|zstd>/<format>/<fixture>` | the fixture (streamed or whole), compressed whatever the request's `Accept-Encoding` |
//! | `fault/no_end/<format>/<fixture>` | the first half of the fixture's stream, without a `finish_reason` or `[DONE]`: the body just ends (a crashed model server) |
//! | `fault/stall/<n>/<format>/<fixture>` | the fixture's first `<n>` events, then silence, forever |
//! | `fault/slow_head/<ms>/<format>/<fixture>` | the fixture, after `<ms>` milliseconds without an answer |

use std::io::Write;

use super::*;

/// Bytes a misbehaving body writes at a time.
const PIECE: usize = 64 * 1024;

pub async fn respond(parts: &[&str], model: &str, stream: bool, usage: bool) -> Response {
    match parts {
        ["endless_body"] => endless_body(),
        ["long_line", bytes] => long_line(model, bytes.parse().unwrap_or(1 << 20)),
        ["big_event", bytes] => big_event(model, bytes.parse().unwrap_or(1 << 20)),
        ["invalid_utf8"] => invalid_utf8(model),
        [encoding @ ("gzip" | "deflate" | "br" | "zstd"), format, name] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            let body = if stream {
                stream_body(model, &text, usage, false).concat()
            } else {
                completion(model, &text).to_string()
            };
            compressed(encoding, body.as_bytes(), stream)
        }
        ["no_end", format, name] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            let mut events = content_chunks(model, &text);
            events.truncate(events.len() / 2);
            let body: Vec<String> = events.iter().map(frame).collect();
            sse(pieces(body))
        }
        ["stall", count, format, name] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            let count = count.parse().unwrap_or(1);
            let body: Vec<String> = content_chunks(model, &text)
                .iter()
                .take(count)
                .map(frame)
                .collect();
            let silence = futures_util::stream::pending();
            sse(Box::pin(pieces(body).chain(silence)))
        }
        ["slow_head", millis, format, name] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            tokio::time::sleep(Duration::from_millis(millis.parse().unwrap_or(1000))).await;
            if stream {
                sse(pieces(stream_body(model, &text, usage, false)))
            } else {
                axum::Json(completion(model, &text)).into_response()
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            format!("replay has no fault {model:?}"),
        )
            .into_response(),
    }
}

fn pieces(texts: Vec<String>) -> Pieces {
    Box::pin(futures_util::stream::iter(
        texts
            .into_iter()
            .map(|text| Ok::<_, std::io::Error>(Bytes::from(text))),
    ))
}

fn endless_body() -> Response {
    let start = Bytes::from_static(br#"{"id":"chatcmpl-replay","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""#);
    let filler = Bytes::from(vec![b'a'; PIECE]);
    let body = futures_util::stream::once(async move { Ok::<_, std::io::Error>(start) }).chain(
        futures_util::stream::repeat_with(move || Ok(filler.clone())),
    );
    let mut response = Response::new(Body::from_stream(body));
    response
        .headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    response
}

/// `bytes` of one line, `PIECE` at a time.
fn repeated(
    byte: u8,
    bytes: usize,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    let filler = Bytes::from(vec![byte; PIECE]);
    let count = bytes.div_ceil(PIECE);
    futures_util::stream::iter((0..count).map(move |i| {
        let len = if i + 1 == count {
            bytes - i * PIECE
        } else {
            PIECE
        };
        Ok(filler.slice(..len))
    }))
}

fn long_line(model: &str, bytes: usize) -> Response {
    let first = frame(&chunk(
        model,
        json!({"role": "assistant", "content": "Hi"}),
        None,
    ));
    let end = format!(
        "\n\n{}data: [DONE]\n\n",
        frame(&chunk(model, json!({}), Some("stop")))
    );
    let body = futures_util::stream::iter([
        Ok(Bytes::from(first)),
        Ok(Bytes::from_static(b"data: {\"x\":\"")),
    ])
    .chain(repeated(b'a', bytes))
    .chain(futures_util::stream::once(
        async move { Ok(Bytes::from(end)) },
    ));
    sse(Box::pin(body))
}

/// The call `big_event` carries: its value is `bytes` of `x`.
pub fn big_call(bytes: usize) -> String {
    format!(
        "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.txt\n</parameter>\n<parameter=content>\n{}\n</parameter>\n</function>\n</tool_call>",
        "x".repeat(bytes)
    )
}

fn big_event(model: &str, bytes: usize) -> Response {
    let event = frame(&chunk(
        model,
        json!({"role": "assistant", "content": big_call(bytes)}),
        None,
    ));
    let event = Bytes::from(event);
    let count = event.len().div_ceil(PIECE);
    let body = futures_util::stream::iter((0..count).map(move |i| {
        Ok::<_, std::io::Error>(event.slice(i * PIECE..((i + 1) * PIECE).min(event.len())))
    }));
    let end = [
        frame(&chunk(model, json!({}), Some("stop"))),
        "data: [DONE]\n\n".to_owned(),
    ];
    sse(Box::pin(body.chain(pieces(end.to_vec()))))
}

fn invalid_utf8(model: &str) -> Response {
    let good = frame(&chunk(
        model,
        json!({"role": "assistant", "content": "caf"}),
        None,
    ));
    // `PLACEHOLDER` becomes a lone continuation byte, which no UTF-8 text holds.
    let bad = frame(&chunk(model, json!({"content": "PLACEHOLDER ok"}), None))
        .replace("PLACEHOLDER", "\u{1}");
    let mut bad = bad.into_bytes();
    for byte in &mut bad {
        if *byte == 1 {
            *byte = 0x80;
        }
    }
    let end = frame(&chunk(model, json!({}), Some("stop"))) + "data: [DONE]\n\n";
    let body = futures_util::stream::iter([
        Ok::<_, std::io::Error>(Bytes::from(good)),
        Ok(Bytes::from(bad)),
        Ok(Bytes::from(end)),
    ]);
    sse(Box::pin(body))
}

fn compressed(encoding: &str, body: &[u8], stream: bool) -> Response {
    let bytes = match encoding {
        "gzip" => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(body).unwrap();
            encoder.finish().unwrap()
        }
        "deflate" => {
            let mut encoder =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(body).unwrap();
            encoder.finish().unwrap()
        }
        "br" => {
            let mut out = Vec::new();
            let mut encoder = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
            encoder.write_all(body).unwrap();
            drop(encoder);
            out
        }
        _ => zstd::encode_all(body, 3).unwrap(),
    };
    let mut response = Response::new(Body::from(bytes));
    let kind = if stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    response
        .headers_mut()
        .insert("content-type", kind.parse().unwrap());
    response
        .headers_mut()
        .insert("content-encoding", encoding.parse().unwrap());
    response
}
