#!/usr/bin/env python3
"""Writes the scenario fixtures of the wrapped-JSON formats (longcat, internlm,
jamba, hunyuan_a13b, granite, phi4_mini_json, llama3_json, minimax,
cohere_command3, granite-20b-fc, xlam, gigachat3; apertus, xml_tool_use, xml_function_call in their own shapes) under
tests/fixtures/FORMAT/.

The same scenarios in each format's own shape, so that every format is held to
the same cases: what the format's peers test (vLLM's tests/tool_parsers, SGLang's
function_call tests) and what users report for JSON formats (a closer inside a
string value, truncation, invalid JSON, arguments before the name, prose that
mentions the opener). Run once when adding a format; fixtures are then files
like any other, reviewed and snapshotted.

Usage: python3 scripts/json_fixtures.py [FORMAT ...]
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (opener, closer or None, list?) per format.
SHAPES = {
    "longcat": ("<longcat_tool_call>", "</longcat_tool_call>", False),
    "internlm": ("<|action_start|><|plugin|>\n", "<|action_end|>", False),
    "jamba": ("<tool_calls>", "</tool_calls>", True),
    "hunyuan_a13b": ("<tool_calls>", "</tool_calls>", True),
    "granite": ("<|tool_call|>", None, True),
    "phi4_mini_json": ("functools", None, True),
    # Calls after the tag are separated by `; ` (see `join` below).
    "llama3_json": ("<|python_tag|>", None, False),
    # JSON lines: one body per line in one wrapper.
    "minimax": ("<tool_calls>\n", "\n</tool_calls>", False),
    # Command R7B / A: `tool_name` for the name (rewritten below).
    "cohere_command3": ("<|START_ACTION|>", "<|END_ACTION|>", True),
    # granite-20b-functioncalling: each call after its own tag, no closer.
    "granite-20b-fc": ("<function_call> ", None, False),
    # xLAM-2: a list after `<tool_call>` (also bare, fenced or after
    # `[TOOL_CALLS]`, below).
    "xlam": ("<tool_call>", "</tool_call>", True),
    # GigaChat 3: the call is a message whose role is `function call`.
    "gigachat3": ("function call<|role_sep|>\n", None, False),
}

# How a format writes several calls after one opener, when it does.
JOIN = {"llama3_json": "; ", "minimax": "\n"}

# Keys other than `arguments`.
ARGS_KEY = {"internlm": "parameters", "llama3_json": "parameters", "cohere_command3": "parameters"}


def body(name, args, key="arguments"):
    return json.dumps({"name": name, key: args}, ensure_ascii=False)


def scenarios(fmt):
    opener, closer, is_list = SHAPES[fmt]
    close = closer or ""
    key = ARGS_KEY.get(fmt, "arguments")

    def calls(*bodies):
        if is_list:
            return opener + "[" + ", ".join(bodies) + "]" + close
        if fmt in JOIN:
            return opener + JOIN[fmt].join(bodies) + close
        return "\n".join(opener + b + close for b in bodies)

    weather = body("get_weather", {"city": "Paris", "days": 3}, key)
    tokyo = body("get_weather", {"city": "Tokyo"}, key)
    marker_text = (closer or opener.strip()) + " and " + opener.strip()
    out = {
        "one_call": calls(weather),
        "two_calls": calls(body("get_weather", {"city": "Paris"}, key), tokyo),
        "content_around_calls": "Let me check both cities.\n"
        + calls(body("get_weather", {"city": "Paris"}, key), body("search", {"query": "Tokyo events"}, key))
        + "\nI asked for both.",
        "closer_inside_value": calls(
            body("write_file", {"path": "notes.md", "content": f"Calls look like {marker_text}.\n"}, key)
        ),
        "nested_arguments": calls(
            body(
                "configure",
                {"meta": {"depth": 2, "tags": ["a", "b"], "empty": {}, "none": []},
                 "items": [1, -2.5, True, False, None], "label": None},
                key,
            )
        ),
        "escapes_and_unicode": calls(
            '{"name": "search", "%s": {"query": "caf\\u00e9 \\ud83d\\ude00 \\"quoted\\" 日本語 🎌"}}' % key
        ),
        "arguments_before_name": calls('{"%s": {"city": "Paris"}, "name": "get_weather"}' % key),
        "empty_arguments": calls(body("get_time", {}, key)),
        "truncated_in_string": calls(
            body("write_file", {"path": "a.txt", "content": "hello wor"}, key)
        ).split("wor")[0]
        + "wor",
        "truncated_before_name": "Checking.\n" + opener + ("[" if is_list else "") + '{"na',
        "invalid_json_in_arguments": calls('{"name": "get_weather", "%s": {"city": Paris}}' % key)
        + "\nafter",
        "not_a_call_object": calls('{"city": "Paris"}') + "\nafter",
        "prose_mentions_opener": f"Write {opener.strip()} before a call, as the docs say. No call here.",
    }
    if closer:
        out["missing_close_then_text"] = (
            calls(body("get_weather", {"city": "Paris"}, key))[: -len(closer)] + "\nThe weather is coming."
        )
    if fmt == "llama3_json":
        # The bare shapes: an object at the very start is a call; later in
        # prose, or not a call, it is content.
        paris = body("get_weather", {"city": "Paris"}, key)
        out["bare_at_start"] = "\n" + paris
        out["bare_two_calls"] = paris + "; " + body("search", {"query": "rust streaming parser", "limit": 5}, key)
        out["bare_after_text"] = "Let me check the weather for you. " + paris
        out["bare_not_a_call"] = "{name} is the placeholder; " + paris
        out["separator_then_text"] = paris + "; that is all."
        # Shared with the wrapped formats, which show them already.
        for same in ("empty_arguments", "arguments_before_name", "nested_arguments"):
            del out[same]
    if fmt == "minimax":
        out["line_not_a_call"] = calls(weather, '{"city": "Paris"}')
    if is_list:
        out["list_element_not_a_call"] = opener + "[" + weather + ", 42]" + close
    if fmt == "cohere_command3":
        # Cohere's keys: an id, then `tool_name`.
        out = {k: v.replace('"name": ', '"tool_call_id": "0", "tool_name": ') for k, v in out.items()}
        for same in ("empty_arguments", "nested_arguments"):
            del out[same]
        # The template's own layout, and its thinking and response blocks
        # (content for now).
        out["command_a_layout"] = (
            "<|START_ACTION|>[\n"
            '    {"tool_call_id": "0", "tool_name": "search", "parameters": {"query": "rust"}},\n'
            '    {"tool_call_id": "1", "tool_name": "get_weather", "parameters": {"city": "Paris"}}\n'
            "]<|END_ACTION|>"
        )
        out["thinking_then_call"] = (
            "<|START_THINKING|>I should look this up.<|END_THINKING|>"
            '<|START_ACTION|>{"tool_call_id": "0", "tool_name": "search", "parameters": {"query": "rust"}}'
            "<|END_ACTION|>"
        )
        out["response_only"] = "<|START_RESPONSE|>Paris is sunny today.<|END_RESPONSE|>"
        del out["arguments_before_name"]
    if fmt == "gigachat3":
        # The template's layout: content, then the call as the next message;
        # the role's words in prose; the end-of-sequence token.
        paris = body("get_weather", {"city": "Paris"}, key)
        out["content_then_call"] = "I will look it up.<|message_sep|>\n\nfunction call<|role_sep|>\n" + paris
        out["words_in_prose"] = "A function call is how the model asks for a tool; function calls return JSON."
        out["end_of_sequence"] = "function call<|role_sep|>\n" + paris + "</s>"
        for same in ("empty_arguments", "arguments_before_name", "nested_arguments", "truncated_before_name"):
            del out[same]
    if fmt == "xlam":
        # The other three ways: bare or fenced at the start (later in prose,
        # content), and after `[TOOL_CALLS]`, which has no closer.
        paris = body("get_weather", {"city": "Paris"}, key)
        search = body("search", {"query": "rust streaming parser", "limit": 5}, key)
        out["bare_at_start"] = "\n[" + paris + ", " + search + "]"
        out["fenced_list"] = "```json\n[" + paris + "]\n```\nChecking now."
        out["tool_calls_opener"] = "[TOOL_CALLS][" + paris + "]\nDone."
        out["bare_after_text"] = "Here is the call: [" + paris + "]"
        for same in ("empty_arguments", "arguments_before_name", "nested_arguments", "list_element_not_a_call"):
            del out[same]
    return out


def apertus():
    """Apertus: the name is each object's only key."""
    op, cl = "<|tools_prefix|>", "<|tools_suffix|>"

    def calls(*objects):
        return op + "[" + ", ".join(objects) + "]" + cl

    def call(name, args):
        return json.dumps({name: args}, ensure_ascii=False)

    paris = call("get_weather", {"city": "Paris"})
    return {
        "one_call": calls(call("get_weather", {"city": "Paris", "days": 3})),
        "two_calls": calls(paris, call("get_time", {})),
        "content_around_calls": "Let me check.\n" + calls(paris, call("search", {"query": "Tokyo events"}))
        + "\nI asked for both.",
        "closer_inside_value": calls(
            call("write_file", {"path": "notes.md", "content": f"Calls look like {cl} and {op}.\n"})
        ),
        "escapes_and_unicode": calls('{"search": {"query": "caf\\u00e9 \\ud83d\\ude00 \\"quoted\\" 日本語 🎌"}}'),
        "truncated_in_string": calls(call("write_file", {"path": "a.txt", "content": "hello wor"})).split("wor")[0]
        + "wor",
        "truncated_before_name": "Checking.\n" + op + '[{"get_wea',
        "invalid_json_in_arguments": calls('{"get_weather": {"city": Paris}}') + "\nafter",
        "not_a_call_object": calls("{}") + "\nafter",
        "two_keys_in_one_object": calls('{"get_weather": {"city": "Paris"}, "get_time": {}}'),
        "arguments_as_string": calls('{"get_weather": "{\\"city\\": \\"Paris\\"}"}'),
        "missing_close_then_text": op + "[" + paris + "]\nThe weather is coming.",
        "prose_mentions_opener": f"Write {op} before a call, as the docs say. No call here.",
        "reasoning_then_call": "<|inner_prefix|>The user wants the weather.<|inner_suffix|>" + calls(paris),
    }


# Seed 002's leaked calls: (call element, arguments element) per format.
XML_JSON = {"xml_tool_use": ("tool_use", "input"), "xml_function_call": ("function_call", "arguments")}


def xml_json(fmt):
    """A call as XML elements around the JSON arguments."""
    call_el, args_el = XML_JSON[fmt]

    def call(name, args, sep=""):
        args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return (
            f"<{call_el}>{sep}<name>{name}</name>{sep}<{args_el}>{args}</{args_el}>{sep}</{call_el}>"
        )

    paris = {"command": "curl wttr.in/Paris"}
    return {
        "one_call": call("shell", {"command": "echo test"}),
        "two_calls": call("shell", {"command": "ls"}) + "\n" + call("read_file", {"path": "a.txt"}),
        "content_around_calls": "Let me look.\n" + call("shell", paris, "\n") + "\nThat is the forecast.",
        "closer_inside_value": call(
            "write_file", {"path": "notes.md", "content": f"Write </{args_el}></{call_el}> to close.\n"}
        ),
        "escapes_and_unicode": call("search", '{"query": "caf\\u00e9 \\ud83d\\ude00 \\"quoted\\" 日本語 🎌"}'),
        "truncated_in_string": call("write_file", {"path": "a.txt", "content": "hello wor"}).split("wor")[0] + "wor",
        "truncated_in_name": "Checking.\n" + f"<{call_el}><name>she",
        "invalid_json_in_arguments": call("shell", '{"command": ls -la}') + "\nafter",
        "missing_arguments_close": f"<{call_el}><name>shell</name><{args_el}>"
        + '{"command": "ls"}'
        + f"</{call_el}>\nafter",
        "name_without_arguments": f"<{call_el}><name>shell</name> is the tool I would use.",
        "empty_name": f"<{call_el}><name></name><{args_el}>{{}}</{args_el}></{call_el}>",
        "prose_mentions_opener": f"Wrap calls in <{call_el}> and give the tool in <name>.",
        "nested_arguments": call("configure", {"meta": {"tags": ["a", "b"], "empty": {}}, "items": [1, -2.5, True, None]}),
    }


def main():
    formats = sys.argv[1:] or list(SHAPES) + ["apertus"] + list(XML_JSON)
    for fmt in formats:
        directory = ROOT / "tests" / "fixtures" / fmt
        directory.mkdir(parents=True, exist_ok=True)
        if fmt == "apertus":
            cases = apertus()
        elif fmt in XML_JSON:
            cases = xml_json(fmt)
        else:
            cases = scenarios(fmt)
        for name, text in cases.items():
            (directory / f"{name}.txt").write_text(text)
        print(f"{fmt}: {len(cases)} fixtures")


if __name__ == "__main__":
    main()
