// patches.js: live values from a streaming_json op stream (streaming_json.patches), in the browser or in Node.
//
// One ES module, no dependency, no build step. `applyPatch(value, ops)` applies JSON Patch operations (RFC 6902's
// add, replace, remove, and the `append` extension for a string that grew) and returns the new value. `LiveValues`
// keeps the values of one stream, one per tool call (by id) or one for a document, and calls back on each change and
// on each end; `readEventSource` and `readFetch` feed it from a server's events (the operations unnamed, then
// `event: start | end | done | error`, each `data:` JSON). Applying an operation costs its own size and its path's length, never the
// value's: a string grows in place (`+=`), a member or an item is set where the path says.
//
//   import { readEventSource } from "/static/patches.js";
//   readEventSource("/write", {
//     onChange: (value, id) => render(id, value),  // the value so far, after each batch of operations
//     onEnd: (value, id, end) => end.error ? showError(id, end.error) : done(id, value),
//   });

// The last pointer's steps: a string grows at one path piece after piece, and splitting its pointer again for each
// piece would cost more than the append itself.
let lastPointer = "";
let lastSteps = [];

/** The steps of a JSON Pointer (RFC 6901): "/a~1b/0" is ["a/b", "0"]. Shared with the next call on the same pointer:
 * never changed. */
function steps(pointer) {
  if (pointer === lastPointer) return lastSteps;
  if (pointer === "") return [];
  if (pointer[0] !== "/") throw new Error(`a JSON Pointer starts with "/": ${JSON.stringify(pointer)}`);
  const parts = pointer.slice(1).split("/");
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].indexOf("~") >= 0) parts[i] = parts[i].replace(/~1/g, "/").replace(/~0/g, "~");
  }
  lastPointer = pointer;
  lastSteps = parts;
  return parts;
}

/** The container that holds the pointer's last step, and that step (an index for an array). */
function parentOf(value, parts, adding, pointer) {
  let node = value;
  for (let i = 0; i < parts.length - 1; i++) {
    node = Array.isArray(node) ? node[Number(parts[i])] : node == null ? undefined : node[parts[i]];
    if (node === null || typeof node !== "object") throw new Error(`the path ${pointer} does not apply`);
  }
  let key = parts[parts.length - 1];
  if (Array.isArray(node)) {
    key = adding && key === "-" ? node.length : Number(key);
    const last = adding ? node.length : node.length - 1;
    if (!Number.isInteger(key) || key < 0 || key > last) throw new Error(`the path ${pointer} does not apply`);
  } else if (node === null || typeof node !== "object" || (!adding && !(key in node))) {
    throw new Error(`the path ${pointer} does not apply`);
  }
  return [node, key];
}

/**
 * Apply JSON Patch operations to `value`; returns the new value (containers are changed in place; the root is new
 * where an operation sets it). Throws where an operation does not apply.
 */
export function applyPatch(value, ops) {
  for (const operation of ops) {
    const { op, path } = operation;
    const parts = steps(path);
    if (op === "append") {
      if (parts.length === 0) {
        if (typeof value !== "string") throw new Error("append to a value that is not a string");
        value += operation.value;
        continue;
      }
      const [parent, key] = parentOf(value, parts, false, path);
      if (typeof parent[key] !== "string") throw new Error(`append to a value that is not a string at ${path}`);
      parent[key] += operation.value;
    } else if (op === "add" || op === "replace") {
      if (parts.length === 0) {
        value = operation.value;
        continue;
      }
      const [parent, key] = parentOf(value, parts, op === "add", path);
      if (!Array.isArray(parent) || op === "replace") parent[key] = operation.value;
      else if (key === parent.length) parent.push(operation.value); // an item at the end: no splice
      else parent.splice(key, 0, operation.value);
    } else if (op === "remove") {
      if (parts.length === 0) {
        value = undefined;
        continue;
      }
      const [parent, key] = parentOf(value, parts, false, path);
      if (Array.isArray(parent)) parent.splice(key, 1);
      else delete parent[key];
    } else {
      throw new Error(`unknown JSON Patch operation: ${JSON.stringify(op)}`);
    }
  }
  return value;
}

/** The key of a document's value, whose events carry no id. */
export const DOCUMENT = "";

/**
 * The values of one op stream: `handle(type, data)` takes each server event. Callbacks (all optional):
 * `onStart(id, name)` when a tool call starts; `onChange(value, id, ops)` after each batch of operations;
 * `onEnd(value, id, end)` when a value ends (`end.error` and `end.problem` say why it is in error, and `value` is
 * then what the server settled on, `{}` for a call's malformed arguments); `onDone(values)` at the end of the
 * stream; `onError(message)` where the server's source failed. A document's id is `DOCUMENT` ("").
 */
export class LiveValues {
  constructor(handlers = {}) {
    this.handlers = handlers;
    /** Each value so far, by id. */
    this.values = new Map();
    /** Each call's tool name, by id. */
    this.names = new Map();
    /** Each ended value's end ({error, problem}), by id. */
    this.ends = new Map();
    /** Whether the stream has ended (`done`), and the server's error where its source failed. */
    this.done = false;
    this.error = null;
  }

  /**
   * One server event: its type (`message`, the operations; `start`, `end`, `done`, `error`) and its data (parsed, or
   * JSON text).
   */
  handle(type, data) {
    if (typeof data === "string") data = JSON.parse(data);
    if (Array.isArray(data)) data = { ops: data }; // a document's operations, bare
    const id = data.id == null ? DOCUMENT : data.id;
    const handlers = this.handlers;
    if (type === "ops" || type === "message") {
      const value = applyPatch(this.values.get(id), data.ops);
      this.values.set(id, value);
      if (handlers.onChange) handlers.onChange(value, id, data.ops);
    } else if (type === "start") {
      this.names.set(id, data.name);
      if (handlers.onStart) handlers.onStart(id, data.name);
    } else if (type === "end") {
      if ("value" in data) this.values.set(id, data.value);
      const end = { error: data.error == null ? null : data.error, problem: data.problem == null ? null : data.problem };
      this.ends.set(id, end);
      if (handlers.onEnd) handlers.onEnd(this.values.get(id), id, end);
    } else if (type === "done") {
      this.done = true;
      if (handlers.onDone) handlers.onDone(this.values);
    } else if (type === "error") {
      this.error = data.error;
      this.done = true;
      if (handlers.onError) handlers.onError(data.error);
    }
  }
}

const TYPES = ["message", "start", "ops", "end", "done", "error"];

/**
 * Follow a stream with the browser's `EventSource` (a GET endpoint): `source` is a URL or an `EventSource`. Returns
 * the `LiveValues`; the source is closed at `done` (an `EventSource` would reconnect when the server closes) and at
 * `error`.
 */
export function readEventSource(source, handlers = {}) {
  const events = typeof source === "string" ? new EventSource(source) : source;
  const live = new LiveValues(handlers);
  for (const type of TYPES) {
    events.addEventListener(type, (message) => {
      if (type === "error" && message.data === undefined) return; // the connection's own error, not the server's
      live.handle(type, message.data);
      if (type === "done" || type === "error") events.close();
    });
  }
  return live;
}

/** Server-sent events out of text chunks: `push(text)` returns the complete events, as [type, data] pairs. */
export class EventStreamReader {
  constructor() {
    this.rest = "";
    this.type = null;
    this.data = null;
  }

  push(text) {
    let joined = this.rest + text;
    let held = "";
    if (joined.endsWith("\r")) {
      joined = joined.slice(0, -1); // the "\n" of its "\r\n" may begin the next chunk
      held = "\r";
    }
    const lines = joined.split(/\r\n|\r|\n/);
    this.rest = lines.pop() + held;
    const events = [];
    for (const line of lines) {
      if (line === "") {
        if (this.data !== null) events.push([this.type || "message", this.data]);
        this.type = null;
        this.data = null;
      } else if (line.startsWith("data:")) {
        const value = line[5] === " " ? line.slice(6) : line.slice(5);
        this.data = this.data === null ? value : `${this.data}\n${value}`;
      } else if (line.startsWith("event:")) {
        this.type = line[6] === " " ? line.slice(7) : line.slice(6);
      } // comments, ids and retry times are not needed
    }
    return events;
  }

  /** The event the end of the stream ends, if its blank line never came. */
  end() {
    const events = this.rest ? this.push("\n") : [];
    if (this.data !== null) events.push([this.type || "message", this.data]);
    this.data = null;
    return events;
  }
}

/**
 * Follow a stream with `fetch` (any method, a body, headers: a POST endpoint): `input` is a URL, a `Request` or a
 * `Response` already fetched; `init` is `fetch`'s. Resolves to the `LiveValues` once the stream has ended.
 */
export async function readFetch(input, handlers = {}, init = undefined) {
  const response = typeof Response !== "undefined" && input instanceof Response ? input : await fetch(input, init);
  if (!response.ok) throw new Error(`the stream's request failed: ${response.status} ${response.statusText}`);
  const live = new LiveValues(handlers);
  const reader = new EventStreamReader();
  const decoder = new TextDecoder();
  const body = response.body.getReader();
  for (;;) {
    const { done, value } = await body.read();
    const events = reader.push(done ? decoder.decode() : decoder.decode(value, { stream: true }));
    if (done) events.push(...reader.end());
    for (const [type, data] of events) {
      if (TYPES.includes(type)) live.handle(type, data);
    }
    if (done) break;
    if (live.done) {
      body.cancel().catch(() => {}); // the server said done: what follows is not the stream's
      break;
    }
  }
  return live;
}
