// toolcall-stream in the browser: the types of index.js.

/** Loads the WebAssembly module (once; again after an internal error). */
export function init(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** Every built-in format's canonical name. */
export function formats(): string[];
/** The format a model's name says it writes; throws when it says none. */
export function formatForModel(model: string): string;
/** Parses a whole output. */
export function parse(format: string, text: string, options?: ParserOptions): Message;

/**
 * The grammar of exactly the calls `format` reads, to `tools` (an array, or
 * its JSON text), for a server's constrained decoder; throws with the
 * library's message when there is none (an unknown tool, no tools, or no
 * tool whose call any arguments satisfy).
 */
export function constraint(format: string, tools: Tool[] | string, options?: ConstraintOptions): string;

/** What `constraint` admits; the crate's `Constraint` documents each. */
export interface ConstraintOptions {
  /** `tool_choice`: "required" (the default), "lazy" ("auto") or "named:NAME". */
  mode?: "lazy" | "required" | `named:${string}`;
  /** More than one call (`parallel_tool_calls`); true by default. */
  parallel?: boolean;
  /** A reasoning block may come first; false by default. */
  reasoning?: boolean;
  /** The grammar's language: "lark" (the default), "structural-tag" (xgrammar's, as JSON) or "gbnf". */
  dialect?: "lark" | "structural-tag" | "structural_tag" | "gbnf";
}

/** An OpenAI tool, as a request's `tools` holds it. */
export interface Tool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** The parser's options; the crate's `ParserBuilder` documents each. */
export interface ParserOptions {
  /** The request's tools: they type the values. */
  tools?: Tool[];
  reasoning?: "off" | "on" | "started";
  valueTermination?: "lookahead" | "vllm";
  typing?: "schema" | "infer" | "strings";
  strict?: boolean;
  ids?: "vllm" | "openai" | "sequential" | "random";
  /** Seeds the random ids (by default, the browser's crypto does). */
  seed?: number;
  retainArguments?: boolean;
  incompleteCallsAsContent?: boolean;
  unknownToolsAsContent?: boolean;
  callsInCodeBlocks?: boolean;
  callsInReasoning?: boolean;
  watchForeignFormats?: boolean;
  pythonLiterals?: boolean;
  holdTextAfterWrapper?: boolean;
}

/** A value typed from the tools' schema: any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface Span {
  start: number;
  end: number;
}

export type DiagnosticKind = string;

/** The events, in the crate's JSON form (docs/events.md). */
export type Event =
  | { type: "content"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "parameter_start"; index: number; name: string }
  | { type: "parameter_delta"; index: number; text: string }
  | { type: "parameter_end"; index: number; name: string; value?: JsonValue }
  | { type: "arguments_delta"; index: number; delta: string }
  | { type: "tool_call_end"; index: number; arguments?: string; complete: boolean }
  | { type: "diagnostic"; index: number | null; kind: DiagnosticKind; message: string; span: Span };

export interface Diagnostic {
  index: number | null;
  kind: DiagnosticKind;
  message: string;
  span: Span;
}

export interface ToolCall {
  index: number;
  id: string;
  name: string;
  /** The arguments, as JSON text. */
  arguments: string;
  /** False when the stream ended inside the call: do not run it. */
  complete: boolean;
}

export interface Message {
  content: string | null;
  reasoning: string | null;
  tool_calls: ToolCall[];
  diagnostics: Diagnostic[];
}

/** The call being read. */
export interface PartialCall {
  index: number;
  id: string;
  name: string;
  /** The arguments so far, closed into a JSON object: it always parses. */
  arguments: string;
  /** `arguments` parsed: each parameter's value so far. */
  values: { [name: string]: JsonValue };
}

export class Parser {
  constructor(format?: string, options?: ParserOptions);
  /** Feeds a piece of text, or bytes that may split a character; its events. */
  feed(chunk: string | Uint8Array): Event[];
  /** Ends the stream; the last events. */
  finish(): Event[];
  /** The call being read, or null. */
  partialCall(): PartialCall | null;
  /** Parses a whole output with this parser's options. */
  parse(text: string): Message;
  readonly heldBack: number;
  readonly format: string;
  reset(): void;
  free(): void;
}

export interface ChunkOptions extends ParserOptions {
  model?: string;
  /** The response id (`chatcmpl-` and random letters by default). */
  id?: string;
  /** Unix seconds (now by default). */
  created?: number;
}

/** An OpenAI `chat.completion.chunk`. */
export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: "assistant";
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: {
        index: number;
        id?: string;
        type?: "function";
        function: { name?: string; arguments?: string };
      }[];
    };
    finish_reason: "stop" | "length" | "tool_calls" | null;
  }[];
}

export class ChunkStream {
  constructor(format?: string, options?: ChunkOptions);
  feed(text: string): ChatCompletionChunk[];
  finish(options?: { cutOff?: boolean }): ChatCompletionChunk[];
  /** `feed`, as server-sent events. */
  feedSse(text: string): string;
  /** `finish`, as server-sent events ending with `data: [DONE]`. */
  finishSse(options?: { cutOff?: boolean }): string;
}

/**
 * The crate's OpenAI layout rule over content events: the newlines a chat
 * template puts around tool calls are not content. Feed it every `content`
 * event's text, call `call()` on every `tool_call_start`, and `finish()`
 * at the end; together they give the content OpenAI's output would send.
 */
export class ContentLayout {
  constructor();
  /** A content event's text; what is known to be content by now. */
  text(text: string): string;
  /** A call starts: the whitespace held before it was layout. */
  call(): void;
  /** The message ends: the rest of the content. Ready for the next message after. */
  finish(): string;
  /** Frees the module's memory for it. */
  free(): void;
}
