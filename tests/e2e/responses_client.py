"""End to end: the official `openai` Python client's Responses API against
`toolcall proxy`'s /v1/responses, in front of the replay upstream's scripted
agent model (cli/tests/support/agent_script.rs), which writes its shell call
as raw text in a format; the proxy turns it into a function call.

Two turns, whole (`responses.create`) and streamed (`responses.stream`):
the call (name, arguments, call_id), the tool run here, its output sent back
as `function_call_output`, the answer quoting it. Then a model that cuts the
connection mid-call: an error, or a failed/incomplete response, never a
completed response holding half a call. Run by cli/tests/e2e_agents.rs:

    python tests/e2e/responses_client.py --base-url http://127.0.0.1:PORT/v1 \
        --model e2e-hermes --cut-model e2e-hermes-cut --format hermes
"""

import argparse
import json
import sys

import openai

from checks import (PROMPT, TOOL_DESCRIPTION, TOOL_PARAMETERS, expected_command,
                    expected_output, run_checks, run_shell)

TOOLS = [{"type": "function", "name": "shell", "description": TOOL_DESCRIPTION,
          "parameters": TOOL_PARAMETERS, "strict": False}]
INSTRUCTIONS = "You are a test agent. Use the shell tool."


def the_call(response, format_name):
    """The response's one function call, checked."""
    assert response.status == "completed", (response.status, response.error)
    calls = [item for item in response.output if item.type == "function_call"]
    assert len(calls) == 1, response.output
    call = calls[0]
    assert call.name == "shell", call.name
    assert call.call_id, call
    assert json.loads(call.arguments) == {"command": expected_command(format_name)}, \
        call.arguments
    text = "".join(part.text for item in response.output if item.type == "message"
                   for part in item.content if part.type == "output_text")
    assert "I will run the command" in text, f"the text before the call: {text!r}"
    assert response.usage and response.usage.input_tokens > 0, response.usage
    assert response.usage.total_tokens == \
        response.usage.input_tokens + response.usage.output_tokens, response.usage
    return call


def second_turn_input(call):
    """The history a client sends back: the prompt, the call, its output."""
    output = run_shell(json.loads(call.arguments)["command"])
    return [{"role": "user", "content": PROMPT},
            {"type": "function_call", "call_id": call.call_id, "name": call.name,
             "arguments": call.arguments},
            {"type": "function_call_output", "call_id": call.call_id, "output": output}]


def the_answer(response, format_name):
    assert response.status == "completed", (response.status, response.error)
    assert not [item for item in response.output if item.type == "function_call"], \
        response.output
    assert expected_output(format_name) in response.output_text, response.output_text


def check_create(client, model, format_name):
    first = client.responses.create(model=model, input=PROMPT, tools=TOOLS,
                                    instructions=INSTRUCTIONS)
    call = the_call(first, format_name)
    second = client.responses.create(model=model, input=second_turn_input(call), tools=TOOLS,
                                     instructions=INSTRUCTIONS)
    the_answer(second, format_name)


def streamed(client, model, history):
    """The final response and the events, with the event-level checks: one
    created first, one terminal event last, rising sequence numbers, the
    arguments' deltas joining to the done item's arguments."""
    with client.responses.stream(model=model, input=history, tools=TOOLS,
                                 instructions=INSTRUCTIONS) as stream:
        events = list(stream)
        final = stream.get_final_response()
    kinds = [event.type for event in events]
    assert kinds[0] == "response.created", kinds
    assert kinds[-1] == "response.completed", kinds
    assert kinds.count("response.completed") == 1, kinds
    numbers = [event.sequence_number for event in events]
    assert numbers == sorted(set(numbers)), numbers
    deltas, done_items = {}, {}
    for event in events:
        if event.type == "response.function_call_arguments.delta":
            deltas[event.item_id] = deltas.get(event.item_id, "") + event.delta
        if event.type == "response.output_item.done" and event.item.type == "function_call":
            done_items[event.item.id] = event.item
    for item_id, item in done_items.items():
        assert deltas.get(item_id, "") == item.arguments, (deltas, item.arguments)
    final_calls = {item.call_id for item in final.output if item.type == "function_call"}
    assert final_calls == {item.call_id for item in done_items.values()}, \
        "streamed calls and response.completed's calls differ"
    return final


def check_stream(client, model, format_name):
    call = the_call(streamed(client, model, PROMPT), format_name)
    the_answer(streamed(client, model, second_turn_input(call)), format_name)


def no_completed_half_call(response):
    assert response.status in ("failed", "incomplete"), (response.status, response.output)
    for item in response.output:
        if item.type == "function_call":
            assert item.status != "completed", f"a cut call sent as completed: {item}"


def not_refused(error):
    """A cut must fail as a failed answer (5xx, an error event, a dropped
    connection), not as a refused request, which would prove nothing."""
    status = getattr(error, "status_code", None)
    assert status is None or not 400 <= status < 500, f"the request was refused, not cut: {error}"


def check_cut_create(client, cut_model):
    try:
        response = client.responses.create(model=cut_model, input=PROMPT, tools=TOOLS)
    except openai.APIError as error:
        not_refused(error)
        print(f"     cut (create): {type(error).__name__}: {error}")
        return
    no_completed_half_call(response)


def check_cut_stream(client, cut_model):
    kinds, raised = [], False
    try:
        with client.responses.stream(model=cut_model, input=PROMPT, tools=TOOLS) as stream:
            for event in stream:
                kinds.append(event.type)
                if event.type in ("response.failed", "response.incomplete"):
                    no_completed_half_call(event.response)
                if event.type == "response.output_item.done" and \
                        event.item.type == "function_call":
                    json.loads(event.item.arguments)  # never half a call
    except openai.APIError as error:
        not_refused(error)
        raised = True
        print(f"     cut (stream): {type(error).__name__}: {error}; events {kinds}")
    assert "response.completed" not in kinds, kinds
    assert raised or (kinds and kinds[-1] in ("response.failed", "response.incomplete")), \
        f"the cut stream must end with a failure: {kinds}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--cut-model")
    parser.add_argument("--format", required=True, help="the format the model writes")
    args = parser.parse_args()
    client = openai.OpenAI(base_url=args.base_url, api_key="sk-e2e", max_retries=0, timeout=60)
    print(f"openai {openai.__version__} against {args.base_url}, model {args.model}")
    checks = [("responses.create, two turns", lambda: check_create(client, args.model, args.format)),
              ("responses.stream, two turns", lambda: check_stream(client, args.model, args.format))]
    if args.cut_model:
        checks += [("cut mid-call (create)", lambda: check_cut_create(client, args.cut_model)),
                   ("cut mid-call (stream)", lambda: check_cut_stream(client, args.cut_model))]
    return run_checks(checks)


if __name__ == "__main__":
    sys.exit(main())
