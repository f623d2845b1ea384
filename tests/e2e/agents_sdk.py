"""End to end: the OpenAI Agents SDK (`openai-agents`) against `toolcall
proxy`'s /v1/responses, in front of the replay upstream's scripted agent
model (cli/tests/support/agent_script.rs): `Runner.run` and
`Runner.run_streamed` with a `@function_tool` that runs the shell command
here; the final output quotes what the command printed, and the tool ran
once with the model's arguments. Run by cli/tests/e2e_agents.rs:

    python tests/e2e/agents_sdk.py --base-url http://127.0.0.1:PORT/v1 \
        --model e2e-hermes --format hermes
"""

import argparse
import asyncio
import sys

import agents
from agents import (Agent, OpenAIResponsesModel, Runner, function_tool,
                    set_tracing_disabled)
from openai import AsyncOpenAI

from checks import PROMPT, expected_command, expected_output, run_checks, run_shell


def make_agent(base_url, model, calls):
    @function_tool
    def shell(command: str) -> str:
        """Runs a shell command and returns what it printed."""
        calls.append(command)
        return run_shell(command)

    client = AsyncOpenAI(base_url=base_url, api_key="sk-e2e", max_retries=0, timeout=60)
    return Agent(name="tester", instructions="You are a test agent. Use the shell tool.",
                 tools=[shell], model=OpenAIResponsesModel(model=model, openai_client=client))


def check_result(final_output, calls, format_name):
    assert calls == [expected_command(format_name)], calls
    assert expected_output(format_name) in str(final_output), final_output


def check_run(base_url, model, format_name):
    calls = []
    agent = make_agent(base_url, model, calls)
    result = asyncio.run(Runner.run(agent, PROMPT, max_turns=4))
    check_result(result.final_output, calls, format_name)


def check_run_streamed(base_url, model, format_name):
    calls = []
    agent = make_agent(base_url, model, calls)

    async def run():
        streamed = Runner.run_streamed(agent, PROMPT, max_turns=4)
        kinds = set()
        async for event in streamed.stream_events():
            kinds.add(event.type)
        assert "raw_response_event" in kinds and "run_item_stream_event" in kinds, kinds
        return streamed.final_output

    check_result(asyncio.run(run()), calls, format_name)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--format", required=True, help="the format the model writes")
    args = parser.parse_args()
    set_tracing_disabled(True)
    version = getattr(agents, "__version__", "?")
    print(f"openai-agents {version} against {args.base_url}, model {args.model}")
    return run_checks([
        ("Runner.run", lambda: check_run(args.base_url, args.model, args.format)),
        ("Runner.run_streamed", lambda: check_run_streamed(args.base_url, args.model, args.format)),
    ])


if __name__ == "__main__":
    sys.exit(main())
