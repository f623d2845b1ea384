//! Which requests are rewritten and which pass through.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;
use toolcall_stream::ParserBuilder;

use super::choice::Passthrough;
use super::config::Config;
use super::error::ProxyError;
use super::log::{route, RequestLog};
use super::request::{builder_for, read_body, read_tools};
use super::{
    agent_route, completion_rewrite, constrain, local, metrics, passthrough, stream_rewrite, Proxy,
};

/// How a chat request with tools is answered.
struct Rewrite {
    builder: ParserBuilder,
    stream: bool,
    /// The body to send in place of the client's (`--constrain`).
    body: Option<Bytes>,
}

/// Every request, whatever its method and path.
pub async fn handle(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    if let Some(response) = local::answer(&proxy, request.method(), request.uri().path()).await {
        return response;
    }
    if let Some(path) = agent_route::AgentPath::of(request.uri().path()) {
        return agent_route::handle(&proxy, path, request).await;
    }
    let (parts, body) = request.into_parts();
    let mut log = RequestLog::new(parts.method.clone(), parts.uri.path());
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let config = &proxy.config;
    let answer = async {
        let mut body = read_body(&parts.headers, body, config.max_body_bytes).await?;
        let chat = parts.method == Method::POST && is_chat_completions(parts.uri.path());
        // The format is the client's model's; then the model is renamed.
        let rewrite = if chat {
            match rewrite_for(config, &body, &mut log)? {
                Ok(mut rewrite) => {
                    if let Some(constrained) = rewrite.body.take() {
                        body = constrained;
                    }
                    Some(rewrite)
                }
                Err(passthrough) => {
                    metrics::passthrough(passthrough.reason());
                    log.choice(None, passthrough.describe());
                    None
                }
            }
        } else {
            None
        };
        if chat && config.formats.renames_models() {
            body = rename_model(config, body);
        }
        if let Some(rewrite) = &rewrite {
            log.route(if rewrite.stream {
                route::REWRITE_STREAM
            } else {
                route::REWRITE
            });
        }
        let plain = rewrite.is_some();
        let sent = Instant::now();
        let send = proxy.upstream.send(
            parts.method.clone(),
            path_and_query,
            &parts.headers,
            body,
            plain,
        );
        let upstream = match tokio::time::timeout(config.first_byte_timeout, send).await {
            Ok(Ok(upstream)) => upstream,
            Ok(Err(error)) => {
                metrics::upstream_error("unreachable");
                return Err(error);
            }
            Err(_) => {
                metrics::upstream_timeout("first_byte");
                return Err(ProxyError::UpstreamTimeout(
                    "no answer in time (--first-byte-timeout)",
                ));
            }
        };
        metrics::first_byte(sent.elapsed());
        Ok::<_, ProxyError>((upstream, rewrite))
    };
    match answer.await {
        Err(error) => {
            log.error(&error);
            error.into_response()
        }
        // An upstream error is the client's to read, as the upstream wrote it.
        Ok((upstream, Some(rewrite))) if upstream.status.is_success() => {
            if rewrite.stream {
                let reading = stream_rewrite::Reading {
                    max_event_bytes: config.max_event_bytes,
                    idle: config.idle_timeout,
                };
                stream_rewrite::respond(upstream, rewrite.builder, reading, log)
            } else {
                let reading = completion_rewrite::Reading {
                    limit: config.max_response_bytes,
                    idle: config.idle_timeout,
                };
                completion_rewrite::respond(upstream, &rewrite.builder, reading, &mut log).await
            }
        }
        Ok((upstream, _)) => passthrough::respond(upstream, config.idle_timeout, log),
    }
}

/// `/v1/chat/completions`, or `/chat/completions` under any base (clients
/// pointed at `http://proxy/v1` and upstreams with a longer base path).
fn is_chat_completions(path: &str) -> bool {
    path.trim_end_matches('/').ends_with("/chat/completions")
}

/// The body with its `model` as the `--model-map` names it upstream. A
/// body that is not JSON is the upstream's to judge, as it came.
fn rename_model(config: &Config, body: Bytes) -> Bytes {
    let Ok(mut request) = serde_json::from_slice::<serde_json::Map<String, Value>>(&body) else {
        return body;
    };
    let Some(Value::String(model)) = request.get("model") else {
        return body;
    };
    let Some(upstream) = config.formats.upstream_model(model) else {
        return body;
    };
    request.insert("model".to_owned(), Value::String(upstream.to_owned()));
    serde_json::to_vec(&request).map_or(body, Bytes::from)
}

/// How to rewrite a chat request, or why to pass it through: no `tools`
/// (nothing to parse), a model with no format, or a body the upstream
/// should judge (not JSON).
fn rewrite_for(
    config: &Config,
    body: &[u8],
    log: &mut RequestLog,
) -> Result<Result<Rewrite, Passthrough>, ProxyError> {
    let Ok(mut request) = serde_json::from_slice::<Value>(body) else {
        return Ok(Err(Passthrough::NotJson));
    };
    let tools = match request.get("tools") {
        None | Some(Value::Null) => return Ok(Err(Passthrough::NoTools)),
        Some(Value::Array(tools)) if tools.is_empty() => return Ok(Err(Passthrough::NoTools)),
        Some(tools) => tools,
    };
    let model = request.get("model").and_then(Value::as_str);
    let chosen = match config.formats.choose(model) {
        Ok(chosen) => chosen,
        Err(passthrough) => return Ok(Err(passthrough)),
    };
    log.choice(Some(chosen.format.to_string()), chosen.describe());
    let tools = read_tools(tools)?;
    // A `stream` that is not a boolean is refused rather than guessed: the
    // upstream might read `"true"` as true and stream to a client that
    // was answered as if it had not asked.
    let stream = match request.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(ProxyError::InvalidStream),
    };
    // Rewritten only when constrained: otherwise the bytes go as they came.
    let format = chosen.format;
    let mut body = None;
    if let Some(object) = request.as_object_mut() {
        if constrain::apply(config, object, format, &tools, log)? {
            let bytes = serde_json::to_vec(object).map_err(|e| {
                ProxyError::BadRequestBody(format!("cannot write the constrained request: {e}"))
            })?;
            body = Some(Bytes::from(bytes));
        }
    }
    let builder = builder_for(config, format, tools);
    Ok(Ok(Rewrite {
        builder,
        stream,
        body,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_completions_under_any_base() {
        assert!(is_chat_completions("/v1/chat/completions"));
        assert!(is_chat_completions("/chat/completions/"));
        assert!(is_chat_completions("/openai/v1/chat/completions"));
        assert!(!is_chat_completions("/v1/completions"));
        assert!(!is_chat_completions("/v1/chat/completionsx"));
    }
}
