//! `--response-store memory`: responses kept as JSON in this process,
//! bounded by their total size (the oldest go first) and by age.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{from_json, to_json, StoreError, StoredResponse};

/// What an entry costs beside its JSON and its id: its places in both maps
/// and the two `Arc` headers, so that a flood of tiny entries stays bounded.
pub(super) const ENTRY_OVERHEAD: usize = 160;

pub struct MemoryStore {
    limit_bytes: usize,
    ttl: Duration,
    entries: Mutex<Entries>,
}

/// Entries by id, and the same entries oldest first. Every entry lives as
/// long (the TTL), so the oldest is also the first to expire: both the
/// byte bound and the age bound drop entries from the front of `by_age`.
#[derive(Default)]
struct Entries {
    by_id: HashMap<Arc<str>, Entry>,
    by_age: BTreeMap<u64, Arc<str>>,
    next_seq: u64,
    bytes: usize,
}

struct Entry {
    /// Its key in `by_age`.
    seq: u64,
    stored_at: Instant,
    json: Arc<[u8]>,
    cost: usize,
}

impl MemoryStore {
    pub fn new(limit_bytes: usize, ttl: Duration) -> MemoryStore {
        MemoryStore {
            limit_bytes,
            ttl,
            entries: Mutex::new(Entries::default()),
        }
    }

    pub fn limit_bytes(&self) -> usize {
        self.limit_bytes
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    pub fn get(&self, id: &str) -> Result<Option<StoredResponse>, StoreError> {
        self.get_at(id, Instant::now())
    }

    pub fn put(&self, id: &str, response: &StoredResponse) -> Result<(), StoreError> {
        self.put_at(id, response, Instant::now())
    }

    /// `get` as of `now` (tests move the clock).
    pub(super) fn get_at(
        &self,
        id: &str,
        now: Instant,
    ) -> Result<Option<StoredResponse>, StoreError> {
        let (json, dropped) = {
            let mut entries = self.lock();
            let dropped = entries.drop_expired(now, self.ttl);
            // Checked again here: puts racing for the lock may have stored
            // their entries slightly out of age order.
            let json = entries
                .by_id
                .get(id)
                .filter(|entry| now.saturating_duration_since(entry.stored_at) < self.ttl)
                .map(|entry| entry.json.clone());
            (json, dropped)
        };
        // Freed and parsed outside the lock: both take time per byte.
        drop(dropped);
        json.map(|json| from_json(&json)).transpose()
    }

    /// `put` as of `now` (tests move the clock).
    pub(super) fn put_at(
        &self,
        id: &str,
        response: &StoredResponse,
        now: Instant,
    ) -> Result<(), StoreError> {
        let json = to_json(response)?;
        let cost = json.len() + id.len() + ENTRY_OVERHEAD;
        if cost > self.limit_bytes {
            return Err(StoreError::TooLarge {
                bytes: cost,
                limit: self.limit_bytes,
            });
        }
        let json: Arc<[u8]> = json.into();
        let dropped = {
            let mut entries = self.lock();
            let mut dropped = entries.drop_expired(now, self.ttl);
            dropped.extend(entries.remove(id));
            while entries.bytes + cost > self.limit_bytes {
                match entries.remove_oldest() {
                    Some(entry) => dropped.push(entry),
                    None => break,
                }
            }
            entries.insert(id, json, cost, now);
            dropped
        };
        drop(dropped);
        Ok(())
    }

    /// How many entries and bytes are held (for tests).
    #[cfg(test)]
    pub(super) fn held(&self) -> (usize, usize) {
        let entries = self.lock();
        (entries.by_id.len(), entries.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // Nothing under the lock panics; if something did, the maps are
        // still consistent between operations, so carry on.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Entries {
    fn insert(&mut self, id: &str, json: Arc<[u8]>, cost: usize, now: Instant) {
        let id: Arc<str> = id.into();
        let seq = self.next_seq;
        self.next_seq += 1;
        self.by_age.insert(seq, id.clone());
        self.bytes += cost;
        let entry = Entry {
            seq,
            stored_at: now,
            json,
            cost,
        };
        self.by_id.insert(id, entry);
    }

    fn remove(&mut self, id: &str) -> Option<Entry> {
        let entry = self.by_id.remove(id)?;
        self.by_age.remove(&entry.seq);
        self.bytes -= entry.cost;
        Some(entry)
    }

    fn remove_oldest(&mut self) -> Option<Entry> {
        let (_, id) = self.by_age.pop_first()?;
        let entry = self.by_id.remove(&id)?;
        self.bytes -= entry.cost;
        Some(entry)
    }

    /// Drops the entries `ttl` old or older at `now`, oldest first; each
    /// entry is dropped once, so this is O(1) a put, amortized.
    fn drop_expired(&mut self, now: Instant, ttl: Duration) -> Vec<Entry> {
        let mut dropped = Vec::new();
        while let Some((_, id)) = self.by_age.first_key_value() {
            let expired = self
                .by_id
                .get(id)
                .is_some_and(|entry| now.saturating_duration_since(entry.stored_at) >= ttl);
            if !expired {
                break;
            }
            dropped.extend(self.remove_oldest());
        }
        dropped
    }
}
