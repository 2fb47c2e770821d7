// patches.js applying an op stream as its value grows: the cost per piece while the value's text goes from 64 KB to
// 128 KB, and from 1 MB to 1 MB + 64 KB (issue 31: flat, the second within 1.5x of the first). The same module runs
// in Node and, imported by a page, in headless Chromium (bench/suites/patches.py serves both files).
//
//   node bench/apply_patches.mjs FIXTURE.json [ROUNDS [apply,handle]]     (prints one line of JSON)
//
// FIXTURE: {"sse": our server-sent events, one event a piece; "windows": {"64 KB": [first, end], "1 MB": [...]},
// indices of the events whose pieces take the text through each range; "final": the value the stream ends with}.
// Two readings of each window, each round from an empty value: `apply`, applyPatch on the pieces' operations (parsed
// before the window, untimed: an operation's value is set into the live value, so a round needs its own); `handle`,
// what the page's client does with each event, LiveValues.handle (JSON.parse of the event's data, then applyPatch).
// A warm-up round first (V8 compiles the client); then the best of the rounds (a window is a few milliseconds: on a
// shared machine a round that the scheduler or a major collection interrupted is slower, not more telling) and the
// median, in nanoseconds per piece.

import { applyPatch, EventStreamReader, LiveValues } from "../streaming_json/static/patches.js";

// Node: the process's CPU time in milliseconds (a shared machine's other processes left out, V8's collector threads
// in); a page: the wall clock, the only one it has.
const cpu = typeof process !== "undefined" && typeof process.cpuUsage === "function";
const now = cpu
  ? () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    }
  : () => performance.now();

/** The data of each unnamed event (a document's operations), in order. */
export function eventData(sse) {
  const reader = new EventStreamReader();
  return [...reader.push(sse), ...reader.end()].filter(([type]) => type === "message").map(([, data]) => data);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const best = (values) => Math.min(...values);

/** One round of applyPatch: the milliseconds each window took, and the value at the end. */
function applyRound(data, windows) {
  // The windows' operations are parsed before the round, untimed; the others as they come (the heap stays small).
  const parsed = windows.map(([, [first, end]]) => data.slice(first, end).map((text) => JSON.parse(text)));
  let value;
  let at = 0;
  const took = {};
  windows.forEach(([name, [first, end]], number) => {
    for (; at < first; at++) value = applyPatch(value, JSON.parse(data[at]));
    const batches = parsed[number];
    const start = now();
    for (let i = 0; i < batches.length; i++) value = applyPatch(value, batches[i]);
    took[name] = now() - start;
    at = end;
  });
  for (; at < data.length; at++) value = applyPatch(value, JSON.parse(data[at]));
  return [took, value];
}

/** One round of LiveValues.handle on the events' data (text). */
function handleRound(data, windows) {
  const live = new LiveValues();
  let at = 0;
  const took = {};
  for (const [name, [first, end]] of windows) {
    for (; at < first; at++) live.handle("message", data[at]);
    const start = now();
    for (; at < end; at++) live.handle("message", data[at]);
    took[name] = now() - start;
  }
  for (; at < data.length; at++) live.handle("message", data[at]);
  return [took, live.values.get("")];
}

const READINGS = { apply: applyRound, handle: handleRound };

/**
 * Measure `rounds` rounds of each reading (`readings`: some of "apply", "handle") on the fixture; resolves to
 * {apply: {window: ns per piece, the best round}, handle: {...}, median: {apply, handle}, pieces: {window: events},
 * rounds, clock, final_ok}. `final_ok` says every round ended with the fixture's final value.
 */
export async function measure(fixture, rounds, readings = ["apply", "handle"]) {
  const data = eventData(fixture.sse);
  const windows = Object.entries(fixture.windows).sort((a, b) => a[1][0] - b[1][0]);
  const expected = JSON.stringify(fixture.final);
  const times = Object.fromEntries(readings.map((reading) => [reading, Object.fromEntries(windows.map(([name]) => [name, []]))]));
  let finalOk = true;
  for (let round = -1; round < rounds; round++) {
    for (const reading of readings) {
      const [took, value] = READINGS[reading](data, windows);
      finalOk = finalOk && JSON.stringify(value) === expected;
      if (round >= 0) for (const [name] of windows) times[reading][name].push(took[name]); // round -1 warms V8 up
    }
    await new Promise((resolve) => setTimeout(resolve, 0)); // a page answers its driver between rounds
  }
  const perPiece = (reading, statistic) =>
    Object.fromEntries(windows.map(([name, [first, end]]) => [name, (statistic(reading[name]) * 1e6) / (end - first)]));
  const measured = { median: {} };
  for (const reading of readings) {
    measured[reading] = perPiece(times[reading], best);
    measured.median[reading] = perPiece(times[reading], median);
  }
  return {
    ...measured,
    pieces: Object.fromEntries(windows.map(([name, [first, end]]) => [name, end - first])),
    rounds,
    clock: cpu ? "cpu" : "wall",
    final_ok: finalOk,
  };
}

if (typeof process !== "undefined" && process.versions && process.versions.node) {
  const { pathToFileURL } = await import("node:url");
  if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
    const { readFileSync } = await import("node:fs");
    const [fixturePath, rounds, readings] = process.argv.slice(2);
    const fixture = JSON.parse(readFileSync(fixturePath, "utf8"));
    const measured = await measure(fixture, Number(rounds || 5), readings ? readings.split(",") : undefined);
    console.log(JSON.stringify(measured));
  }
}
