//! The conformance fixtures a grammar does not admit, though the parser
//! reads them cleanly, each with its reason (`tests/walks.rs` checks every
//! other clean fixture is admitted).

/// Fixtures a grammar does not admit though the parser reads them cleanly,
/// each with the reason (the grammar writes one layout of what the parser
/// also reads in others).
pub const NOT_ADMITTED: &[(&str, &str)] = &[
    ("q_typed_all", COERCED),
    ("q_object_nested_coercion", COERCED),
    ("g47_typed", COERCED),
    ("g45_typed", COERCED),
    ("m_typed", COERCED),
    ("d_string_args_not_coerced", COERCED),
    ("d3_string_args_not_coerced", COERCED),
    ("pl3_typed_schema", COERCED),
    ("pl3_marker_in_value", IN_JSON),
    ("pool_typed_schema", COERCED),
    ("er45_typed_schema", COERCED),
    ("gr4_typed_schema", COERCED),
    ("oa_typed_schema", COERCED),
    ("ink_typed_schema", COERCED),
    (
        "mu_typed_schema",
        "`label` comes after `items`: the grammar writes parameters in their declared order",
    ),
    ("ink_marker_in_value", IN_JSON),
    (
        "oa_no_constrain",
        "the grammar writes the arguments' content type, ` <|constrain|>json`, as gpt-oss does; \
         the parser also reads a header without it",
    ),
    ("ink_content_before", INKLING_KEYS),
    (
        "ink_missing_end",
        "the call object's keys come args first, and its message is not closed",
    ),
    (
        "ink_no_header_name",
        "the call object's keys come args first, and the header leaves out the name the grammar writes",
    ),
    (
        "q_function_name_with_spaces",
        "names are written as declared, without the spaces the parser trims",
    ),
    (
        "m_unquoted_names",
        "names are written in the quotes the template uses; the parser also reads them bare",
    ),
    (
        "dots_json_body",
        "dots' calls are written as its marked-up functions; the parser also reads a JSON body",
    ),
    ("h_unicode", IN_JSON),
    ("er45_closer_in_value", IN_JSON),
    ("gr4_closer_in_value", IN_JSON),
    ("k_typed_schema", COERCED),
    ("py_string_for_int", COERCED),
    ("mi_typed_schema", COERCED),
    ("mi_marker_in_string", IN_JSON),
    ("ge4_string_array", COERCED),
    (
        "ge4_end_marker_in_string",
        "a Gemma string holds no character a marker or its delimiter starts with (`<`), as a \
         JSON string; the parser takes a closer between the delimiters as text",
    ),
    (
        "mi_pre_v11_array",
        "Mistral's calls are written as a name and its arguments (its tokenizers from v11); the \
         parser also reads the older list of call objects",
    ),
    (
        "k_name_without_index",
        "Kimi's id is written whole (`functions.NAME:INDEX`); the parser also reads it without \
         the index",
    ),
    ("cc3_thinking_then_call", SKIPPED_KEY),
    (
        "mm3_typed_schema",
        "objects and arrays are written as JSON text, which the parser reads too; the grammar \
         writes no nested elements",
    ),
    ("cc3_two_calls", SKIPPED_KEY),
    ("cc3_unicode", SKIPPED_KEY),
    ("cc3_content_after", SKIPPED_KEY),
    ("cc4_thinking_then_call", SKIPPED_KEY),
    (
        "ds32_typed_schema",
        "a value's attribute is written as its type says, as DeepSeek's template writes it \
         (`string=\"false\"` for a number); the parser also reads `string=\"true\"` there, and \
         types the value by its schema",
    ),
    (
        "ds4_wrapper_variant",
        "the block's opener is written in the format's own spelling (`tool_calls`); the parser \
         also reads `toolcalls`",
    ),
    (
        "xl_json_fence",
        "a code fence around the JSON is layout the parser reads; the grammar writes none",
    ),
];

/// Why Command's calls with a `tool_call_id` are not admitted.
const SKIPPED_KEY: &str = "a call object holds its name and arguments keys only: Command's                            `tool_call_id`, which the parser skips, is not written";

/// Why a typed value the parser coerces is not admitted.
const COERCED: &str =
    "a value the parser coerces to its schema's type (\"5\" for 5, False for false) is \
                       written in that type";

/// Why a JSON string with a marker's first character is not admitted.
const IN_JSON: &str =
    "a JSON string holds no character a marker starts with (`<`, `[`), which the parser \
                       would act on in a marked-up value; JSON formats share the rule";

/// Inkling's call objects are written `{"name": …, "args": …}`, as its
/// documentation and smg's tag write them.
const INKLING_KEYS: &str =
    "the call object's keys are written name first; the parser reads either order";
