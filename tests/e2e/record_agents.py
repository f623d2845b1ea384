"""Records the requests that agents and SDKs really send, for the proxy's
Responses and Anthropic Messages translators (fixtures under
tests/fixtures/agents/<client>/).

A small HTTP server: each request is saved as JSON (method, path without the
client prefix, query, headers with secrets redacted, body) under
--out/<client>/NN.json, where <client> is the first path segment the client
was pointed at (http://127.0.0.1:PORT/<client>/v1/...). It answers as a
model that says a sentence and calls the request's shell-like tool once,
then answers in text quoting the tool's result when that is in the history,
in the API's own shape (Responses or Anthropic Messages, streamed or not),
so that agents send a second turn. For a model `e2e-<format>` it runs the
replay's scripted command (cli/tests/support/agent_script.rs), so that
tests/e2e/{responses,anthropic}_client.py and agents_sdk.py can be tried
against it as against a correct proxy.

    python tests/e2e/record_agents.py --port 8765 --out target/recorded
"""

import argparse
import itertools
import json
import pathlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "cookie"}
MARKER = "toolcall-e2e-rec"
SHELL_TOOLS = ["Bash", "shell", "exec_command", "shell_command", "local_shell", "run_shell"]
COUNTER = itertools.count(1)
LOCK = threading.Lock()


def redact(value):
    """A secret header's value without the secret, keeping its scheme
    (`Bearer <redacted>`), which says how the client authenticates."""
    scheme, _, secret = value.partition(" ")
    return f"{scheme} <redacted>" if secret else "<redacted>"


def tool_name(tool):
    return tool.get("name") or (tool.get("function") or {}).get("name")


def tool_schema(tool):
    return tool.get("parameters") or tool.get("input_schema") or \
        (tool.get("function") or {}).get("parameters") or {}


def pick_tool(tools):
    named = {tool_name(t): t for t in tools if tool_name(t)}
    for name in SHELL_TOOLS:
        if name in named:
            return named[name]
    return next(iter(named.values()), None)


def arguments_for(schema, command):
    props = schema.get("properties") or {}
    args = {}
    for key in ("command", "cmd"):
        if key in props:
            kind = props[key].get("type")
            args[key] = ["bash", "-lc", command] if kind == "array" else command
            break
    for key in schema.get("required") or []:
        if key not in args:
            kind = (props.get(key) or {}).get("type")
            args[key] = {"string": "x", "integer": 1, "number": 1, "boolean": False,
                         "array": [], "object": {}}.get(kind, "x")
    return args


def sse(handler, events):
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    # No length and no chunking: the body ends when the connection closes.
    handler.send_header("connection", "close")
    handler.close_connection = True
    handler.end_headers()
    for name, data in events:
        frame = (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
        handler.wfile.write(frame.encode())
        handler.wfile.flush()


def answer_json(handler, value, status=200):
    data = json.dumps(value).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def command_for(model):
    """The scripted agent model's command for a test model `e2e-<format>`
    (so that tests/e2e/*_client.py can be tried against this recorder),
    else an echo of the recorder's marker."""
    if model and model.startswith("e2e-"):
        return f"echo toolcall-e2e-{model[4:]}-$((6*7))"
    return f"echo {MARKER}"


def as_text(content):
    """A result's content: a string, or the text of its blocks."""
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def result_texts(body):
    """The texts of the tool results in the request."""
    texts = []
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        if item.get("type") in ("function_call_output", "custom_tool_call_output"):
            texts.append(as_text(item.get("output")))
    for message in body.get("messages") or []:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                texts.append(as_text(block.get("content")))
    return texts


def turn(body, tools):
    """What the model says: (text, (tool name, arguments) or None)."""
    tool = pick_tool(tools)
    texts = result_texts(body)
    if texts or tool is None:
        quoted = next((word for text in texts for word in text.split()
                       if "toolcall-e2e-" in word), MARKER)
        return f"The command printed: {quoted}", None
    arguments = arguments_for(tool_schema(tool), command_for(body.get("model")))
    return "I will run the command and look at what it prints.", (tool_name(tool), arguments)


def responses_answer(handler, body):
    tools = [t for t in body.get("tools") or [] if t.get("type") == "function"]
    text, call = turn(body, tools)
    now = int(time.time())
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    items = [{"type": "message", "id": "msg_rec1", "role": "assistant", "status": "completed",
              "content": [{"type": "output_text", "text": text, "annotations": []}]}]
    if call:
        items.append({"type": "function_call", "id": "fc_rec1", "call_id": "call_rec1",
                      "name": call[0], "status": "completed", "arguments": json.dumps(call[1])})
    response = {"id": "resp_rec1", "object": "response", "created_at": now,
                "model": body.get("model"), "status": "completed", "output": items,
                "usage": usage, "error": None, "incomplete_details": None,
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    if not body.get("stream"):
        return answer_json(handler, response)
    pending = dict(response, status="in_progress", output=[], usage=None)
    seq = itertools.count()

    def ev(name, **fields):
        return name, {"type": name, "sequence_number": next(seq), **fields}
    events = [ev("response.created", response=pending),
              ev("response.in_progress", response=pending)]
    for index, item in enumerate(items):
        at = {"item_id": item["id"], "output_index": index}
        if item["type"] == "message":
            part = item["content"][0]
            events += [
                ev("response.output_item.added", output_index=index,
                   item=dict(item, status="in_progress", content=[])),
                ev("response.content_part.added", **at, content_index=0,
                   part={"type": "output_text", "text": "", "annotations": []}),
                ev("response.output_text.delta", **at, content_index=0, delta=part["text"],
                   logprobs=[]),
                ev("response.output_text.done", **at, content_index=0, text=part["text"],
                   logprobs=[]),
                ev("response.content_part.done", **at, content_index=0, part=part),
            ]
        else:
            events += [
                ev("response.output_item.added", output_index=index,
                   item=dict(item, status="in_progress", arguments="")),
                ev("response.function_call_arguments.delta", **at, delta=item["arguments"]),
                ev("response.function_call_arguments.done", **at,
                   arguments=item["arguments"]),
            ]
        events.append(ev("response.output_item.done", output_index=index, item=item))
    events.append(ev("response.completed", response=response))
    sse(handler, events)


def messages_answer(handler, body):
    text, call = turn(body, body.get("tools") or [])
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0}
    blocks = [{"type": "text", "text": text}]
    if call:
        blocks.append({"type": "tool_use", "id": "toolu_rec1", "name": call[0],
                       "input": call[1]})
    stop = "tool_use" if call else "end_turn"
    message = {"id": "msg_rec1", "type": "message", "role": "assistant",
               "model": body.get("model"), "content": blocks, "stop_reason": stop,
               "stop_sequence": None, "usage": usage}
    if not body.get("stream"):
        return answer_json(handler, message)
    events = [("message_start", {"type": "message_start", "message": dict(
        message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = dict(block, text="")
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    sse(handler, events)


class Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    out = pathlib.Path(".")

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        segments = parts.path.split("/", 2)
        client = segments[1] if len(segments) > 1 and segments[1] else "unknown"
        path = "/" + (segments[2] if len(segments) > 2 else "")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): (redact(v) if k.lower() in SECRET_HEADERS else v)
                   for k, v in self.headers.items()}
        record = {"method": self.command, "path": path, "query": parts.query,
                  "headers": headers, "body": body}
        with LOCK:
            n = next(COUNTER)
            directory = self.out / client
            directory.mkdir(parents=True, exist_ok=True)
            (directory / f"{n:03}.json").write_text(json.dumps(record, indent=2) + "\n")
        print(f"{n:03} {client} {self.command} {self.path}", flush=True)
        if self.command == "POST" and path.endswith("/responses") and isinstance(body, dict):
            return responses_answer(self, body)
        if self.command == "POST" and path.endswith("/messages/count_tokens"):
            return answer_json(self, {"input_tokens": 42})
        if self.command == "POST" and path.endswith("/messages") and isinstance(body, dict):
            return messages_answer(self, body)
        if path.endswith("/models"):
            return answer_json(self, {"object": "list", "data": []})
        answer_json(self, {"error": {"message": "recorder: not served", "type": "not_found"}},
                    status=404)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = handle_any


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    args = parser.parse_args()
    Recorder.out = args.out
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Recorder)
    print(f"recording on http://127.0.0.1:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
