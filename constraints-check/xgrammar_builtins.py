"""Our structural tags against xgrammar's built-in ones
(`xgrammar.get_model_structural_tag`), on the same strings: which strings
each admits that the other refuses, per format.

The strings are
- the walks of target/constraint-samples.json (written by
  `cargo test -p toolcall-constraints-check`): random strings of each Lark
  grammar and mutations of them, under five constraints, for the tools of
  constraints-check/tests/walks.rs;
- the conformance fixtures the parser reads as clean, complete calls
  (target/constraint-fixtures.json, from tests/builtin_samples.rs), each
  with its own tools, under `lazy` with a reasoning block;
- probes: one call in the built-in's own layout, and variants that each
  change one thing, which say why the two differ.

Each constraint is asked of the built-in tag in its own words: `required`
is tool_choice "required", `named:run` the function "run", `lazy`
"auto"; no reasoning block is reasoning "disabled", one allowed is
"auto" (a whole `<think>…</think>` block, optional).

It prints a table per format. With --check FILE it fails when the counts
or a probe's verdict differ from the recorded ones (constraints-check/xgrammar_builtins.json);
--write FILE records them. The strings are fixed by seeds, so the counts
change only when a grammar does:

    TVM_FFI_DISABLE_TORCH_C_DLPACK=1 PYTHONPATH=constraints-check/stubs \\
        python constraints-check/xgrammar_builtins.py \\
        --check constraints-check/xgrammar_builtins.json \\
        target/constraint-samples.json target/constraint-fixtures.json
"""

import argparse
import json
import re
import sys
from pathlib import Path

import xgrammar
from xgrammar.testing import _is_grammar_accept_string

# Our format -> the built-in tag with the same markers.
PAIRS = {
    "qwen3_coder": "qwen_3_coder",  # <tool_call>\n<function=N>\n<parameter=K>\nV\n</parameter>…
    "hermes": "qwen_3",  # <tool_call>\n{"name": N, "arguments": {…}}\n</tool_call>
    "glm47": "glm_4_7",  # <tool_call>N<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>
    "minimax_m2": "minimax",  # <minimax:tool_call>\n<invoke name="N">\n<parameter name="K">V</parameter>…
    "deepseek_v31": "deepseek_v3_1",  # <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{…}…
    "deepseek_v32": "deepseek_v3_2",  # <｜DSML｜function_calls>\n<｜DSML｜invoke name="N">\n…
    "deepseek_v4": "deepseek_v4",  # <｜DSML｜tool_calls>\n<｜DSML｜invoke name="N">\n…
    "deepseek_v41": "deepseek_v4_1",  # <｜DSML｜ calls>\n<｜DSML｜ invoke name="N">\n…
    "kimi_k3": "kimi_k3",  # <|open|>tools<|sep|><|open|>call tool="N" index="0"<|sep|>…
    "llama3_json": "llama",  # {"name": N, "parameters": {…}}
    "minimax_m3": "minimax_m3",  # ]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="N">…<K>V…
    "cohere_cofl": "cohere",  # <cofl:tool_calls><cofl:tool_call id="0" name="N"><cofl:value …
    "openai": "harmony",  # <|channel|>commentary to=functions.N <|constrain|>json<|message|>{…}<|call|>
}

# The constraints of the samples, by the names the probes use.
CONSTRAINTS = {
    "required": "Constraint { mode: Required, parallel: true, reasoning: false, dialect: Lark }",
    "lazy": "Constraint { mode: Lazy, parallel: true, reasoning: false, dialect: Lark }",
    "thinking": "Constraint { mode: Lazy, parallel: true, reasoning: true, dialect: Lark }",
}

# Strings that differ from one call in the built-in's own layout by one
# thing each: the reasons behind the walks' and fixtures' differences.
# (constraint, what the string has, the string), for walks.rs's tools.
QC = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
H = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
G = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
M = (
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
    "</invoke>\n</minimax:tool_call>"
)
DS_CALL = "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>"
DS = f"<｜tool▁calls▁begin｜>{DS_CALL}<｜tool▁calls▁end｜>"
L = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
BIG = "99999999999999999999"


def dsml(space, block):
    """One call in DSML's template layout, as xgrammar's built-ins write it:
    two line ends before the block, one after each line."""
    tag = f"｜DSML｜{space}"
    return (
        f"\n\n<{tag}{block}>\n<{tag}invoke name=\"get_weather\">\n"
        f'<{tag}parameter name="city" string="true">Paris</{tag}parameter>\n'
        f"</{tag}invoke>\n</{tag}{block}>"
    )


def dsml_probes(space, block):
    call = dsml(space, block)
    tag = f"｜DSML｜{space}"
    return [
        ("required", "the template's layout", call),
        ("required", "one line end before the block", call[1:]),
        ("required", "no layout line ends", call.replace("\n", "")),
        ("required", "text after the block", call + "\nDone."),
        ("required", "a marker in a string value", call.replace("Paris", f"Pa</{tag}invoke>ris")),
        (
            "required",
            "a number marked as a string",
            call.replace(
                f"</{tag}parameter>\n",
                f'</{tag}parameter>\n<{tag}parameter name="days" string="true">3</{tag}parameter>\n',
                1,
            ),
        ),
        (
            "required",
            "a number marked as JSON",
            call.replace(
                f"</{tag}parameter>\n",
                f'</{tag}parameter>\n<{tag}parameter name="days" string="false">3</{tag}parameter>\n',
                1,
            ),
        ),
        ("lazy", "a marker in free text", f"Hi </{tag}invoke> there"),
        ("thinking", "reasoning, then the calls", "<think>hm</think>" + call),
        ("thinking", "reasoning the prompt opened", "hm</think>" + call),
    ]


K3_CALL = (
    '<|open|>call tool="get_weather" index="0"<|sep|>'
    '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|>'
)
K3 = f"<|open|>tools<|sep|>{K3_CALL}<|close|>tools<|sep|>"
PROBES = {
    "qwen3_coder": [
        ("required", "the template's layout", QC),
        ("required", "no layout line ends", QC.replace("\n", "")),
        ("required", "a line end before the call", "\n" + QC),
        (
            "required",
            "parameters out of declared order",
            QC.replace("<parameter=city>", "<parameter=days>\n3\n</parameter>\n<parameter=city>"),
        ),
        ("required", "a blank line before </function>", QC.replace("\n</function>", "\n\n</function>")),
        ("required", "text after the call", QC + "\nDone."),
        ("required", "a marker in a string value", QC.replace("Paris", "Pa</function>ris")),
        (
            "required",
            "an integer past 2^53-1",
            QC.replace("</parameter>", f"</parameter>\n<parameter=days>\n{BIG}\n</parameter>"),
        ),
        ("lazy", "a marker in free text", "Hi </tool_call> there"),
        ("thinking", "reasoning, a blank line, a call", "<think>hm</think>\n\n" + QC),
        ("thinking", "reasoning the prompt opened", "hm</think>\n\n" + QC),
        ("thinking", "reasoning with no blank line after it", "<think>hm</think>" + QC),
    ],
    "hermes": [
        ("required", "the template's layout", H),
        ("required", "no layout line ends", H.replace("\n", "")),
        ("required", "a line end before the call", "\n" + H),
        ("required", "the wrapper's JSON without spaces", H.replace('": ', '":').replace(", ", ",")),
        ("required", "text after the call", H + "\nDone."),
        (
            "required",
            "arguments before name",
            '<tool_call>\n{"arguments": {"city": "Paris"}, "name": "get_weather"}\n</tool_call>',
        ),
        ("required", "a marker in a string value", H.replace("Paris", "Pa</tool_call>ris")),
        ("required", "an integer past 2^53-1", H.replace('"Paris"', f'"Paris", "days": {BIG}')),
        ("required", "9 spaces in the arguments", H.replace('"Paris"', '"Paris"' + " " * 9)),
        ("lazy", "a marker in free text", "Hi <|im_end|> there"),
        ("thinking", "reasoning, a blank line, a call", "<think>hm</think>\n\n" + H),
        ("thinking", "reasoning the prompt opened", "hm</think>\n\n" + H),
        ("thinking", "reasoning with no blank line after it", "<think>hm</think>" + H),
    ],
    "glm47": [
        ("required", "the template's layout", G),
        (
            "required",
            "line ends between the markers",
            G.replace("<arg_", "\n<arg_").replace("</tool_call>", "\n</tool_call>"),
        ),
        ("required", "a line end before the call", "\n" + G),
        ("required", "text after the call", G + "\nDone."),
        (
            "required",
            "parameters out of declared order",
            G.replace("<arg_key>city", "<arg_key>days</arg_key><arg_value>3</arg_value><arg_key>city"),
        ),
        ("required", "a marker in a string value", G.replace("Paris", "Pa</tool_call>ris")),
        (
            "required",
            "an integer past 2^53-1",
            G.replace("</tool_call>", f"<arg_key>days</arg_key><arg_value>{BIG}</arg_value></tool_call>"),
        ),
        ("lazy", "a marker in free text", "Hi <|observation|> there"),
        ("thinking", "reasoning, then a call", "<think>hm</think>" + G),
        ("thinking", "reasoning the prompt opened", "hm</think>" + G),
    ],
    "minimax_m2": [
        ("required", "the template's layout", M),
        ("required", "the empty reasoning block and line ends first", "\n</think>\n\n\n\n\n" + M),
        ("required", "no layout line ends", M.replace("\n", "")),
        # The built-in writes that block unless reasoning is allowed: the
        # rest is asked with it allowed.
        ("thinking", "the template's layout", M),
        ("thinking", "no layout line ends", M.replace("\n", "")),
        ("thinking", "a marker in a string value", M.replace("Paris", "Pa</invoke>ris")),
        ("thinking", "a marker in free text", "Hi </minimax:tool_call> there"),
        ("thinking", "reasoning, a blank line, a call", "<think>hm</think>\n\n" + M),
        ("thinking", "reasoning the prompt opened", "hm</think>\n\n" + M),
    ],
    "deepseek_v31": [
        ("required", "the template's layout", DS),
        ("required", "the JSON without spaces", DS.replace('": ', '":')),
        ("required", "a line end before the calls", "\n" + DS),
        ("required", "a line end between two calls", DS.replace(DS_CALL, DS_CALL + "\n" + DS_CALL)),
        ("required", "text after the calls", DS + "ok"),
        ("required", "a marker in a string value", DS.replace("Paris", "Pa<｜tool▁call▁end｜>ris")),
        ("required", "an integer past 2^53-1", DS.replace('"Paris"', f'"Paris", "days": {BIG}')),
        ("required", "9 spaces in the arguments", DS.replace('"Paris"', '"Paris"' + " " * 9)),
        ("lazy", "a marker in free text", "Hi <｜end▁of▁sentence｜> there"),
        ("thinking", "reasoning, then the calls", "<think>hm</think>" + DS),
        ("thinking", "reasoning the prompt opened", "hm</think>" + DS),
    ],
    "llama3_json": [
        ("required", "the template's layout", L),
        ("required", "two calls separated by `; `", L + "; " + L),
        ("required", "two calls with nothing between", L + L),
        ("required", "the call after <|python_tag|>", "<|python_tag|>" + L),
        ("required", "a line end before the call", "\n" + L),
        ("required", "text before the call", "Sure. " + L),
        ("required", "text after the call", L + " Done."),
        ("required", "the JSON without spaces", L.replace('": ', '":')),
        ("required", "the arguments under `arguments`", L.replace("parameters", "arguments")),
        ("required", "a marker in a string value", L.replace("Paris", "Pa<|eot_id|>ris")),
        ("required", "an integer past 2^53-1", L.replace('"Paris"', f'"Paris", "days": {BIG}')),
        ("lazy", "text, then a call", "Sure. " + L),
        ("lazy", "text with a brace first", "{x} is a placeholder"),
        ("lazy", "a marker in free text", "Hi <|eot_id|> there"),
    ],
}

PROBES["deepseek_v32"] = dsml_probes("", "function_calls")
PROBES["deepseek_v4"] = dsml_probes("", "tool_calls")
PROBES["deepseek_v41"] = dsml_probes(" ", "calls")
PROBES["kimi_k3"] = [
    # The prompt ends inside the response block; the built-in closes it
    # before the calls and closes the message after them.
    ("required", "the calls alone", K3),
    ("required", "the response closed first, the message after", f"<|close|>response<|sep|>{K3}<|close|>message<|sep|>"),
    ("required", "a call without its index", K3.replace(' index="0"', "")),
    ("required", "a marker in a string value", K3.replace("Paris", "Pa<|sep|>ris")),
    (
        "required",
        "a number typed as an integer",
        K3.replace(
            "<|close|>call",
            '<|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|><|close|>call',
        ),
    ),
    ("lazy", "text, then the calls", "Sure." + K3),
    ("lazy", "text, the response closed, then the calls", f"Sure.<|close|>response<|sep|>{K3}<|close|>message<|sep|>"),
    ("thinking", "reasoning, then the calls", "<|open|>think<|sep|>hm<|close|>think<|sep|>" + K3),
]

NS = "]<]minimax[>["
M3 = (
    f'{NS}<tool_call>\n{NS}<invoke name="get_weather">\n{NS}<city>Paris{NS}</city>\n'
    f"{NS}</invoke>\n{NS}</tool_call>"
)
M3_DAYS = f"{NS}</city>\n{NS}<days>3{NS}</days>\n"
PROBES["minimax_m3"] = [
    # The built-in's layout: a line end after the wrapper's opener and
    # after each invoke (its `\n` after `</invoke>`).
    ("required", "the template's layout", M3),
    ("required", "no layout line ends", M3.replace("\n", "")),
    ("required", "a number as JSON text", M3.replace(f"{NS}</city>\n", M3_DAYS)),
    ("required", "an enum value as its text", M3.replace(f"{NS}</city>\n", f"{NS}</city>\n{NS}<units>metric{NS}</units>\n")),
    ("required", "a `<` in a string value", M3.replace("Paris", "Pa<ris")),
    ("required", "an entity in a string value", M3.replace("Paris", "Pa&amp;ris")),
    ("required", "the namespace token in a string value", M3.replace("Paris", f"Pa{NS}ris")),
    ("lazy", "text, then the call", "Sure. " + M3),
    ("thinking", "reasoning, then the call", "<mm:think>hm</mm:think>" + M3),
    ("thinking", "reasoning the prompt opened", "hm</mm:think>" + M3),
]
CF_CALL = (
    '<cofl:tool_call id="0" name="get_weather">'
    '<cofl:tool_param name="city" string="true">Paris</cofl:tool_param></cofl:tool_call>'
)
CF = f"<cofl:tool_calls>{CF_CALL}</cofl:tool_calls>"
CF_VALUE = CF.replace("tool_param", "value").replace('string="true"', 'type="raw"')
PROBES["cohere_cofl"] = [
    # The built-in writes the nested dialect (`cofl:value` and `type`); ours
    # the flat one (`cofl:tool_param` and `string`), which the parser
    # reads as well.
    ("required", "flat parameters (`cofl:tool_param`, `string`)", CF),
    ("required", "nested values (`cofl:value`, `type`)", CF_VALUE),
    ("required", "the id after the name", CF.replace('id="0" name="get_weather"', 'name="get_weather" id="0"')),
    ("required", "a line end between the calls", CF.replace(CF_CALL, CF_CALL + "\n" + CF_CALL)),
    ("required", "an entity in a string value", CF_VALUE.replace("Paris", "Pa&amp;ris")),
    ("required", "a closer in a string value", CF_VALUE.replace("Paris", "Pa</b>ris")),
    ("lazy", "text, then the calls", "Sure. " + CF),
    ("thinking", "reasoning, then the calls", "<|START_THINKING|>hm<|END_THINKING|>" + CF),
]

WALKS_RS = Path(__file__).parent / "tests" / "walks.rs"
SHOWN = 3  # differing strings shown per format and side


def walk_tools():
    """The tools the walks were made for: walks.rs's TOOLS."""
    source = WALKS_RS.read_text(encoding="utf-8")
    found = re.search(r'const TOOLS: &str = r##"(.*?)"##;', source, re.S)
    if found is None:
        raise SystemExit(f"no TOOLS in {WALKS_RS}")
    return json.loads(found.group(1))


def builtin_options(constraint):
    """The built-in tag's arguments for one of our constraints, given as
    its Debug text (`Constraint { mode: Named("run"), parallel: false,
    reasoning: false, dialect: Lark }`)."""
    mode = re.search(r"mode: (\w+)(?:\(\"(.*?)\"\))?", constraint)
    choice = {"Required": "required", "Lazy": "auto"}.get(mode.group(1))
    if mode.group(1) == "Named":
        choice = {"type": "function", "function": {"name": mode.group(2)}}
    return {
        "tool_choice": choice,
        "parallel_tool_calls": "parallel: true" in constraint,
        "reasoning": "auto" if "reasoning: true" in constraint else "disabled",
    }


JSON_TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}


def named_types_only(tools):
    """The tools without their parameters of a type JSON Schema does not
    name (the corpus's `custom_type` and `int`): xgrammar makes no tag for
    them, where ours widens them to any value. Returns the tools and the
    names left out."""
    kept, dropped = [], []
    for tool in tools:
        tool = json.loads(json.dumps(tool))
        properties = tool.get("function", {}).get("parameters", {}).get("properties", {})
        for name, schema in list(properties.items()):
            types = schema.get("type", []) if isinstance(schema, dict) else []
            types = [types] if isinstance(types, str) else types
            if any(t not in JSON_TYPES for t in types):
                del properties[name]
                dropped.append(f'{tool["function"]["name"]}.{name}')
        kept.append(tool)
    return kept, dropped


class Grammars:
    """Compiled grammars, each once."""

    def __init__(self):
        self.cache = {}

    def ours(self, tag):
        key = json.dumps(tag, sort_keys=True)
        if key not in self.cache:
            self.cache[key] = xgrammar.Grammar.from_structural_tag(tag)
        return self.cache[key]

    def builtin(self, model, tools, options):
        """The built-in's grammar, or None when xgrammar makes none for
        these tools (a parameter type its JSON schema conversion lacks)."""
        key = json.dumps([model, tools, options], sort_keys=True)
        if key not in self.cache:
            try:
                tag = xgrammar.get_model_structural_tag(model, tools=tools, **options)
                self.cache[key] = xgrammar.Grammar.from_structural_tag(tag)
            except (RuntimeError, ValueError):
                self.cache[key] = None
        return self.cache[key]


def abbreviated(text, width=90):
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= width else shown[: width - 12] + "…" + shown[-11:]

HA = '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
HA_START = "<|start|>assistant"
PROBES["openai"] = [
    # The prompt ends with `<|start|>assistant`; later messages start so.
    ("required", "one call, a space before `<|constrain|>` (as gpt-oss writes it)", HA),
    ("required", "no space before `<|constrain|>` (the built-in's layout)", HA.replace(" <|constrain|>", "<|constrain|>")),
    (
        "required",
        "the recipient before the channel",
        ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
    ),
    ("required", "no content type", HA.replace(" <|constrain|>json", "")),
    ("required", "two calls", HA + HA_START + HA),
    ("required", "a marker in a string value", HA.replace("Paris", "Pa<|end|>ris")),
    ("lazy", "an answer", "<|channel|>final<|message|>Hi.<|return|>"),
    ("lazy", "an answer, then a call", f"<|channel|>final<|message|>Hi.<|end|>{HA_START}{HA}"),
    ("lazy", "a call, then an answer", f"{HA}{HA_START}<|channel|>final<|message|>Done.<|return|>"),
    ("lazy", "text outside any message", "Hi."),
    ("thinking", "reasoning, then a call", f"<|channel|>analysis<|message|>hm<|end|>{HA_START}{HA}"),
]


def compare(samples, fixtures):
    """Per format and source, the counts and the first differing strings."""
    grammars = Grammars()
    tools = walk_tools()
    result = {}

    def record(format, source, label, ours, theirs, text):
        row = result.setdefault(format, {}).setdefault(
            source, {"both": 0, "ours": 0, "builtin": 0, "neither": 0, "examples": []}
        )
        side = {(True, True): "both", (True, False): "ours", (False, True): "builtin"}.get(
            (ours, theirs), "neither"
        )
        row[side] += 1
        if side in ("ours", "builtin"):
            if sum(e[0] == side for e in row["examples"]) < SHOWN:
                row["examples"].append((side, label, text))

    for case in samples:
        model = PAIRS.get(case["format"])
        if model is None:
            continue
        options = builtin_options(case["constraint"])
        ours = grammars.ours(case["structural_tag"])
        theirs = grammars.builtin(model, tools, options)
        label = re.sub(r", dialect: \w+", "", case["constraint"].replace("Constraint ", ""))
        for sample in case["strings"]:
            text = sample["text"]
            record(
                case["format"],
                "walks",
                label,
                _is_grammar_accept_string(ours, text),
                _is_grammar_accept_string(theirs, text),
                text,
            )
    tags = {(case["format"], case["constraint"]): case["structural_tag"] for case in samples}
    for format, probes in PROBES.items():
        for constraint, what, text in probes:
            ours = grammars.ours(tags[format, CONSTRAINTS[constraint]])
            options = builtin_options(CONSTRAINTS[constraint])
            theirs = grammars.builtin(PAIRS[format], tools, options)
            verdict = (
                _is_grammar_accept_string(ours, text),
                _is_grammar_accept_string(theirs, text),
            )
            side = {(True, True): "both", (True, False): "ours", (False, True): "builtin"}
            probed = result.setdefault(format, {}).setdefault("probes", {})
            probed[f"{constraint}: {what}"] = side.get(verdict, "neither")
    fixture_options = {"tool_choice": "auto", "parallel_tool_calls": True, "reasoning": "auto"}
    for case in fixtures:
        model = PAIRS.get(case["format"])
        if model is None:
            continue
        ours = grammars.ours(case["structural_tag"])
        builtin_tools, dropped = named_types_only(case["tools"])
        if dropped:
            result.setdefault(case["format"], {})["left out for the built-in"] = sorted(dropped)
        theirs = grammars.builtin(model, builtin_tools, fixture_options)
        text = case["text"]
        if theirs is None:
            row = result.setdefault(case["format"], {}).setdefault("no built-in tag", [])
            row.append(case["id"])
            continue
        record(
            case["format"],
            "fixtures",
            case["id"],
            _is_grammar_accept_string(ours, text),
            _is_grammar_accept_string(theirs, text),
            text,
        )
    return result


def counts(result):
    """What is recorded: the counts, and each probe's verdict."""
    return {
        format: {
            source: (
                {k: v for k, v in row.items() if k != "examples"}
                if isinstance(row, dict) and source != "probes"
                else row
            )
            for source, row in sorted(sources.items())
        }
        for format, sources in sorted(result.items())
    }


def show(result):
    for format in PAIRS:
        sources = result.get(format, {})
        print(f"== {format} against xgrammar's {PAIRS[format]!r}")
        print(f"  {'strings':<9}{'both':>6}{'only ours':>11}{'only builtin':>14}{'neither':>9}")
        for source in ("walks", "fixtures"):
            row = sources.get(source)
            if row is None:
                print(f"  {source:<9}{'(none)':>6}")
                continue
            print(
                f"  {source:<9}{row['both']:>6}{row['ours']:>11}{row['builtin']:>14}{row['neither']:>9}"
            )
        for source in ("walks", "fixtures"):
            for side, label, text in sources.get(source, {}).get("examples", []):
                print(f"    only {side:<8}{source} {label}: {abbreviated(text)}")
        if sources.get("left out for the built-in"):
            left = ", ".join(sources["left out for the built-in"])
            print(f"    the built-in gets the fixtures' tools without {left}: untyped for xgrammar")
        for id in sources.get("no built-in tag", []):
            print(f"    fixture {id}: xgrammar makes no built-in tag for its tools")
        names = {"both": "both", "ours": "only ours", "builtin": "only builtin", "neither": "neither"}
        for what, side in sources.get("probes", {}).items():
            print(f"    probe {names[side]:<13}{what}")


def main():
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("samples")
    args.add_argument("fixtures")
    what = args.add_mutually_exclusive_group()
    what.add_argument("--check", metavar="FILE", help="fail when the counts differ from FILE's")
    what.add_argument("--write", metavar="FILE", help="record the counts in FILE")
    args = args.parse_args()
    samples = json.loads(Path(args.samples).read_text(encoding="utf-8"))
    fixtures = json.loads(Path(args.fixtures).read_text(encoding="utf-8"))
    result = compare(samples, fixtures)
    show(result)
    got = counts(result)
    if set(got) != set(PAIRS):
        print(f"formats compared: {sorted(got)}; expected {sorted(PAIRS)}")
        return 1
    if args.write:
        Path(args.write).write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
        print(f"recorded in {args.write}")
    if args.check:
        want = json.loads(Path(args.check).read_text(encoding="utf-8"))
        if got != want:
            for format in sorted(set(got) | set(want)):
                if got.get(format) != want.get(format):
                    print(f"{format}: now {got.get(format)}, recorded {want.get(format)}")
            print(f"the differences changed from {args.check}: read them, then --write it again")
            return 1
        print(f"the differences are the recorded ones ({args.check})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
