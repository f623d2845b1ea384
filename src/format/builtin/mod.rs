//! The built-in formats: one file per format (or per family that shares a
//! shape), each holding its `Description` as data — a `static` that spells
//! the markers by role and names the recoveries that apply — and a `//!`
//! doc showing what the model writes. Nothing here runs: the engine
//! (`src/engine/`) reads these descriptions, and `catalog.rs` names them.
//!
//! To add a built-in format: write its description in a new file here
//! (start from the closest one; a respelled format is `..BASE` with its own
//! markers), add its `mod` line below, give it a `Format` variant, names and
//! a `description()` arm in `catalog.rs` (and model patterns in
//! `models.rs`, auto detection in `src/engine/detect/openers.rs` if it is
//! detected), then its fixtures in `tests/fixtures/<format>/` and its page in
//! `docs/formats/`. The description rules (`rules.rs`) check it when it is
//! compiled; `format::tests::every_built_in_format_is_valid` runs them on
//! every format.

pub(super) mod apertus;
pub(super) mod auto;
pub(super) mod bare_json;
pub(super) mod deepseek;
pub(super) mod dots;
pub(super) mod dsml;
pub(super) mod ernie45;
pub(super) mod gemma;
pub(super) mod gigachat;
pub(super) mod glm;
pub(super) mod harmony;
pub(super) mod hermes;
pub(super) mod hy;
pub(super) mod inkling;
pub(super) mod json_lists;
pub(super) mod json_wrapped;
pub(super) mod k2_horizon;
pub(super) mod kimi_k2;
pub(super) mod kimi_k3;
pub(super) mod llama3;
pub(super) mod minimax_m2;
pub(super) mod minimax_m3;
pub(super) mod mistral;
pub(super) mod muse;
pub(super) mod plamo3;
pub(super) mod pythonic;
pub(super) mod qwen3_coder;
pub(super) mod seed_oss;
pub(super) mod solar;
pub(super) mod step3;
pub(super) mod xlam;
pub(super) mod xml_invoke;
pub(super) mod xml_json;
// Formats other servers read (llama.cpp, smg).
pub(super) mod functionary;
pub(super) mod minicpm5;
pub(super) mod sarashina;
// Formats only a constrained-decoding library or a vendor's own parser read.
pub(super) mod cohere_cofl;
