//! Tool-call ids.

use std::collections::hash_map::RandomState;
use std::fmt::Write;
use std::hash::{BuildHasher, Hasher};

/// Length of an [`Ids::Random`] id: `chatcmpl-tool-` and 16 hex digits.
const RANDOM_ID_LEN: usize = "chatcmpl-tool-".len() + 16;

/// How tool-call ids are made.
///
/// # Example
/// ```
/// use toolcall_stream::{Ids, Parser};
/// let mut parser = Parser::builder().ids(Ids::sequential("call_")).build();
/// let message = parser.parse("<tool_call><function=f></function></tool_call>");
/// assert_eq!(message.tool_calls[0].id, "call_0");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Ids {
    /// `chatcmpl-tool-` and 16 random hex digits, as vLLM makes them.
    #[default]
    Random,
    /// A fixed prefix and the call's index (`call_0`, `call_1`, …): stable
    /// across runs, for tests and reproducible output.
    Sequential {
        /// Text put before the index.
        prefix: String,
    },
}

impl Ids {
    /// Sequential ids with the given prefix.
    pub fn sequential(prefix: impl Into<String>) -> Ids {
        Ids::Sequential {
            prefix: prefix.into(),
        }
    }

    pub(crate) fn write(&self, index: usize, seed: &RandomState, out: &mut String) {
        match self {
            Ids::Random => {
                let mut hasher = seed.build_hasher();
                hasher.write_usize(index);
                // Room for the whole id first: the padded hex is written in
                // pieces whose count depends on the random value, and
                // growing the string piece by piece would make the memory
                // an id takes random too.
                out.reserve(RANDOM_ID_LEN);
                let _ = write!(out, "chatcmpl-tool-{:016x}", hasher.finish());
            }
            Ids::Sequential { prefix } => {
                let _ = write!(out, "{prefix}{index}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ids_have_one_length_and_take_the_same_memory() {
        let seed = RandomState::new();
        for index in 0..1000 {
            let mut id = String::new();
            Ids::Random.write(index, &seed, &mut id);
            assert_eq!(id.len(), RANDOM_ID_LEN, "{id}");
            assert!(id.starts_with("chatcmpl-tool-"), "{id}");
            assert!(id[14..].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            // One allocation of a size that does not depend on the value,
            // so that memory measurements are repeatable.
            assert_eq!(id.capacity(), RANDOM_ID_LEN, "{id}");
        }
    }
}
