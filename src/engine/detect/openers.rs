//! What `auto`'s scout looks for: the formats it detects, in the order
//! it prefers them, and every opener and reasoning marker of theirs in one
//! marker set, with the formats that open with each.

use std::sync::OnceLock;

use crate::engine::markers::MarkerSet;
use crate::format::{Format, Role};

/// The formats `auto` detects, by preference when two read the same text
/// as a call: Hermes's body, Qwen3-Coder's `<function=` and GLM's bare
/// name all follow `<tool_call>`, and DeepSeek V3's `function<｜tool▁sep｜>`
/// would be a call named `function` to V3.1; a list after `<tool_call>`
/// is xLAM's, which Hermes does not read. `phi4_mini_json` opens with a
/// word (`functools`) that prose may hold, and is not detected; nor is
/// `gigachat3`, whose opener is the words `function call`. `bare_json`
/// has no opener at all and would make JSON content calls: it is opt-in.
pub(crate) const DETECTED: &[Format] = &[
    Format::Hermes,
    Format::Qwen3Coder,
    Format::SeedOss,
    Format::MiniMaxM2,
    Format::Step3,
    Format::DeepSeekV32,
    Format::DeepSeekV4,
    Format::Glm45,
    Format::Glm47,
    Format::KimiK2,
    Format::DeepSeekV3,
    Format::DeepSeekV31,
    Format::LongCat,
    Format::InternLm,
    Format::Jamba,
    Format::HunyuanA13b,
    Format::Granite,
    Format::Mistral,
    Format::OpenAi,
    Format::Llama3Json,
    Format::MiniMax,
    Format::CohereCommand3,
    Format::Granite20bFc,
    // Last: its `<tool_call>` and `[TOOL_CALLS]` openers are Hermes's and
    // Mistral's, which read a single object and a list of them the same
    // way; xLAM is left only a list after `<tool_call>`.
    Format::Xlam,
    Format::Apertus,
    // After granite-20b-fc, which reads a JSON body after `<function_call>`.
    Format::XmlToolUse,
    Format::XmlFunctionCall,
    // Before XML invoke, whose `<function_calls>` it shares: Olmo 3's
    // candidate gives up at once at an `<invoke`, where XML invoke's would
    // hold Olmo 3's calls until its window ran out.
    Format::Olmo3,
    // After MiniMax-M2, whose bare `<invoke name=` it shares.
    Format::XmlInvoke,
    Format::KimiK3,
    // By `<|python_start|>` only: a bare list at a line's start is the
    // format's own rule, which would make Python lists in content calls.
    Format::Pythonic,
    Format::Lfm2,
    Format::Gemma4,
    Format::FunctionGemma,
    // Not ERNIE 4.5 (Hermes's opener) nor openPangu V2 (LFM2's markers).
    Format::NemotronJson,
    Format::SolarOpen2,
    Format::DeepSeekV41,
    Format::GigaChat35,
    Format::MiniMaxM3,
    Format::Plamo3,
    Format::HyV3,
    Format::HyV4,
    Format::IquestQ1,
    Format::K2Horizon,
    // By `<dots_function_call>`; its bare `<invoke name=` is MiniMax-M2's.
    Format::Dots,
    // Not Functionary v3.1 (Qwen3-Coder's `<function=`) nor Sarashina (its
    // `<|tool_calls|>` is Solar Open's; its usual list has no marker).
    Format::SolarOpen,
    // By `<function name=`, a function with no wrapper (Qwen3-Coder's is
    // `<function=`), once a parameter or its closer confirms it.
    Format::MiniCpm5,
    // By `<cofl:tool_calls>` (its thinking markers are Command A's).
    Format::CohereCofl,
];

/// The scout's markers: every opener (as `CallOpen`) and reasoning marker
/// of the detected formats, and which formats open with each opener.
pub(super) struct Openers {
    pub markers: MarkerSet,
    pub owners: Vec<(&'static str, Vec<Format>)>,
}

pub(super) fn openers() -> &'static Openers {
    static OPENERS: OnceLock<Openers> = OnceLock::new();
    OPENERS.get_or_init(|| {
        let (list, owners) = opener_list();
        Openers {
            markers: MarkerSet::new(&list),
            owners,
        }
    })
}

/// The scout's markers and their owners (see [`Openers`]).
#[allow(clippy::type_complexity)]
pub(super) fn opener_list() -> (Vec<(Role, &'static str)>, Vec<(&'static str, Vec<Format>)>) {
    let mut list: Vec<(Role, &'static str)> = Vec::new();
    let mut owners: Vec<(&'static str, Vec<Format>)> = Vec::new();
    for &format in DETECTED {
        let desc = format.description();
        // (A misspelled opener opens a call of its format too.)
        for &(role, text) in desc.markers.iter().chain(desc.misspellings) {
            let role = match role {
                Role::CallOpen | Role::HeadOpen | Role::ChannelOpen => Role::CallOpen,
                Role::FuncOpen | Role::ItemOpen if desc.recoveries.bare_function => Role::CallOpen,
                // (End-of-turn tokens: dropped while no format is known.)
                Role::ReasoningOpen | Role::ReasoningClose | Role::EndOfTurn => role,
                _ => continue,
            };
            let at = match owners.iter().position(|(t, _)| *t == text) {
                Some(at) => at,
                None => {
                    list.push((role, text));
                    owners.push((text, Vec::new()));
                    owners.len() - 1
                }
            };
            if role == Role::CallOpen && !owners[at].1.contains(&format) {
                owners[at].1.push(format);
            }
        }
    }
    (list, owners)
}

/// The scout's markers: what a watch scans content for.
pub(crate) fn opener_markers() -> &'static MarkerSet {
    &openers().markers
}
