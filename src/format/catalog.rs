//! The public catalogue of formats: [`Format`], its names (vLLM's
//! `--tool-call-parser` names and aliases) and each one's description,
//! compiled once per process.

use std::fmt;
use std::str::FromStr;

use super::builtin::{
    apertus, auto, bare_json, cohere_cofl, deepseek, dots, dsml, ernie45, functionary, gemma,
    gigachat, glm, harmony, hermes, hy, inkling, json_lists, json_wrapped, k2_horizon, kimi_k2,
    kimi_k3, llama3, minicpm5, minimax_m2, minimax_m3, mistral, muse, plamo3, pythonic,
    qwen3_coder, sarashina, seed_oss, solar, step3, xlam, xml_invoke, xml_json,
};
use super::{CustomFormat, Description, Role};

/// A model's tool-call format. Names follow vLLM's `--tool-call-parser`
/// names, so `"qwen3_coder".parse::<Format>()` works as users expect.
///
/// # Example
/// ```
/// use toolcall_stream::Format;
/// let format: Format = "qwen3_coder".parse().unwrap();
/// assert_eq!(format, Format::Qwen3Coder);
/// assert_eq!(format.name(), "qwen3_coder");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// Qwen3-Coder XML, also emitted by Qwen3.5 and Qwen3.6:
    /// `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>`
    /// `</function></tool_call>`. vLLM names: `qwen3_coder`, `qwen3_xml`.
    #[default]
    Qwen3Coder,
    /// GLM-4.5 / GLM-4.6: `<tool_call>NAME\n<arg_key>KEY</arg_key>\n`
    /// `<arg_value>VALUE</arg_value>\n</tool_call>`. vLLM name: `glm45`.
    Glm45,
    /// GLM-4.7: GLM-4.5's markers without the newlines,
    /// `<tool_call>NAME<arg_key>KEY</arg_key><arg_value>VALUE</arg_value>`
    /// `</tool_call>`. vLLM name: `glm47`.
    Glm47,
    /// Hermes, also written by Qwen2.5, QwQ, Qwen3 and Granite 4: a JSON
    /// object inside the wrapper, `<tool_call>{"name": NAME, "arguments":`
    /// `{…}}</tool_call>`. vLLM name: `hermes`.
    Hermes,
    /// Kimi K2, K2-Thinking, K2.5: `<|tool_calls_section_begin|>`
    /// `<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>`
    /// `{…}<|tool_call_end|><|tool_calls_section_end|>`; the id
    /// `functions.NAME:0` is kept. vLLM name: `kimi_k2`.
    KimiK2,
    /// DeepSeek V3.1, V3.2-Exp: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>`
    /// `NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`. vLLM
    /// name: `deepseek_v31`.
    DeepSeekV31,
    /// DeepSeek V3-0324, R1-0528: V3.1's markers, with
    /// `function<｜tool▁sep｜>NAME` and the arguments in a ```` ```json ````
    /// fence. vLLM name: `deepseek_v3`.
    DeepSeekV3,
    /// LongCat-Flash: `<longcat_tool_call>{"name": NAME, "arguments": {…}}`
    /// `</longcat_tool_call>`. vLLM name: `longcat`.
    LongCat,
    /// InternLM2.5: `<|action_start|><|plugin|>{"name": NAME, "parameters":`
    /// `{…}}<|action_end|>`. vLLM name: `internlm`.
    InternLm,
    /// Jamba: `<tool_calls>[{"name": NAME, "arguments": {…}}, …]</tool_calls>`.
    /// vLLM name: `jamba`.
    Jamba,
    /// Hunyuan-A13B: as Jamba, `<tool_calls>[…]</tool_calls>`. vLLM name:
    /// `hunyuan_a13b`.
    HunyuanA13b,
    /// Granite 3: `<|tool_call|>[{"name": NAME, "arguments": {…}}, …]`. vLLM
    /// name: `granite`.
    Granite,
    /// Phi-4-mini: `functools[{"name": NAME, "arguments": {…}}, …]`. vLLM
    /// name: `phi4_mini_json`.
    Phi4MiniJson,
    /// Mistral: `[TOOL_CALLS] [{"name": NAME, "arguments": {…}}]` (7B v0.3,
    /// Nemo), `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}` (Small 3.2) and
    /// `[TOOL_CALLS]NAME[ARGS]{…}` (Magistral, Devstral 2). vLLM name:
    /// `mistral`.
    Mistral,
    /// gpt-oss, in OpenAI's Harmony format: messages with headers,
    /// `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>`
    /// `{…}<|call|>`; the `analysis` channel is reasoning, `final` content.
    /// vLLM name: `openai`.
    OpenAi,
    /// Llama 3.1–3.3: `<|python_tag|>{"name": NAME, "parameters": {…}}`, or
    /// the object bare at the start of the output; several calls are
    /// separated by `; `. vLLM names: `llama3_json`, `llama4_json`.
    Llama3Json,
    /// MiniMax-M1: `<tool_calls>\n{"name": NAME, "arguments": {…}}\n{…}`
    /// `\n</tool_calls>`, one call object per line. vLLM name: `minimax`.
    MiniMax,
    /// Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id": "0",`
    /// `"tool_name": NAME, "parameters": {…}}, …]<|END_ACTION|>`. vLLM
    /// names: `cohere_command3`, `cohere_command4`.
    CohereCommand3,
    /// granite-20b-functioncalling: `<function_call> {"name": NAME,`
    /// `"arguments": {…}}` per call, no closer. vLLM name:
    /// `granite-20b-fc`.
    Granite20bFc,
    /// xLAM-2: a JSON list `[{"name": NAME, "arguments": {…}}, …]`, bare
    /// at the start of the output, in a ```` ```json ```` fence there, or
    /// after `<tool_call>` (closed by `</tool_call>`) or `[TOOL_CALLS]`.
    /// vLLM name: `xlam`.
    Xlam,
    /// Apertus: `<|tools_prefix|>[{NAME: {…}}, …]<|tools_suffix|>`, the
    /// function name as each object's only key. vLLM name: `apertus`.
    Apertus,
    /// GigaChat 3: `function call<|role_sep|>\n{"name": NAME, "arguments":`
    /// `{…}}`, one call as a message of its own. vLLM name: `gigachat3`.
    GigaChat3,
    /// Calls leaked into text in Anthropic's style:
    /// `<tool_use><name>NAME</name><input>{…}</input></tool_use>`.
    XmlToolUse,
    /// Calls leaked into text in OpenAI's style: `<function_call><name>NAME`
    /// `</name><arguments>{…}</arguments></function_call>`.
    XmlFunctionCall,
    /// Calls written as plain JSON at the start of a line:
    /// `{"tool"|"name": NAME, "args"|"arguments"|"parameters": {…}}`, a list
    /// of them, or either in a ```` ```json ```` fence. Opt-in: JSON
    /// content with a string `name` is a call here, so `auto` does not
    /// detect it. Names: `bare_json`, `json`.
    BareJson,
    /// Seed-OSS: Qwen3-Coder's shape in Seed's wrapper,
    /// `<seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter>`
    /// `</function></seed:tool_call>`; reasoning in `<seed:think>`. vLLM
    /// name: `seed_oss`.
    SeedOss,
    /// MiniMax-M2 and M2.1: `<minimax:tool_call><invoke name="NAME">`
    /// `<parameter name="KEY">VALUE</parameter></invoke></minimax:tool_call>`.
    /// vLLM name: `minimax_m2`.
    MiniMaxM2,
    /// DeepSeek V3.2's DSML: `<｜DSML｜function_calls><｜DSML｜invoke`
    /// `name="NAME"><｜DSML｜parameter name="KEY" string="true|false">VALUE`
    /// `</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>`;
    /// `string="false"` values are JSON. vLLM name: `deepseek_v32`.
    DeepSeekV32,
    /// DeepSeek V4: V3.2's DSML with the block spelled
    /// `<｜DSML｜tool_calls>`. vLLM name: `deepseek_v4`.
    DeepSeekV4,
    /// Calls leaked into text in Anthropic's older XML:
    /// `<function_calls><invoke name="NAME"><parameter name="KEY">VALUE`
    /// `</parameter></invoke></function_calls>`, or an `<invoke>` alone.
    XmlInvoke,
    /// Kimi K3's XTML: `<|open|>tools<|sep|><|open|>call tool="NAME"`
    /// `index="0"<|sep|><|open|>argument key="KEY" type="string"<|sep|>`
    /// `VALUE<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`;
    /// a value's `type` other than `string` says it is JSON. vLLM name:
    /// `kimi_k3`.
    KimiK3,
    /// StepFun Step-3: `<｜tool_calls_begin｜><｜tool_call_begin｜>function`
    /// `<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter`
    /// `name="KEY">VALUE</steptml:parameter></steptml:invoke>`
    /// `<｜tool_call_end｜><｜tool_calls_end｜>`, one item per call. vLLM
    /// name: `step3`.
    Step3,
    /// Python call syntax, a list of calls: `[NAME(KEY='VALUE', N=3), …]`,
    /// at the start of a line or after Llama 4's `<|python_start|>` (closed
    /// by `<|python_end|>`). Llama 3.2, Llama 4, ToolACE. vLLM names:
    /// `pythonic`, `llama4_pythonic`.
    Pythonic,
    /// Olmo 3: Python calls, one per line, in `<function_calls>` …
    /// `</function_calls>`. vLLM name: `olmo3`.
    Olmo3,
    /// LFM2: a list of Python calls in `<|tool_call_start|>` …
    /// `<|tool_call_end|>`. vLLM name: `lfm2`.
    Lfm2,
    /// Gemma 4: `<|tool_call>call:NAME{KEY:<|"|>VALUE<|"|>,N:3}<tool_call|>`,
    /// bare values typed by the schema; reasoning in `<|channel>thought` …
    /// `<channel|>`. vLLM name: `gemma4`.
    Gemma4,
    /// FunctionGemma: `<start_function_call>call:NAME{KEY:<escape>VALUE`
    /// `<escape>}<end_function_call>`. vLLM name: `functiongemma`.
    FunctionGemma,
    /// ERNIE 4.5: Hermes's `<tool_call>{"name": NAME, "arguments": {…}}`
    /// `</tool_call>`, the reply in `<response>` … `</response>` (markup,
    /// not content). vLLM name: `ernie45`.
    Ernie45,
    /// Nemotron Nano v2: `<TOOLCALL>[{"name": NAME, "arguments": {…}}]`
    /// `</TOOLCALL>`, the brackets sometimes left out. Name:
    /// `nemotron_json`.
    NemotronJson,
    /// openPangu V2: a JSON list of calls in LFM2's markers,
    /// `<|tool_call_start|>[{"name": NAME, "arguments": {…}}]`
    /// `<|tool_call_end|>`; not detected by `auto` (LFM2's markers). Name:
    /// `openpangu_v2`.
    OpenPanguV2,
    /// Solar Open2: `<|tool_call:start|>NAME\n<|tool_arg:start|>KEY`
    /// `<|tool_arg:value|>VALUE<|tool_arg:end|>\n<|tool_call:end|>`. Name:
    /// `solar_open2`.
    SolarOpen2,
    /// DeepSeek V4.1's spaced DSML: `<｜DSML｜ calls><｜DSML｜ invoke`
    /// `name="NAME"><｜DSML｜ parameter name="KEY" string="true|false">VALUE`
    /// `</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>`, or an
    /// invoke whose body is its JSON arguments. vLLM name: `deepseek_v41`.
    DeepSeekV41,
    /// GigaChat 3.5's GCML: DeepSeek V4's DSML with `GCML` for `DSML`,
    /// `<｜GCML｜tool_calls><｜GCML｜invoke name="NAME">…`. SGLang name:
    /// `gigachat35`.
    GigaChat35,
    /// MiniMax-M3: `]<]minimax[>[<tool_call>]<]minimax[>[<invoke name="NAME">`
    /// `]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>…`, every tag after the
    /// namespace token, a parameter named by its tag, objects and arrays
    /// as nested elements; reasoning in `<mm:think>`. vLLM name:
    /// `minimax_m3`.
    MiniMaxM3,
    /// PLaMo 3: `<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>`
    /// `<|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>`
    /// `<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{…}`
    /// `<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`
    /// `<|plamo:end_tool_requests:plamo|>`. vLLM name: `plamo3`.
    Plamo3,
    /// Thinking Machines Inkling's TML: `<|message_model|>NAME`
    /// `<|content_invoke_tool_json|>{"name": NAME, "args": {…}}<|end_message|>`,
    /// typed blocks (`<|content_text|>`, `<|content_thinking|>`, …) each
    /// after a message header. vLLM name: `inkling`.
    Inkling,
    /// Tencent Hy3: `<tool_calls:opensource><tool_call:opensource>NAME`
    /// `<tool_sep:opensource><arg_key:opensource>KEY</arg_key:opensource>`
    /// `<arg_value:opensource>VALUE</arg_value:opensource></tool_call:opensource>`
    /// `</tool_calls:opensource>`; every marker carries the checkpoint's
    /// suffix (none on Hy3-preview: [`Format::with_marker_suffix`]). vLLM
    /// name: `hy_v3`.
    HyV3,
    /// Tencent Hy4: Hy3's block without `<tool_sep>`, the suffix one per
    /// checkpoint (`:6124c78e` on Hy4-preview; another:
    /// [`Format::with_marker_suffix`]). vLLM name: `hy_v4`.
    HyV4,
    /// IQuest Q1: GLM-4.5's calls in `<iquest_tool_call>` …
    /// `</iquest_tool_call>`. SGLang name: `iquest_q1`.
    IquestQ1,
    /// TeleChat4: GLM-4.5's calls with `<param_key>KEY</param_key>`
    /// `<param_value>VALUE</param_value>`. SGLang's file: `telechat4`.
    TeleChat4,
    /// K2-Horizon's `xml` dialect: `<ifm|tool_calls><ifm|tool_call>NAME`
    /// `<ifm|arg_key>KEY</ifm|arg_key><ifm|arg_value>VALUE</ifm|arg_value>`
    /// `</ifm|tool_call></ifm|tool_calls>`. vLLM name: `k2_horizon`.
    K2Horizon,
    /// Poolside Laguna: GLM-4.5's calls, and a call as bare JSON
    /// (`{"name": NAME, "arguments": {…}}`) where it opens the content and
    /// names one of the request's tools. vLLM name: `poolside_v1`.
    PoolsideV1,
    /// dots (rednote-hilab): MiniMax-M2's `<invoke name="NAME">` calls, or
    /// one JSON `{"name", "arguments"}` object, in `<dots_function_call>` …
    /// `</dots_function_call>`. vLLM name: `dots`.
    Dots,
    /// Meta Muse (Muse-Glimmer, Muse Spark): messages addressed by
    /// recipient (` to=self<|message|>` reasoning, `to=user` the answer,
    /// `to=NAME` a function's), whose calls are
    /// `<atem:function_calls><atem:invoke name="N"><atem:parameter name="K">V`
    /// `</atem:parameter></atem:invoke></atem:function_calls>`. vLLM names:
    /// `muse`, `musespark1x`, `muse_glimmer`. Not detected by `auto` (its
    /// output starts inside the header its prompt opened, and its headers
    /// are gpt-oss's markers).
    Muse,
    /// SoftBank Sarashina: `<|tool_calls|>[{'name': NAME, 'arguments':`
    /// `{…}}]`, a Python literal (single quotes, `True`), the marker often
    /// stripped: a list that opens the output is read too. smg name:
    /// `sarashina`.
    Sarashina,
    /// MeetKai Functionary v3.1 (Llama 3.1): `<function=NAME>{…}`
    /// `</function>`, the element's body the JSON arguments. Name:
    /// `functionary_v31` (llama.cpp's `FUNCTIONARY_V3_1_LLAMA_3_1`).
    FunctionaryV31,
    /// Upstage Solar Open: `<|tool_calls|><|tool_call:begin|>ID`
    /// `<|tool_call:name|>NAME<|tool_call:args|>{…}<|tool_call:end|>`,
    /// the id kept; reasoning in `<|think|>` … `<|end|>`. Name:
    /// `solar_open` (llama.cpp's `SOLAR_OPEN`).
    SolarOpen,
    /// OpenBMB MiniCPM 4 and 5: `<function name="NAME"><param name="KEY">`
    /// `VALUE</param></function>` with no wrapper, values in CDATA where
    /// they need it. vLLM name: `minicpm5`.
    MiniCpm5,
    /// MeetKai Functionary v3.2: `>>>RECIPIENT` on its own line, then the
    /// body: content for `all`, else the named function's JSON arguments;
    /// the first recipient comes without `>>>`. Name: `functionary_v32`
    /// (llama.cpp's `FUNCTIONARY_V3_2`).
    FunctionaryV32,
    /// Cohere's cofl XML (Melody's `cmd5`): `<cofl:tool_calls>`
    /// `<cofl:tool_call id="0" name="NAME"><cofl:tool_param name="KEY"`
    /// ` string="true">VALUE</cofl:tool_param></cofl:tool_call>`
    /// `</cofl:tool_calls>` (`string="false"`: JSON), or nested
    /// `<cofl:value name="KEY" type="raw|json|dict|list">` values; the id
    /// is kept, entities decoded. Names: `cohere_cofl`, `cmd5`,
    /// `cohere_xml`.
    CohereCofl,
    /// Not a format: the format is found from the output. Text is content
    /// until an opener of some format (`<tool_call>`, `[TOOL_CALLS]`, …)
    /// opens a call; that call decides the format for the rest of the
    /// stream, reported as `format_detected`. Formats that share an opener
    /// (Hermes, Qwen3-Coder and GLM all open with `<tool_call>`) are told
    /// apart by what follows it. `phi4_mini_json` and `gigachat3`, whose
    /// openers are plain words (`functools`, `function call`), are not
    /// detected; nor is `openpangu_v2`, whose markers are LFM2's (they are
    /// LFM2's to `auto`), and ERNIE 4.5's calls are read as Hermes's. Not in [`Format::ALL`].
    Auto,
    /// A format of the user's own, made with
    /// [`FormatBuilder`](crate::FormatBuilder) (or read from a format
    /// file). Not in [`Format::ALL`], and not detected by `Auto`.
    Custom(CustomFormat),
}

impl Format {
    /// Every format this version knows, in documentation order.
    pub const ALL: &'static [Format] = &[
        Format::Qwen3Coder,
        Format::Glm45,
        Format::Glm47,
        Format::Hermes,
        Format::KimiK2,
        Format::DeepSeekV31,
        Format::DeepSeekV3,
        Format::LongCat,
        Format::InternLm,
        Format::Jamba,
        Format::HunyuanA13b,
        Format::Granite,
        Format::Phi4MiniJson,
        Format::Mistral,
        Format::OpenAi,
        Format::Llama3Json,
        Format::MiniMax,
        Format::CohereCommand3,
        Format::Granite20bFc,
        Format::Xlam,
        Format::Apertus,
        Format::GigaChat3,
        Format::XmlToolUse,
        Format::XmlFunctionCall,
        Format::BareJson,
        Format::SeedOss,
        Format::MiniMaxM2,
        Format::DeepSeekV32,
        Format::DeepSeekV4,
        Format::XmlInvoke,
        Format::KimiK3,
        Format::Step3,
        Format::Pythonic,
        Format::Olmo3,
        Format::Lfm2,
        Format::Gemma4,
        Format::FunctionGemma,
        Format::Ernie45,
        Format::NemotronJson,
        Format::OpenPanguV2,
        Format::SolarOpen2,
        Format::DeepSeekV41,
        Format::GigaChat35,
        Format::MiniMaxM3,
        Format::Plamo3,
        Format::Inkling,
        Format::HyV3,
        Format::HyV4,
        Format::IquestQ1,
        Format::TeleChat4,
        Format::K2Horizon,
        Format::PoolsideV1,
        Format::Dots,
        Format::Muse,
        Format::Sarashina,
        Format::FunctionaryV31,
        Format::SolarOpen,
        Format::MiniCpm5,
        Format::FunctionaryV32,
        Format::CohereCofl,
    ];

    /// The canonical (vLLM) name of the format.
    pub fn name(self) -> &'static str {
        self.description().name
    }

    /// The other names that [`FromStr`] accepts for the format, besides
    /// [`name`](Format::name): vLLM registers some parsers twice.
    ///
    /// ```
    /// use toolcall_stream::Format;
    /// assert!(Format::Qwen3Coder.aliases().contains(&"qwen3_xml"));
    /// assert_eq!("qwen3.5".parse::<Format>(), Ok(Format::Qwen3Coder));
    /// ```
    pub fn aliases(self) -> &'static [&'static str] {
        self.description().aliases
    }

    /// The format's markers, each with its role, in the description's
    /// order: what a UI hides, or what a server may want as stop strings.
    ///
    /// ```
    /// use toolcall_stream::{Format, Role};
    /// assert!(Format::Glm47.markers().any(|m| m == (Role::ParamOpen, "<arg_key>")));
    /// ```
    pub fn markers(self) -> impl Iterator<Item = (Role, &'static str)> {
        self.description().markers.iter().copied()
    }

    pub(crate) fn description(self) -> &'static Description {
        match self {
            Format::Qwen3Coder => &qwen3_coder::QWEN3_CODER,
            Format::Glm45 => &glm::GLM45,
            Format::Glm47 => &glm::GLM47,
            Format::Hermes => &hermes::HERMES,
            Format::KimiK2 => &kimi_k2::KIMI_K2,
            Format::DeepSeekV31 => &deepseek::DEEPSEEK_V31,
            Format::DeepSeekV3 => &deepseek::DEEPSEEK_V3,
            Format::LongCat => &json_wrapped::LONGCAT,
            Format::InternLm => &json_wrapped::INTERNLM,
            Format::Jamba => &json_wrapped::JAMBA,
            Format::HunyuanA13b => &json_wrapped::HUNYUAN_A13B,
            Format::Granite => &json_wrapped::GRANITE,
            Format::Phi4MiniJson => &json_wrapped::PHI4_MINI_JSON,
            Format::Mistral => &mistral::MISTRAL,
            Format::OpenAi => &harmony::HARMONY,
            Format::Auto => &auto::AUTO,
            Format::Llama3Json => &llama3::LLAMA3_JSON,
            Format::MiniMax => &json_wrapped::MINIMAX,
            Format::CohereCommand3 => &json_wrapped::COHERE_COMMAND3,
            Format::Granite20bFc => &json_wrapped::GRANITE_20B_FC,
            Format::Xlam => &xlam::XLAM,
            Format::Apertus => &apertus::APERTUS,
            Format::GigaChat3 => &gigachat::GIGACHAT3,
            Format::XmlToolUse => &xml_json::XML_TOOL_USE,
            Format::XmlFunctionCall => &xml_json::XML_FUNCTION_CALL,
            Format::BareJson => &bare_json::BARE_JSON,
            Format::SeedOss => &seed_oss::SEED_OSS,
            Format::MiniMaxM2 => &minimax_m2::MINIMAX_M2,
            Format::DeepSeekV32 => &dsml::DEEPSEEK_V32,
            Format::DeepSeekV4 => &dsml::DEEPSEEK_V4,
            Format::XmlInvoke => &xml_invoke::XML_INVOKE,
            Format::KimiK3 => &kimi_k3::KIMI_K3,
            Format::Step3 => &step3::STEP3,
            Format::Pythonic => &pythonic::PYTHONIC,
            Format::Olmo3 => &pythonic::OLMO3,
            Format::Lfm2 => &pythonic::LFM2,
            Format::Gemma4 => &gemma::GEMMA4,
            Format::FunctionGemma => &gemma::FUNCTIONGEMMA,
            Format::Ernie45 => &ernie45::ERNIE45,
            Format::NemotronJson => &json_lists::NEMOTRON_JSON,
            Format::OpenPanguV2 => &json_lists::OPENPANGU_V2,
            Format::SolarOpen2 => &solar::SOLAR_OPEN2,
            Format::DeepSeekV41 => &dsml::DEEPSEEK_V41,
            Format::GigaChat35 => &dsml::GIGACHAT35,
            Format::MiniMaxM3 => &minimax_m3::MINIMAX_M3,
            Format::Plamo3 => &plamo3::PLAMO3,
            Format::Inkling => &inkling::INKLING,
            Format::HyV3 => &hy::HY_V3,
            Format::HyV4 => &hy::HY_V4,
            Format::IquestQ1 => &glm::IQUEST_Q1,
            Format::TeleChat4 => &glm::TELECHAT4,
            Format::K2Horizon => &k2_horizon::K2_HORIZON,
            Format::PoolsideV1 => &glm::POOLSIDE_V1,
            Format::Dots => &dots::DOTS,
            Format::Muse => &muse::MUSE,
            Format::Sarashina => &sarashina::SARASHINA,
            Format::FunctionaryV31 => &functionary::FUNCTIONARY_V31,
            Format::SolarOpen => &solar::SOLAR_OPEN,
            Format::MiniCpm5 => &minicpm5::MINICPM5,
            Format::FunctionaryV32 => &functionary::FUNCTIONARY_V32,
            Format::CohereCofl => &cohere_cofl::COHERE_COFL,
            Format::Custom(custom) => custom.description(),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error returned when a format name is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat {
    name: String,
}

/// vLLM's parser names that read the format from the model's own
/// `response_template` metadata rather than from code: no format by
/// themselves ([`UnknownFormat::needs_response_template`]).
const RESPONSE_TEMPLATE_PARSERS: &[&str] = &["hf", "beam"];

impl UnknownFormat {
    /// Whether the name is one of vLLM's parsers that read the format from
    /// the model's `response_template` metadata (`hf`, `beam`): the format
    /// is then [`Format::from_response_template`] of the model's
    /// `tokenizer_config.json`.
    ///
    /// ```
    /// use toolcall_stream::Format;
    /// let error = "hf".parse::<Format>().unwrap_err();
    /// assert!(error.needs_response_template());
    /// assert!(error.to_string().contains("response_template"));
    /// ```
    pub fn needs_response_template(&self) -> bool {
        RESPONSE_TEMPLATE_PARSERS.contains(&normalise(&self.name).as_str())
    }
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.needs_response_template() {
            return write!(
                f,
                "format {:?} is read from the model's own `response_template` metadata: give the \
                 model's tokenizer_config.json (Format::from_response_template; the CLI's \
                 --format-from-model-config FILE)",
                self.name
            );
        }
        write!(f, "unknown format {:?}; known formats: ", self.name)?;
        for (i, format) in Format::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(format.name())?;
            match format.aliases() {
                [] => {}
                [alias] => write!(f, " (alias: {alias})")?,
                aliases => write!(f, " (aliases: {})", aliases.join(", "))?,
            }
        }
        f.write_str(", or auto (detected from the output)")
    }
}

impl std::error::Error for UnknownFormat {}

/// Names are matched ignoring ASCII case, with `-` and `_` alike: users
/// type `Qwen3-Coder` as often as vLLM's `qwen3_coder`.
impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        let wanted = normalise(name);
        Format::ALL
            .iter()
            .chain([&Format::Auto])
            .copied()
            .find(|format| {
                normalise(format.name()) == wanted
                    || format
                        .aliases()
                        .iter()
                        .any(|alias| normalise(alias) == wanted)
            })
            .ok_or_else(|| UnknownFormat {
                name: name.to_owned(),
            })
    }
}

/// The form names are compared in: names as users type them, and the
/// formats' own names and aliases (vLLM spells one `granite-20b-fc`).
pub(super) fn normalise(name: &str) -> String {
    name.to_ascii_lowercase().replace('-', "_")
}
