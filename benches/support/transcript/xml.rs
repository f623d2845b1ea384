//! The XML-parameter formats' layouts ([`XmlLayout`]): Qwen3-Coder's,
//! GLM-4.5's and the others whose parameters are tags around a value.

/// How an XML-parameter format writes a call: `call_open`, the name,
/// `name_end`, then per parameter `param_open`, the key, `key_end`, the
/// value and `value_end`, then `call_close`.
#[derive(Debug, PartialEq, Eq)]
pub struct XmlLayout {
    pub call_open: &'static str,
    pub name_end: &'static str,
    pub param_open: &'static str,
    pub key_end: &'static str,
    pub value_end: &'static str,
    pub call_close: &'static str,
}

/// `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`
pub const QWEN: XmlLayout = XmlLayout {
    call_open: "<tool_call>\n<function=",
    name_end: ">\n",
    param_open: "<parameter=",
    key_end: ">\n",
    value_end: "\n</parameter>\n",
    call_close: "</function>\n</tool_call>",
};

/// `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n…`
pub const GLM: XmlLayout = XmlLayout {
    call_open: "<tool_call>",
    name_end: "\n",
    param_open: "<arg_key>",
    key_end: "</arg_key>\n<arg_value>",
    value_end: "</arg_value>\n",
    call_close: "</tool_call>",
};

/// Qwen's layout in Seed-OSS's wrapper.
pub const SEED_OSS: XmlLayout = XmlLayout {
    call_open: "<seed:tool_call>\n<function=",
    call_close: "</function>\n</seed:tool_call>",
    ..QWEN
};

/// `<minimax:tool_call>\n<invoke name="NAME">\n<parameter name="KEY">VALUE</parameter>\n…`
pub const MINIMAX_M2: XmlLayout = XmlLayout {
    call_open: "<minimax:tool_call>\n<invoke name=\"",
    name_end: "\">\n",
    param_open: "<parameter name=\"",
    key_end: "\">",
    value_end: "</parameter>\n",
    call_close: "</invoke>\n</minimax:tool_call>",
};

/// Step-3's, one item per call, on one line as its template writes it:
/// `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">…`
pub const STEP3: XmlLayout = XmlLayout {
    call_open:
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"",
    name_end: "\">",
    param_open: "<steptml:parameter name=\"",
    key_end: "\">",
    value_end: "</steptml:parameter>",
    call_close: "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
};

/// DeepSeek V3.2's DSML, every value `string="true"` (the integers too:
/// the tools' schema types them, as in `tool_dense`).
pub const DEEPSEEK_V32: XmlLayout = XmlLayout {
    call_open: "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜DSML｜parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜DSML｜parameter>\n",
    call_close: "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
};

/// DeepSeek V4.1's spaced DSML.
pub const DEEPSEEK_V41: XmlLayout = XmlLayout {
    call_open: "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜DSML｜ parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜DSML｜ parameter>\n",
    call_close: "</｜DSML｜ invoke>\n</｜DSML｜ calls>",
};

/// GigaChat 3.5's GCML: V4's DSML spelled `GCML`.
pub const GIGACHAT35: XmlLayout = XmlLayout {
    call_open: "<｜GCML｜tool_calls>\n<｜GCML｜invoke name=\"",
    name_end: "\">\n",
    param_open: "<｜GCML｜parameter name=\"",
    key_end: "\" string=\"true\">",
    value_end: "</｜GCML｜parameter>\n",
    call_close: "</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
};

/// Leaked `<function_calls><invoke name="NAME">…` calls: MiniMax-M2's
/// layout in that block.
pub const XML_INVOKE: XmlLayout = XmlLayout {
    call_open: "<function_calls>\n<invoke name=\"",
    call_close: "</invoke>\n</function_calls>",
    ..MINIMAX_M2
};

/// Kimi K3's XTML, every value `type="string"` (the integers too: the
/// tools' schema types them, as in `tool_dense`).
pub const KIMI_K3: XmlLayout = XmlLayout {
    call_open: "<|open|>tools<|sep|>\n<|open|>call tool=\"",
    name_end: "\" index=\"0\"<|sep|>\n",
    param_open: "<|open|>argument key=\"",
    key_end: "\" type=\"string\"<|sep|>",
    value_end: "<|close|>argument<|sep|>\n",
    call_close: "<|close|>call<|sep|>\n<|close|>tools<|sep|>",
};

/// Tencent Hy3's block, every marker with its checkpoint suffix:
/// `<tool_calls:opensource>\n<tool_call:opensource>NAME<tool_sep:opensource>\n…`
pub const HY_V3: XmlLayout = XmlLayout {
    call_open: "<tool_calls:opensource>\n<tool_call:opensource>",
    name_end: "<tool_sep:opensource>\n",
    param_open: "<arg_key:opensource>",
    key_end: "</arg_key:opensource>\n<arg_value:opensource>",
    value_end: "</arg_value:opensource>\n",
    call_close: "</tool_call:opensource>\n</tool_calls:opensource>",
};

/// Tencent Hy4's, compact, with Hy4-preview's suffix.
pub const HY_V4: XmlLayout = XmlLayout {
    call_open: "<tool_calls:6124c78e><tool_call:6124c78e>",
    name_end: "",
    param_open: "<arg_key:6124c78e>",
    key_end: "</arg_key:6124c78e><arg_value:6124c78e>",
    value_end: "</arg_value:6124c78e>",
    call_close: "</tool_call:6124c78e></tool_calls:6124c78e>",
};

/// GLM-4.5's layout in IQuest Q1's wrapper.
pub const IQUEST_Q1: XmlLayout = XmlLayout {
    call_open: "<iquest_tool_call>",
    call_close: "</iquest_tool_call>",
    ..GLM
};

/// K2-Horizon's `xml` dialect, compact.
pub const K2_HORIZON: XmlLayout = XmlLayout {
    call_open: "<ifm|tool_calls><ifm|tool_call>",
    name_end: "",
    param_open: "<ifm|arg_key>",
    key_end: "</ifm|arg_key><ifm|arg_value>",
    value_end: "</ifm|arg_value>",
    call_close: "</ifm|tool_call></ifm|tool_calls>",
};

/// dots' block around MiniMax-M2's invokes.
pub const DOTS: XmlLayout = XmlLayout {
    call_open: "<dots_function_call>\n<invoke name=\"",
    call_close: "</invoke>\n</dots_function_call>",
    ..MINIMAX_M2
};

/// Muse's: each call its own message to the function (the header, the
/// ATEM block, `<|eom|>`).
pub const MUSE: XmlLayout = XmlLayout {
    call_open: "<|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"",
    name_end: "\">\n",
    param_open: "<atem:parameter name=\"",
    key_end: "\">",
    value_end: "</atem:parameter>\n",
    call_close: "</atem:invoke>\n</atem:function_calls><|eom|>",
};

/// GLM-4.5's layout with TeleChat4's key and value tags.
pub const TELECHAT4: XmlLayout = XmlLayout {
    param_open: "<param_key>",
    key_end: "</param_key>\n<param_value>",
    value_end: "</param_value>\n",
    ..GLM
};

/// Solar Open2: GLM's layout in Solar's tokens, one argument per line.
pub const SOLAR_OPEN2: XmlLayout = XmlLayout {
    call_open: "<|tool_call:start|>",
    name_end: "\n",
    param_open: "<|tool_arg:start|>",
    key_end: "<|tool_arg:value|>",
    value_end: "<|tool_arg:end|>\n",
    call_close: "<|tool_call:end|>",
};

/// MiniCPM5's: functions with no wrapper, each value in a CDATA section
/// (as its template writes values with `<`, `&` or line ends).
pub const MINICPM5: XmlLayout = XmlLayout {
    call_open: "<function name=\"",
    name_end: "\">",
    param_open: "<param name=\"",
    key_end: "\"><![CDATA[",
    value_end: "]]></param>",
    call_close: "</function>",
};
