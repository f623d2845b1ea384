"""End to end: the official `openai` Python client against `toolcall proxy`.

The proxy runs in front of the replay upstream of the Rust tests
(cli/tests/support/replay.rs), which plays the model output recorded in
tests/fixtures/<format>/<name>.txt for the model "<format>/<name>". Run by
the ignored Rust test cli/tests/e2e.rs, which starts both:

    python tests/e2e/openai_client.py --base-url http://127.0.0.1:PORT/v1
"""

import argparse
import json
import pathlib
import sys
import traceback

import openai

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures"
MESSAGES = [{"role": "user", "content": "Plan it."}]


def tools_of(format_name, fixture):
    return json.loads((FIXTURES / format_name / f"{fixture}.tools.json").read_text())


def placeholder_tools():
    return [{"type": "function", "function": {"name": "placeholder",
             "parameters": {"type": "object", "properties": {}}}}]


def stream(client, model, tools):
    """Content, calls [(id, name, arguments)] and finish_reason, joined the
    way OpenAI's docs join streamed tool calls: by index."""
    content, calls, finish = None, {}, None
    for chunk in client.chat.completions.create(
            model=model, messages=MESSAGES, tools=tools, stream=True):
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                content = (content or "") + delta.content
            for call in delta.tool_calls or []:
                entry = calls.setdefault(call.index, ["", "", ""])
                entry[0] = call.id or entry[0]
                if call.function:
                    entry[1] = call.function.name or entry[1]
                    entry[2] += call.function.arguments or ""
            finish = choice.finish_reason or finish
    return content, [tuple(calls[i]) for i in sorted(calls)], finish


def whole(client, model, tools):
    completion = client.chat.completions.create(
        model=model, messages=MESSAGES, tools=tools, stream=False)
    choice = completion.choices[0]
    message = choice.message
    calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    return message.content, calls, choice.finish_reason


def check_typed_ladder(client, fetch):
    content, calls, finish = fetch(client, "qwen3_coder/typed_ladder",
                                   tools_of("qwen3_coder", "typed_ladder"))
    assert finish == "tool_calls", finish
    assert content is None, repr(content)
    assert len(calls) == 1, calls
    call_id, name, arguments = calls[0]
    assert call_id.startswith("call_"), call_id
    assert name == "plan_trip", name
    args = json.loads(arguments)
    # Typed from the request's own tools, not strings.
    assert args["days"] == 3 and type(args["days"]) is int, args["days"]
    assert args["budget"] == 1250.5, args["budget"]
    assert args["flexible"] is True, args["flexible"]
    assert args["zip"] == "00750", args["zip"]
    assert args["limit"] is None, args["limit"]
    assert args["stops"] == [{"city": "Lyon"}, {"city": "Nice"}], args["stops"]
    assert args["id"] == 1234567890123456789012345678901234567890, args["id"]


def check_content_around_calls(client, fetch):
    content, calls, finish = fetch(client, "qwen3_coder/content_around_calls", placeholder_tools())
    # The newlines around the calls are the template's layout, not content.
    assert content == "Let me check both.\nand then\nDone.", repr(content)
    assert [(name, json.loads(args)) for _, name, args in calls] == [
        ("get_weather", {"city": "Tokyo"}), ("search", {"query": "rain"})], calls
    assert len({call_id for call_id, _, _ in calls}) == 2, "distinct ids"
    assert finish == "tool_calls", finish


def check_glm(client, fetch):
    content, calls, finish = fetch(client, "glm45/two_calls", placeholder_tools())
    assert content is None, repr(content)
    assert [(name, json.loads(args)) for _, name, args in calls] == [
        ("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Berlin", "days": "2"})], calls
    assert finish == "tool_calls", finish


def check_without_tools_passes_through(client, fetch):
    content, calls, finish = fetch(client, "qwen3_coder/one_call", None)
    assert calls == [], calls
    assert content.startswith("<tool_call>\n<function=get_weather>"), repr(content)
    assert finish == "stop", finish


def check_models(client):
    ids = [model.id for model in client.models.list()]
    assert "qwen3_coder" in ids, ids


def check_upstream_error(client):
    try:
        client.chat.completions.create(model="status/429", messages=MESSAGES,
                                       tools=placeholder_tools())
    except openai.RateLimitError as error:
        assert error.status_code == 429
    else:
        raise AssertionError("no RateLimitError")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    args = parser.parse_args()
    client = openai.OpenAI(base_url=args.base_url, api_key="sk-e2e", max_retries=0, timeout=60)
    print(f"openai {openai.__version__} against {args.base_url}")

    checks = []
    for fetch in (stream, whole):
        for check in (check_typed_ladder, check_content_around_calls, check_glm,
                      check_without_tools_passes_through):
            checks.append((f"{check.__name__} ({fetch.__name__})", lambda c=check, f=fetch: c(client, f)))
    checks.append(("check_models", lambda: check_models(client)))
    checks.append(("check_upstream_error", lambda: check_upstream_error(client)))

    failed = 0
    for name, run in checks:
        try:
            run()
            print(f"ok   {name}")
        except Exception:  # any failure is reported, then the next check runs
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc()
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
