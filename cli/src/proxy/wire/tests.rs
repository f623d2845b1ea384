use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

/// Serves one connection: reads the request head (and a body of the
/// length it says), answers `answer` in the given pieces, then closes.
/// Returns the URL and what the request was.
async fn upstream(answer: Vec<&'static [u8]>) -> (Url, tokio::task::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!(
        "http://{}/v1/x?k=1",
        listener.local_addr().unwrap()
    ))
    .unwrap();
    let served = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buf = [0; 4096];
        // The whole request is read (a close with bytes unread would
        // reset the connection, and the answer with it).
        while !whole(&request) {
            let read = socket.read(&mut buf).await.unwrap();
            request.extend_from_slice(&buf[..read]);
        }
        for piece in answer {
            // The client may have gone (a head past its bound).
            if socket.write_all(piece).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        request
    });
    (url, served)
}

fn whole(request: &[u8]) -> bool {
    let text = String::from_utf8_lossy(request);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let length = head
        .split("content-length: ")
        .nth(1)
        .and_then(|rest| rest.split("\r\n").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    body.len() >= length
}

async fn exchange(answer: Vec<&'static [u8]>) -> (Result<(WireResponse, Vec<u8>), String>, String) {
    let (url, served) = upstream(answer).await;
    let mut headers = HeaderMap::new();
    headers.insert("authorization", HeaderValue::from_static("Bearer k"));
    headers.insert("host", HeaderValue::from_static("client-side"));
    let pool = Arc::default();
    let sent = send(
        &pool,
        &Method::POST,
        &url,
        &headers,
        b"{}",
        Duration::from_secs(5),
    )
    .await;
    let result = match sent {
        Ok(mut response) => {
            let mut body = Vec::new();
            let mut failed = None;
            while let Some(piece) = response.body.next().await {
                match piece {
                    Ok(piece) => body.extend_from_slice(&piece),
                    Err(e) => failed = Some(e),
                }
            }
            match failed {
                Some(e) => Err(e),
                None => Ok((response, body)),
            }
        }
        Err(e) => Err(e),
    };
    let request = String::from_utf8(served.await.unwrap()).unwrap();
    (result, request)
}

#[tokio::test]
async fn the_request_names_its_path_host_and_length_once() {
    let (result, request) = exchange(vec![b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]).await;
    let (response, body) = result.unwrap();
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(body, b"ok");
    let port = request.split("host: 127.0.0.1:").nth(1).unwrap();
    assert!(port.starts_with(|c: char| c.is_ascii_digit()));
    assert!(
        request.starts_with("POST /v1/x?k=1 HTTP/1.1\r\n"),
        "{request}"
    );
    assert!(request.contains("authorization: Bearer k\r\n"));
    assert!(!request.contains("client-side"));
    assert!(
        request.ends_with("content-length: 2\r\n\r\n{}"),
        "{request}"
    );
}

#[tokio::test]
async fn a_chunked_body_split_anywhere_and_1xx_heads_skipped() {
    let (result, _) = exchange(vec![
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n5\r",
        b"\nhel",
        b"lo\r\n6\r\n world\r\n0\r\n",
        b"\r\n",
    ])
    .await;
    let (response, body) = result.unwrap();
    assert_eq!(body, b"hello world");
    assert_eq!(response.headers["x-a"], "b");
}

#[tokio::test]
async fn a_body_without_length_runs_to_the_close() {
    let (result, _) = exchange(vec![b"HTTP/1.0 200 OK\r\n\r\nall", b" of it"]).await;
    assert_eq!(result.unwrap().1, b"all of it");
}

#[tokio::test]
async fn a_cut_body_is_an_error() {
    let (result, _) = exchange(vec![b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort"]).await;
    assert_eq!(
        result.err().unwrap(),
        "body failed: connection closed before the body's end"
    );
    let (result, _) = exchange(vec![
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel",
    ])
    .await;
    assert!(result.is_err());
    let (result, _) = exchange(vec![
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    ])
    .await;
    assert_eq!(
        result.err().unwrap(),
        "body failed: invalid chunk size in chunked body"
    );
}

#[tokio::test]
async fn a_bad_or_missing_head_is_an_error() {
    for (answer, expected) in [
        (
            &b""[..],
            "request failed: connection closed before a response",
        ),
        (b"nonsense\r\n\r\n", "request failed: invalid response"),
        (
            b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
            "request failed: invalid response: Content-Length values that differ",
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
            "request failed: invalid response: a Content-Length that is not a number",
        ),
    ] {
        let (result, _) = exchange(vec![answer]).await;
        let error = result.err().unwrap();
        assert!(error.starts_with(expected), "{error}");
    }
}

#[tokio::test]
async fn an_endless_head_is_refused_at_its_bound() {
    let line: &'static [u8] = Box::leak(
        format!("x-pad: {}\r\n", "a".repeat(1000))
            .into_bytes()
            .into_boxed_slice(),
    );
    let mut answer: Vec<&'static [u8]> = vec![b"HTTP/1.1 200 OK\r\n"];
    answer.extend(std::iter::repeat_n(line, 70));
    let (result, _) = exchange(answer).await;
    let error = result.err().unwrap();
    assert!(
        error.contains("response head larger than 64 KiB"),
        "{error}"
    );
}

#[tokio::test]
async fn a_refused_connection_says_cannot_connect() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    drop(listener);
    let pool = Arc::default();
    let error = send(
        &pool,
        &Method::GET,
        &url,
        &HeaderMap::new(),
        b"",
        Duration::from_secs(5),
    )
    .await
    .err()
    .unwrap();
    assert!(error.starts_with("cannot connect: "), "{error}");
}

#[test]
fn only_plain_http_without_credentials_is_served_here() {
    assert!(serves(&Url::parse("http://h:8000/v1").unwrap()));
    assert!(!serves(&Url::parse("https://h/v1").unwrap()));
    assert!(!serves(&Url::parse("http://u:p@h/v1").unwrap()));
}

/// Serves `answers` on each connection it accepts, one per request, then
/// closes it; counts the connections.
async fn keep_alive_upstream(answers: usize, accepts: Arc<std::sync::atomic::AtomicUsize>) -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/v1/x", listener.local_addr().unwrap())).unwrap();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            accepts.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::spawn(async move {
                for _ in 0..answers {
                    let mut request = Vec::new();
                    let mut buf = [0; 4096];
                    while !whole(&request) {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(read) => request.extend_from_slice(&buf[..read]),
                        }
                    }
                    let answer = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
                    if socket.write_all(answer).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

async fn body_of(pool: &Arc<Pool>, url: &Url) -> Vec<u8> {
    let mut response = send(
        pool,
        &Method::POST,
        url,
        &HeaderMap::new(),
        b"{}",
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    let mut body = Vec::new();
    while let Some(piece) = response.body.next().await {
        body.extend_from_slice(&piece.unwrap());
    }
    body
}

/// The connections 5 requests took, one after another, from an upstream
/// that closes each after `answers` of them.
async fn connections_for_five(answers: usize) -> usize {
    let accepts = Arc::default();
    let url = keep_alive_upstream(answers, Arc::clone(&accepts)).await;
    let pool = Arc::default();
    for _ in 0..5 {
        assert_eq!(body_of(&pool, &url).await, b"ok");
    }
    accepts.load(std::sync::atomic::Ordering::SeqCst)
}

#[tokio::test]
async fn a_connection_read_to_its_end_is_reused() {
    assert_eq!(connections_for_five(100).await, 1);
}

#[tokio::test]
async fn a_connection_the_upstream_closed_is_not_reused() {
    // Each request finds its idle connection closed (or it closes under
    // the request) and goes on a new one, without an error.
    assert_eq!(connections_for_five(1).await, 5);
}

#[tokio::test]
async fn a_body_not_read_to_its_end_closes_its_connection() {
    let accepts = Arc::default();
    let url = keep_alive_upstream(100, Arc::clone(&accepts)).await;
    let pool = Arc::default();
    let response = send(
        &pool,
        &Method::POST,
        &url,
        &HeaderMap::new(),
        b"{}",
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    drop(response);
    assert_eq!(body_of(&pool, &url).await, b"ok");
    assert_eq!(accepts.load(std::sync::atomic::Ordering::SeqCst), 2);
}
