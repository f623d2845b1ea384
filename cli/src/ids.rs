//! `--ids`: how call ids look, one vocabulary for `parse`, `stream` and
//! `proxy`.

use clap::ValueEnum;
use toolcall_stream::Ids;

/// `--ids`: the forms of `Ids`, named after who makes ids that way.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum IdsArg {
    /// `chatcmpl-tool-` and 16 hex digits, as vLLM makes them (`random` is
    /// another name for it).
    #[value(alias = "random")]
    Vllm,
    /// `call_` and 24 letters and digits, as OpenAI makes them.
    Openai,
    /// `call_0`, `call_1`, … in each response.
    Sequential,
}

impl IdsArg {
    /// The ids, made from `seed` when one is given (the same on every run).
    pub fn ids(self, seed: Option<u64>) -> Ids {
        match (self, seed) {
            (IdsArg::Sequential, _) => Ids::sequential("call_"),
            (IdsArg::Vllm, None) => Ids::Random,
            (IdsArg::Vllm, Some(seed)) => Ids::seeded(seed),
            (IdsArg::Openai, None) => Ids::OpenAi,
            (IdsArg::Openai, Some(seed)) => Ids::openai_seeded(seed),
        }
    }
}
