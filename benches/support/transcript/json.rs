//! The JSON-argument formats' layouts ([`JsonLayout`]): Hermes,
//! Harmony, Kimi K2, DeepSeek, the JSON lists, …

/// How a JSON-argument format writes a group of calls (the one to three
/// calls a turn of [`mixed_in`](super::mixed_in) makes): `group_open`,
/// then each call as `call_open`, its name and arguments in the
/// [`JsonCall`] shape and `call_close`, `separator` between two calls,
/// then `group_close`.
/// Formats that wrap each call write empty group markers; formats that
/// hold a list of calls in one wrapper write it in the group markers.
#[derive(Debug, PartialEq, Eq)]
pub struct JsonLayout {
    pub group_open: &'static str,
    pub call_open: &'static str,
    pub call: JsonCall,
    pub call_close: &'static str,
    pub separator: &'static str,
    pub group_close: &'static str,
}

/// How one call's name and arguments are written.
#[derive(Debug, PartialEq, Eq)]
pub enum JsonCall {
    /// A call object, `{"NAME_KEY": NAME, "ARGS_KEY": {…}}` (`json.dumps`
    /// separators), after an id member `"ID_KEY": "INDEX", ` if `id_key`
    /// names one (INDEX: the call's place in its group).
    Object {
        id_key: Option<&'static str>,
        name_key: &'static str,
        args_key: &'static str,
    },
    /// An object whose only key is the name: `{NAME: {…}}`.
    NameKey,
    /// The name as text, then `:INDEX` if `index` (the call's place in its
    /// group), then `after_name`, then the arguments `{…}`.
    Named {
        index: bool,
        after_name: &'static str,
    },
}

const fn object(name_key: &'static str, args_key: &'static str) -> JsonCall {
    JsonCall::Object {
        id_key: None,
        name_key,
        args_key,
    }
}

/// A format that wraps every call on its own: calls one a line.
const fn per_call(open: &'static str, call: JsonCall, close: &'static str) -> JsonLayout {
    JsonLayout {
        group_open: "",
        call_open: open,
        call,
        call_close: close,
        separator: "\n",
        group_close: "",
    }
}

/// A format that writes a group's calls as a JSON list after `open`.
const fn list(open: &'static str, call: JsonCall, close: &'static str) -> JsonLayout {
    JsonLayout {
        group_open: open,
        call_open: "",
        call,
        call_close: "",
        separator: ", ",
        group_close: close,
    }
}

/// Hermes: `<tool_call>\n{"name": NAME, "arguments": {…}}\n</tool_call>`,
/// as the Hermes chat templates write it (`json.dumps` separators,
/// non-ASCII unescaped).
pub const HERMES: JsonLayout = per_call(
    "<tool_call>\n",
    object("name", "arguments"),
    "\n</tool_call>",
);

/// gpt-oss's Harmony: `<|start|>assistant<|channel|>commentary
/// to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`.
pub const HARMONY: JsonLayout = per_call(
    "<|start|>assistant<|channel|>commentary to=functions.",
    JsonCall::Named {
        index: false,
        after_name: " <|constrain|>json<|message|>",
    },
    "<|call|>",
);

/// Kimi K2: a section of calls, each named by its id `functions.NAME:INDEX`.
pub const KIMI_K2: JsonLayout = JsonLayout {
    group_open: "<|tool_calls_section_begin|>",
    call_open: "<|tool_call_begin|>functions.",
    call: JsonCall::Named {
        index: true,
        after_name: "<|tool_call_argument_begin|>",
    },
    call_close: "<|tool_call_end|>",
    separator: "",
    group_close: "<|tool_calls_section_end|>",
};

/// DeepSeek V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`.
pub const DEEPSEEK_V31: JsonLayout = JsonLayout {
    group_open: "<｜tool▁calls▁begin｜>",
    call_open: "<｜tool▁call▁begin｜>",
    call: JsonCall::Named {
        index: false,
        after_name: "<｜tool▁sep｜>",
    },
    call_close: "<｜tool▁call▁end｜>",
    separator: "",
    group_close: "<｜tool▁calls▁end｜>",
};

/// DeepSeek V3: V3.1's markers, `function<｜tool▁sep｜>NAME` and the
/// arguments in a ```` ```json ```` fence, calls one a line.
pub const DEEPSEEK_V3: JsonLayout = JsonLayout {
    call_open: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
    call: JsonCall::Named {
        index: false,
        after_name: "\n```json\n",
    },
    call_close: "\n```<｜tool▁call▁end｜>",
    separator: "\n",
    ..DEEPSEEK_V31
};

/// LongCat-Flash: `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>`.
pub const LONGCAT: JsonLayout = per_call(
    "<longcat_tool_call>",
    object("name", "arguments"),
    "</longcat_tool_call>",
);

/// InternLM2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`.
pub const INTERNLM: JsonLayout = per_call(
    "<|action_start|><|plugin|>\n",
    object("name", "parameters"),
    "<|action_end|>",
);

/// Jamba and Hunyuan-A13B: `<tool_calls>[{…}, …]</tool_calls>`.
pub const JAMBA: JsonLayout = list(
    "<tool_calls>[",
    object("name", "arguments"),
    "]</tool_calls>",
);

/// Granite 3: `<|tool_call|>[{…}, …]`, no closer: text follows the list.
pub const GRANITE: JsonLayout = list("<|tool_call|>[", object("name", "arguments"), "]");

/// Phi-4-mini: `functools[{…}, …]`, no closer.
pub const PHI4_MINI_JSON: JsonLayout = list("functools[", object("name", "arguments"), "]");

/// Mistral Small 3.2's successors: `[TOOL_CALLS]NAME[ARGS]{…}` per call,
/// calls back to back. No closer: the JSON's end ends the call, and text
/// after it is content, so responses simply follow each other.
pub const MISTRAL: JsonLayout = JsonLayout {
    separator: "",
    ..per_call(
        "[TOOL_CALLS]",
        JsonCall::Named {
            index: false,
            after_name: "[ARGS]",
        },
        "",
    )
};

/// Llama 3.x: `<|python_tag|>{"name": …, "parameters": {…}}; {…}`. The
/// bare object only opens a call at the start of the output, so the
/// transcript writes every group after `<|python_tag|>` to hold many.
pub const LLAMA3_JSON: JsonLayout = JsonLayout {
    separator: "; ",
    group_close: "",
    ..list("<|python_tag|>", object("name", "parameters"), "")
};

/// MiniMax-M1: `<tool_calls>\n{…}\n{…}\n</tool_calls>`, one call a line.
pub const MINIMAX: JsonLayout = JsonLayout {
    separator: "\n",
    ..list(
        "<tool_calls>\n",
        object("name", "arguments"),
        "\n</tool_calls>",
    )
};

/// Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id": "0",
/// "tool_name": …, "parameters": {…}}, …]<|END_ACTION|>`.
pub const COHERE_COMMAND3: JsonLayout = list(
    "<|START_ACTION|>[",
    JsonCall::Object {
        id_key: Some("tool_call_id"),
        name_key: "tool_name",
        args_key: "parameters",
    },
    "]<|END_ACTION|>",
);

/// granite-20b-functioncalling: `<function_call> {"name": …, "arguments":
/// {…}}` per call, no closer.
pub const GRANITE_20B_FC: JsonLayout =
    per_call("<function_call> ", object("name", "arguments"), "");

/// xLAM-2: the list after `<tool_call>`, closed by `</tool_call>`. A bare
/// list only opens a call at the start of the output, so the transcript
/// writes this marker form to hold many.
pub const XLAM: JsonLayout = list("<tool_call>[", object("name", "arguments"), "]</tool_call>");

/// Apertus: `<|tools_prefix|>[{NAME: {…}}, …]<|tools_suffix|>`.
pub const APERTUS: JsonLayout = list("<|tools_prefix|>[", JsonCall::NameKey, "]<|tools_suffix|>");

/// GigaChat 3: `function call<|role_sep|>\n{"name": …, "arguments": {…}}`
/// per call, no closer (as the fixtures write it: text before and after a
/// call message is content).
pub const GIGACHAT3: JsonLayout = per_call(
    "function call<|role_sep|>\n",
    object("name", "arguments"),
    "",
);

/// Anthropic-style calls leaked into text:
/// `<tool_use><name>NAME</name><input>{…}</input></tool_use>`.
pub const XML_TOOL_USE: JsonLayout = per_call(
    "<tool_use><name>",
    JsonCall::Named {
        index: false,
        after_name: "</name><input>",
    },
    "</input></tool_use>",
);

/// OpenAI-style calls leaked into text: `<function_call><name>NAME</name>
/// <arguments>{…}</arguments></function_call>`.
pub const XML_FUNCTION_CALL: JsonLayout = per_call(
    "<function_call><name>",
    JsonCall::Named {
        index: false,
        after_name: "</name><arguments>",
    },
    "</arguments></function_call>",
);

/// PLaMo 3: each call a request inside the requests' tags, its content
/// type before the arguments.
pub const PLAMO3: JsonLayout = JsonLayout {
    group_open: "<|plamo:begin_tool_requests:plamo|>",
    call_open: "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>",
    call: JsonCall::Named {
        index: false,
        after_name: "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>\
                     <|plamo:constrain|>json<|plamo:msg|>",
    },
    call_close: "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>",
    separator: "",
    group_close: "<|plamo:end_tool_requests:plamo|>",
};

/// Inkling: each call a message with an empty header, a JSON body keyed
/// `args`.
pub const INKLING: JsonLayout = per_call(
    "<|message_model|><|content_invoke_tool_json|>",
    JsonCall::Object {
        id_key: None,
        name_key: "name",
        args_key: "args",
    },
    "<|end_message|>",
);

/// Sarashina: the list after its marker (the bare list opens calls only at
/// the output's start). JSON's spelling is a Python literal too.
pub const SARASHINA: JsonLayout = list("<|tool_calls|>[", object("name", "arguments"), "]");

/// Functionary v3.1: `<function=NAME>{…}</function>`.
pub const FUNCTIONARY_V31: JsonLayout = per_call(
    "<function=",
    JsonCall::Named {
        index: false,
        after_name: ">",
    },
    "</function>",
);

/// Functionary v3.2: `>>>NAME\n{…}`, one message per call (the text
/// before them the prompt's first message, content).
pub const FUNCTIONARY_V32: JsonLayout = per_call(
    ">>>",
    JsonCall::Named {
        index: false,
        after_name: "\n",
    },
    "",
);

/// Solar Open: `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}`
/// `<|tool_call:end|>` in a block; the id left out (the parser makes one).
pub const SOLAR_OPEN: JsonLayout = JsonLayout {
    group_open: "<|tool_calls|>",
    call_open: "<|tool_call:begin|><|tool_call:name|>",
    call: JsonCall::Named {
        index: false,
        after_name: "<|tool_call:args|>",
    },
    call_close: "<|tool_call:end|>",
    separator: "",
    group_close: "<|calls|>",
};

/// ERNIE 4.5: Hermes's calls, each on lines of its own.
pub const ERNIE45: JsonLayout = per_call(
    "<tool_call>\n",
    object("name", "arguments"),
    "\n</tool_call>\n",
);

/// Nemotron Nano v2: `<TOOLCALL>[{…}, …]</TOOLCALL>`.
pub const NEMOTRON_JSON: JsonLayout =
    list("<TOOLCALL>[", object("name", "arguments"), "]</TOOLCALL>");

/// openPangu V2: `<|tool_call_start|>[{…}, …]<|tool_call_end|>`.
pub const OPENPANGU_V2: JsonLayout = list(
    "<|tool_call_start|>[",
    object("name", "arguments"),
    "]<|tool_call_end|>",
);
