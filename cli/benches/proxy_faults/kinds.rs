//! The kinds of request the soak draws, by weight, and what each sends and
//! checks (the requests themselves are `scenarios`' and `agents`').

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::scenarios::{Ctx, Miss, Outcome};
use crate::support::client::{placeholder_tools, read_sse, request, Assembled};

/// Paths that would leave the upstream's base, sent raw.
const ESCAPES: &[&str] = &[
    "/%2e%2e/admin",
    "/../admin",
    "/%2E%2E/%2E%2E/admin",
    "/.%2e/admin",
    "/v1/../../admin",
    "/%252e%252e/%252e%252e/admin",
    "/v1/..%2f..%2fadmin",
    "/v1/..%5c..%5cadmin",
    "/..;/..;/admin",
    "/%c0%ae%c0%ae/admin",
    "/%ef%bc%8e%ef%bc%8e/admin",
];

const ENCODINGS: &[&str] = &["gzip", "deflate", "br", "zstd"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Stream,
    Whole,
    AgentStream,
    AgentWhole,
    AgentCut,
    QuirksStream,
    Compressed,
    SlowHeadOk,
    EndlessBodyWhole,
    LongLine,
    BigEventOk,
    BigEventOver,
    InvalidUtf8,
    NoEnd,
    StallStream,
    StallWhole,
    SlowHeadTimeout,
    Hang,
    BadJson,
    BadJsonWhole,
    Cut,
    ErrorEvent,
    EndlessDropped,
    DroppedMidStream,
    GoneWhole,
    PathEscape,
    Oversize,
    OversizeChunked,
}

/// Each kind and how often it is drawn. Slow heads, cap bursts and
/// endless bodies to a stream run in loops of their own.
pub const MIX: &[(Kind, u32)] = &[
    (Kind::Stream, 20),
    (Kind::Whole, 12),
    (Kind::AgentStream, 10),
    (Kind::AgentWhole, 6),
    (Kind::AgentCut, 2),
    (Kind::QuirksStream, 6),
    (Kind::Compressed, 6),
    (Kind::SlowHeadOk, 2),
    (Kind::EndlessBodyWhole, 2),
    (Kind::LongLine, 2),
    (Kind::BigEventOk, 3),
    (Kind::BigEventOver, 2),
    (Kind::InvalidUtf8, 2),
    (Kind::NoEnd, 3),
    (Kind::StallStream, 1),
    (Kind::StallWhole, 1),
    (Kind::SlowHeadTimeout, 1),
    (Kind::Hang, 1),
    (Kind::BadJson, 2),
    (Kind::BadJsonWhole, 1),
    (Kind::Cut, 2),
    (Kind::ErrorEvent, 2),
    (Kind::EndlessDropped, 2),
    (Kind::DroppedMidStream, 3),
    (Kind::GoneWhole, 1),
    (Kind::PathEscape, 4),
    (Kind::Oversize, 2),
    (Kind::OversizeChunked, 2),
];

/// A kind drawn by weight from a random number.
pub fn pick(random: u64) -> Kind {
    let total: u64 = MIX.iter().map(|(_, w)| u64::from(*w)).sum();
    let mut at = random % total;
    for (kind, weight) in MIX {
        if at < u64::from(*weight) {
            return *kind;
        }
        at -= u64::from(*weight);
    }
    Kind::Stream
}

impl Kind {
    /// Its name in the summary, and its group: `normal` answers must equal
    /// the library's parse, `fault` ones come from a misbehaving upstream,
    /// `client` ones from a misbehaving client.
    pub fn name(self) -> (&'static str, &'static str) {
        match self {
            Kind::Stream => ("stream", "normal"),
            Kind::Whole => ("whole", "normal"),
            Kind::AgentStream => ("agent API, stream", "normal"),
            Kind::AgentWhole => ("agent API, whole", "normal"),
            Kind::AgentCut => ("agent API, cut", "fault"),
            Kind::QuirksStream => ("stream, odd SSE", "normal"),
            Kind::Compressed => ("compressed (4 codings)", "fault"),
            Kind::SlowHeadOk => ("head after 0.3 s", "fault"),
            Kind::EndlessBodyWhole => ("endless body, whole", "fault"),
            Kind::LongLine => ("3 MB line", "fault"),
            Kind::BigEventOk => ("0.9 MB event", "fault"),
            Kind::BigEventOver => ("1.5 MB event", "fault"),
            Kind::InvalidUtf8 => ("invalid UTF-8", "fault"),
            Kind::NoEnd => ("no end", "fault"),
            Kind::StallStream => ("stall, stream", "fault"),
            Kind::StallWhole => ("stall, whole", "fault"),
            Kind::SlowHeadTimeout => ("head after 5 s", "fault"),
            Kind::Hang => ("hang", "fault"),
            Kind::BadJson => ("bad JSON, stream", "fault"),
            Kind::BadJsonWhole => ("bad JSON, whole", "fault"),
            Kind::Cut => ("cut", "fault"),
            Kind::ErrorEvent => ("error event", "fault"),
            Kind::EndlessDropped => ("endless, dropped", "client"),
            Kind::DroppedMidStream => ("dropped mid-stream", "client"),
            Kind::GoneWhole => ("gone before answer", "client"),
            Kind::PathEscape => ("path escape", "client"),
            Kind::Oversize => ("oversized body", "client"),
            Kind::OversizeChunked => ("oversized, chunked", "client"),
        }
    }

    /// Sends the `i`th request of this kind and checks its answer.
    pub async fn run(self, ctx: Arc<Ctx>, i: usize) -> Outcome {
        let fixture = &ctx.fixtures[i % ctx.fixtures.len()];
        let model = |prefix: &str| format!("{prefix}{}/{}", fixture.format, fixture.name);
        let tools = placeholder_tools();
        match self {
            Kind::Stream => ctx.normal(fixture, "", true).await,
            Kind::Whole => ctx.normal(fixture, "", false).await,
            // Responses and Messages in turn.
            Kind::AgentStream => ctx.agent_normal(fixture, i % 2 == 0, true).await,
            Kind::AgentWhole => ctx.agent_normal(fixture, i % 2 == 0, false).await,
            Kind::AgentCut => ctx.agent_cut(i % 2 == 0).await,
            Kind::QuirksStream => ctx.normal(fixture, "quirks/", true).await,
            Kind::Compressed => {
                let encoding = ENCODINGS[i % ENCODINGS.len()];
                let stream = (i / ENCODINGS.len()) % 2 == 0;
                ctx.normal(fixture, &format!("fault/{encoding}/"), stream)
                    .await
            }
            Kind::SlowHeadOk => {
                ctx.normal(fixture, "fault/slow_head/300/", i % 2 == 0)
                    .await
            }
            Kind::EndlessBodyWhole => {
                let kind = "upstream_response_too_large";
                ctx.error_answer("fault/endless_body", false, 502, kind)
                    .await
            }
            Kind::LongLine => {
                let model = "fault/long_line/3000000";
                let before = ctx
                    .failed_stream(model, &tools, "upstream_stream_error")
                    .await?;
                let content = Assembled::from_chunks(&before).content;
                ensure!(content.as_deref() == Some("Hi"), "{model}: {content:?}");
                Ok(())
            }
            Kind::BigEventOk => {
                let response = ctx
                    .chat(&request("fault/big_event/900000", &tools, true))
                    .await?;
                ensure!(response.status() == 200, "big event: {}", response.status());
                let assembled = Assembled::from_chunks(&read_sse(response).await);
                ensure!(
                    assembled.calls.len() == 1 && assembled.calls[0].1 == "write_file",
                    "big event: calls {}",
                    assembled.calls.len()
                );
                let arguments: Value =
                    serde_json::from_str(&assembled.calls[0].2).unwrap_or_default();
                let length = arguments["content"].as_str().map_or(0, str::len);
                ensure!(length == 900_000, "big event: a value of {length} bytes");
                let reason = assembled.finish_reason;
                ensure!(
                    reason.as_deref() == Some("tool_calls"),
                    "big event: {reason:?}"
                );
                Ok(())
            }
            Kind::BigEventOver => {
                let model = "fault/big_event/1500000";
                ctx.failed_stream(model, &tools, "upstream_stream_error")
                    .await
                    .map(drop)
            }
            Kind::InvalidUtf8 => {
                let response = ctx
                    .chat(&request("fault/invalid_utf8", &tools, true))
                    .await?;
                ensure!(
                    response.status() == 200,
                    "invalid UTF-8: {}",
                    response.status()
                );
                let assembled = Assembled::from_chunks(&read_sse(response).await);
                ensure!(
                    assembled.content.as_deref() == Some("caf\u{FFFD} ok")
                        && assembled.finish_reason.as_deref() == Some("stop"),
                    "invalid UTF-8: {assembled:?}"
                );
                Ok(())
            }
            Kind::NoEnd | Kind::StallStream => {
                let (model, kind) = if self == Kind::NoEnd {
                    (model("fault/no_end/"), "upstream_stream_error")
                } else {
                    (model("fault/stall/3/"), "upstream_timeout")
                };
                let before = ctx.failed_stream(&model, &fixture.tools, kind).await?;
                // A cut is never finished as if its calls were whole.
                let reason = Assembled::from_chunks(&before).finish_reason;
                ensure!(
                    reason.as_deref() != Some("tool_calls"),
                    "{model}: a cut stream finished {reason:?}"
                );
                Ok(())
            }
            Kind::StallWhole => {
                let model = model("fault/stall/3/");
                ctx.error_answer(&model, false, 504, "upstream_timeout")
                    .await
            }
            Kind::SlowHeadTimeout => {
                let model = model("fault/slow_head/5000/");
                ctx.error_answer(&model, i % 2 == 0, 504, "upstream_timeout")
                    .await
            }
            Kind::Hang => {
                ctx.error_answer("hang", i % 2 == 0, 504, "upstream_timeout")
                    .await
            }
            Kind::BadJson | Kind::Cut => {
                let model = if self == Kind::Cut {
                    "malformed/cut"
                } else {
                    "malformed/bad_json"
                };
                let before = ctx
                    .failed_stream(model, &tools, "upstream_stream_error")
                    .await?;
                let content = Assembled::from_chunks(&before).content;
                ensure!(content.as_deref() == Some("Hi"), "{model}: {content:?}");
                Ok(())
            }
            Kind::BadJsonWhole => {
                let kind = "upstream_invalid_response";
                ctx.error_answer("malformed/bad_json", false, 502, kind)
                    .await
            }
            Kind::ErrorEvent => {
                // The upstream's own error event, passed on as it came.
                let before = ctx
                    .failed_stream("malformed/error_event", &tools, "internal_error")
                    .await?;
                let content = Assembled::from_chunks(&before).content;
                ensure!(content.as_deref() == Some("Hi"), "error event: {content:?}");
                Ok(())
            }
            Kind::EndlessDropped => ctx.drop_mid_stream("endless", &tools, 3).await,
            Kind::DroppedMidStream => {
                ctx.drop_mid_stream(&model("paced/20/"), &fixture.tools, 2)
                    .await
            }
            Kind::GoneWhole => {
                let body = request("hang", &tools, false);
                let wait = Duration::from_millis(300);
                let send = ctx.chat(&body);
                match tokio::time::timeout(wait, send).await {
                    Err(_) => Ok(()),
                    Ok(Err(miss)) => Err(miss),
                    Ok(Ok(response)) => Err(Miss::Wrong(format!(
                        "hang answered {} within 300 ms",
                        response.status()
                    ))),
                }
            }
            Kind::PathEscape => {
                let path = ESCAPES[i % ESCAPES.len()];
                let head =
                    format!("GET {path} HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n");
                let (status, body) = ctx.raw(&head).await?;
                ensure!(status == 400, "{path}: {status} {body}");
                let body: Value = serde_json::from_str(&body).unwrap_or_default();
                ensure!(
                    body["error"]["type"] == "invalid_request_error",
                    "{path}: {body}"
                );
                Ok(())
            }
            Kind::Oversize => ctx.oversize(false).await,
            Kind::OversizeChunked => ctx.oversize(true).await,
        }
    }
}
