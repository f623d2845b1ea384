//! Tool-call ids.

use std::collections::hash_map::RandomState;
use std::fmt::Write;
use std::hash::{BuildHasher, Hasher};

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
                let _ = write!(out, "chatcmpl-tool-{:016x}", hasher.finish());
            }
            Ids::Sequential { prefix } => {
                let _ = write!(out, "{prefix}{index}");
            }
        }
    }
}
