//! The agent routes' handlers: a Responses or Messages request read,
//! translated, sent to the upstream's chat completions, and its answer
//! written back in the client's API (`agent/` holds the sans-IO halves).
//!
//! These paths are always the proxy's own: an upstream's own Responses or
//! Messages implementation would bypass the parser.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::Value;
use toolcall_stream::openai::{ChatCompletion, Rewriter};
use toolcall_stream::ParserBuilder;

use super::agent::chunk::completion_as_chunk;
use super::agent::responses::ResponsesRequest;
use super::agent::{messages, AgentError, Api, ErrorKind, IdMaker, Options, Translated};
use super::completion_rewrite::{self, read_whole};
use super::forward::UpstreamResponse;
use super::idle::IdleBody;
use super::log::{line, RequestLog};
use super::request::{builder_for, read_body, read_tools};
use super::store::{ResponseStore, StoreError, StoredResponse};
use super::stream_rewrite::{self, StoreAnswer};
use super::{constrain, metrics, Proxy};

/// The most of an upstream's error body read, to say what went wrong.
const ERROR_BODY_BYTES: usize = 64 << 10;

/// Which agent path a request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentPath {
    /// `POST /v1/responses`, `POST /responses`.
    Responses,
    /// `POST /v1/messages`, `POST /messages`.
    Messages,
    /// `POST /v1/messages/count_tokens`.
    CountTokens,
    /// Any other path under these (a response by id, say): not served.
    Other(Api),
}

impl AgentPath {
    /// The agent path `path` names, whatever the method; `None` for the
    /// paths that are forwarded.
    pub fn of(path: &str) -> Option<AgentPath> {
        let path = path.trim_end_matches('/');
        let path = path.strip_prefix("/v1").unwrap_or(path);
        match path {
            "/responses" => Some(AgentPath::Responses),
            "/messages" => Some(AgentPath::Messages),
            "/messages/count_tokens" => Some(AgentPath::CountTokens),
            _ if path.starts_with("/responses/") => Some(AgentPath::Other(Api::Responses)),
            _ if path.starts_with("/messages/") => Some(AgentPath::Other(Api::Messages)),
            _ => None,
        }
    }

    fn api(self) -> Api {
        match self {
            AgentPath::Responses | AgentPath::Other(Api::Responses) => Api::Responses,
            _ => Api::Messages,
        }
    }
}

/// Answers a request for an agent path.
pub async fn handle(proxy: &Arc<Proxy>, path: AgentPath, request: Request) -> Response {
    let api = path.api();
    let (parts, body) = request.into_parts();
    let mut log = RequestLog::new(parts.method.clone(), parts.uri.path());
    log.route(api.route(false));
    let answered = async {
        if parts.method != Method::POST {
            return Err(AgentError::new(
                ErrorKind::NotFound,
                format!(
                    "{} {} is not served: the proxy serves POST only here",
                    parts.method,
                    parts.uri.path()
                ),
            ));
        }
        if let AgentPath::Other(_) = path {
            return Err(AgentError::new(
                ErrorKind::NotFound,
                format!("{} is not served by this proxy", parts.uri.path()),
            ));
        }
        let config = &proxy.config;
        let body = read_body(&parts.headers, body, config.max_body_bytes)
            .await
            .map_err(|e| AgentError::from(&e))?;
        let body: Value = serde_json::from_slice(&body)
            .map_err(|e| AgentError::invalid("body", format!("the body is not JSON: {e}")))?;
        if path == AgentPath::CountTokens {
            return messages::count_tokens(&body).map(Answer::Json);
        }
        let client_model = match body.get("model") {
            Some(Value::String(model)) if !model.is_empty() => model.clone(),
            Some(Value::String(_)) | None => {
                return Err(AgentError::invalid(
                    "model",
                    "model: required, the model's name",
                ))
            }
            Some(_) => return Err(AgentError::invalid("model", "model: expected a string")),
        };
        let options = Options {
            upstream_model: config
                .formats
                .upstream_model(&client_model)
                .unwrap_or(&client_model)
                .to_owned(),
            max_tokens_cap: config.max_tokens_cap,
            max_answer_bytes: config.max_response_bytes,
            ids: IdMaker::Random,
        };
        let (mut translated, store) = match path {
            AgentPath::Responses => {
                let request = ResponsesRequest::read(&body)?;
                drop(body);
                let history = match request.previous_response_id() {
                    Some(id) => Some(previous(&proxy.store, id).await?),
                    None => None,
                };
                let store = request.store().then(|| store_hook(&proxy.store));
                let (translated, notes) = request.translate_with_notes(history, &options)?;
                if let Some(summary) = notes.summary() {
                    log.note(summary);
                }
                (translated, store)
            }
            _ => {
                let (translated, notes) = messages::translate_noting(&body, &options)?;
                if let Some(summary) = notes.summary() {
                    log.note(summary);
                }
                (translated, None)
            }
        };
        log.route(api.route(translated.stream));
        let builder = match config.formats.choose(Some(&client_model)) {
            Ok(chosen) => {
                log.choice(Some(chosen.format.to_string()), chosen.describe());
                // A request without tools still has its reasoning and text read.
                let tools = translated
                    .chat
                    .get("tools")
                    .filter(|tools| !tools.is_null())
                    .cloned()
                    .unwrap_or_else(|| Value::Array(Vec::new()));
                let tools = read_tools(&tools).map_err(|e| AgentError::from(&e))?;
                // The chat request built here goes the chat route's way
                // upstream: constrained the same, when it has tools.
                if tools.names().next().is_some() {
                    constrain::apply(
                        config,
                        &mut translated.chat,
                        chosen.format,
                        &tools,
                        &mut log,
                    )
                    .map_err(|e| AgentError::invalid("tool_choice", e.to_string()))?;
                }
                Some(builder_for(config, chosen.format, tools))
            }
            Err(passthrough) => {
                log.choice(None, passthrough.describe_for_agents());
                None
            }
        };
        let upstream = send(proxy, &parts.headers, &translated.chat, translated.stream).await?;
        Ok(Answer::Upstream(Box::new(Pending {
            upstream,
            translated,
            builder,
            store,
        })))
    };
    match answered.await {
        Err(error) => refuse(api, &error, &mut log),
        Ok(Answer::Json(value)) => {
            log.status(200);
            json(200, &value)
        }
        Ok(Answer::Upstream(pending)) => {
            let Pending {
                upstream,
                translated,
                builder,
                store,
            } = *pending;
            let config = &proxy.config;
            if translated.stream {
                let reading = stream_rewrite::Reading {
                    max_event_bytes: config.max_event_bytes,
                    idle: config.idle_timeout,
                };
                stream_rewrite::respond_agent(
                    upstream,
                    builder,
                    translated.writer,
                    store,
                    reading,
                    log,
                )
            } else {
                let reading = completion_rewrite::Reading {
                    limit: config.max_response_bytes,
                    idle: config.idle_timeout,
                };
                whole(upstream, builder, translated, store, reading, api, &mut log).await
            }
        }
    }
}

/// What a request comes to before its answer is written.
enum Answer {
    /// The proxy's own answer (`count_tokens`).
    Json(Value),
    /// The upstream's answer to translate.
    Upstream(Box<Pending>),
}

/// An upstream answer, and what its translation needs.
struct Pending {
    upstream: UpstreamResponse,
    translated: Translated,
    /// `None`: no format, the upstream's own calls.
    builder: Option<ParserBuilder>,
    store: Option<StoreAnswer>,
}

/// The stored response `id` names, or a 400 that says it is not there.
async fn previous(store: &ResponseStore, id: &str) -> Result<StoredResponse, AgentError> {
    match store.get(id).await {
        Ok(Some(stored)) => Ok(stored),
        Ok(None) => Err(AgentError::invalid(
            "previous_response_id",
            format!("Previous response with id '{id}' not found (responses are kept for --response-store-ttl, and only with store: true)"),
        ).with_kind(ErrorKind::PreviousResponseNotFound)),
        // Not a response this proxy wrote: as good as none.
        Err(e @ StoreError::Corrupt(_)) => Err(AgentError::invalid(
            "previous_response_id",
            format!("Previous response with id '{id}' cannot be read: {e}"),
        )
        .with_kind(ErrorKind::PreviousResponseNotFound)),
        Err(e) => Err(AgentError::new(
            ErrorKind::Unavailable,
            format!("the response store cannot be read: {e}"),
        )),
    }
}

/// Keeps a finished response in the store, off the response's path: a
/// store that fails is logged, the answer is already the client's.
fn store_hook(store: &ResponseStore) -> StoreAnswer {
    let store = store.clone();
    Box::new(move |id: String, response: StoredResponse| {
        tokio::spawn(async move {
            if let Err(e) = store.put(&id, &response).await {
                line("warn", &format!("response {id} not stored: {e}"), &[]);
            }
        });
    })
}

/// Sends the chat request, within `--first-byte-timeout`; an upstream
/// error status comes back as the client's API says it.
async fn send(
    proxy: &Proxy,
    client: &HeaderMap,
    chat: &serde_json::Map<String, Value>,
    stream: bool,
) -> Result<UpstreamResponse, AgentError> {
    let config = &proxy.config;
    let body = serde_json::to_vec(chat)
        .map_err(|e| AgentError::invalid("body", format!("cannot write the chat request: {e}")))?;
    let headers = upstream_headers(client, config.upstream_key.as_deref(), stream);
    let sent = Instant::now();
    let send = proxy.upstream.send(
        Method::POST,
        "/v1/chat/completions",
        &headers,
        Bytes::from(body),
        true,
    );
    let upstream = match tokio::time::timeout(config.first_byte_timeout, send).await {
        Ok(Ok(upstream)) => upstream,
        Ok(Err(error)) => {
            metrics::upstream_error("unreachable");
            return Err(AgentError::from(&error));
        }
        Err(_) => {
            metrics::upstream_timeout("first_byte");
            return Err(AgentError::new(
                ErrorKind::Timeout,
                "upstream timed out: no answer in time (--first-byte-timeout)",
            ));
        }
    };
    metrics::first_byte(sent.elapsed());
    if upstream.status.is_success() {
        return Ok(upstream);
    }
    let status = upstream.status;
    let body = error_body(upstream, config.idle_timeout).await;
    Err(AgentError::from_upstream(status, &body))
}

/// The start of an upstream's error body, read within the idle timeout.
async fn error_body(upstream: UpstreamResponse, idle: std::time::Duration) -> Vec<u8> {
    let mut pieces = IdleBody::new(upstream.body, idle);
    let mut body = Vec::new();
    while let Some(Ok(piece)) = pieces.next().await {
        let room = ERROR_BODY_BYTES - body.len();
        body.extend_from_slice(&piece[..piece.len().min(room)]);
        if body.len() == ERROR_BODY_BYTES {
            break;
        }
    }
    body
}

/// The upstream request's headers: its own content type, and the client's
/// credential as the upstream takes it (`x-api-key`, Claude Code's, as a
/// bearer token), else `--upstream-key`. Nothing else of the client's is
/// sent: `anthropic-version`, `anthropic-beta` and the rest are the
/// client's API's, not the upstream's.
fn upstream_headers(client: &HeaderMap, key: Option<&str>, stream: bool) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCEPT,
        HeaderValue::from_static(if stream {
            "text/event-stream"
        } else {
            "application/json"
        }),
    );
    let bearer = |key: &str| HeaderValue::try_from(format!("Bearer {}", key.trim())).ok();
    let credential = client
        .get(header::AUTHORIZATION)
        .cloned()
        .or_else(|| {
            let key = client.get("x-api-key")?.to_str().ok()?;
            bearer(key)
        })
        .or_else(|| bearer(key?));
    if let Some(credential) = credential {
        headers.insert(header::AUTHORIZATION, credential);
    }
    if let Some(agent) = client.get(header::USER_AGENT) {
        headers.insert(header::USER_AGENT, agent.clone());
    }
    headers
}

/// A whole answer: read, rewritten, written in the client's API.
async fn whole(
    upstream: UpstreamResponse,
    builder: Option<ParserBuilder>,
    translated: Translated,
    store: Option<StoreAnswer>,
    reading: completion_rewrite::Reading,
    api: Api,
    log: &mut RequestLog,
) -> Response {
    let body = match read_whole(upstream, &reading).await {
        Ok(body) => body,
        Err(error) => return refuse(api, &AgentError::from(&error), log),
    };
    let completion: ChatCompletion = match serde_json::from_slice(&body) {
        Ok(completion) => completion,
        Err(e) => {
            metrics::upstream_error("invalid_response");
            let error = AgentError::new(
                ErrorKind::Upstream,
                format!("upstream sent an invalid response: not a chat.completion: {e}"),
            );
            return refuse(api, &error, log);
        }
    };
    drop(body);
    // The whole answer as the one chunk that says it, through the same
    // ordered rewrite and writer as a stream: the same answer either way,
    // except that a whole answer, as `parse` does, holds no call whose
    // arguments could not be read (it is content).
    let mut chunk = completion_as_chunk(completion);
    stream_rewrite::normalize_reasoning(&mut chunk);
    let mut chunks = Vec::new();
    let calls = match builder {
        Some(builder) => {
            let whole_output = builder.unreadable_calls_as_content(true);
            let mut rewriter = Rewriter::new(whole_output).ordered(true);
            rewriter.push(chunk, &mut chunks);
            rewriter.finish(&mut chunks);
            for kind in rewriter.drain_diagnostics() {
                metrics::diagnostic(kind.as_str());
            }
            rewriter.calls()
        }
        None => {
            let calls = chunk
                .choices
                .first()
                .and_then(|choice| choice.delta.tool_calls.as_ref())
                .map_or(0, Vec::len);
            chunks.push(chunk);
            calls
        }
    };
    log.calls(calls);
    let mut writer = translated.writer;
    let mut events = String::new();
    for chunk in &chunks {
        if let Err(failure) = writer.chunk(chunk, &mut events) {
            let error = AgentError::new(failure.kind.error_kind(), failure.message);
            return refuse(api, &error, log);
        }
    }
    writer.end(calls, &mut events);
    let answer = writer.answer();
    if let (Some(store), Some((id, response))) = (store, writer.stored()) {
        store(id, response);
    }
    log.status(200);
    json(200, &answer)
}

/// An error answered in `api`'s shape, and logged.
fn refuse(api: Api, error: &AgentError, log: &mut RequestLog) -> Response {
    log.status(error.kind.status().as_u16());
    log.outcome(error.kind.outcome());
    log.note(error.message.clone());
    error.response(api)
}

fn json(status: u16, value: &Value) -> Response {
    let mut response = Response::new(axum::body::Body::from(value.to_string()));
    *response.status_mut() = axum::http::StatusCode::from_u16(status).unwrap_or_default();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_paths() {
        assert_eq!(AgentPath::of("/v1/responses"), Some(AgentPath::Responses));
        assert_eq!(AgentPath::of("/responses/"), Some(AgentPath::Responses));
        assert_eq!(AgentPath::of("/v1/messages"), Some(AgentPath::Messages));
        assert_eq!(AgentPath::of("/messages"), Some(AgentPath::Messages));
        assert_eq!(
            AgentPath::of("/v1/messages/count_tokens"),
            Some(AgentPath::CountTokens)
        );
        assert_eq!(
            AgentPath::of("/v1/responses/resp_1"),
            Some(AgentPath::Other(Api::Responses))
        );
        assert_eq!(AgentPath::of("/v1/chat/completions"), None);
        assert_eq!(AgentPath::of("/v1/messagesx"), None);
        assert_eq!(AgentPath::of("/v1/models"), None);
    }

    #[test]
    fn the_upstream_gets_the_credential_it_takes() {
        let mut client = HeaderMap::new();
        client.insert("x-api-key", HeaderValue::from_static("sk-ant-1"));
        client.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        client.insert("anthropic-beta", HeaderValue::from_static("x"));
        let headers = upstream_headers(&client, Some("proxy-key"), true);
        assert_eq!(headers[header::AUTHORIZATION], "Bearer sk-ant-1");
        assert!(headers.get("anthropic-version").is_none());
        assert!(headers.get("anthropic-beta").is_none());
        assert!(headers.get("x-api-key").is_none());
        assert_eq!(headers[header::ACCEPT], "text/event-stream");
        // The client's own Authorization wins; none: the proxy's key.
        client.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer mine"),
        );
        assert_eq!(
            upstream_headers(&client, None, false)[header::AUTHORIZATION],
            "Bearer mine"
        );
        let headers = upstream_headers(&HeaderMap::new(), Some("proxy-key"), false);
        assert_eq!(headers[header::AUTHORIZATION], "Bearer proxy-key");
        assert!(upstream_headers(&HeaderMap::new(), None, false)
            .get(header::AUTHORIZATION)
            .is_none());
    }
}
