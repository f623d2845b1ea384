//! What the proxy answers itself: `GET /healthz` (it runs), `GET /readyz`
//! (the upstream answers) and `GET /metrics` (Prometheus text). These
//! three paths are never forwarded; every other one is.

use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::json;

use super::log::{route, RequestLog};
use super::{metrics, Proxy};

/// How long readiness waits for the upstream.
const READY_TIMEOUT: Duration = Duration::from_secs(5);

/// The answer to a request for one of the proxy's own paths, or `None`.
pub async fn answer(proxy: &Proxy, method: &Method, path: &str) -> Option<Response> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let response = match path {
        "/healthz" => json_response(StatusCode::OK, json!({"status": "ok"})),
        "/readyz" => ready(proxy).await,
        "/metrics" => {
            let mut response = metrics::render().into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            response
        }
        _ => return None,
    };
    let mut log = RequestLog::new(method.clone(), path);
    log.route(route::LOCAL);
    log.status(response.status().as_u16());
    Some(response)
}

/// Ready when the upstream answers `GET /v1/models` with anything but a
/// server error (401 is an answer: the proxy holds no key of its own).
async fn ready(proxy: &Proxy) -> Response {
    let headers = HeaderMap::new();
    let probe = proxy
        .upstream
        .send(Method::GET, "/v1/models", &headers, Bytes::new(), false);
    let (ready, detail) = match tokio::time::timeout(READY_TIMEOUT, probe).await {
        Ok(Ok(answer)) if !answer.status.is_server_error() => (true, String::new()),
        Ok(Ok(answer)) => (false, format!("upstream answered {}", answer.status)),
        Ok(Err(error)) => (false, error.to_string()),
        Err(_) => (false, "upstream did not answer within 5 s".to_owned()),
    };
    if ready {
        json_response(StatusCode::OK, json!({"status": "ready"}))
    } else {
        json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"status": "not ready", "reason": detail}),
        )
    }
}

fn json_response(status: StatusCode, body: serde_json::Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
