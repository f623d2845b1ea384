// The demo: a model's output streamed through the parser, piece by piece.
// Content is rendered as text (text nodes, never HTML); each tool call is a
// card that shows its name as soon as it is known and fills its arguments
// from `partialCall()`, at most once per animation frame.
import { init, Parser, ContentLayout, formats } from "../pkg/index.js";

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const encoder = new TextEncoder();

/** A tool call's card. */
class Card {
  constructor(event) {
    this.index = event.index;
    this.done = false;
    this.rows = new Map();
    this.el = el("section", "card");
    this.el.dataset.index = event.index;
    this.el.dataset.state = "streaming";
    const head = el("header");
    head.append(el("span", "fn", "ƒ"), el("span", "name", event.name), el("span", "id", event.id));
    this.badge = el("span", "badge", "streaming…");
    head.append(this.badge);
    this.args = el("div", "args");
    this.diags = el("ul", "diags");
    this.el.append(head, this.args, this.diags);
  }

  /** Shows the values so far (or the final ones). */
  show(values) {
    const keys = Object.keys(values);
    for (const [key, row] of this.rows) {
      if (!(key in values)) {
        row.el.remove();
        this.rows.delete(key);
      }
    }
    for (const key of keys) {
      let row = this.rows.get(key);
      if (row === undefined) {
        row = { el: el("div", "arg"), value: el("pre", "value"), meta: el("span", "meta") };
        const label = el("div", "key", key);
        label.append(row.meta);
        row.el.append(label, row.value);
        this.args.append(row.el);
        this.rows.set(key, row);
      }
      const value = values[key];
      const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
      // A typed value may stream as text first: the class follows the type.
      row.value.classList.toggle("string", typeof value === "string");
      if (row.value.textContent !== text) {
        row.value.textContent = text;
        const lines = text.split("\n").length;
        row.meta.textContent = lines > 3 ? `${lines} lines` : "";
        if (!this.done) row.value.scrollTop = row.value.scrollHeight;
      }
    }
  }

  end(event) {
    this.done = true;
    this.el.dataset.arguments = event.arguments ?? "";
    if (event.arguments !== undefined) this.show(JSON.parse(event.arguments));
    this.el.dataset.state = event.complete ? "complete" : "cut-off";
    this.badge.textContent = event.complete ? "✓ complete" : "✂ cut off";
  }

  diagnostic(event) {
    const item = el("li", `diag ${event.kind}`);
    item.append(el("code", null, event.kind), " ", event.message);
    this.diags.append(item);
  }
}

/** What one stream has shown so far. */
class View {
  constructor(root, run) {
    this.root = root;
    root.replaceChildren();
    root.dataset.state = "streaming";
    root.dataset.run = run;
    // The crate's own rule: content is shown as OpenAI's output sends it.
    this.layout = new ContentLayout();
    this.cards = new Map();
    this.text = null;
    this.reasoning = null;
    this.rawContent = "";
    this.rawReasoning = "";
    this.open = null;
    this.notes = null;
    this.diagnostics = 0;
  }

  handle(events) {
    for (const event of events) {
      switch (event.type) {
        case "content": {
          this.rawContent += event.text;
          const shown = this.layout.text(event.text);
          if (shown !== "") this.appendText(shown);
          break;
        }
        case "reasoning":
          this.rawReasoning += event.text;
          if (this.reasoning === null) {
            const box = el("details", "reasoning");
            box.open = true;
            box.append(el("summary", null, "Reasoning"));
            this.reasoning = el("div", "reasoning-text");
            box.append(this.reasoning);
            this.root.append(box);
            this.text = null;
          }
          this.reasoning.append(event.text);
          break;
        case "tool_call_start": {
          this.layout.call();
          this.text = null;
          this.reasoning = null;
          const card = new Card(event);
          this.cards.set(event.index, card);
          this.root.append(card.el);
          this.open = card;
          break;
        }
        case "tool_call_end":
          this.cards.get(event.index)?.end(event);
          this.open = null;
          break;
        case "diagnostic":
          this.diagnostics += 1;
          if (event.index !== null && this.cards.has(event.index)) {
            this.cards.get(event.index).diagnostic(event);
          } else {
            this.note(event);
          }
          break;
        default:
          // parameter_* and arguments_delta: the partial call shows them.
          break;
      }
    }
  }

  appendText(text) {
    if (this.text === null) {
      this.text = el("div", "text");
      this.root.append(this.text);
    }
    this.text.append(text); // a text node: model text is never HTML
  }

  /** A diagnostic of the message (or of a call not seen): in the message. */
  note(event) {
    if (this.notes === null) {
      this.notes = el("ul", "diags notes");
      this.root.append(this.notes);
    }
    const item = el("li", `diag ${event.kind}`);
    item.append(el("code", null, event.kind), " ", event.message);
    this.notes.append(item);
    this.text = null;
  }

  /** The call being read, from the parser's partial view. */
  partial(parser) {
    if (this.open === null) return;
    const call = parser.partialCall();
    if (call !== null) this.cards.get(call.index)?.show(call.values);
  }

  finish() {
    const tail = this.layout.finish();
    if (tail !== "") this.appendText(tail);
    this.root.dataset.state = "done";
  }

  /** Gives the layout's memory back to the module (done or abandoned). */
  free() {
    this.layout.free();
  }
}

/** Token-sized pieces: a word with the spaces before it, a newline, or one or two other characters. */
function tokens(text) {
  const pieces = text.match(/[^\S\n]*[\p{L}\p{N}_]{1,8}|\n|[^\S\n]+|[^\s\p{L}\p{N}_]{1,2}/gsu) ?? [];
  if (pieces.join("") !== text) throw new Error("tokens: the pieces lost text");
  return pieces;
}

/** `size`-byte pieces of the UTF-8 text (a piece may split a character: the parser joins it). */
function bytePieces(text, size) {
  const bytes = encoder.encode(text);
  const pieces = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

/** Tokens per second, from the slider (5 to 5000, logarithmic). */
function speed() {
  return Math.round(5 * 1000 ** ($("speed").value / 100));
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

let runs = 0;
let last = null;

/**
 * Streams `text` into the page. `instant`: every piece at once, one
 * microtask apart (the partial view after each piece); else at the speed
 * control's pace, the view updated once per animation frame.
 */
async function stream(text, format, options, { pieceSize, instant = false } = {}) {
  const run = ++runs;
  const status = $("status");
  status.className = "status";
  let parser;
  try {
    parser = new Parser(format, options);
  } catch (e) {
    status.textContent = e.message;
    status.className = "status error";
    throw e;
  }
  const view = new View($("chat"), run);
  last = view;
  const pieces = pieceSize ? bytePieces(text, pieceSize) : tokens(text);
  const total = encoder.encode(text).length;
  let fed = 0;
  let bytes = 0;
  const feed = (piece) => {
    view.handle(parser.feed(piece));
    bytes += typeof piece === "string" ? encoder.encode(piece).length : piece.length;
    fed += 1;
  };
  const started = performance.now();
  try {
    if (instant) {
      for (const piece of pieces) {
        feed(piece);
        view.partial(parser);
        await Promise.resolve(); // lets observers see each state
        if (run !== runs) return null;
      }
    } else {
      while (fed < pieces.length) {
        await nextFrame();
        if (run !== runs) return null;
        const due = Math.max(fed + 1, Math.floor(((performance.now() - started) / 1000) * speed()));
        while (fed < pieces.length && fed < due) feed(pieces[fed]);
        view.partial(parser);
        status.textContent = `Streaming ${format}: ${bytes} of ${total} bytes, ${parser.heldBack} held back…`;
      }
    }
    view.handle(parser.finish());
    view.finish();
  } finally {
    parser.free();
    view.free();
  }
  const calls = view.cards.size;
  status.textContent =
    `${format}: ${total} bytes in ${pieces.length} pieces, ${calls} tool call${calls === 1 ? "" : "s"}, ` +
    `${view.diagnostics} diagnostic${view.diagnostics === 1 ? "" : "s"}.`;
  return summary(view);
}

function summary(view) {
  return {
    rawContent: view.rawContent,
    rawReasoning: view.rawReasoning,
    cards: [...view.cards.values()].map((c) => ({ index: c.index, state: c.el.dataset.state })),
  };
}

let transcripts = [];
const files = new Map();

async function fetchText(path) {
  if (!files.has(path)) {
    files.set(
      path,
      fetch(`transcripts/${path}`).then((r) => {
        if (!r.ok) throw new Error(`${path}: ${r.status}`);
        return r.text();
      }),
    );
  }
  return files.get(path);
}

/** A bundled transcript: its text, format and parser options. */
async function transcript(name) {
  const entry = transcripts.find((t) => t.name === name);
  if (entry === undefined) throw new Error(`no transcript ${name}`);
  const text = await fetchText(entry.file);
  const tools = entry.tools ? JSON.parse(await fetchText(entry.tools)) : undefined;
  return { entry, text, options: { ids: "sequential", tools, ...entry.options } };
}

async function runTranscript(name, opts) {
  const { entry, text, options } = await transcript(name);
  $("transcript").value = name;
  return stream(text, entry.format, options, opts);
}

async function runPaste(opts) {
  const tools = $("paste-tools").checked ? JSON.parse(await fetchText("tools.json")) : undefined;
  return stream($("paste-text").value, $("paste-format").value, { ids: "sequential", tools }, opts);
}

function showSpeed() {
  $("speed-value").textContent = `${speed()} tokens/s`;
}

async function main() {
  await init();
  transcripts = await (await fetch("transcripts/index.json")).json();
  for (const t of transcripts) $("transcript").append(new Option(t.title, t.name));
  for (const f of formats()) $("paste-format").append(new Option(f, f));
  $("paste-format").value = "qwen3_coder";
  showSpeed();
  $("speed").addEventListener("input", showSpeed);
  const guard = (f) => () => f().catch((e) => {
    $("status").textContent = e.message;
    $("status").className = "status error";
  });
  $("play").addEventListener("click", guard(() => runTranscript($("transcript").value)));
  $("transcript").addEventListener("change", guard(() => runTranscript($("transcript").value)));
  $("paste-run").addEventListener("click", guard(() => runPaste()));
  $("status").textContent = "Ready: pick a transcript and press Stream, or paste a model's output.";
}

const ready = main();

/** For the browser test: drives the page and waits for the end. */
window.demo = {
  ready,
  transcripts: () => transcripts,
  transcript,
  run: runTranscript,
  paste: runPaste,
  last: () => (last === null ? null : summary(last)),
  runs: () => runs,
};
