//! The call-syntax formats' layouts ([`CallLayout`]): Python's calls,
//! Gemma's, and calls written as elements named by their keys.

/// How a call-syntax format writes a group of calls: `group_open`, then
/// each call as `call_open`, the call in [`CallSyntax`] and `call_close`,
/// `separator` between two calls, then `group_close`.
#[derive(Debug, PartialEq, Eq)]
pub struct CallLayout {
    pub group_open: &'static str,
    pub call_open: &'static str,
    pub syntax: CallSyntax,
    pub call_close: &'static str,
    pub separator: &'static str,
    pub group_close: &'static str,
}

/// A call's syntax.
#[derive(Debug, PartialEq, Eq)]
pub enum CallSyntax {
    /// `NAME(key=VALUE, …)`, strings as Python's `repr` writes them:
    /// quoted with `quote`, or with the other quote when the text holds
    /// `quote` and not the other (`'it\'s'` is `"it's"`).
    Python { quote: char },
    /// `call:NAME{key:VALUE,…}`, strings between two `delimiter`s, taken
    /// as they are.
    Gemma { delimiter: &'static str },
    /// `PREFIX<invoke name="NAME">` then `PREFIX<key>VALUE PREFIX</key>` per
    /// argument (text entity-escaped), then `PREFIX</invoke>`; with a
    /// `value` element, `<TAG name="key" ATTRS>VALUE</TAG>` per argument,
    /// and the call element `call` in place of `invoke`.
    Elements {
        prefix: &'static str,
        call: &'static str,
        value: Option<(&'static str, &'static str)>,
    },
}

/// Llama 3.2's pythonic list at a line's start: `[f(a='x'), g(b=1)]`.
pub const PYTHONIC: CallLayout = CallLayout {
    group_open: "[",
    call_open: "",
    syntax: CallSyntax::Python { quote: '\'' },
    call_close: "",
    separator: ", ",
    group_close: "]",
};

/// Olmo 3: `<function_calls>f(a="x")\ng(b=1)</function_calls>`, one call
/// a line.
pub const OLMO3: CallLayout = CallLayout {
    group_open: "<function_calls>",
    syntax: CallSyntax::Python { quote: '"' },
    separator: "\n",
    group_close: "</function_calls>",
    ..PYTHONIC
};

/// LFM2: `<|tool_call_start|>[f(a="x"), g(b=1)]<|tool_call_end|>`.
pub const LFM2: CallLayout = CallLayout {
    group_open: "<|tool_call_start|>[",
    syntax: CallSyntax::Python { quote: '"' },
    group_close: "]<|tool_call_end|>",
    ..PYTHONIC
};

/// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`
/// per call, calls back to back.
pub const GEMMA4: CallLayout = CallLayout {
    group_open: "",
    call_open: "<|tool_call>call:",
    syntax: CallSyntax::Gemma {
        delimiter: "<|\"|>",
    },
    call_close: "<tool_call|>",
    separator: "",
    group_close: "",
};

/// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
pub const FUNCTIONGEMMA: CallLayout = CallLayout {
    call_open: "<start_function_call>call:",
    syntax: CallSyntax::Gemma {
        delimiter: "<escape>",
    },
    call_close: "<end_function_call>",
    ..GEMMA4
};

/// MiniMax-M3: a `]<]minimax[>[<tool_call>` wrapper around invokes whose
/// parameters are elements named by their key.
pub const MINIMAX_M3: CallLayout = CallLayout {
    group_open: "]<]minimax[>[<tool_call>\n",
    call_open: "]<]minimax[>[<invoke name=\"",
    syntax: CallSyntax::Elements {
        prefix: "]<]minimax[>[",
        call: "invoke",
        value: None,
    },
    call_close: "",
    separator: "\n",
    group_close: "\n]<]minimax[>[</tool_call>",
};

/// Cohere's cofl: `<cofl:tool_call id="0" name="NAME">` holding one
/// `<cofl:value name="key" type="raw">` per argument.
pub const COHERE_COFL: CallLayout = CallLayout {
    group_open: "<cofl:tool_calls>",
    call_open: "<cofl:tool_call id=\"0\" name=\"",
    syntax: CallSyntax::Elements {
        prefix: "",
        call: "cofl:tool_call",
        value: Some(("cofl:value", " type=\"raw\"")),
    },
    call_close: "",
    separator: "\n",
    group_close: "\n</cofl:tool_calls>",
};
