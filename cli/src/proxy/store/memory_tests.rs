//! The memory store's bounds, with a clock the tests move (no sleeps).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::memory::{MemoryStore, ENTRY_OVERHEAD};
use super::{to_json, StoreError, StoredResponse};

const TTL: Duration = Duration::from_secs(60);

fn response(text: &str) -> StoredResponse {
    StoredResponse {
        items: vec![
            json!({"type": "message", "role": "user", "content": "hi"}),
            json!({"type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": text}]}),
        ],
    }
}

/// What `id` holding `response` counts against the byte bound.
fn cost(id: &str, response: &StoredResponse) -> usize {
    to_json(response).expect("serializes").len() + id.len() + ENTRY_OVERHEAD
}

fn present(store: &MemoryStore, id: &str, now: Instant) -> bool {
    store.get_at(id, now).expect("memory never fails").is_some()
}

#[test]
fn a_stored_response_comes_back_whole() {
    let store = MemoryStore::new(1 << 20, TTL);
    let now = Instant::now();
    let stored = response("hello");
    store.put_at("resp_1", &stored, now).expect("fits");
    assert_eq!(
        store.get_at("resp_1", now).expect("ok"),
        Some(stored.clone())
    );
    assert_eq!(store.get_at("resp_2", now).expect("ok"), None);
    assert_eq!(store.held(), (1, cost("resp_1", &stored)));
}

#[test]
fn the_oldest_go_first_when_bytes_run_out() {
    let one = cost("resp_a", &response("aaaa"));
    // Room for three entries of this size, not four.
    let store = MemoryStore::new(3 * one + one / 2, TTL);
    let now = Instant::now();
    for id in ["resp_a", "resp_b", "resp_c"] {
        store.put_at(id, &response("aaaa"), now).expect("fits");
    }
    // Reading does not make an entry younger.
    assert!(present(&store, "resp_a", now));
    store
        .put_at("resp_d", &response("aaaa"), now)
        .expect("fits");
    assert!(!present(&store, "resp_a", now), "the oldest went first");
    for id in ["resp_b", "resp_c", "resp_d"] {
        assert!(present(&store, id, now), "{id} stays");
    }
    assert_eq!(store.held(), (3, 3 * one));

    // A larger entry makes room by dropping as many of the oldest as needed.
    let big = response(&"x".repeat(2 * one - cost("resp_e", &response(""))));
    assert_eq!(cost("resp_e", &big), 2 * one);
    store.put_at("resp_e", &big, now).expect("fits");
    assert!(!present(&store, "resp_b", now));
    assert!(!present(&store, "resp_c", now));
    assert!(present(&store, "resp_d", now));
    assert!(present(&store, "resp_e", now));
    assert_eq!(store.held(), (2, 3 * one));
}

#[test]
fn an_entry_over_the_bound_is_refused_and_nothing_is_dropped() {
    let small = response("a");
    let limit = 4 * cost("resp_1", &small);
    let store = MemoryStore::new(limit, TTL);
    let now = Instant::now();
    store.put_at("resp_1", &small, now).expect("fits");

    let huge = response(&"x".repeat(limit));
    let bytes = cost("resp_2", &huge);
    match store.put_at("resp_2", &huge, now) {
        Err(StoreError::TooLarge { bytes: b, limit: l }) => assert_eq!((b, l), (bytes, limit)),
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(
        present(&store, "resp_1", now),
        "a refused entry evicts nothing"
    );
    assert!(!present(&store, "resp_2", now));

    // An entry exactly as large as the bound is taken (alone).
    let exact = response(&"x".repeat(limit - cost("resp_3", &response(""))));
    assert_eq!(cost("resp_3", &exact), limit);
    store
        .put_at("resp_3", &exact, now)
        .expect("exactly the bound fits");
    assert!(present(&store, "resp_3", now));
    assert!(!present(&store, "resp_1", now));
    assert_eq!(store.held(), (1, limit));
}

#[test]
fn storing_an_id_again_replaces_it_and_makes_it_the_newest() {
    let one = cost("resp_a", &response("aaaa"));
    let store = MemoryStore::new(2 * one, TTL);
    let now = Instant::now();
    store
        .put_at("resp_a", &response("aaaa"), now)
        .expect("fits");
    store
        .put_at("resp_b", &response("bbbb"), now)
        .expect("fits");
    store
        .put_at("resp_a", &response("AAAA"), now)
        .expect("fits");
    assert_eq!(store.held(), (2, 2 * one), "counted once");
    assert_eq!(
        store.get_at("resp_a", now).expect("ok"),
        Some(response("AAAA"))
    );
    store
        .put_at("resp_c", &response("cccc"), now)
        .expect("fits");
    assert!(!present(&store, "resp_b", now), "resp_b is now the oldest");
    assert!(present(&store, "resp_a", now));
    assert!(present(&store, "resp_c", now));
}

#[test]
fn entries_expire_at_the_ttl_and_are_freed() {
    let store = MemoryStore::new(1 << 20, TTL);
    let start = Instant::now();
    store
        .put_at("resp_old", &response("old"), start)
        .expect("fits");
    let later = start + TTL / 2;
    store
        .put_at("resp_new", &response("new"), later)
        .expect("fits");

    let just_before = start + TTL - Duration::from_nanos(1);
    assert!(present(&store, "resp_old", just_before));
    assert!(!present(&store, "resp_old", start + TTL), "gone at the TTL");
    assert!(present(&store, "resp_new", start + TTL));
    assert_eq!(store.held().0, 1, "the expired entry is freed");

    // A put frees expired entries too, with no get to see them.
    store
        .put_at("resp_last", &response("last"), later + TTL)
        .expect("fits");
    assert_eq!(store.held().0, 1);
    assert!(present(&store, "resp_last", later + TTL));
}

#[test]
fn an_entry_stored_late_is_not_kept_past_its_ttl() {
    // Puts racing for the lock may store a younger entry first.
    let store = MemoryStore::new(1 << 20, TTL);
    let start = Instant::now();
    store
        .put_at("resp_young", &response("y"), start + Duration::from_secs(1))
        .expect("fits");
    store
        .put_at("resp_old", &response("o"), start)
        .expect("fits");
    assert!(!present(&store, "resp_old", start + TTL));
    assert!(present(&store, "resp_young", start + TTL));
}

#[test]
fn many_threads_keep_the_bound() {
    let one = cost("resp_t0_0000", &response("payload"));
    let limit = 50 * one;
    let store = Arc::new(MemoryStore::new(limit, TTL));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..2_000 {
                    let id = format!("resp_t{t}_{i:04}");
                    store.put(&id, &response("payload")).expect("fits");
                    let got = store.get(&id).expect("memory never fails");
                    // Another thread's puts may already have evicted it.
                    if let Some(got) = got {
                        assert_eq!(got, response("payload"));
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("no panic");
    }
    let (count, bytes) = store.held();
    assert_eq!((count, bytes), (50, limit), "full, never over");
}
