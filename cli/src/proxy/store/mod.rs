//! Where `/v1/responses` keeps each answer's conversation, so that a
//! request with `previous_response_id` can continue it without resending
//! it: in the proxy's memory (one proxy) or in Redis / Valkey (several
//! proxies behind a load balancer, or a proxy that restarts).

mod memory;
#[cfg(test)]
mod memory_tests;
mod redis;
#[cfg(test)]
mod redis_server;
#[cfg(test)]
mod redis_tests;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::target::redact;
use memory::MemoryStore;
use redis::RedisStore;

/// The default `--response-store-bytes`: room for thousands of Codex
/// turns (~45 KB of conversation each), small beside a model server.
pub const DEFAULT_RESPONSE_STORE_BYTES: usize = 256 * 1024 * 1024;

/// The default `--response-store-ttl`, in seconds: an agent that pauses
/// for longer than an hour resends its conversation anyway.
pub const DEFAULT_RESPONSE_STORE_TTL: f64 = 3600.0;

/// The longest `--response-store-ttl` taken (100 years): far past any
/// use, and still a whole number of milliseconds Redis accepts.
const MAX_TTL_SECS: f64 = 100.0 * 365.0 * 86_400.0;

/// The flags, flattened into `toolcall proxy`'s.
#[derive(clap::Args, Debug, Clone)]
pub struct StoreArgs {
    /// Where `/v1/responses` keeps answers for `previous_response_id`:
    /// `memory` (this proxy's own memory, lost on restart) or a Redis or
    /// Valkey URL shared by several proxies: `redis://HOST:PORT[/DB]`,
    /// `redis://:PASSWORD@HOST:PORT`, `rediss://…` (TLS), or
    /// `unix:///path/to/redis.sock`.
    #[arg(long = "response-store", value_name = "URL", default_value = "memory")]
    pub response_store: String,
    /// The most bytes kept, counting each answer's conversation as JSON:
    /// with `memory`, of all answers together (the oldest are dropped to
    /// make room); with Redis, of one answer (a larger one is not stored).
    #[arg(long = "response-store-bytes", value_name = "N", default_value_t = DEFAULT_RESPONSE_STORE_BYTES)]
    pub response_store_bytes: usize,
    /// Seconds an answer is kept for `previous_response_id`: with
    /// `memory`, from when it was stored; with Redis, the key's expiry.
    #[arg(long = "response-store-ttl", value_name = "SECONDS", default_value_t = DEFAULT_RESPONSE_STORE_TTL)]
    pub response_store_ttl: f64,
}

/// One stored response: the conversation's items up to and including this
/// response's output (Responses API items as JSON objects: `message`,
/// `function_call`, `function_call_output`, `reasoning`, …), so that a
/// request with `previous_response_id` = this id continues from `items`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredResponse {
    pub items: Vec<Value>,
}

/// Why a store could not keep or give back a response.
#[derive(Debug)]
pub enum StoreError {
    /// The store cannot be reached or did not answer in time (Redis down,
    /// restarting, out of memory…); the next request tries again.
    Unavailable(String),
    /// The response's conversation is larger than `--response-store-bytes`
    /// allows for one entry, so it was not stored.
    TooLarge { bytes: usize, limit: usize },
    /// What is stored under the id is not a stored response (another
    /// program's key, or a damaged value).
    Corrupt(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(why) => write!(f, "the response store is unavailable: {why}"),
            StoreError::TooLarge { bytes, limit } => write!(
                f,
                "the response takes {bytes} bytes, more than one entry may (--response-store-bytes {limit})"
            ),
            StoreError::Corrupt(why) => write!(f, "the stored response cannot be read: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The store `--response-store` names; cheap to clone (one `Arc`).
#[derive(Clone)]
pub enum ResponseStore {
    Memory(Arc<MemoryStore>),
    Redis(Arc<RedisStore>),
}

/// The flags, checked.
struct Bounds {
    bytes: usize,
    ttl: Duration,
}

impl ResponseStore {
    /// The store the flags name. A bad flag is an error naming it. A Redis
    /// that cannot be reached now is not: the proxy starts, says so in one
    /// log line, and each request that needs the store tries again (so
    /// proxies and Redis can start in any order). A Redis that refuses the
    /// password is an error: waiting would not fix it.
    pub async fn open(args: &StoreArgs) -> Result<ResponseStore, String> {
        let bounds = Bounds::from_args(args)?;
        if args.response_store == "memory" {
            return Ok(ResponseStore::Memory(Arc::new(MemoryStore::new(
                bounds.bytes,
                bounds.ttl,
            ))));
        }
        let store = RedisStore::open(&args.response_store, bounds.bytes, bounds.ttl).await?;
        Ok(ResponseStore::Redis(Arc::new(store)))
    }

    /// The store and its bounds, for the start-up log line; a URL is shown
    /// without its password.
    pub fn describe(&self) -> String {
        match self {
            ResponseStore::Memory(store) => format!(
                "memory, at most {} bytes (--response-store-bytes), each kept {}s (--response-store-ttl)",
                store.limit_bytes(),
                store.ttl().as_secs_f64()
            ),
            ResponseStore::Redis(store) => format!(
                "{}, each at most {} bytes (--response-store-bytes), kept {}s (--response-store-ttl)",
                redact(store.url()),
                store.limit_bytes(),
                store.ttl().as_secs_f64()
            ),
        }
    }

    /// The response stored as `id`; `None` if there is none (never stored,
    /// expired, or evicted).
    pub async fn get(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        match self {
            ResponseStore::Memory(store) => store.get(id),
            ResponseStore::Redis(store) => store.get(id).await,
        }
    }

    /// Stores `response` as `id`, replacing any earlier one.
    pub async fn put(&self, id: &str, response: &StoredResponse) -> Result<(), StoreError> {
        match self {
            ResponseStore::Memory(store) => store.put(id, response),
            ResponseStore::Redis(store) => store.put(id, response).await,
        }
    }
}

impl Bounds {
    fn from_args(args: &StoreArgs) -> Result<Bounds, String> {
        if args.response_store_bytes == 0 {
            return Err("--response-store-bytes must be more than 0".into());
        }
        let secs = args.response_store_ttl;
        if !(0.001..=MAX_TTL_SECS).contains(&secs) {
            return Err(format!(
                "--response-store-ttl must be between 0.001 and {MAX_TTL_SECS} seconds, got {secs}"
            ));
        }
        Ok(Bounds {
            bytes: args.response_store_bytes,
            ttl: Duration::from_secs_f64(secs),
        })
    }
}

/// A response as the stores keep it: its JSON.
fn to_json(response: &StoredResponse) -> Result<Vec<u8>, StoreError> {
    // Only a map with non-string keys fails, which `Value` cannot hold.
    serde_json::to_vec(response).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn from_json(json: &[u8]) -> Result<StoredResponse, StoreError> {
    serde_json::from_slice(json).map_err(|e| StoreError::Corrupt(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        store: StoreArgs,
    }

    fn args(flags: &[&str]) -> StoreArgs {
        let mut argv = vec!["toolcall"];
        argv.extend_from_slice(flags);
        Cli::try_parse_from(argv).expect("flags parse").store
    }

    async fn open_error(flags: &[&str]) -> String {
        match ResponseStore::open(&args(flags)).await {
            Ok(store) => panic!("{flags:?} opened {}", store.describe()),
            Err(message) => message,
        }
    }

    #[tokio::test]
    async fn defaults_are_a_bounded_memory_store() {
        let store = ResponseStore::open(&args(&[])).await.expect("opens");
        assert!(matches!(store, ResponseStore::Memory(_)));
        assert_eq!(
            store.describe(),
            "memory, at most 268435456 bytes (--response-store-bytes), each kept 3600s (--response-store-ttl)"
        );
    }

    #[tokio::test]
    async fn bad_flags_are_refused_by_name() {
        let message = open_error(&["--response-store-bytes", "0"]).await;
        assert!(message.contains("--response-store-bytes"), "{message}");
        for ttl in ["0", "-1", "NaN", "inf", "0.0001", "1e12"] {
            let message = open_error(&[&format!("--response-store-ttl={ttl}")]).await;
            assert!(message.contains("--response-store-ttl"), "{ttl}: {message}");
        }
        for url in ["redis", "http://h:6379", "mem", "redis://h:notaport", ""] {
            let message = open_error(&[&format!("--response-store={url}")]).await;
            assert!(message.contains("--response-store"), "{url}: {message}");
        }
    }

    #[tokio::test]
    async fn a_bad_url_is_reported_without_its_password() {
        let message = open_error(&["--response-store", "redis://:hunter2@h:port"]).await;
        assert!(!message.contains("hunter2"), "{message}");
    }

    #[test]
    fn errors_say_what_happened() {
        let too_large = StoreError::TooLarge {
            bytes: 2000,
            limit: 1000,
        };
        assert_eq!(
            too_large.to_string(),
            "the response takes 2000 bytes, more than one entry may (--response-store-bytes 1000)"
        );
        let down = StoreError::Unavailable("connection refused".into());
        assert_eq!(
            down.to_string(),
            "the response store is unavailable: connection refused"
        );
        let corrupt = StoreError::Corrupt("expected value".into());
        assert_eq!(
            corrupt.to_string(),
            "the stored response cannot be read: expected value"
        );
    }
}
