//! `--response-store redis://…`: responses kept in Redis or Valkey as JSON
//! under `toolcall:response:<id>`, with the TTL as the key's expiry, so
//! that every proxy in front of the same Redis can continue any of them.
//!
//! Each call gives up after `REDIS_TIMEOUT`, so a Redis that is down or
//! hung costs a request that long at most, as `StoreError::Unavailable`.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{Client, ErrorKind, RedisError};

use super::super::log;
use super::super::target::redact;
use super::{from_json, to_json, StoreError, StoredResponse};

/// Every key is this and the response's id, so that the proxy's keys can
/// share a Redis with others' (and be found there).
pub const KEY_PREFIX: &str = "toolcall:response:";

/// How long one store call (connecting included) may take.
pub(super) const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

pub struct RedisStore {
    url: String,
    limit_bytes: usize,
    ttl_millis: u64,
    ttl: Duration,
    client: Client,
    /// The connection once made, and how many have been made before it
    /// (so that a call that timed out drops only the one it used).
    connection: Mutex<Option<(u64, ConnectionManager)>>,
    made: AtomicU64,
    /// Held while connecting, so that a burst of requests makes one
    /// connection, not one each.
    connecting: tokio::sync::Mutex<()>,
}

impl RedisStore {
    /// Checks the URL and tries to connect once. Unreachable: a log line,
    /// and each call tries again. A refused password: an error.
    pub async fn open(url: &str, limit_bytes: usize, ttl: Duration) -> Result<RedisStore, String> {
        let client = client(url)?;
        let store = RedisStore {
            url: url.to_owned(),
            limit_bytes,
            ttl_millis: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1),
            ttl,
            client,
            connection: Mutex::new(None),
            made: Default::default(),
            connecting: tokio::sync::Mutex::new(()),
        };
        let first = tokio::time::timeout(REDIS_TIMEOUT, store.connection()).await;
        match first {
            Ok(Ok(_)) => {}
            Ok(Err(e)) if is_misconfigured(&e) => {
                return Err(format!(
                    "--response-store {}: Redis refused the connection: {e}",
                    redact(url)
                ))
            }
            Ok(Err(e)) => store.log_unreachable(&e.to_string()),
            Err(_) => store.log_unreachable(&format!("no answer within {REDIS_TIMEOUT:?}")),
        }
        Ok(store)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn limit_bytes(&self) -> usize {
        self.limit_bytes
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    pub async fn get(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        let key = key(id);
        let json: Option<Vec<u8>> = self
            .call(|mut connection| {
                let get = ::redis::cmd("GET").arg(&key).clone();
                async move { get.query_async(&mut connection).await }
            })
            .await?;
        json.map(|json| from_json(&json)).transpose()
    }

    pub async fn put(&self, id: &str, response: &StoredResponse) -> Result<(), StoreError> {
        let json = to_json(response)?;
        if json.len() > self.limit_bytes {
            return Err(StoreError::TooLarge {
                bytes: json.len(),
                limit: self.limit_bytes,
            });
        }
        let key = key(id);
        let json = &json;
        self.call(|mut connection| {
            let mut set = ::redis::cmd("SET");
            set.arg(&key).arg(json).arg("PX").arg(self.ttl_millis);
            async move { set.query_async::<()>(&mut connection).await }
        })
        .await
    }

    /// Runs `command` on the connection, within `REDIS_TIMEOUT` in all.
    /// A command cut by a dropped connection is sent once more: the
    /// connection manager reconnects on such an error, and the first
    /// request after Redis comes back would otherwise fail for nothing.
    async fn call<T, F, Fut>(&self, command: F) -> Result<T, StoreError>
    where
        F: Fn(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, RedisError>>,
    {
        let mut used = None;
        let attempt = async {
            let (number, connection) = self.connection().await?;
            used = Some(number);
            match command(connection.clone()).await {
                Err(e) if e.is_unrecoverable_error() => command(connection).await,
                result => result,
            }
        };
        let outcome = tokio::time::timeout(REDIS_TIMEOUT, attempt).await;
        match outcome {
            Ok(result) => result.map_err(|e| StoreError::Unavailable(e.to_string())),
            Err(_) => {
                // A connection that stopped answering may never answer
                // again (a Redis moved away without a reset): make another.
                if let Some(number) = used {
                    self.forget(number);
                }
                Err(StoreError::Unavailable(format!(
                    "Redis did not answer within {REDIS_TIMEOUT:?}"
                )))
            }
        }
    }

    /// The connection, made now if there is none.
    async fn connection(&self) -> Result<(u64, ConnectionManager), RedisError> {
        if let Some(made) = self.current() {
            return Ok(made);
        }
        let _connecting = self.connecting.lock().await;
        if let Some(made) = self.current() {
            return Ok(made);
        }
        let manager =
            ConnectionManager::new_with_config(self.client.clone(), manager_config()).await?;
        let number = self.made.fetch_add(1, Ordering::Relaxed);
        *self.slot() = Some((number, manager.clone()));
        Ok((number, manager))
    }

    fn current(&self) -> Option<(u64, ConnectionManager)> {
        self.slot().clone()
    }

    fn forget(&self, number: u64) {
        let mut slot = self.slot();
        if slot.as_ref().is_some_and(|(made, _)| *made == number) {
            *slot = None;
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<(u64, ConnectionManager)>> {
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn log_unreachable(&self, why: &str) {
        log::line(
            "warn",
            &format!(
                "the response store {} cannot be reached now ({why}); starting anyway, each request that needs it tries again",
                redact(&self.url)
            ),
            &[],
        );
    }
}

fn key(id: &str) -> String {
    format!("{KEY_PREFIX}{id}")
}

/// The client for `url`, which is not connected yet.
fn client(url: &str) -> Result<Client, String> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme);
    let known = [
        "redis",
        "rediss",
        "valkey",
        "valkeys",
        "unix",
        "redis+unix",
        "valkey+unix",
    ];
    if !scheme.is_some_and(|scheme| known.contains(&scheme)) {
        return Err(format!(
            "--response-store: `{}` is neither `memory` nor a Redis URL (redis://HOST:PORT[/DB], rediss://…, unix:///PATH)",
            redact(url)
        ));
    }
    Client::open(url).map_err(|e| {
        format!(
            "--response-store: `{}` is not a Redis URL: {e}",
            redact(url)
        )
    })
}

/// No retries with backoff inside the manager: its default waits from
/// 1 s up to 60 s between attempts, during which every call would time
/// out although Redis may be back; each call makes its own attempt
/// instead. No response timeout either: `call`'s own deadline, which
/// also replaces a connection that stopped answering, is the one.
fn manager_config() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(REDIS_TIMEOUT)
        .set_number_of_retries(0)
}

/// An error that waiting will not fix: a wrong password or user, a URL
/// the client cannot use.
fn is_misconfigured(error: &RedisError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::AuthenticationFailed | ErrorKind::InvalidClientConfig
    )
}
