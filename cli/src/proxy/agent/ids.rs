//! Ids the agent routes mint: responses (`resp_`), items (`msg_`, `fc_`,
//! `rs_`, `ctc_`), Anthropic messages (`msg_`) and tool uses (`toolu_`).

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

const ALPHANUMERIC: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// How ids are made: random in the proxy, numbered in tests (so that
/// snapshots are stable).
#[derive(Clone, Debug)]
pub enum IdMaker {
    /// `prefix` and 24 random letters and digits.
    Random,
    /// `prefix` and a number counted per maker: `resp_0`, `fc_1`, …
    Sequential(u64),
}

/// Mixed into every random id, so that two ids made in the same instant
/// differ.
static MADE: AtomicU64 = AtomicU64::new(0);

impl IdMaker {
    /// A new id starting with `prefix`.
    pub fn make(&mut self, prefix: &str) -> String {
        match self {
            IdMaker::Random => {
                let mut id = String::with_capacity(prefix.len() + 24);
                id.push_str(prefix);
                let state = RandomState::new();
                let mut word = 0;
                for i in 0..24 {
                    if i % 10 == 0 {
                        let mut hasher = state.build_hasher();
                        hasher.write_u64(MADE.fetch_add(1, Ordering::Relaxed));
                        word = hasher.finish();
                    }
                    id.push(ALPHANUMERIC[(word % 62) as usize] as char);
                    word /= 62;
                }
                id
            }
            IdMaker::Sequential(next) => {
                let id = format!("{prefix}{next}");
                *next += 1;
                id
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ids_differ_and_look_alike() {
        let mut ids = IdMaker::Random;
        let (a, b) = (ids.make("fc_"), ids.make("fc_"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 27);
        assert!(a[3..].bytes().all(|b| b.is_ascii_alphanumeric()));
        let mut numbered = IdMaker::Sequential(0);
        assert_eq!(numbered.make("resp_"), "resp_0");
        assert_eq!(numbered.make("msg_"), "msg_1");
    }
}
