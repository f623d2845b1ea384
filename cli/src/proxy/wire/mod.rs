//! A rewritten request's exchange with an `http://` upstream: HTTP/1.1
//! written and read by hand, the response body read by the task that
//! writes the client's response.
//!
//! Why not reqwest (hyper's client), as for everything else: its
//! connection runs as a task of its own and hands the body over a channel
//! one HTTP chunk at a time. An upstream sends each SSE event as one
//! chunk, so each event cost two task wake-ups, and a read that brought
//! a hundred events cost a hundred writes to the client: the proxy spent
//! 5–8× nginx's CPU per chunk (`benches/proxy_cost.rs`). Here one read
//! from the upstream is one piece of the body, whatever number of chunks
//! it holds. Upstreams over TLS, or with credentials in their URL, still
//! go through reqwest.
//!
//! Connections are kept alive and reused ([`Pool`]): a connect and a
//! close per request were a tenth of the proxy's CPU on short answers.

mod framing;
mod pool;

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use bytes::{Buf, Bytes, BytesMut};
use futures_util::Stream;
use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::error::cannot_connect;
use framing::Framing;
pub use pool::{Pool, MAX_IDLE};

/// The most bytes of a response head (status line and headers).
const MAX_HEAD: usize = 64 << 10;
/// The most header fields in a response head.
const MAX_HEADERS: usize = 128;
/// How much room each read from the upstream is given.
const READ_SIZE: usize = 16 << 10;

/// Whether `url` can be sent here rather than through reqwest.
pub fn serves(url: &Url) -> bool {
    url.scheme() == "http" && url.username().is_empty() && url.password().is_none()
}

/// The upstream's response: its head, and its body to come.
pub struct WireResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: WireBody,
}

/// Sends the request and reads the response's head. `headers` are the
/// end-to-end ones to send (this adds `Host` and `Content-Length`). The
/// error is the cause, for the operator's log.
///
/// An idle connection from `pool` is used when there is one; if it turns
/// out to have been closed by the upstream (the request cannot be written,
/// or the connection ends before any byte of an answer: the upstream's
/// keep-alive timeout raced this request, which it never read), the
/// request goes once more on a new connection.
pub async fn send(
    pool: &Arc<Pool>,
    method: &Method,
    url: &Url,
    headers: &HeaderMap,
    body: &[u8],
    connect_timeout: Duration,
) -> Result<WireResponse, String> {
    let request = request_bytes(method, url, headers, body);
    if let Some(stream) = pool.take() {
        match exchange(stream, &request, method, pool).await {
            Ok(response) => return Ok(response),
            Err(failure) if failure.before_answer => {}
            Err(failure) => return Err(failure.cause),
        }
    }
    let stream = tokio::time::timeout(connect_timeout, connect(url))
        .await
        .map_err(|_| cannot_connect("timed out"))??;
    exchange(stream, &request, method, pool)
        .await
        .map_err(|failure| failure.cause)
}

/// Why an exchange failed, and whether the upstream answered anything.
struct Failure {
    cause: String,
    before_answer: bool,
}

async fn exchange(
    mut stream: TcpStream,
    request: &[u8],
    method: &Method,
    pool: &Arc<Pool>,
) -> Result<WireResponse, Failure> {
    stream.write_all(request).await.map_err(|e| Failure {
        cause: format!("request failed: {e}"),
        before_answer: true,
    })?;
    let mut raw = BytesMut::with_capacity(READ_SIZE);
    let (status, headers, keep_alive) = read_head(&mut stream, &mut raw).await?;
    let failed = |cause| Failure {
        cause,
        before_answer: false,
    };
    let framing = framing_of(method, status, &headers).map_err(failed)?;
    let pool = (keep_alive && !matches!(framing, Framing::Close)).then(|| Arc::clone(pool));
    let mut body = WireBody {
        stream: Some(stream),
        raw,
        framing,
        pool,
    };
    if body.framing.is_done() && body.raw.is_empty() {
        body.release();
    }
    Ok(WireResponse {
        status,
        headers,
        body,
    })
}

async fn connect(url: &Url) -> Result<TcpStream, String> {
    let host = url.host_str().ok_or_else(|| cannot_connect("no host"))?;
    let port = url.port_or_known_default().unwrap_or(80);
    // `host_str` keeps an IPv6 address's brackets, as `host:port` needs.
    let addresses = tokio::net::lookup_host(format!("{host}:{port}"))
        .await
        .map_err(cannot_connect)?;
    let mut last = None;
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => {
                // The request is one write; the response's pace is the
                // upstream's.
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => cannot_connect(e),
        None => cannot_connect("the host has no address"),
    })
}

/// The request head and body, ready for one write.
fn request_bytes(method: &Method, url: &Url, headers: &HeaderMap, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(512 + body.len());
    out.extend_from_slice(method.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(url.path().as_bytes());
    if let Some(query) = url.query() {
        out.push(b'?');
        out.extend_from_slice(query.as_bytes());
    }
    out.extend_from_slice(b" HTTP/1.1\r\nhost: ");
    out.extend_from_slice(url.host_str().unwrap_or_default().as_bytes());
    if let Some(port) = url.port() {
        out.extend_from_slice(format!(":{port}").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        // These three are this connection's: set below.
        if matches!(
            *name,
            header::HOST | header::CONTENT_LENGTH | header::CONNECTION
        ) {
            continue;
        }
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// Reads up to the end of the final response head (informational `1xx`
/// heads are skipped); the bytes after it stay in `raw`. The flag: the
/// connection may carry another request after this response.
async fn read_head(
    stream: &mut TcpStream,
    raw: &mut BytesMut,
) -> Result<(StatusCode, HeaderMap, bool), Failure> {
    // Whether the upstream sent anything: if not, it never answered.
    let mut answered = false;
    let failed = |cause: String, answered: bool| Failure {
        cause,
        before_answer: !answered,
    };
    loop {
        let head = parse_head(raw).map_err(|cause| failed(cause, true))?;
        if let Some((status, headers, keep_alive)) = head {
            if status.is_informational() && status != StatusCode::SWITCHING_PROTOCOLS {
                continue;
            }
            return Ok((status, headers, keep_alive));
        }
        if raw.len() > MAX_HEAD {
            let cause = format!(
                "request failed: response head larger than {} KiB",
                MAX_HEAD >> 10
            );
            return Err(failed(cause, true));
        }
        raw.reserve(READ_SIZE);
        let read = stream
            .read_buf(raw)
            .await
            .map_err(|e| failed(format!("request failed: {e}"), answered))?;
        if read == 0 {
            let cause = "request failed: connection closed before a response".to_owned();
            return Err(failed(cause, answered));
        }
        answered = true;
    }
}

/// A complete head at the start of `raw`, taken out of it.
fn parse_head(raw: &mut BytesMut) -> Result<Option<(StatusCode, HeaderMap, bool)>, String> {
    let invalid = |why: &dyn std::fmt::Display| format!("request failed: invalid response: {why}");
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut fields);
    let length = match response.parse(raw) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(invalid(&e)),
    };
    let code = response.code.unwrap_or_default();
    let status = StatusCode::from_u16(code).map_err(|e| invalid(&e))?;
    let mut headers = HeaderMap::with_capacity(response.headers.len());
    for field in response.headers.iter() {
        let name = HeaderName::from_bytes(field.name.as_bytes()).map_err(|e| invalid(&e))?;
        let value = HeaderValue::from_bytes(field.value).map_err(|e| invalid(&e))?;
        headers.append(name, value);
    }
    // HTTP/1.1 keeps the connection unless either side says `close`.
    let keep_alive = response.version == Some(1)
        && !headers
            .get_all(header::CONNECTION)
            .iter()
            .any(|value| value.as_bytes().eq_ignore_ascii_case(b"close"));
    raw.advance(length);
    Ok(Some((status, headers, keep_alive)))
}

/// Where the body ends (RFC 9112 6.3).
fn framing_of(method: &Method, status: StatusCode, headers: &HeaderMap) -> Result<Framing, String> {
    let invalid = |why: &str| format!("request failed: invalid response: {why}");
    if method == Method::HEAD
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
        || status.is_informational()
    {
        return Ok(Framing::Length(0));
    }
    let codings: Vec<&[u8]> = headers
        .get_all(header::TRANSFER_ENCODING)
        .iter()
        .flat_map(|value| value.as_bytes().split(|&b| b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|coding| !coding.is_empty())
        .collect();
    if let Some(last) = codings.last() {
        if !last.eq_ignore_ascii_case(b"chunked") {
            // Not chunked last: the body runs to the connection's end.
            return Ok(Framing::Close);
        }
        if codings.len() > 1 {
            return Err(invalid("a transfer coding besides chunked"));
        }
        return Ok(Framing::chunked());
    }
    let mut length = None;
    for value in headers.get_all(header::CONTENT_LENGTH) {
        for part in value.as_bytes().split(|&b| b == b',') {
            let parsed = std::str::from_utf8(part.trim_ascii())
                .ok()
                .filter(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|digits| digits.parse::<u64>().ok())
                .ok_or_else(|| invalid("a Content-Length that is not a number"))?;
            if length.is_some_and(|known| known != parsed) {
                return Err(invalid("Content-Length values that differ"));
            }
            length = Some(parsed);
        }
    }
    Ok(length.map_or(Framing::Close, Framing::Length))
}

/// The response body, as the pieces that each read brought. The
/// connection closes when the body ends or this is dropped.
pub struct WireBody {
    stream: Option<TcpStream>,
    /// What was read and not yet given out (at most one read, and a
    /// chunk-size line in progress).
    raw: BytesMut,
    framing: Framing,
    /// Where the connection goes when the body has been read to its end
    /// (`None`: the upstream closes it, or its end is the close).
    pool: Option<Arc<Pool>>,
}

impl WireBody {
    /// The body was read to its end: the connection goes back to the pool
    /// if it can carry another request, else it is closed.
    fn release(&mut self) {
        let stream = self.stream.take();
        if let (Some(stream), Some(pool)) = (stream, self.pool.take()) {
            if self.raw.is_empty() {
                pool.put(stream);
            }
        }
    }

    /// What `raw` holds of the body, taken out of it (without a copy:
    /// chunked framing is taken out in place).
    fn take(&mut self) -> Result<Bytes, String> {
        let (used, body) = self
            .framing
            .decode_in_place(&mut self.raw)
            .map_err(|e| format!("body failed: {e}"))?;
        let mut piece = self.raw.split_to(used);
        piece.truncate(body);
        Ok(piece.freeze())
    }
}

impl Stream for WireBody {
    type Item = Result<Bytes, String>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.stream.is_none() {
                return Poll::Ready(None);
            }
            if !this.raw.is_empty() {
                match this.take() {
                    Ok(piece) if !piece.is_empty() => return Poll::Ready(Some(Ok(piece))),
                    Ok(_) => {}
                    Err(e) => {
                        this.stream = None;
                        return Poll::Ready(Some(Err(e)));
                    }
                }
            }
            if this.framing.is_done() {
                this.release();
                return Poll::Ready(None);
            }
            let Some(stream) = &mut this.stream else {
                return Poll::Ready(None);
            };
            if this.raw.capacity() - this.raw.len() < READ_SIZE / 4 {
                this.raw.reserve(READ_SIZE);
            }
            match tokio_util::io::poll_read_buf(Pin::new(stream), cx, &mut this.raw) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(0)) => {
                    this.stream = None;
                    if matches!(this.framing, Framing::Close) {
                        return Poll::Ready(None);
                    }
                    let cause = "body failed: connection closed before the body's end".to_owned();
                    return Poll::Ready(Some(Err(cause)));
                }
                Poll::Ready(Ok(_)) => {}
                Poll::Ready(Err(e)) => {
                    this.stream = None;
                    return Poll::Ready(Some(Err(format!("body failed: {e}"))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
