"""End to end: the official `anthropic` Python client against `toolcall
proxy`'s /v1/messages, in front of the replay upstream's scripted agent model
(cli/tests/support/agent_script.rs), which writes its shell call as raw text
in a format; the proxy turns it into a `tool_use` block.

Two turns, whole (`messages.create`) and streamed (`messages.stream`): the
call (`stop_reason: tool_use`, name, input, id), the tool run here, its
output sent back as `tool_result`, the answer quoting it. Then a model that
cuts the connection mid-call: an error, never a finished message holding
half a call. Run by cli/tests/e2e_agents.rs:

    python tests/e2e/anthropic_client.py --base-url http://127.0.0.1:PORT \
        --model e2e-hermes --cut-model e2e-hermes-cut --format hermes
"""

import argparse
import sys

import anthropic

from checks import (PROMPT, TOOL_DESCRIPTION, TOOL_PARAMETERS, expected_command,
                    expected_output, run_checks, run_shell)

TOOLS = [{"name": "shell", "description": TOOL_DESCRIPTION, "input_schema": TOOL_PARAMETERS}]
SYSTEM = "You are a test agent. Use the shell tool."
MAX_TOKENS = 1024


def the_call(message, format_name):
    """The message's one tool_use block, checked."""
    assert message.stop_reason == "tool_use", message.stop_reason
    calls = [block for block in message.content if block.type == "tool_use"]
    assert len(calls) == 1, message.content
    call = calls[0]
    assert call.name == "shell", call.name
    assert call.id, call
    assert call.input == {"command": expected_command(format_name)}, call.input
    text = "".join(block.text for block in message.content if block.type == "text")
    assert "I will run the command" in text, f"the text before the call: {text!r}"
    assert message.content[-1].type == "tool_use", "the call comes after the text"
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0, message.usage
    return call


def second_turn(message, call):
    """The history a client sends back: the prompt, the assistant's turn,
    the tool's result."""
    output = run_shell(call.input["command"])
    return [{"role": "user", "content": PROMPT},
            {"role": "assistant", "content": [block.model_dump(exclude_none=True)
                                              for block in message.content]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                          "content": output}]}]


def the_answer(message, format_name):
    assert message.stop_reason == "end_turn", message.stop_reason
    assert not [block for block in message.content if block.type == "tool_use"], \
        message.content
    text = "".join(block.text for block in message.content if block.type == "text")
    assert expected_output(format_name) in text, text


def check_create(client, model, format_name):
    first = client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                   messages=[{"role": "user", "content": PROMPT}], tools=TOOLS)
    call = the_call(first, format_name)
    second = client.messages.create(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                    messages=second_turn(first, call), tools=TOOLS)
    the_answer(second, format_name)


def streamed(client, model, messages):
    """The final message, with the event-level checks: message_start first,
    message_stop last, blocks started, delta'd and stopped one at a time."""
    with client.messages.stream(model=model, max_tokens=MAX_TOKENS, system=SYSTEM,
                                messages=messages, tools=TOOLS) as stream:
        events = list(stream)
        final = stream.get_final_message()
    # The helper adds its own events (text, input_json); these are the wire's.
    wire = [event for event in events if event.type in (
        "message_start", "content_block_start", "content_block_delta",
        "content_block_stop", "message_delta", "message_stop")]
    kinds = [event.type for event in wire]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop", kinds
    assert kinds.count("message_delta") == 1, kinds
    assert wire[0].message.usage.input_tokens > 0, wire[0].message.usage
    open_block = None
    for event in wire:
        if event.type == "content_block_start":
            assert open_block is None, f"block {event.index} starts inside {open_block}"
            open_block = event.index
        elif event.type in ("content_block_delta", "content_block_stop"):
            assert event.index == open_block, (event, open_block)
            if event.type == "content_block_stop":
                open_block = None
    assert open_block is None, "a block never stopped"
    return final


def check_stream(client, model, format_name):
    first = streamed(client, model, [{"role": "user", "content": PROMPT}])
    call = the_call(first, format_name)
    the_answer(streamed(client, model, second_turn(first, call)), format_name)


def no_finished_half_call(message):
    assert message.stop_reason not in ("tool_use", "end_turn"), \
        f"a cut answer sent as finished: {message}"
    assert not [block for block in message.content if block.type == "tool_use"], \
        f"a cut call sent as a call: {message.content}"


def not_refused(error):
    """A cut must fail as a failed answer (5xx, an error event, a dropped
    connection), not as a refused request, which would prove nothing."""
    status = getattr(error, "status_code", None)
    assert status is None or not 400 <= status < 500, f"the request was refused, not cut: {error}"


def check_cut_create(client, cut_model):
    try:
        message = client.messages.create(model=cut_model, max_tokens=MAX_TOKENS,
                                         messages=[{"role": "user", "content": PROMPT}],
                                         tools=TOOLS)
    except anthropic.APIError as error:
        not_refused(error)
        print(f"     cut (create): {type(error).__name__}: {error}")
        return
    no_finished_half_call(message)


def check_cut_stream(client, cut_model):
    kinds = []
    try:
        with client.messages.stream(model=cut_model, max_tokens=MAX_TOKENS,
                                    messages=[{"role": "user", "content": PROMPT}],
                                    tools=TOOLS) as stream:
            for event in stream:
                kinds.append(event.type)
            message = stream.get_final_message()
    except anthropic.APIError as error:
        not_refused(error)
        print(f"     cut (stream): {type(error).__name__}: {error}; events {kinds}")
        return
    no_finished_half_call(message)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--cut-model")
    parser.add_argument("--format", required=True, help="the format the model writes")
    args = parser.parse_args()
    client = anthropic.Anthropic(base_url=args.base_url, api_key="sk-e2e", max_retries=0,
                                 timeout=60)
    print(f"anthropic {anthropic.__version__} against {args.base_url}, model {args.model}")
    checks = [("messages.create, two turns", lambda: check_create(client, args.model, args.format)),
              ("messages.stream, two turns", lambda: check_stream(client, args.model, args.format))]
    if args.cut_model:
        checks += [("cut mid-call (create)", lambda: check_cut_create(client, args.cut_model)),
                   ("cut mid-call (stream)", lambda: check_cut_stream(client, args.cut_model))]
    return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
