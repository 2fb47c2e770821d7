// Our wire shapes read by their protocols' own JavaScript clients, on the op streams the Python tests write
// (tests/test_patches_js.py): the Vercel AI SDK's UI message stream (UIMessageWire) through the `ai` package's
// DefaultChatTransport (its server-sent-event parser and chunk schema) and readUIMessageStream, and AG-UI's events
// (AGUIWire) through @ag-ui/client's HttpAgent (its event schemas, its verifier, fast-json-patch for STATE_DELTA).
// Each must end with our tool inputs and our document's value. Run by pytest: STREAMING_JSON_FIXTURES (folders
// ai-sdk/ and ag-ui/) and STREAMING_JSON_NODE_MODULES (where `make test` installed tests/js/package.json) set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const FIXTURES = process.env.STREAMING_JSON_FIXTURES;
const MODULES = process.env.STREAMING_JSON_NODE_MODULES;

/** A package installed under MODULES, by its manifest's ES module entry. */
async function load(name) {
  const folder = join(MODULES, "node_modules", name);
  const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  let entry = manifest.exports?.["."] ?? manifest.module ?? manifest.main;
  if (typeof entry !== "string") entry = entry.import ?? entry.default;
  if (typeof entry !== "string") entry = entry.default;
  return import(pathToFileURL(join(folder, entry)).href);
}

function fixtures(folder) {
  if (!FIXTURES) return [];
  return readdirSync(join(FIXTURES, folder))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => [name, JSON.parse(readFileSync(join(FIXTURES, folder, name), "utf8"))]);
}

/** A fetch that answers every request with the fixture's event stream. */
function answering(sse, headers) {
  return async () => new Response(sse, { headers: { "content-type": "text/event-stream", ...headers } });
}

const skip = FIXTURES && MODULES ? false : "run from pytest (tests/test_patches_js.py)";

for (const [name, fixture] of fixtures("ai-sdk")) {
  test(`the AI SDK's own reader: ${name} ends with our tool inputs and data part`, { skip }, async () => {
    const { DefaultChatTransport, readUIMessageStream } = await load("ai");
    const transport = new DefaultChatTransport({
      api: "http://127.0.0.1/api/chat",
      fetch: answering(fixture.sse, { "x-vercel-ai-ui-message-stream": "v1" }),
    });
    const chunks = await transport.sendMessages({
      chatId: "chat",
      messages: [],
      abortSignal: undefined,
      trigger: "submit-message",
      messageId: undefined,
    });
    const errors = [];
    let message;
    for await (const state of readUIMessageStream({ stream: chunks, onError: (error) => errors.push(error.message) })) {
      message = state;
    }
    const expected = fixture.expected;
    assert.deepEqual(errors, expected.document_error == null ? [] : [expected.document_error]);
    assert.equal(message.id, "m1");
    const tools = message.parts.filter((part) => part.type.startsWith("tool-"));
    assert.deepEqual(
      tools.map((part) => part.toolCallId),
      expected.calls.map((call) => call.id),
    );
    for (const call of expected.calls) {
      const part = tools.find((found) => found.toolCallId === call.id);
      assert.equal(part.type, `tool-${call.name}`);
      assert.equal(part.state, call.error == null ? "input-available" : "output-error", call.id);
      assert.deepEqual(part.input, call.input, call.id);
      if (call.error != null) assert.equal(part.errorText, call.error);
    }
    const data = message.parts.filter((part) => part.type.startsWith("data-"));
    const document = expected.document == null ? [] : [{ type: "data-answer", id: "object", data: expected.document }];
    assert.deepEqual(data, document);
  });
}

for (const [name, fixture] of fixtures("ag-ui")) {
  test(`AG-UI's own client: ${name} ends with our tool calls and state`, { skip }, async () => {
    const { HttpAgent } = await load("@ag-ui/client");
    const warnings = [];
    const warn = console.warn;
    console.warn = (...args) => warnings.push(args.join(" ")); // a STATE_DELTA that does not apply is only a warning
    const custom = [];
    const agent = new HttpAgent({ url: "http://127.0.0.1/agent", threadId: "t1", fetch: answering(fixture.sse) });
    try {
      await agent.runAgent({ runId: "r1" }, { onCustomEvent: ({ event }) => custom.push(event) });
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(warnings, []);
    const expected = fixture.expected;
    const calls = agent.messages.flatMap((message) => message.toolCalls ?? []);
    assert.deepEqual(
      calls.map((call) => [call.id, call.function.name, call.function.arguments]),
      expected.calls.map((call) => [call.id, call.name, call.text]),
    );
    for (const call of expected.calls) {
      if (call.error == null) {
        assert.deepEqual(JSON.parse(calls.find((found) => found.id === call.id).function.arguments), call.input);
      }
    }
    const problems = custom.filter((event) => event.name === "streaming_json.problem").map((event) => event.value);
    const errors = expected.calls.filter((call) => call.error != null).map((call) => [call.id, call.error]);
    if (expected.document_error != null) errors.push([null, expected.document_error]);
    assert.deepEqual(
      problems.map((problem) => [problem.toolCallId, problem.error]),
      errors,
    );
    if (expected.document != null) assert.deepEqual(agent.state, expected.document);
  });
}
