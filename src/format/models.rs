//! The format a model writes, from the model's name: [`Format::for_model`]
//! and its table, [`Format::MODEL_PATTERNS`].

use std::fmt;

use super::Format;

impl Format {
    /// Which format a model writes, by a pattern its name holds: the table
    /// [`Format::for_model`] reads, in the order it reads it. The first row
    /// whose pattern the name holds wins, so a row comes before any row
    /// whose pattern its own holds (`qwen3-coder` before `qwen3`,
    /// `minimax-m2.1` before `minimax-m2`), and fine-tunes named
    /// after the model they were trained from come before that model
    /// (`Hermes-3-Llama-3.1-8B` is Hermes, not Llama).
    ///
    /// Patterns are written lower case; names and patterns are compared as
    /// [`Format::for_model`] says (case, `_` and `-`, versions).
    ///
    /// Four formats have no row, since no model writes them natively:
    /// [`Format::XmlToolUse`], [`Format::XmlFunctionCall`] and
    /// [`Format::XmlInvoke`] (calls leaked into text in another vendor's
    /// style) and [`Format::BareJson`]
    /// (opt-in plain JSON). Nor has [`Format::Auto`], which is not a
    /// format. `docs/models.md` shows this table, checked against it by a
    /// test.
    pub const MODEL_PATTERNS: &'static [(&'static str, Format)] = &[
        // Fine-tunes named after their base model: before the base.
        ("hermes-2", Format::Hermes),
        ("hermes-3", Format::Hermes),
        ("hermes-4", Format::Hermes),
        ("xlam", Format::Xlam),
        ("toolace", Format::Pythonic),
        // FunctionGemma's names hold `gemma`, not Gemma 4's version.
        ("functiongemma", Format::FunctionGemma),
        ("granite-20b-functioncalling", Format::Granite20bFc),
        // DeepSeek, whose R1 distills also name Qwen and Llama. V3.2-Exp
        // writes V3.1's JSON, V3.2 and V4 DSML.
        ("deepseek-v3.2-exp", Format::DeepSeekV31),
        ("deepseek-v3.2", Format::DeepSeekV32),
        // V4.1's spaced DSML: before `deepseek-v4`, which holds the
        // API's `deepseek-v4-pro` (served by V4.1 since 2026-09).
        ("deepseek-v4.1", Format::DeepSeekV41),
        ("deepseek-v4-pro", Format::DeepSeekV41),
        ("deepseek-v4", Format::DeepSeekV4),
        ("deepseek-v3.1", Format::DeepSeekV31),
        ("deepseek-v3", Format::DeepSeekV3),
        ("deepseek-r1", Format::DeepSeekV3),
        // Qwen3-Coder's XML, and the models that took it up.
        ("qwen3-coder", Format::Qwen3Coder),
        ("qwen3.5", Format::Qwen3Coder),
        ("qwen3.6", Format::Qwen3Coder),
        ("mimo", Format::Qwen3Coder),
        ("nemotron-3-nano", Format::Qwen3Coder),
        ("step-3.5", Format::Qwen3Coder),
        // Step-3.5's served name (SGLang's and vLLM's parser `step3p5`),
        // which `step-3` below would hold.
        ("step3p5", Format::Qwen3Coder),
        ("step-3", Format::Step3),
        ("seed-oss", Format::SeedOss),
        // Hermes-style JSON in `<tool_call>`.
        ("qwen3", Format::Hermes),
        ("qwen2.5", Format::Hermes),
        ("qwq", Format::Hermes),
        ("granite-4.0", Format::Hermes),
        ("granite-4", Format::Hermes),
        ("glm-4.5", Format::Glm45),
        ("glm-4.6", Format::Glm45),
        ("glm-4.7", Format::Glm47),
        ("glm-5", Format::Glm47),
        ("kimi-k2.5", Format::KimiK2),
        ("kimi-k2", Format::KimiK2),
        ("kimi-k3", Format::KimiK3),
        ("longcat-flash", Format::LongCat),
        ("internlm2.5", Format::InternLm),
        ("internlm2_5", Format::InternLm),
        ("jamba", Format::Jamba),
        ("hunyuan-a13b", Format::HunyuanA13b),
        ("granite-3", Format::Granite),
        ("granite-3.0", Format::Granite),
        ("granite-3.1", Format::Granite),
        ("granite-3.2", Format::Granite),
        ("granite-3.3", Format::Granite),
        ("phi-4-mini", Format::Phi4MiniJson),
        ("magistral", Format::Mistral),
        ("devstral", Format::Mistral),
        ("ministral", Format::Mistral),
        ("codestral", Format::Mistral),
        ("mixtral", Format::Mistral),
        ("pixtral", Format::Mistral),
        ("mistral", Format::Mistral),
        ("gpt-oss", Format::OpenAi),
        ("llama-3.1", Format::Llama3Json),
        // Llama 3.2 and 4 write Python call lists or JSON call objects, by
        // their prompt: `pythonic` reads both (a JSON object where a list
        // belongs, bare at a line's start or in `<|python_start|>`).
        ("llama-3.2", Format::Pythonic),
        ("llama-3.3", Format::Llama3Json),
        ("llama-4", Format::Pythonic),
        ("minimax-m1", Format::MiniMax),
        ("minimax-m2.1", Format::MiniMaxM2),
        ("minimax-m2", Format::MiniMaxM2),
        ("command-r7b", Format::CohereCommand3),
        ("command-a", Format::CohereCommand3),
        ("apertus", Format::Apertus),
        ("gigachat-3", Format::GigaChat3),
        ("olmo-3", Format::Olmo3),
        ("lfm2.5", Format::Lfm2),
        ("lfm2", Format::Lfm2),
        ("gemma-4", Format::Gemma4),
        ("ernie-4.5", Format::Ernie45),
        // Nemotron Nano v2 (Nemotron 3 writes Qwen3-Coder's XML, above).
        ("nemotron-nano-9b-v2", Format::NemotronJson),
        ("nemotron-nano-12b-v2", Format::NemotronJson),
        ("openpangu", Format::OpenPanguV2),
        ("solar-open2", Format::SolarOpen2),
        // The DeepSeek API's name for V4.1-Flash.
        ("deepseek-flash", Format::DeepSeekV41),
        ("gigachat-3.5", Format::GigaChat35),
        ("gigachat-3.1", Format::GigaChat3),
        ("minimax-m3", Format::MiniMaxM3),
        ("plamo-3", Format::Plamo3),
        ("inkling", Format::Inkling),
        ("ling-3", Format::Glm47),
        ("hyperclovax-seed-think", Format::Glm45),
        ("hy3", Format::HyV3),
        ("hy4", Format::HyV4),
        ("iquest-q1", Format::IquestQ1),
        ("telechat4", Format::TeleChat4),
        ("k2-horizon", Format::K2Horizon),
        ("laguna", Format::PoolsideV1),
        // rednote-hilab's dots.llm chat models (vLLM's `dots`).
        ("dots.llm", Format::Dots),
        ("muse-glimmer", Format::Muse),
        ("muse-spark", Format::Muse),
        ("sarashina", Format::Sarashina),
        ("functionary-small-v3.1", Format::FunctionaryV31),
        ("functionary-medium-v3.1", Format::FunctionaryV31),
        ("solar-open-100b", Format::SolarOpen),
        // OpenBMB's MiniCPM 4 and 5 (vLLM's `minicpm5`).
        ("minicpm4", Format::MiniCpm5),
        ("minicpm5", Format::MiniCpm5),
        ("functionary-small-v3.2", Format::FunctionaryV32),
        ("functionary-medium-v3.2", Format::FunctionaryV32),
    ];

    /// The format the model named `model` writes, from
    /// [`Format::MODEL_PATTERNS`]: the first row whose pattern the name
    /// holds.
    ///
    /// The name may be a Hugging Face id (`Qwen/Qwen3-Coder-30B-A3B-Instruct`,
    /// `hf.co/unsloth/GLM-4.5-Air-GGUF:Q4_K_M`), an Ollama name
    /// (`qwen3-coder:30b`, `llama3.1:8b`) or a served model name. Before
    /// comparing, everything up to the last `/` (the organisation) and from
    /// a `:` on (a tag) is dropped, and in both the name and the patterns
    /// ASCII case is ignored, `_` and spaces are `-`, and a `-` between a
    /// letter and a digit is dropped (`Llama-3.1` is `llama3.1`, as Ollama
    /// writes it; `Hermes-3` is `hermes3`).
    ///
    /// A pattern that ends in a digit is a version: it does not match a
    /// longer version (`qwen3` does not match `Qwen3.5`, `deepseek-v3` not
    /// `DeepSeek-V3.2`, `kimi-k2` not `Kimi-K2.5`), so a model a later
    /// version of which writes another format is an error rather than a
    /// guess.
    ///
    /// # Errors
    /// [`UnknownModel`] when no pattern matches; its message lists the
    /// patterns. Give the format by name ([`FromStr`](std::str::FromStr))
    /// then.
    ///
    /// # Example
    /// ```
    /// use toolcall_stream::Format;
    /// assert_eq!(
    ///     Format::for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct"),
    ///     Ok(Format::Qwen3Coder)
    /// );
    /// assert_eq!(Format::for_model("qwen3:8b"), Ok(Format::Hermes));
    /// assert_eq!(Format::for_model("zai-org/GLM-4.7"), Ok(Format::Glm47));
    /// assert_eq!(
    ///     Format::for_model("NousResearch/Hermes-3-Llama-3.1-8B"),
    ///     Ok(Format::Hermes)
    /// );
    /// let unknown = Format::for_model("my-model").unwrap_err();
    /// assert!(unknown.to_string().contains("qwen3-coder"));
    /// ```
    pub fn for_model(model: &str) -> Result<Format, UnknownModel> {
        Format::model_pattern(model)
            .map(|(_, format)| format)
            .ok_or_else(|| UnknownModel {
                model: model.to_owned(),
            })
    }

    /// The row of [`Format::MODEL_PATTERNS`] that [`Format::for_model`]
    /// reads for `model`: the pattern its name holds and that pattern's
    /// format, to say why a format was chosen. `None` when no pattern
    /// matches.
    ///
    /// # Example
    /// ```
    /// use toolcall_stream::Format;
    /// assert_eq!(
    ///     Format::model_pattern("meta-llama/Llama-3.1-8B-Instruct"),
    ///     Some(("llama-3.1", Format::Llama3Json))
    /// );
    /// assert_eq!(Format::model_pattern("my-model"), None);
    /// ```
    pub fn model_pattern(model: &str) -> Option<(&'static str, Format)> {
        model_row(model).map(|(row, format)| (Format::MODEL_PATTERNS[row].0, format))
    }
}

/// The row of [`Format::MODEL_PATTERNS`] that `model` matches first.
fn model_row(model: &str) -> Option<(usize, Format)> {
    let name = model.rsplit('/').next().unwrap_or(model);
    let name = name.split(':').next().unwrap_or(name);
    let name = normalise(name);
    Format::MODEL_PATTERNS
        .iter()
        .enumerate()
        .find(|(_, (pattern, _))| holds(&name, &normalise(pattern)))
        .map(|(row, &(_, format))| (row, format))
}

/// Lower case, `_` and spaces as `-`, no `-` between a letter and a digit.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        let c = match c {
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        };
        let between_letter_and_digit = c == '-'
            && out.ends_with(|p: char| p.is_ascii_alphabetic())
            && chars.peek().is_some_and(|n| n.is_ascii_digit());
        if !between_letter_and_digit {
            out.push(c);
        }
    }
    out
}

/// Whether the normalised `name` holds the normalised `pattern`; a pattern
/// ending in a digit (a version) must not be followed by a digit or by `.`
/// and a digit.
fn holds(name: &str, pattern: &str) -> bool {
    let version = pattern.ends_with(|c: char| c.is_ascii_digit());
    name.match_indices(pattern).any(|(at, _)| {
        let rest = &name.as_bytes()[at + pattern.len()..];
        !version
            || match rest {
                [d, ..] if d.is_ascii_digit() => false,
                [b'.', d, ..] if d.is_ascii_digit() => false,
                _ => true,
            }
    })
}

/// The error returned by [`Format::for_model`] when no pattern of
/// [`Format::MODEL_PATTERNS`] matches the model's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownModel {
    model: String,
}

impl UnknownModel {
    /// The model name as given.
    pub fn model(&self) -> &str {
        &self.model
    }
}

impl fmt::Display for UnknownModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One pattern a line: the list is long (docs/models.md shows it as
        // a table).
        write!(
            f,
            "no known format for model {:?}: give the format by name (docs/models.md lists the \
             model names known); a name holding one of these patterns has the format after it:",
            self.model
        )?;
        for (pattern, format) in Format::MODEL_PATTERNS {
            write!(f, "\n  {pattern} ({format})")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownModel {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model id for each row of the table, in its order.
    const EXAMPLES: &[&str] = &[
        "NousResearch/Hermes-2-Pro-Llama-3-8B",
        "NousResearch/Hermes-3-Llama-3.1-8B",
        "NousResearch/Hermes-4-70B",
        "Salesforce/Llama-xLAM-2-8b-fc-r",
        "Team-ACE/ToolACE-2-Llama-3.1-8B",
        "google/functiongemma-270m-it",
        "ibm-granite/granite-20b-functioncalling",
        "deepseek-ai/DeepSeek-V3.2-Exp",
        "deepseek-ai/DeepSeek-V3.2",
        "deepseek-ai/DeepSeek-V4.1-Flash",
        "deepseek-v4-pro",
        "deepseek-ai/DeepSeek-V4",
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-ai/DeepSeek-V3-0324",
        "deepseek-ai/DeepSeek-R1-0528",
        "Qwen/Qwen3-Coder-480B-A35B-Instruct",
        "Qwen/Qwen3.5-397B-A17B",
        "Qwen/Qwen3.6-35B-A3B",
        "XiaomiMiMo/MiMo-V2-Flash",
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "stepfun-ai/Step-3.5-Flash",
        "step3p5-flash",
        "stepfun-ai/step3",
        "ByteDance-Seed/Seed-OSS-36B-Instruct",
        "Qwen/Qwen3-235B-A22B-Instruct-2507",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/QwQ-32B",
        "ibm-granite/granite-4.0-h-small",
        "granite4:micro",
        "zai-org/GLM-4.5-Air",
        "zai-org/GLM-4.6",
        "zai-org/GLM-4.7",
        "zai-org/GLM-5",
        "moonshotai/Kimi-K2.5",
        "moonshotai/Kimi-K2-Instruct-0905",
        "moonshotai/Kimi-K3",
        "meituan-longcat/LongCat-Flash-Chat",
        "internlm2.5:7b-chat",
        "internlm/internlm2_5-7b-chat",
        "ai21labs/AI21-Jamba-Mini-1.7",
        "tencent/Hunyuan-A13B-Instruct",
        "granite3-dense:8b",
        "ibm-granite/granite-3.0-8b-instruct",
        "ibm-granite/granite-3.1-8b-instruct",
        "ibm-granite/granite-3.2-8b-instruct",
        "ibm-granite/granite-3.3-8b-instruct",
        "microsoft/Phi-4-mini-instruct",
        "mistralai/Magistral-Small-2509",
        "mistralai/Devstral-Small-2507",
        "mistralai/Ministral-8B-Instruct-2410",
        "mistralai/Codestral-22B-v0.1",
        "mistralai/Mixtral-8x22B-Instruct-v0.1",
        "mistralai/Pixtral-12B-2409",
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
        "openai/gpt-oss-120b",
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.2-3B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "MiniMaxAI/MiniMax-M1-80k",
        "MiniMaxAI/MiniMax-M2.1",
        "MiniMaxAI/MiniMax-M2",
        "CohereLabs/c4ai-command-r7b-12-2024",
        "CohereLabs/command-a-03-2025",
        "swiss-ai/Apertus-8B-Instruct-2509",
        "ai-sage/GigaChat3-10B-A1.8B",
        "allenai/Olmo-3-7B-Instruct",
        "LiquidAI/LFM2.5-1.2B-Instruct",
        "LiquidAI/LFM2-1.2B-Tool",
        "google/gemma-4-31b-it",
        "baidu/ERNIE-4.5-21B-A3B-Thinking",
        "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
        "nvidia/NVIDIA-Nemotron-Nano-12B-v2",
        "FreedomIntelligence/openPangu-Embedded-7B-V2",
        "upstage/Solar-Open2-250B",
        "deepseek-flash",
        "ai-sage/GigaChat3.5-10B-A1.8B",
        "ai-sage/GigaChat3.1-10B-A1.8B",
        "MiniMaxAI/MiniMax-M3",
        "pfnet/plamo-3-nict-31b-instruct",
        "thinkingmachines/Inkling",
        "inclusionAI/Ling-3-Flash",
        "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B",
        "tencent/Hy3",
        "tencent/Hy4-preview",
        "IQuestLab/IQuest-Q1-40B",
        "Tele-AI/TeleChat4-36B",
        "LLM360/K2-Horizon",
        "poolside/Laguna-XS.2",
        "rednote-hilab/dots.llm1.inst",
        "meta-models/Muse-Glimmer-30B",
        "meta/muse-spark-1.2",
        "sbintuitions/sarashina2.2-3b-instruct-v0.1",
        "meetkai/functionary-small-v3.1",
        "meetkai/functionary-medium-v3.1",
        "upstage/Solar-Open-100B",
        "openbmb/MiniCPM4-8B",
        "openbmb/MiniCPM5-1B",
        "meetkai/functionary-small-v3.2",
        "meetkai/functionary-medium-v3.2",
    ];

    #[test]
    fn every_pattern_matches_its_own_example_first() {
        assert_eq!(EXAMPLES.len(), Format::MODEL_PATTERNS.len());
        for (row, (&(pattern, format), example)) in
            Format::MODEL_PATTERNS.iter().zip(EXAMPLES).enumerate()
        {
            assert_eq!(
                model_row(example),
                Some((row, format)),
                "{example} should match row {row}, {pattern:?}"
            );
        }
    }

    #[test]
    fn patterns_are_lower_case_and_unique() {
        for (i, (pattern, _)) in Format::MODEL_PATTERNS.iter().enumerate() {
            assert_eq!(*pattern, pattern.to_ascii_lowercase());
            assert!(!pattern.contains(['/', ':', ' ']), "{pattern}");
            assert!(
                Format::MODEL_PATTERNS[..i]
                    .iter()
                    .all(|(p, _)| normalise(p) != normalise(pattern)),
                "{pattern} twice"
            );
        }
    }

    /// No row is hidden behind an earlier one: a pattern never matches a
    /// later row's pattern (that row would never be reached).
    #[test]
    fn no_row_shadows_a_later_one() {
        let rows = Format::MODEL_PATTERNS;
        for (i, (earlier, _)) in rows.iter().enumerate() {
            for (later, _) in &rows[i + 1..] {
                assert!(
                    !holds(&normalise(later), &normalise(earlier)),
                    "{earlier:?} comes before {later:?}, which holds it"
                );
            }
        }
    }

    #[test]
    fn real_model_ids_resolve_to_their_family() {
        use Format::*;
        let cases: &[(&str, Format)] = &[
            // Qwen3-Coder and the models that write its XML.
            ("Qwen/Qwen3-Coder-480B-A35B-Instruct", Qwen3Coder),
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct", Qwen3Coder),
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", Qwen3Coder),
            ("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF", Qwen3Coder),
            (
                "hf.co/unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M",
                Qwen3Coder,
            ),
            ("qwen3-coder:30b", Qwen3Coder),
            ("qwen3_coder", Qwen3Coder),
            ("Qwen/Qwen3.5-35B-A3B", Qwen3Coder),
            ("qwen3.5:27b", Qwen3Coder),
            ("XiaomiMiMo/MiMo-V2-Flash", Qwen3Coder),
            ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", Qwen3Coder),
            ("stepfun-ai/Step-3.5-Flash", Qwen3Coder),
            ("step3p5", Qwen3Coder),
            ("stepfun-ai/step3", Step3),
            ("stepfun-ai/step3-fp8", Step3),
            ("Step-3", Step3),
            ("ByteDance-Seed/Seed-OSS-36B-Instruct", SeedOss),
            ("ByteDance-Seed/Seed-OSS-36B-Base", SeedOss),
            // Hermes and the models that write it.
            ("Qwen/Qwen2.5-7B-Instruct", Hermes),
            ("Qwen/Qwen2.5-Coder-32B-Instruct", Hermes),
            ("qwen2.5:7b", Hermes),
            ("Qwen/QwQ-32B", Hermes),
            ("qwq:32b", Hermes),
            ("Qwen/Qwen3-8B", Hermes),
            ("Qwen/Qwen3-30B-A3B-Thinking-2507", Hermes),
            ("Qwen/Qwen3-Next-80B-A3B-Instruct", Hermes),
            ("qwen3:8b", Hermes),
            ("NousResearch/Hermes-3-Llama-3.1-8B", Hermes),
            ("NousResearch/Hermes-3-Llama-3.1-70B", Hermes),
            ("NousResearch/Hermes-2-Pro-Mistral-7B", Hermes),
            ("hermes3:8b", Hermes),
            ("ibm-granite/granite-4.0-h-tiny", Hermes),
            ("ibm-granite/granite-4.0-micro", Hermes),
            // GLM.
            ("zai-org/GLM-4.5", Glm45),
            ("zai-org/GLM-4.5-Air", Glm45),
            ("zai-org/GLM-4.5-Air-FP8", Glm45),
            ("zai-org/GLM-4.6", Glm45),
            ("glm-4.6:cloud", Glm45),
            ("zai-org/GLM-4.7", Glm47),
            ("zai-org/GLM-4.7-Flash", Glm47),
            ("zai-org/GLM-5", Glm47),
            // Kimi.
            ("moonshotai/Kimi-K2-Instruct", KimiK2),
            ("moonshotai/Kimi-K2-Instruct-0905", KimiK2),
            ("moonshotai/Kimi-K2-Thinking", KimiK2),
            ("moonshotai/Kimi-K2.5", KimiK2),
            ("kimi-k2:1t-cloud", KimiK2),
            ("moonshotai/Kimi-K3", KimiK3),
            ("moonshotai/Kimi-K3-Instruct", KimiK3),
            // DeepSeek.
            ("deepseek-ai/DeepSeek-V3.1", DeepSeekV31),
            ("deepseek-ai/DeepSeek-V3.1-Terminus", DeepSeekV31),
            ("deepseek-ai/DeepSeek-V3.2-Exp", DeepSeekV31),
            ("deepseek-v3.1:671b", DeepSeekV31),
            ("deepseek-ai/DeepSeek-V3", DeepSeekV3),
            ("deepseek-ai/DeepSeek-V3-0324", DeepSeekV3),
            ("deepseek-ai/DeepSeek-R1-0528", DeepSeekV3),
            ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", DeepSeekV3),
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", DeepSeekV3),
            ("deepseek-r1:8b", DeepSeekV3),
            // The wrapped JSON formats.
            ("meituan-longcat/LongCat-Flash-Chat", LongCat),
            ("meituan-longcat/LongCat-Flash-Thinking", LongCat),
            ("internlm/internlm2_5-7b-chat", InternLm),
            ("internlm/internlm2_5-20b-chat", InternLm),
            ("ai21labs/AI21-Jamba-1.5-Mini", Jamba),
            ("ai21labs/AI21-Jamba-Large-1.7", Jamba),
            ("tencent/Hunyuan-A13B-Instruct", HunyuanA13b),
            ("tencent/Hunyuan-A13B-Instruct-FP8", HunyuanA13b),
            ("ibm-granite/granite-3.1-8b-instruct", Granite),
            ("ibm-granite/granite-3.3-2b-instruct", Granite),
            ("granite3.3:8b", Granite),
            ("ibm-granite/granite-20b-functioncalling", Granite20bFc),
            ("granite-20b-functioncalling", Granite20bFc),
            ("microsoft/Phi-4-mini-instruct", Phi4MiniJson),
            ("phi4-mini:3.8b", Phi4MiniJson),
            ("MiniMaxAI/MiniMax-M1-40k", MiniMax),
            ("MiniMaxAI/MiniMax-M1-80k", MiniMax),
            ("CohereLabs/c4ai-command-r7b-12-2024", CohereCommand3),
            ("CohereLabs/c4ai-command-a-03-2025", CohereCommand3),
            ("command-r7b:7b", CohereCommand3),
            // Mistral.
            ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", Mistral),
            ("mistralai/Mistral-7B-Instruct-v0.3", Mistral),
            ("mistralai/Mistral-Nemo-Instruct-2407", Mistral),
            ("mistralai/Mixtral-8x7B-Instruct-v0.1", Mistral),
            ("mistralai/Magistral-Small-2506", Mistral),
            ("mistralai/Devstral-Small-2505", Mistral),
            ("mistralai/Devstral-2-123B-Instruct-2512", Mistral),
            ("mistralai/Ministral-3-8B-Instruct-2512", Mistral),
            ("mistral-small3.2:24b", Mistral),
            // gpt-oss.
            ("openai/gpt-oss-120b", OpenAi),
            ("openai/gpt-oss-20b", OpenAi),
            ("gpt-oss:20b", OpenAi),
            // Llama.
            ("meta-llama/Llama-3.3-70B-Instruct", Llama3Json),
            ("meta-llama/Llama-3.1-8B-Instruct", Llama3Json),
            ("meta-llama/Meta-Llama-3.1-70B-Instruct", Llama3Json),
            ("meta-llama/Llama-3.2-1B-Instruct", Pythonic),
            ("meta-llama/Llama-3.2-3B-Instruct", Pythonic),
            (
                "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8",
                Pythonic,
            ),
            ("llama3.1:8b", Llama3Json),
            ("llama3.3", Llama3Json),
            // MiniMax-M2.
            ("MiniMaxAI/MiniMax-M2", MiniMaxM2),
            ("MiniMaxAI/MiniMax-M2.1", MiniMaxM2),
            ("minimax-m2:cloud", MiniMaxM2),
            // The rest.
            ("Salesforce/Llama-xLAM-2-8b-fc-r", Xlam),
            ("Salesforce/xLAM-2-32b-fc-r", Xlam),
            ("swiss-ai/Apertus-8B-Instruct-2509", Apertus),
            ("swiss-ai/Apertus-70B-Instruct-2509", Apertus),
            ("ai-sage/GigaChat3-702B-A36B-preview", GigaChat3),
            ("ai-sage/GigaChat3-10B-A1.8B", GigaChat3),
            // Call syntax.
            ("Team-ACE/ToolACE-8B", Pythonic),
            ("allenai/Olmo-3-7B-Think", Olmo3),
            ("olmo-3:7b", Olmo3),
            ("LiquidAI/LFM2.5-1.2B-Instruct", Lfm2),
            ("lfm2:1.2b", Lfm2),
            ("google/gemma-4-E4B-it", Gemma4),
            ("gemma4:27b", Gemma4),
            ("google/functiongemma-270m-it", FunctionGemma),
            // Names of aliases and of formats added later.
            ("baidu/ERNIE-4.5-21B-A3B-Thinking", Ernie45),
            ("baidu/ERNIE-4.5-300B-A47B-PT", Ernie45),
            ("ibm-granite/granite-4.0-h-small", Hermes),
            ("XiaomiMiMo/MiMo-V2-Flash", Qwen3Coder),
            ("stepfun-ai/Step-3.5-Flash", Qwen3Coder),
            ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", NemotronJson),
            ("nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base", NemotronJson),
            ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B", Qwen3Coder),
            ("upstage/Solar-Open2-250B", SolarOpen2),
            // DeepSeek V4.1 and the API names serving it.
            ("deepseek-ai/DeepSeek-V4.1-Flash", DeepSeekV41),
            ("deepseek-flash", DeepSeekV41),
            ("deepseek-v4-pro", DeepSeekV41),
            ("deepseek-ai/DeepSeek-V4-Flash", DeepSeekV4),
            ("ai-sage/GigaChat3.5-702B-A36B", GigaChat35),
            ("ai-sage/GigaChat3.1-702B-A36B", GigaChat3),
            ("MiniMaxAI/MiniMax-M3", MiniMaxM3),
            ("mlx-community/MiniMax-M3-4bit", MiniMaxM3),
            ("unsloth/MiniMax-M3-GGUF", MiniMaxM3),
            ("pfnet/plamo-3-nict-8b-instruct", Plamo3),
            ("plamo3:31b", Plamo3),
            ("thinkingmachines/Inkling-Small", Inkling),
            ("inclusionAI/Ling-3-Flash", Glm47),
            ("naver-hyperclovax/HyperCLOVAX-SEED-Think-14B", Glm45),
            ("tencent/Hy3", HyV3),
            ("tencent/Hy4-preview", HyV4),
            ("IQuestLab/IQuest-Q1-40B", IquestQ1),
            ("Tele-AI/TeleChat4-36B", TeleChat4),
            ("LLM360/K2-Horizon-36B", K2Horizon),
            ("poolside/Laguna-M.1", PoolsideV1),
            ("poolside/Laguna-XS.2.1", PoolsideV1),
            ("rednote-hilab/dots.llm1.inst", Dots),
            ("meta-models/Muse-Glimmer-30B", Muse),
            ("meta/muse-glimmer-30b", Muse),
            ("muse-glimmer:30b", Muse),
            ("muse-spark-1.3", Muse),
            ("sbintuitions/sarashina2-8x70b", Sarashina),
            ("meetkai/functionary-small-v3.1-GGUF", FunctionaryV31),
            ("upstage/Solar-Open-100B", SolarOpen),
            ("upstage/Solar-Open2-250B", SolarOpen2),
            ("openbmb/MiniCPM4-0.5B", MiniCpm5),
            ("hf.co/openbmb/MiniCPM5-1B-GGUF:Q8_0", MiniCpm5),
            ("minicpm5:1b", MiniCpm5),
            ("meetkai/functionary-small-v3.2-GGUF", FunctionaryV32),
            ("meetkai/functionary-small-v3.1-GGUF", FunctionaryV31),
        ];
        for &(model, format) in cases {
            assert_eq!(Format::for_model(model), Ok(format), "{model}");
        }
    }

    /// Every format a model writes natively has a row; the three leaked or
    /// opt-in formats have none.
    #[test]
    fn every_native_format_has_a_pattern() {
        let no_model = [
            Format::XmlToolUse,
            Format::XmlFunctionCall,
            Format::XmlInvoke,
            Format::BareJson,
            // No released model is known to write it.
            Format::CohereCofl,
        ];
        for format in Format::ALL {
            let rows = Format::MODEL_PATTERNS
                .iter()
                .filter(|(_, f)| f == format)
                .count();
            if no_model.contains(format) {
                assert_eq!(rows, 0, "{format} has a pattern");
            } else {
                assert!(rows > 0, "{format} has no pattern");
            }
        }
        assert!(Format::MODEL_PATTERNS
            .iter()
            .all(|(_, f)| *f != Format::Auto));
    }

    #[test]
    fn unknown_names_and_later_versions_are_errors() {
        for model in [
            "",
            "my-model",
            "gpt-4o",
            "claude-sonnet-4",
            "meta-llama/Meta-Llama-3-8B-Instruct",
            "zai-org/GLM-4-32B-0414",
            "Qwen/Qwen2-7B-Instruct",
            "qwen3.7",
            "toolcall",
        ] {
            let error = Format::for_model(model).unwrap_err();
            assert_eq!(error.model(), model);
            let message = error.to_string();
            assert!(message.contains(&format!("{model:?}")), "{message}");
            for (pattern, format) in Format::MODEL_PATTERNS {
                assert!(message.contains(&format!("{pattern} ({format})")));
            }
        }
    }

    #[test]
    fn names_are_normalised() {
        assert_eq!(
            normalise("Meta-Llama-3.1_8B Instruct"),
            "meta-llama3.1-8b-instruct"
        );
        assert_eq!(normalise("Qwen3-Coder-30B"), "qwen3-coder30b");
        assert_eq!(normalise("DeepSeek-V3-0324"), "deepseek-v3-0324");
        assert!(holds("qwen3-8b", "qwen3"));
        assert!(!holds("qwen3.5-27b", "qwen3"));
        assert!(!holds("qwen30b", "qwen3"));
        assert!(holds("qwen3-coder30b", "qwen3-coder"));
        assert!(holds("glm4.5-air", "glm4.5"));
    }
}
