// toolcall-stream in the browser: streamed LLM output to OpenAI tool calls,
// as it arrives. A thin layer over the WebAssembly module that wasm-bindgen
// binds (toolcall_stream_wasm.js): options go in as JSON, events and
// messages come back as plain objects, errors are JS Errors with the
// library's messages.

import initModule, * as glue from "./toolcall_stream_wasm.js";

let native = null;
let loading = null;
let generation = 0;

/**
 * Loads the module (once; again after an internal error). `input` is what
 * wasm-bindgen's init takes: a URL, a Response, bytes or a module; by
 * default the .wasm beside this file.
 */
export async function init(input) {
  if (native !== null) return;
  if (loading === null) {
    loading = (async () => {
      let module = glue;
      if (generation > 0) {
        // A trap leaves the old instance's memory mid-operation: a fresh
        // copy of the glue gives a fresh instance.
        module = await import(`./toolcall_stream_wasm.js?instance=${generation}`);
      }
      const start = generation > 0 ? module.default : initModule;
      await start(input === undefined ? undefined : { module_or_path: input });
      native = module;
    })().finally(() => {
      loading = null;
    });
  }
  await loading;
}

/** The module, loaded; an Error when it is not. */
function loaded() {
  if (native === null) {
    throw new Error("toolcall-stream: call `await init()` first");
  }
  return native;
}

/**
 * Runs `f` on the module. A WebAssembly trap (a panic: a bug, never the
 * input's fault) becomes an Error, and the module is dropped so that
 * `init()` loads a fresh one; parsers made before it stop working.
 */
function guarded(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      native = null;
      generation += 1;
      const error = new Error(
        `toolcall-stream: internal error (${e.message}); call \`await init()\` to load the module again`,
      );
      error.cause = e;
      throw error;
    }
    throw e;
  }
}

function optionsJson(options) {
  return options === undefined || options === null ? "" : JSON.stringify(options);
}

/**
 * The options with a random seed for the call ids when none is given: the
 * module has no entropy of its own (its ids would repeat on each page
 * load), the browser's crypto has.
 */
function seeded(options) {
  const ids = options?.ids ?? "random";
  if (ids === "sequential" || options?.seed !== undefined) return options;
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  // A seed JSON keeps exact: below 2^53.
  return { ...options, seed: (words[0] & 0x1fffff) * 2 ** 32 + words[1] };
}

/** Every built-in format's canonical name. */
export function formats() {
  return JSON.parse(guarded(() => loaded().formats()));
}

/** The format a model's name says it writes; an Error when it says none. */
export function formatForModel(model) {
  return guarded(() => loaded().formatForModel(model));
}

/** Parses a whole output: `{content, reasoning, tool_calls, diagnostics}`. */
export function parse(format, text, options) {
  return JSON.parse(guarded(() => loaded().parse(format, text, optionsJson(options))));
}

/**
 * The grammar of exactly the calls `format` reads, to `tools` (an OpenAI
 * `tools` array, or its JSON text), for a server's constrained decoder.
 * Options: `mode` ("required" by default, "lazy" or "named:NAME"),
 * `parallel` (true), `reasoning` (false), `dialect` ("lark",
 * "structural-tag" or "gbnf"). An Error with the library's message when
 * there is no grammar.
 */
export function constraint(format, tools, options) {
  // JSON text as given keeps the tools' parameter order, which the grammar
  // follows; JSON.stringify keeps an object's order too.
  const toolsJson = typeof tools === "string" ? tools : JSON.stringify(tools ?? []);
  return guarded(() => loaded().constraint(format, toolsJson, optionsJson(options)));
}

/** A streaming parser for one model output. */
export class Parser {
  constructor(format = "qwen3_coder", options) {
    const mod = loaded();
    this._generation = generation;
    this._native = guarded(() => new mod.Parser(format, optionsJson(seeded(options))));
  }

  _call(f) {
    if (this._generation !== generation) {
      throw new Error("toolcall-stream: this parser was lost to an internal error; make a new one");
    }
    return guarded(() => f(this._native));
  }

  /** Feeds a piece of text (string) or bytes (Uint8Array); its events. */
  feed(chunk) {
    return JSON.parse(
      this._call((p) => (typeof chunk === "string" ? p.feed(chunk) : p.feedBytes(chunk))),
    );
  }

  /** Ends the stream; the last events. */
  finish() {
    return JSON.parse(this._call((p) => p.finish()));
  }

  /**
   * The call being read, for UIs: `{index, id, name, arguments, values}`,
   * `arguments` the JSON so far (it always parses), `values` it parsed
   * (each parameter's value so far); `null` outside a call.
   */
  partialCall() {
    const call = JSON.parse(this._call((p) => p.partialCall()));
    if (call !== null) call.values = JSON.parse(call.arguments);
    return call;
  }

  /** Parses a whole output with this parser's options. */
  parse(text) {
    return JSON.parse(this._call((p) => p.parse(text)));
  }

  /** Bytes held back because they may still start a marker. */
  get heldBack() {
    return this._call((p) => p.heldBack);
  }

  /** The format's canonical name. */
  get format() {
    return this._call((p) => p.format);
  }

  /** Starts over for a new stream, keeping the options. */
  reset() {
    this._call((p) => p.reset());
  }

  /** Frees the module memory the parser holds (optional: garbage collection also does). */
  free() {
    if (this._generation === generation) this._native.free();
  }
}

/**
 * A model's text as OpenAI `chat.completion.chunk`s: `feed`/`finish`
 * return chunk objects, `feedSse`/`finishSse` server-sent-event text.
 */
export class ChunkStream {
  constructor(format = "qwen3_coder", options = {}) {
    const mod = loaded();
    const { model = "toolcall", id, created } = options;
    const chunkId = id ?? `chatcmpl-${randomId(29)}`;
    const time = created ?? Math.floor(Date.now() / 1000);
    this._generation = generation;
    this._native = guarded(
      () => new mod.ChunkStream(format, optionsJson(seeded(options)), model, chunkId, time),
    );
  }

  _call(f) {
    if (this._generation !== generation) {
      throw new Error("toolcall-stream: this stream was lost to an internal error; make a new one");
    }
    return guarded(() => f(this._native));
  }

  feed(text) {
    return JSON.parse(this._call((s) => s.feed(text, false)));
  }

  finish({ cutOff = false } = {}) {
    return JSON.parse(this._call((s) => s.finish(cutOff, false)));
  }

  feedSse(text) {
    return this._call((s) => s.feed(text, true));
  }

  finishSse({ cutOff = false } = {}) {
    return this._call((s) => s.finish(cutOff, true));
  }
}

/**
 * The crate's OpenAI layout rule, for showing content as OpenAI's output
 * does: the newlines a chat template puts around tool calls are not
 * content. Feed it the text of every `content` event (`text` returns what
 * is known to be content so far), call `call()` on every
 * `tool_call_start`, and `finish()` at the end (the rest of the content).
 */
export class ContentLayout {
  constructor() {
    const mod = loaded();
    this._generation = generation;
    this._native = guarded(() => new mod.ContentLayout());
  }

  _call(f) {
    if (this._generation !== generation) {
      throw new Error("toolcall-stream: this layout was lost to an internal error; make a new one");
    }
    return guarded(() => f(this._native));
  }

  text(text) {
    return this._call((l) => l.text(text));
  }

  call() {
    this._call((l) => l.call());
  }

  finish() {
    return this._call((l) => l.finish());
  }

  free() {
    if (this._generation === generation) this._native.free();
  }
}

function randomId(length) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

/** Internal: the engine alone inside the module, for the throughput test. */
export function _benchFeed(format, text, piece, rounds) {
  return guarded(() => loaded().benchFeed(format, text, piece, rounds));
}

/** Internal: panics on purpose, for the test that a panic is an Error. */
export function _panicForTests() {
  return guarded(() => loaded()._panicForTests());
}
