//! The Redis store against a real `redis-server` (skipped, with a line on
//! stderr, where none is installed, unless TOOLCALL_REQUIRE_REDIS is set).
//! Every test is bounded in time; waits poll with a deadline.

use std::future::Future;
use std::time::{Duration, Instant};

use ::redis::aio::MultiplexedConnection;
use serde_json::json;

use super::redis::{KEY_PREFIX, REDIS_TIMEOUT};
use super::redis_server::{redis_server, testdata, unused_port, RedisServer};
use super::{ResponseStore, StoreArgs, StoreError, StoredResponse};

/// The most any one test may take.
const TEST_DEADLINE: Duration = Duration::from_secs(60);

/// How much later than `REDIS_TIMEOUT` a failing call may end, on a busy
/// machine.
const SLACK: Duration = Duration::from_millis(1500);

async fn bounded<F: Future>(test: F) -> F::Output {
    tokio::time::timeout(TEST_DEADLINE, test)
        .await
        .expect("the test ends within its deadline")
}

fn response(text: &str) -> StoredResponse {
    StoredResponse {
        items: vec![
            json!({"type": "message", "role": "user", "content": "run the tests"}),
            json!({"type": "function_call", "call_id": "call_1", "name": "shell",
                   "arguments": "{\"cmd\":\"cargo test\"}"}),
            json!({"type": "function_call_output", "call_id": "call_1", "output": text}),
        ],
    }
}

async fn open(url: &str, bytes: usize, ttl: f64) -> ResponseStore {
    let args = StoreArgs {
        response_store: url.to_owned(),
        response_store_bytes: bytes,
        response_store_ttl: ttl,
    };
    ResponseStore::open(&args).await.expect("the store opens")
}

/// A connection of the test's own, to look at what the store wrote.
async fn raw(url: &str) -> MultiplexedConnection {
    ::redis::Client::open(url)
        .expect("a URL")
        .get_multiplexed_async_connection()
        .await
        .expect("redis-server answers")
}

/// Asserts `result` is `Unavailable` and came within the store's timeout.
fn assert_unavailable<T: std::fmt::Debug>(result: Result<T, StoreError>, started: Instant) {
    assert_unavailable_within(result, started, REDIS_TIMEOUT + SLACK);
}

fn assert_unavailable_within<T: std::fmt::Debug>(
    result: Result<T, StoreError>,
    started: Instant,
    within: Duration,
) {
    let took = started.elapsed();
    assert!(
        matches!(result, Err(StoreError::Unavailable(_))),
        "expected Unavailable, got {result:?}"
    );
    assert!(took < within, "Unavailable only after {took:?}");
}

#[tokio::test]
async fn a_response_is_stored_as_json_with_an_expiry() {
    let Some(server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1 << 20, 3600.0).await;
        let stored = response("ok");
        store.put("resp_1", &stored).await.expect("stored");
        assert_eq!(
            store.get("resp_1").await.expect("read"),
            Some(stored.clone())
        );
        assert_eq!(store.get("resp_none").await.expect("read"), None);

        let mut redis = raw(&server.url()).await;
        let key = format!("{KEY_PREFIX}resp_1");
        let json: String = ::redis::cmd("GET")
            .arg(&key)
            .query_async(&mut redis)
            .await
            .expect("GET");
        let written: StoredResponse = serde_json::from_str(&json).expect("JSON");
        assert_eq!(written, stored);
        let millis: i64 = ::redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut redis)
            .await
            .expect("PTTL");
        assert!((1..=3_600_000).contains(&millis), "expiry {millis} ms");
    })
    .await;
}

#[tokio::test]
async fn a_response_expires_after_its_ttl() {
    let Some(server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1 << 20, 1.0).await;
        // Seen before the second is up; a machine that stalled past it
        // tells nothing, so store it again.
        let stored_at = loop {
            let before = Instant::now();
            store
                .put("resp_short", &response("ok"))
                .await
                .expect("stored");
            let seen = store.get("resp_short").await.expect("read");
            if before.elapsed() < Duration::from_millis(900) {
                assert!(seen.is_some(), "there within its second");
                break before;
            }
        };
        let deadline = stored_at + Duration::from_secs(10);
        while store.get("resp_short").await.expect("read").is_some() {
            assert!(Instant::now() < deadline, "still there 10 s later");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            stored_at.elapsed() >= Duration::from_secs(1),
            "gone too soon"
        );
    })
    .await;
}

#[tokio::test]
async fn a_response_over_the_bound_is_not_sent() {
    let Some(server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1000, 3600.0).await;
        store
            .put("resp_small", &response("ok"))
            .await
            .expect("fits");
        let big = response(&"x".repeat(1000));
        let bytes = serde_json::to_vec(&big).expect("JSON").len();
        match store.put("resp_big", &big).await {
            Err(StoreError::TooLarge { bytes: b, limit }) => assert_eq!((b, limit), (bytes, 1000)),
            other => panic!("expected TooLarge, got {other:?}"),
        }
        let mut redis = raw(&server.url()).await;
        let keys: Vec<String> = ::redis::cmd("KEYS")
            .arg("*")
            .query_async(&mut redis)
            .await
            .expect("KEYS");
        assert_eq!(keys, [format!("{KEY_PREFIX}resp_small")]);
    })
    .await;
}

#[tokio::test]
async fn a_killed_redis_fails_requests_quickly_and_a_restarted_one_serves_again() {
    let Some(mut server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1 << 20, 3600.0).await;
        store
            .put("resp_before", &response("ok"))
            .await
            .expect("stored");

        server.kill();
        // A closed connection and a refused one are seen at once: these
        // end well before the timeout (in about a millisecond).
        let started = Instant::now();
        let result = store.get("resp_before").await;
        assert_unavailable_within(result, started, REDIS_TIMEOUT);
        let started = Instant::now();
        let result = store.put("resp_during", &response("ok")).await;
        assert_unavailable_within(result, started, REDIS_TIMEOUT);

        server.restart().await;
        // The first call after the restart already succeeds.
        store
            .put("resp_after", &response("back"))
            .await
            .expect("stored again");
        assert_eq!(
            store.get("resp_after").await.expect("read"),
            Some(response("back"))
        );
        // Without persistence the restarted server is empty.
        assert_eq!(store.get("resp_before").await.expect("read"), None);
    })
    .await;
}

#[tokio::test]
async fn a_hung_redis_fails_requests_at_the_timeout_and_serves_again_when_it_wakes() {
    let Some(server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1 << 20, 3600.0).await;
        store.put("resp_1", &response("ok")).await.expect("stored");
        let pid = i32::try_from(server.pid()).expect("a pid");
        // SAFETY: kill(2) on our own child; no memory is involved.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
        let started = Instant::now();
        let result = store.get("resp_1").await;
        assert_unavailable(result, started);
        assert!(
            started.elapsed() >= REDIS_TIMEOUT,
            "gave up before the timeout"
        );
        // SAFETY: as above.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
        assert_eq!(
            store.get("resp_1").await.expect("read"),
            Some(response("ok"))
        );
    })
    .await;
}

#[tokio::test]
async fn a_redis_down_at_start_is_waited_for() {
    let Some(binary) = redis_server() else { return };
    bounded(async {
        let port = unused_port();
        let url = format!("redis://127.0.0.1:{port}");
        let store = open(&url, 1 << 20, 3600.0).await;
        let started = Instant::now();
        assert_unavailable(store.get("resp_1").await, started);

        let _server = RedisServer::start_on(&binary, port, &[])
            .await
            .expect("redis-server takes the port");
        store.put("resp_1", &response("ok")).await.expect("stored");
        assert_eq!(
            store.get("resp_1").await.expect("read"),
            Some(response("ok"))
        );
    })
    .await;
}

#[tokio::test]
async fn a_password_is_used_and_never_shown() {
    let Some(server) = RedisServer::start(&["--requirepass", "s3cret-pw"]).await else {
        return;
    };
    bounded(async {
        let port = server.port();
        let url = format!("redis://:s3cret-pw@127.0.0.1:{port}/2");
        let store = open(&url, 1 << 20, 3600.0).await;
        assert_eq!(
            store.describe(),
            format!("redis://127.0.0.1:{port}/2, each at most 1048576 bytes (--response-store-bytes), kept 3600s (--response-store-ttl)")
        );
        store.put("resp_1", &response("ok")).await.expect("stored");
        assert_eq!(store.get("resp_1").await.expect("read"), Some(response("ok")));

        let wrong = StoreArgs {
            response_store: format!("redis://:wrong-pw@127.0.0.1:{port}"),
            response_store_bytes: 1 << 20,
            response_store_ttl: 3600.0,
        };
        let message = match ResponseStore::open(&wrong).await {
            Ok(_) => panic!("a wrong password is refused at start"),
            Err(message) => message,
        };
        assert!(message.starts_with("--response-store redis://127.0.0.1:"), "{message}");
        assert!(!message.contains("wrong-pw"), "{message}");
    })
    .await;
}

#[tokio::test]
async fn another_programs_value_is_corrupt_not_a_panic() {
    let Some(server) = RedisServer::start(&[]).await else {
        return;
    };
    bounded(async {
        let store = open(&server.url(), 1 << 20, 3600.0).await;
        let mut redis = raw(&server.url()).await;
        let key = format!("{KEY_PREFIX}resp_other");
        let () = ::redis::cmd("SET")
            .arg(&key)
            .arg("not json")
            .query_async(&mut redis)
            .await
            .expect("SET");
        match store.get("resp_other").await {
            Err(StoreError::Corrupt(_)) => {}
            other => panic!("expected Corrupt, got {other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn tls_to_a_server_whose_ca_is_not_trusted_fails_per_request() {
    let Some((_server, tls_port)) = RedisServer::start_with_tls().await else {
        return;
    };
    bounded(async {
        let store = open(&format!("rediss://127.0.0.1:{tls_port}"), 1 << 20, 3600.0).await;
        let started = Instant::now();
        let result = store.get("resp_1").await;
        assert!(
            matches!(&result, Err(StoreError::Unavailable(why)) if why.contains("certificate")),
            "expected a certificate error, got {result:?}"
        );
        assert_unavailable(result, started);
    })
    .await;
}

/// Set by `tls_with_the_ca_in_ssl_cert_file_works` for the child process
/// it runs: the `rediss://` URL to try.
const CHILD_REDISS_URL: &str = "TOOLCALL_TEST_REDISS_URL";

/// `rediss://` trusts the CA that SSL_CERT_FILE names. Run in a child
/// process, since setting the variable here would touch every thread.
#[tokio::test]
async fn tls_with_the_ca_in_ssl_cert_file_works() {
    let Some((_server, tls_port)) = RedisServer::start_with_tls().await else {
        return;
    };
    bounded(async {
        let child = tokio::process::Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "proxy::store::redis_tests::tls_roundtrip_in_a_child_process",
                "--exact",
                "--ignored",
                "--nocapture",
            ])
            .env("SSL_CERT_FILE", testdata().join("ca.crt"))
            .env(CHILD_REDISS_URL, format!("rediss://127.0.0.1:{tls_port}"))
            .kill_on_drop(true)
            .output()
            .await
            .expect("the test binary runs");
        let stdout = String::from_utf8_lossy(&child.stdout);
        let stderr = String::from_utf8_lossy(&child.stderr);
        assert!(
            child.status.success() && stdout.contains("1 passed"),
            "the child failed:\n{stdout}\n{stderr}"
        );
    })
    .await;
}

#[tokio::test]
#[ignore = "run by tls_with_the_ca_in_ssl_cert_file_works, with SSL_CERT_FILE set"]
async fn tls_roundtrip_in_a_child_process() {
    let Some(url) = std::env::var_os(CHILD_REDISS_URL) else {
        eprintln!("skipped: {CHILD_REDISS_URL} is not set");
        return;
    };
    bounded(async {
        let store = open(url.to_str().expect("UTF-8"), 1 << 20, 3600.0).await;
        store
            .put("resp_tls", &response("ok"))
            .await
            .expect("stored over TLS");
        assert_eq!(
            store.get("resp_tls").await.expect("read"),
            Some(response("ok"))
        );
    })
    .await;
}
