"""What the agent-API e2e scripts share: the scripted model's command and
its output, running the tool locally, and the pass/fail report that
cli/tests/e2e_agents.rs reads ("N passed, 0 failed")."""

import subprocess
import traceback

PROMPT = "Run echo to print a marker, then tell me what it printed."
TOOL_DESCRIPTION = "Runs a shell command and returns what it printed."
TOOL_PARAMETERS = {
    "type": "object",
    "properties": {"command": {"type": "string", "description": "The command to run."}},
    "required": ["command"],
}


def expected_command(format_name):
    """The command the replay's scripted model (agent/<format>) runs."""
    return f"echo toolcall-e2e-{format_name}-$((6*7))"


def expected_output(format_name):
    return f"toolcall-e2e-{format_name}-42"


def run_shell(command):
    """Runs the call's command as the tool would: its output proves that
    the call's arguments arrived whole."""
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=30)
    return done.stdout + done.stderr


def run_checks(checks):
    """Runs every (name, function) check, reports each; 0 if all passed."""
    failed = 0
    for name, check in checks:
        try:
            check()
            print(f"ok   {name}", flush=True)
        except Exception:  # any failure is reported, then the next check runs
            failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
    print(f"{len(checks) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0
