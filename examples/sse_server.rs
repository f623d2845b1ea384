//! An OpenAI-compatible endpoint in a few lines: `POST /v1/chat/completions`
//! streams a bundled Qwen3-Coder transcript, cut into token-sized pieces as
//! a model would write it, through the parser as OpenAI server-sent events.
//! A real server streams its model's output the same way.
//!
//! ```text
//! cargo run --example sse_server --features stream -- --port 3000
//! curl -X POST localhost:3000/v1/chat/completions -d '{"model": "qwen3-coder", "messages": []}'
//! curl -N -X POST localhost:3000/v1/chat/completions \
//!   -d '{"model": "qwen3-coder", "messages": [], "stream": true, "stream_options": {"include_usage": true}}'
//! ```
//!
//! The request is read as OpenAI's: `model` and `messages` are required,
//! `stream` is `false` unless it says `true` (as in OpenAI's API), `tools`
//! type the values, `stream_options.include_usage` ends the stream with a
//! usage chunk. A body that is not such a request is answered `400` with
//! an OpenAI error object.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::Map;
use toolcall_stream::openai::{ChatCompletionRequest, CompletionMeta, ErrorResponse, Usage};
use toolcall_stream::stream::ToolCallStreamExt;
use toolcall_stream::{Format, Ids, Parser};

/// What the "model" writes.
const TRANSCRIPT: &[u8] = include_bytes!("transcripts/qwen3_coder.txt");
/// Piece sizes in bytes, in turn: about a token each.
const PIECE_SIZES: [usize; 5] = [4, 7, 5, 8, 6];
/// The pause before each piece, so that the stream is seen arriving.
const PIECE_DELAY: Duration = Duration::from_millis(20);
/// What this example counts as the prompt's tokens: a real server has its
/// tokenizer's count.
const PROMPT_TOKENS: u64 = 12;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = port();
    let app = Router::new().route("/v1/chat/completions", post(chat_completions));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}

async fn chat_completions(body: Bytes) -> Response {
    let request: ChatCompletionRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(error) => return bad_request(ErrorResponse::invalid_request(error.to_string())),
    };
    let meta = CompletionMeta::new(&request.model);
    let mut parser = Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::OpenAi);
    // With the request's tools, values are typed by their schemas.
    match request.tools() {
        Ok(Some(tools)) => parser = parser.tools(tools),
        Ok(None) => {}
        Err(error) => {
            return bad_request(
                ErrorResponse::invalid_request(error.to_string()).with_param("tools"),
            )
        }
    }

    if !request.stream {
        let mut completion = parser
            .build()
            .parse(TRANSCRIPT)
            .to_chat_completion(&meta, false);
        completion.usage = Some(usage(model_output_pieces().len() as u64));
        return Json(completion).into_response();
    }

    // The chunks need only the arguments' fragments, not the whole
    // arguments: memory stays bounded however long a value grows.
    let parser = parser.retain_arguments(false).build();
    // Tokens written, counted as they stream, for the usage chunk.
    let written = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&written);
    let output = model_output().inspect(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    let mut chunks = output.chat_chunks(parser, meta);
    if request.include_usage() {
        chunks = chunks.usage_with(move || usage(written.load(Ordering::Relaxed)));
    }
    let frames = chunks
        .sse()
        // axum's body takes results; this stream cannot fail.
        .map(Ok::<String, Infallible>);
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(frames))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// A 400 with OpenAI's error object as its body.
fn bad_request(error: ErrorResponse) -> Response {
    (StatusCode::BAD_REQUEST, Json(error)).into_response()
}

fn usage(completion_tokens: u64) -> Usage {
    Usage {
        prompt_tokens: PROMPT_TOKENS,
        completion_tokens,
        total_tokens: PROMPT_TOKENS + completion_tokens,
        extra: Map::new(),
    }
}

/// The transcript in token-sized pieces, one every `PIECE_DELAY`. The
/// pieces cut through tags and UTF-8 characters alike: the parser does not
/// mind where its input is cut.
fn model_output() -> impl futures::Stream<Item = &'static [u8]> + Send {
    futures::stream::iter(model_output_pieces()).then(|piece| async move {
        tokio::time::sleep(PIECE_DELAY).await;
        piece
    })
}

/// The transcript cut in token-sized pieces.
fn model_output_pieces() -> Vec<&'static [u8]> {
    let mut pieces = Vec::new();
    let mut rest = TRANSCRIPT;
    for size in PIECE_SIZES.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at((*size).min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// `--port N`, else `$PORT`, else 3000.
fn port() -> u16 {
    let args: Vec<String> = std::env::args().collect();
    let flag = args
        .iter()
        .position(|arg| arg == "--port")
        .and_then(|i| args.get(i + 1));
    flag.cloned()
        .or_else(|| std::env::var("PORT").ok())
        .and_then(|port| port.parse().ok())
        .unwrap_or(3000)
}
