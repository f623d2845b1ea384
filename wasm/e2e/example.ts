// The package's API as a TypeScript user writes it: `tsc --noEmit -p .`
// (wasm/e2e/ci.sh) checks it against ../pkg/index.d.ts. The line under
// `@ts-expect-error` is a misuse that must not compile: it proves the types
// are read and bite.
import { init, Parser, parse, formats, ChunkStream, constraint } from "../pkg/index.js";
import type { ConstraintOptions, Event, Message, PartialCall, Tool } from "../pkg/index.js";

const tools: Tool[] = [
  {
    type: "function",
    function: {
      name: "write_file",
      parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } },
    },
  },
];

export async function demo(chunks: AsyncIterable<string>): Promise<Message> {
  await init();
  const known: string[] = formats();
  const parser = new Parser(known.includes("qwen3_coder") ? "qwen3_coder" : known[0], { tools, ids: "sequential" });
  const names = new Map<number, string>();
  for await (const chunk of chunks) {
    const events: Event[] = parser.feed(chunk);
    for (const event of events) {
      switch (event.type) {
        case "content":
          console.log(event.text);
          break;
        case "tool_call_start":
          names.set(event.index, event.name);
          break;
        case "tool_call_end":
          console.log(names.get(event.index), event.complete ? event.arguments : "(cut off)");
          break;
        case "diagnostic":
          console.warn(event.index ?? "message", event.kind, event.message, event.span.start);
          break;
      }
    }
    const call: PartialCall | null = parser.partialCall();
    if (call !== null && typeof call.values.content === "string") {
      console.log(`${call.name}: ${call.values.content.length} characters so far`);
    }
  }
  parser.finish();
  const stream = new ChunkStream("hermes", { model: "demo", created: 0 });
  const sse: string = stream.feedSse("<tool_call>") + stream.finishSse({ cutOff: true });
  console.log(sse.length);
  const options: ConstraintOptions = { mode: "named:write_file", dialect: "structural-tag", reasoning: true };
  const grammar: string = constraint("qwen3_coder", tools, options) + constraint("hermes", JSON.stringify(tools));
  console.log(grammar.length);
  return parse("hermes", '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', { typing: "infer" });
}

export function misuse(parser: Parser): void {
  // @ts-expect-error: feed takes text or bytes, not a number
  parser.feed(42);
  // @ts-expect-error: a mode is "lazy", "required" or "named:NAME"
  constraint("hermes", [], { mode: "auto" });
}
