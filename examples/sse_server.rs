//! An OpenAI-compatible endpoint in a few lines: `POST /v1/chat/completions`
//! streams a bundled Qwen3-Coder transcript, cut into token-sized pieces as
//! a model would write it, through the parser as OpenAI server-sent events.
//! A real server streams its model's output the same way.
//!
//! ```text
//! cargo run --example sse_server --features stream -- --port 3000
//! curl -N -X POST localhost:3000/v1/chat/completions
//! curl -X POST localhost:3000/v1/chat/completions -d '{"stream": false}'
//! ```
//!
//! The request's `model`, `stream` and `tools` are read when the body is
//! JSON; anything else in it is ignored.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures::StreamExt;
use serde_json::Value;
use toolcall_stream::openai::CompletionMeta;
use toolcall_stream::stream::ToolCallStreamExt;
use toolcall_stream::{Format, Ids, Parser, Tools};

/// What the "model" writes.
const TRANSCRIPT: &[u8] = include_bytes!("transcripts/qwen3_coder.txt");
/// Piece sizes in bytes, in turn: about a token each.
const PIECE_SIZES: [usize; 5] = [4, 7, 5, 8, 6];
/// The pause before each piece, so that the stream is seen arriving.
const PIECE_DELAY: Duration = Duration::from_millis(20);

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port = port();
    let app = Router::new().route("/v1/chat/completions", post(chat_completions));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}

async fn chat_completions(body: Bytes) -> Response {
    // An empty or non-JSON body is a plain streaming request.
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let model = request["model"].as_str().unwrap_or("qwen3-coder");
    let meta = CompletionMeta::new(model);
    let mut parser = Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::OpenAi);
    // With the request's tools, values are typed by their schemas.
    if let Some(tools) = request.get("tools") {
        match Tools::from_value(tools) {
            Ok(tools) => parser = parser.tools(tools),
            Err(error) => return (StatusCode::BAD_REQUEST, error.to_string()).into_response(),
        }
    }

    if request["stream"] == Value::Bool(false) {
        let completion = parser
            .build()
            .parse(TRANSCRIPT)
            .to_chat_completion(&meta, false);
        return axum::Json(completion).into_response();
    }

    // The chunks need only the arguments' fragments, not the whole
    // arguments: memory stays bounded however long a value grows.
    let parser = parser.retain_arguments(false).build();
    let frames = model_output()
        .chat_chunks(parser, meta)
        .sse()
        // axum's body takes results; this stream cannot fail.
        .map(Ok::<String, Infallible>);
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(frames))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// The transcript in token-sized pieces, one every `PIECE_DELAY`. The
/// pieces cut through tags and UTF-8 characters alike: the parser does not
/// mind where its input is cut.
fn model_output() -> impl futures::Stream<Item = &'static [u8]> + Send {
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
    futures::stream::iter(pieces).then(|piece| async move {
        tokio::time::sleep(PIECE_DELAY).await;
        piece
    })
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
