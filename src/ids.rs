//! Tool-call ids.

use std::collections::hash_map::RandomState;
use std::fmt::Write;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Length of a vLLM-style id: `chatcmpl-tool-` and 16 hex digits.
const VLLM_ID_LEN: usize = VLLM_PREFIX.len() + 16;
const VLLM_PREFIX: &str = "chatcmpl-tool-";

/// Length of an OpenAI-style id: `call_` and 24 letters and digits.
const OPENAI_ID_LEN: usize = OPENAI_PREFIX.len() + OPENAI_RANDOM_CHARS;
const OPENAI_PREFIX: &str = "call_";
const OPENAI_RANDOM_CHARS: usize = 24;

const ALPHANUMERIC: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// 62^10 < 2^64: ten characters per 64-bit word.
const CHARS_PER_WORD: usize = 10;

/// What an id looks like, for [`Ids::Seeded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum IdStyle {
    /// `chatcmpl-tool-` and 16 hex digits, as vLLM makes them.
    #[default]
    Vllm,
    /// `call_` and 24 letters and digits, as OpenAI makes them.
    OpenAi,
}

/// How tool-call ids are made.
///
/// | ids | example | |
/// |---|---|---|
/// | [`Random`](Ids::Random) (default) | `chatcmpl-tool-9f86d081884c7d65` | vLLM's form |
/// | [`OpenAi`](Ids::OpenAi) | `call_K3x9TqV0bZ2mLw8RcY1nHs4D` | OpenAI's form |
/// | [`seeded(7)`](Ids::seeded) | `chatcmpl-tool-…`, the same every run | reproducible |
/// | [`openai_seeded(7)`](Ids::openai_seeded) | `call_…`, the same every run | reproducible |
/// | [`sequential("call_")`](Ids::sequential) | `call_0`, `call_1`, … | tests |
///
/// Random ids differ between parsers, runs and streams (also after
/// [`Parser::reset`](crate::Parser::reset)). Seeded ids depend only on the
/// seed and the call's index: two streams parsed with one seed get the same
/// ids, so give each response its own seed when ids must differ between
/// responses.
///
/// # Example
/// ```
/// use toolcall_stream::{Ids, Parser};
/// let input = "<tool_call><function=f></function></tool_call>";
///
/// let message = Parser::builder().ids(Ids::sequential("call_")).build().parse(input);
/// assert_eq!(message.tool_calls[0].id, "call_0");
///
/// let message = Parser::builder().ids(Ids::OpenAi).build().parse(input);
/// let id = &message.tool_calls[0].id;
/// assert!(id.starts_with("call_") && id.len() == 29);
/// assert!(id[5..].bytes().all(|b| b.is_ascii_alphanumeric()));
///
/// // The same seed gives the same ids, in any parser.
/// let first = Parser::builder().ids(Ids::openai_seeded(7)).build().parse(input);
/// let again = Parser::builder().ids(Ids::openai_seeded(7)).build().parse(input);
/// assert_eq!(first.tool_calls[0].id, again.tool_calls[0].id);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Ids {
    /// `chatcmpl-tool-` and 16 random hex digits, as vLLM makes them.
    #[default]
    Random,
    /// `call_` and 24 random letters and digits, as OpenAI makes them.
    OpenAi,
    /// Ids in `style` made from `seed` and the call's index: the same on
    /// every run, for reproducible output that still looks like a real
    /// server's.
    Seeded {
        /// What the ids look like.
        style: IdStyle,
        /// Where they come from.
        seed: u64,
    },
    /// A fixed prefix and the call's index (`call_0`, `call_1`, …): stable
    /// across runs, for tests and reproducible output.
    Sequential {
        /// Text put before the index.
        prefix: String,
    },
}

/// Mixed into random ids so that a parser reused after `reset` (which
/// keeps its `RandomState`) does not repeat the ids of its last stream.
static RANDOM_IDS_MADE: AtomicU64 = AtomicU64::new(0);

/// An ids name [`Ids::named`] does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownIds(pub String);

impl std::fmt::Display for UnknownIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown ids {:?}; known: {}",
            self.0,
            Ids::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownIds {}

impl Ids {
    /// The names [`Ids::named`] takes.
    pub const NAMES: &'static [&'static str] = &["vllm", "openai", "sequential"];

    /// The ids a binding or a config names: `vllm` (vLLM's form; `random`
    /// is another name for it), `openai` (OpenAI's form), each seeded when
    /// `seed` is given, or `sequential` (`call_0`, `call_1`, …; the seed is
    /// not used). The CLI's `--ids` takes the same words.
    ///
    /// ```
    /// use toolcall_stream::Ids;
    /// assert_eq!(Ids::named("openai", Some(7)).unwrap(), Ids::openai_seeded(7));
    /// assert_eq!(Ids::named("vllm", None).unwrap(), Ids::Random);
    /// assert_eq!(Ids::named("random", None).unwrap(), Ids::Random);
    /// assert!(Ids::named("uuid", None).unwrap_err().to_string().starts_with("unknown ids \"uuid\""));
    /// ```
    pub fn named(name: &str, seed: Option<u64>) -> Result<Ids, UnknownIds> {
        Ok(match (name, seed) {
            ("vllm" | "random", None) => Ids::Random,
            ("vllm" | "random", Some(seed)) => Ids::seeded(seed),
            ("openai", None) => Ids::OpenAi,
            ("openai", Some(seed)) => Ids::openai_seeded(seed),
            ("sequential", _) => Ids::sequential("call_"),
            (other, _) => return Err(UnknownIds(other.to_owned())),
        })
    }

    /// Sequential ids with the given prefix.
    pub fn sequential(prefix: impl Into<String>) -> Ids {
        Ids::Sequential {
            prefix: prefix.into(),
        }
    }

    /// vLLM-style ids (`chatcmpl-tool-` and 16 hex digits) made from `seed`.
    ///
    /// ```
    /// use toolcall_stream::{IdStyle, Ids};
    /// assert_eq!(Ids::seeded(42), Ids::Seeded { style: IdStyle::Vllm, seed: 42 });
    /// ```
    pub fn seeded(seed: u64) -> Ids {
        Ids::Seeded {
            style: IdStyle::Vllm,
            seed,
        }
    }

    /// OpenAI-style ids (`call_` and 24 letters and digits) made from `seed`.
    pub fn openai_seeded(seed: u64) -> Ids {
        Ids::Seeded {
            style: IdStyle::OpenAi,
            seed,
        }
    }

    pub(crate) fn write(&self, index: usize, seed: &RandomState, out: &mut String) {
        match self {
            Ids::Random => {
                let mut words = random_words(index, seed);
                write_vllm(&mut words, out);
            }
            Ids::OpenAi => {
                let mut words = random_words(index, seed);
                write_openai(&mut words, out);
            }
            Ids::Seeded { style, seed } => {
                let mut words = seeded_words(*seed, index);
                match style {
                    IdStyle::Vllm => write_vllm(&mut words, out),
                    IdStyle::OpenAi => write_openai(&mut words, out),
                }
            }
            Ids::Sequential { prefix } => {
                let _ = write!(out, "{prefix}{index}");
            }
        }
    }
}

/// Random 64-bit words for one id: SipHash with the parser's random keys
/// over the call's index, a process-wide count and the word's position.
fn random_words(index: usize, seed: &RandomState) -> impl FnMut() -> u64 + '_ {
    let made = RANDOM_IDS_MADE.fetch_add(1, Ordering::Relaxed);
    let mut position = 0u64;
    move || {
        let mut hasher = seed.build_hasher();
        hasher.write_usize(index);
        hasher.write_u64(made);
        hasher.write_u64(position);
        position += 1;
        hasher.finish()
    }
}

/// Deterministic 64-bit words for one id: SplitMix64 started from the seed
/// and the call's index.
fn seeded_words(seed: u64, index: usize) -> impl FnMut() -> u64 {
    let mut state = splitmix64(seed ^ splitmix64(index as u64));
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix64(state)
    }
}

fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn write_vllm(words: &mut impl FnMut() -> u64, out: &mut String) {
    // Room for the whole id first: the padded hex is written in pieces
    // whose count depends on the random value, and growing the string
    // piece by piece would make the memory an id takes random too.
    out.reserve(VLLM_ID_LEN);
    let _ = write!(out, "{VLLM_PREFIX}{:016x}", words());
}

fn write_openai(words: &mut impl FnMut() -> u64, out: &mut String) {
    out.reserve(OPENAI_ID_LEN);
    out.push_str(OPENAI_PREFIX);
    write_alphanumeric(words, OPENAI_RANDOM_CHARS, out);
}

/// Appends `count` characters from `[0-9A-Za-z]`, ten per word (the bias
/// of taking a 64-bit word modulo 62^10 is below one in twenty).
fn write_alphanumeric(words: &mut impl FnMut() -> u64, count: usize, out: &mut String) {
    let mut word = 0;
    for position in 0..count {
        if position % CHARS_PER_WORD == 0 {
            word = words();
        }
        out.push(char::from(ALPHANUMERIC[(word % 62) as usize]));
        word /= 62;
    }
}

/// `count` random letters and digits, from a fresh `RandomState`.
pub(crate) fn random_alphanumeric(count: usize, out: &mut String) {
    let seed = RandomState::new();
    write_alphanumeric(&mut random_words(0, &seed), count, out);
}

/// `count` letters and digits made from `seed`, from other words than the
/// seeded call ids, so that a response id made from a seed does not begin
/// like the first call id made from it.
pub(crate) fn seeded_alphanumeric(seed: u64, count: usize, out: &mut String) {
    // "chatcmpl" in ASCII: another stream of words than a call's.
    const DOMAIN: u64 = 0x6368_6174_636d_706c;
    write_alphanumeric(&mut seeded_words(splitmix64(seed ^ DOMAIN), 0), count, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(ids: &Ids, index: usize, seed: &RandomState) -> String {
        let mut id = String::new();
        ids.write(index, seed, &mut id);
        id
    }

    #[test]
    fn random_ids_have_one_length_and_take_the_same_memory() {
        let seed = RandomState::new();
        for index in 0..1000 {
            let id = id(&Ids::Random, index, &seed);
            assert_eq!(id.len(), VLLM_ID_LEN, "{id}");
            assert!(id.starts_with("chatcmpl-tool-"), "{id}");
            assert!(id[14..].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            // One allocation of a size that does not depend on the value,
            // so that memory measurements are repeatable.
            assert_eq!(id.capacity(), VLLM_ID_LEN, "{id}");
        }
    }

    #[test]
    fn openai_ids_are_call_and_24_alphanumerics_in_one_allocation() {
        let seed = RandomState::new();
        for ids in [Ids::OpenAi, Ids::openai_seeded(3)] {
            for index in 0..1000 {
                let id = id(&ids, index, &seed);
                assert_eq!(id.len(), OPENAI_ID_LEN, "{id}");
                assert!(id.starts_with("call_"), "{id}");
                assert!(id[5..].bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
                assert_eq!(id.capacity(), OPENAI_ID_LEN, "{id}");
            }
        }
    }

    #[test]
    fn seeded_vllm_ids_look_like_random_ones() {
        let seed = RandomState::new();
        for index in 0..100 {
            let id = id(&Ids::seeded(u64::MAX), index, &seed);
            assert!(id.starts_with("chatcmpl-tool-"), "{id}");
            assert!(id[14..].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
            assert_eq!(id.capacity(), VLLM_ID_LEN, "{id}");
        }
    }

    #[test]
    fn seeded_ids_depend_on_seed_and_index_only() {
        let (one, other) = (RandomState::new(), RandomState::new());
        for ids in [Ids::seeded(9), Ids::openai_seeded(9)] {
            assert_eq!(id(&ids, 4, &one), id(&ids, 4, &other));
            assert_ne!(id(&ids, 4, &one), id(&ids, 5, &one));
        }
        assert_ne!(id(&Ids::seeded(9), 0, &one), id(&Ids::seeded(10), 0, &one));
        // Pinned, so that a change of the generator is a visible decision.
        assert_eq!(
            id(&Ids::openai_seeded(0), 0, &one),
            "call_lwnQgf8efPuSTisCCC2UXNPj"
        );
        assert_eq!(
            id(&Ids::seeded(0), 1, &one),
            "chatcmpl-tool-4181b152fb77616f"
        );
    }

    #[test]
    fn random_ids_do_not_repeat_for_one_index_and_state() {
        // A parser reset for a new stream keeps its `RandomState`.
        let seed = RandomState::new();
        for ids in [Ids::Random, Ids::OpenAi] {
            let ids: std::collections::HashSet<String> =
                (0..1000).map(|_| id(&ids, 0, &seed)).collect();
            assert_eq!(ids.len(), 1000);
        }
    }

    #[test]
    fn alphanumeric_ids_use_the_whole_alphabet() {
        let seed = RandomState::new();
        let mut seen = std::collections::HashSet::new();
        for index in 0..200 {
            seen.extend(id(&Ids::OpenAi, index, &seed)[5..].bytes());
        }
        assert_eq!(seen.len(), 62);
    }
}
