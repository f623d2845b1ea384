//! Sending a request on to the upstream, and which headers cross.

use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method};
use bytes::Bytes;

use super::config::Config;
use super::error::{upstream_cause, ProxyError};
use super::target::Target;

/// The upstream server and the connection pools to it.
pub struct Upstream {
    /// For rewritten requests: decodes a compressed answer (an upstream
    /// may compress although asked for `identity`), since the proxy reads it.
    reading: reqwest::Client,
    /// For everything else: bytes go back as they came, encoding and all.
    passing: reqwest::Client,
    target: Target,
}

impl Upstream {
    pub fn new(config: &Config) -> Result<Upstream, String> {
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(config.connect_timeout)
                // Redirects are the client's business: pass them back.
                .redirect(reqwest::redirect::Policy::none())
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
    ) -> Result<reqwest::Response, ProxyError> {
        let mut headers = end_to_end(headers);
        // reqwest sets these for the upstream's connection.
        headers.remove(header::HOST);
        headers.remove(header::CONTENT_LENGTH);
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
        let client = if plain { &self.reading } else { &self.passing };
        client
            .request(method, url)
            .headers(headers)
            .body(body)
            .send()
            .await
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
