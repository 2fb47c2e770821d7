// The reference implementation (the TypeScript module this library ports, as published in @earendil-works/pi-ai)
// replaying a case's pieces under Node: a new parser per call, append() then snapshot() after every piece, as the
// Python contenders do. Run by bench/suites/reference.py:
//
//   node bench/reference.mjs CASE.json MODULE_DIR
//
// CASE.json: {"calls": [[piece, ...], ...], "warmup": N, "warmup_seconds": S, "runs": N}; MODULE_DIR: where
// `npm install` put the package.
//
// Timed fairly: a timed run keeps nothing of its output alive. Each call's last snapshot is dropped when the next call
// starts (as a live view drops the value it showed), so V8's collector never walks a heap of earlier results: keeping
// every call's final value in an array while timing made the same replay of the real corpus take 25-35 ms instead of
// 15-17 ms. Warm-up runs come first (V8 compiles the parser), at least `warmup` of them and for at least
// `warmup_seconds`: V8 compiles its optimised code on a background thread, and a count of runs is not enough where a
// run is short (3 runs of the 20 KB call, 2 ms in all, left its best of 5 timed runs anywhere from 0.5 to 2.6 ms from
// one process to the next; after half a second, 0.42-0.48 ms in most). Then the timed runs (wall time: the process's
// CPU time would count V8's background threads too), then one untimed run that keeps the final values, to check.
// Prints the best time, every run's time, and the checking run's final values as one line of JSON.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [casePath, moduleDir] = process.argv.slice(2);
const { calls, warmup, warmup_seconds: warmupSeconds = 0, runs } = JSON.parse(readFileSync(casePath, "utf8"));
const entry = join(moduleDir, "node_modules", "@earendil-works", "pi-ai", "dist", "utils", "streaming-json.js");
const { StreamingJsonParser } = await import(pathToFileURL(entry).href);

// One call's replay: its last snapshot (the value a live view shows when the call ends).
function replayCall(pieces) {
  const parser = new StreamingJsonParser();
  let value;
  for (const piece of pieces) {
    parser.append(piece);
    value = parser.snapshot();
  }
  return value;
}

// The timed replay: every call's value is dropped when the next call starts. What it returns (how many calls ended
// with a value) keeps the work observable without keeping any value alive.
function replay() {
  let shown = 0;
  for (const pieces of calls) {
    if (replayCall(pieces) !== undefined) shown++;
  }
  return shown;
}

const warmupEnd = process.hrtime.bigint() + BigInt(Math.round(warmupSeconds * 1e9));
for (let i = 0; i < warmup || process.hrtime.bigint() < warmupEnd; i++) replay();
const times = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  replay();
  times.push(Number(process.hrtime.bigint() - start) / 1e9);
}
times.sort((a, b) => a - b);
const finals = calls.map((pieces) => {
  const value = replayCall(pieces);
  return value === undefined ? null : value;
});
console.log(JSON.stringify({ seconds: times[0], times, finals }));
