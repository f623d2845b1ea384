//! Sending a request on to the upstream, and which headers cross.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use bytes::Bytes;
use futures_util::{Stream, TryStreamExt};

use super::config::Config;
use super::error::{upstream_cause, ProxyError};
use super::target::Target;
use super::wire;

/// An upstream response body: its pieces as they arrive, or why it broke
/// off (the cause, for the log).
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, String>> + Send>>;

/// The upstream's answer, whichever client read it.
pub struct UpstreamResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: BodyStream,
}

impl UpstreamResponse {
    /// The body's length, when the upstream said it (and it is not
    /// decoded on the way).
    pub fn content_length(&self) -> Option<u64> {
        self.headers
            .get(header::CONTENT_LENGTH)?
            .to_str()
            .ok()?
            .parse()
            .ok()
    }

    fn from_reqwest(response: reqwest::Response) -> UpstreamResponse {
        UpstreamResponse {
            status: response.status(),
            headers: response.headers().clone(),
            body: Box::pin(response.bytes_stream().map_err(upstream_cause)),
        }
    }

    /// A response read by [`wire`], its body decoded when the upstream
    /// compressed it (as reqwest does for the other rewrites: the proxy
    /// reads the body, whatever it asked for).
    fn from_wire(response: wire::WireResponse) -> UpstreamResponse {
        let mut headers = response.headers;
        let body: BodyStream = Box::pin(response.body);
        let coding = headers
            .get(header::CONTENT_ENCODING)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.trim().to_ascii_lowercase());
        let body = match coding.as_deref().and_then(Coding::of) {
            Some(coding) => {
                headers.remove(header::CONTENT_ENCODING);
                headers.remove(header::CONTENT_LENGTH);
                coding.decode(body)
            }
            None => body,
        };
        UpstreamResponse {
            status: response.status,
            headers,
            body,
        }
    }
}

/// The codings reqwest decodes (any other passes as it came).
enum Coding {
    Gzip,
    Brotli,
    Deflate,
    Zstd,
}

impl Coding {
    fn of(name: &str) -> Option<Coding> {
        Some(match name {
            "gzip" | "x-gzip" => Coding::Gzip,
            "br" => Coding::Brotli,
            "deflate" => Coding::Deflate,
            "zstd" => Coding::Zstd,
            _ => return None,
        })
    }

    fn decode(self, body: BodyStream) -> BodyStream {
        use async_compression::tokio::bufread::{
            BrotliDecoder, GzipDecoder, ZlibDecoder, ZstdDecoder,
        };
        use tokio_util::io::{ReaderStream, StreamReader};
        let reader = StreamReader::new(body.map_err(std::io::Error::other));
        let failed = |e: std::io::Error| format!("body failed: error decoding response body: {e}");
        match self {
            Coding::Gzip => Box::pin(ReaderStream::new(GzipDecoder::new(reader)).map_err(failed)),
            Coding::Brotli => {
                Box::pin(ReaderStream::new(BrotliDecoder::new(reader)).map_err(failed))
            }
            Coding::Deflate => {
                Box::pin(ReaderStream::new(ZlibDecoder::new(reader)).map_err(failed))
            }
            Coding::Zstd => Box::pin(ReaderStream::new(ZstdDecoder::new(reader)).map_err(failed)),
        }
    }
}

/// Idle upstream connections kept at most, over the two pools a proxy
/// uses: the rewrites' (its own client's, or `reading`'s where that
/// cannot go) and the passthrough's. Counted against the open-file limit.
pub const MAX_IDLE_UPSTREAM: usize = 2 * wire::MAX_IDLE;

/// The upstream server and the connection pools to it.
pub struct Upstream {
    /// For rewritten requests: decodes a compressed answer (an upstream
    /// may compress although asked for `identity`), since the proxy reads
    /// it. Used where [`wire`] cannot go (TLS, credentials in the URL).
    reading: reqwest::Client,
    /// For everything else: bytes go back as they came, encoding and all.
    passing: reqwest::Client,
    target: Target,
    connect_timeout: Duration,
    /// Idle connections of the rewrites' own client.
    wire_pool: Arc<wire::Pool>,
}

impl Upstream {
    pub fn new(config: &Config) -> Result<Upstream, String> {
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(config.connect_timeout)
                // Redirects are the client's business: pass them back.
                .redirect(reqwest::redirect::Policy::none())
                // The upstream is reached directly, as by the rewrites'
                // own client: no `HTTP_PROXY` in the environment can send
                // one route one way and another the other.
                .no_proxy()
                // One host: its idle connections, bounded as the
                // rewrites' own pool is.
                .pool_max_idle_per_host(wire::MAX_IDLE)
        };
        let passing = builder()
            .no_gzip()
            .no_brotli()
            .no_deflate()
            .no_zstd()
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        let reading = builder()
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Upstream {
            reading,
            passing,
            target: config.upstream.clone(),
            connect_timeout: config.connect_timeout,
            wire_pool: Arc::default(),
        })
    }

    /// Sends the request as the client made it (less hop-by-hop headers).
    /// `plain`: ask for an unencoded body, because the proxy reads it (and
    /// decode one that comes encoded all the same).
    pub async fn send(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &HeaderMap,
        body: Bytes,
        plain: bool,
    ) -> Result<UpstreamResponse, ProxyError> {
        let mut headers = end_to_end(headers);
        // Set for the upstream's connection by whichever client sends it.
        headers.remove(header::HOST);
        headers.remove(header::CONTENT_LENGTH);
        // The proxy answered any `100-continue` itself: the body is here.
        headers.remove(header::EXPECT);
        if plain {
            headers.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_static("identity"),
            );
        }
        // The server screens paths before the body is read; this is the
        // same check, for any path that reaches here another way.
        let url = self
            .target
            .url(path_and_query)
            .map_err(ProxyError::InvalidPath)?;
        if plain && wire::serves(&url) {
            let timeout = self.connect_timeout;
            return wire::send(&self.wire_pool, &method, &url, &headers, &body, timeout)
                .await
                .map(UpstreamResponse::from_wire)
                .map_err(ProxyError::UpstreamUnreachable);
        }
        let client = if plain { &self.reading } else { &self.passing };
        client
            .request(method, url)
            .headers(headers)
            .body(body)
            .send()
            .await
            .map(UpstreamResponse::from_reqwest)
            .map_err(|e| ProxyError::UpstreamUnreachable(upstream_cause(e)))
    }
}

/// The headers of a response or request without the hop-by-hop ones
/// (RFC 9110 7.6.1): those describe one connection, not the message.
pub fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let named_by_connection: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|name| HeaderName::try_from(name.trim()).ok())
        .collect();
    let mut kept = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        if !is_hop_by_hop(name) && !named_by_connection.contains(name) {
            kept.append(name.clone(), value.clone());
        }
    }
    kept
}

fn is_hop_by_hop(name: &HeaderName) -> bool {
    const HOP_BY_HOP: &[&str] = &[
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    ];
    HOP_BY_HOP.contains(&name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer k"));
        headers.insert("connection", HeaderValue::from_static("close, x-hop"));
        headers.insert("x-hop", HeaderValue::from_static("1"));
        headers.insert("transfer-encoding", HeaderValue::from_static("chunked"));
        headers.append("x-many", HeaderValue::from_static("a"));
        headers.append("x-many", HeaderValue::from_static("b"));
        let kept = end_to_end(&headers);
        assert_eq!(kept.len(), 3);
        assert_eq!(kept["authorization"], "Bearer k");
        assert_eq!(kept.get_all("x-many").iter().count(), 2);
    }
}
