"""Drives the Python SDKs against tests/e2e/record_agents.py, two turns each
(a tool call, then its result), so that the recorder saves what they send:

    python tests/e2e/record_sdk_clients.py --base-url http://127.0.0.1:8765

Each SDK is pointed at <base-url>/<client>, the recorder's client name.
"""

import argparse
import asyncio
import json

import anthropic
import openai

TOOL_PARAMETERS = {
    "type": "object",
    "properties": {"command": {"type": "string", "description": "The command to run."}},
    "required": ["command"],
}
PROMPT = "Run echo to print a marker, then tell me what it printed."


def openai_responses(base_url):
    client = openai.OpenAI(base_url=f"{base_url}/openai_responses/v1", api_key="dummy")
    tools = [{"type": "function", "name": "shell", "description": "Runs a shell command.",
              "parameters": TOOL_PARAMETERS, "strict": False}]
    history = [{"role": "user", "content": PROMPT}]
    first = client.responses.create(model="gpt-test", input=history, tools=tools,
                                    instructions="You are a test agent.")
    call = next(item for item in first.output if item.type == "function_call")
    history += [{"type": "function_call", "call_id": call.call_id, "name": call.name,
                 "arguments": call.arguments},
                {"type": "function_call_output", "call_id": call.call_id,
                 "output": "toolcall-e2e-rec\n"}]
    second = client.responses.create(model="gpt-test", input=history, tools=tools,
                                     instructions="You are a test agent.")
    print("openai_responses:", second.output_text)
    # The same two turns streamed.
    with client.responses.stream(model="gpt-test", input=history[:1], tools=tools) as stream:
        stream.get_final_response()
    with client.responses.stream(model="gpt-test", input=history, tools=tools) as stream:
        print("openai_responses (stream):", stream.get_final_response().output_text)


def anthropic_sdk(base_url):
    client = anthropic.Anthropic(base_url=f"{base_url}/anthropic_sdk", api_key="dummy")
    tools = [{"name": "shell", "description": "Runs a shell command.",
              "input_schema": TOOL_PARAMETERS}]
    history = [{"role": "user", "content": PROMPT}]
    first = client.messages.create(model="claude-test", max_tokens=1024, messages=history,
                                   tools=tools, system="You are a test agent.")
    call = next(block for block in first.content if block.type == "tool_use")
    history += [{"role": "assistant", "content": [block.model_dump() for block in first.content]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                              "content": "toolcall-e2e-rec\n"}]}]
    second = client.messages.create(model="claude-test", max_tokens=1024, messages=history,
                                    tools=tools, system="You are a test agent.")
    print("anthropic_sdk:", second.content[0].text)
    with client.messages.stream(model="claude-test", max_tokens=1024, messages=history[:1],
                                tools=tools) as stream:
        stream.get_final_message()
    with client.messages.stream(model="claude-test", max_tokens=1024, messages=history,
                                tools=tools) as stream:
        print("anthropic_sdk (stream):", stream.get_final_message().content[0].text)


def openai_agents(base_url):
    from agents import (Agent, OpenAIResponsesModel, Runner, function_tool,
                        set_tracing_disabled)

    set_tracing_disabled(True)

    @function_tool
    def shell(command: str) -> str:
        """Runs a shell command."""
        return "toolcall-e2e-rec\n"

    client = openai.AsyncOpenAI(base_url=f"{base_url}/openai_agents/v1", api_key="dummy")
    agent = Agent(name="tester", instructions="You are a test agent.", tools=[shell],
                  model=OpenAIResponsesModel(model="gpt-test", openai_client=client))
    async def both():
        result = await Runner.run(agent, PROMPT)
        print("openai_agents:", result.final_output)
        run = Runner.run_streamed(agent, PROMPT)
        async for _ in run.stream_events():
            pass
        print("openai_agents (stream):", run.final_output)
    # One event loop for both runs: the client's connections belong to it.
    asyncio.run(both())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    args = parser.parse_args()
    for drive in (openai_responses, anthropic_sdk, openai_agents):
        drive(args.base_url.rstrip("/"))
    print(json.dumps({"done": True}))


if __name__ == "__main__":
    main()
