// The JavaScript client on the op streams the Python tests write (tests/test_patches_js.py): every stream, cut into
// random chunks, read with readFetch, must give after each batch of operations the value Python's apply_patch gave,
// and end with the values Python ended with. Run by pytest: `node --test tests/js/`, STREAMING_JSON_FIXTURES set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

import { applyPatch, EventStreamReader, LiveValues, readFetch, DOCUMENT } from "../../streaming_json/static/patches.js";

const FIXTURES = process.env.STREAMING_JSON_FIXTURES;

/** A seeded generator (mulberry32): the same cuts on every run of a fixture. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The body's bytes in chunks of 1 to 64 bytes, cut anywhere (inside a character too). */
function chunked(text, seed) {
  const bytes = new TextEncoder().encode(text);
  const next = random(seed);
  const chunks = [];
  for (let start = 0; start < bytes.length; ) {
    const end = Math.min(bytes.length, start + 1 + Math.floor(next() * 64));
    chunks.push(bytes.slice(start, end));
    start = end;
  }
  return new Response(new ReadableStream({
    pull(controller) {
      if (chunks.length) controller.enqueue(chunks.shift());
      else controller.close();
    },
  }));
}

const fixtures = FIXTURES ? readdirSync(FIXTURES).filter((name) => name.endsWith(".json")).sort() : [];

test("the fixtures are there", { skip: FIXTURES ? false : "run from pytest (tests/test_patches_js.py)" }, () => {
  assert.ok(fixtures.length > 0, `no fixtures in ${FIXTURES}`);
});

for (const name of fixtures) {
  test(`${name}: the values after every batch and at the end are Python's`, async () => {
    const fixture = JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
    for (let seed = 1; seed <= 3; seed++) {
      const seen = [];
      const ends = [];
      const live = await readFetch(chunked(fixture.sse, seed), {
        onChange: (value, id) => {
          if (fixture.steps) seen.push([id, JSON.parse(JSON.stringify(value))]);
        },
        onEnd: (value, id, end) => ends.push([id, value, end.error, end.problem && end.problem.kind]),
      });
      assert.equal(live.done, true);
      if (fixture.steps) assert.deepEqual(seen, fixture.steps);
      assert.deepEqual(ends, fixture.ends);
      assert.deepEqual(Object.fromEntries(live.values), fixture.final);
    }
  });
}

test("applyPatch: every operation, pointers escaped, arrays added at an index or at the end", () => {
  let value = applyPatch(undefined, [{ op: "add", path: "", value: {} }]);
  value = applyPatch(value, [
    { op: "add", path: "/a~1b", value: [] },
    { op: "add", path: "/a~1b/0", value: "x" },
    { op: "add", path: "/a~1b/-", value: "z" },
    { op: "add", path: "/a~1b/1", value: "y" },
    { op: "append", path: "/a~1b/2", value: "!" },
    { op: "add", path: "/t~0", value: 1 },
    { op: "replace", path: "/t~0", value: 2 },
    { op: "add", path: "/gone", value: null },
    { op: "remove", path: "/gone" },
  ]);
  assert.deepEqual(value, { "a/b": ["x", "y", "z!"], "t~": 2 });
  assert.equal(applyPatch("ab", [{ op: "append", path: "", value: "c" }]), "abc");
  assert.throws(() => applyPatch({}, [{ op: "replace", path: "/missing", value: 1 }]), /does not apply/);
  assert.throws(() => applyPatch({ a: 1 }, [{ op: "append", path: "/a", value: "x" }]), /not a string/);
  assert.throws(() => applyPatch([], [{ op: "add", path: "/2", value: 1 }]), /does not apply/);
  assert.throws(() => applyPatch({}, [{ op: "move", path: "/a", from: "/b" }]), /unknown/);
});

test("EventStreamReader: line ends of every kind, split anywhere, and the last event without its blank line", () => {
  const text = "event: ops\r\ndata: {\"ops\":[]}\r\n\r\n: a comment\revent: end\rdata: {}\r\rdata: 1\ndata: 2\n\nevent: done\ndata: {}";
  for (let cut = 0; cut <= text.length; cut++) {
    const reader = new EventStreamReader();
    const events = [...reader.push(text.slice(0, cut)), ...reader.push(text.slice(cut)), ...reader.end()];
    assert.deepEqual(events, [["ops", '{"ops":[]}'], ["end", "{}"], ["message", "1\n2"], ["done", "{}"]], `cut ${cut}`);
  }
});

test("LiveValues: a document's value under DOCUMENT, an end's value kept where the server sent one", () => {
  const calls = [];
  const live = new LiveValues({ onStart: (id, name) => calls.push(["start", id, name]), onDone: () => calls.push(["done"]) });
  live.handle("ops", { ops: [{ op: "add", path: "", value: { a: "x" } }] });
  live.handle("start", { id: "c1", name: "write" });
  live.handle("ops", '{"id":"c1","ops":[{"op":"add","path":"","value":{}}]}');
  live.handle("end", { id: "c1", value: {}, error: "malformed", problem: { kind: "malformed" } });
  live.handle("end", {});
  live.handle("done", {});
  assert.deepEqual(live.values.get(DOCUMENT), { a: "x" });
  assert.deepEqual(live.ends.get("c1"), { error: "malformed", problem: { kind: "malformed" } });
  assert.deepEqual(calls, [["start", "c1", "write"], ["done"]]);
});
