// The reference implementation (the TypeScript module this library ports, as published in @earendil-works/pi-ai)
// replaying a case's pieces under Node: a new parser per call, append() then snapshot() after every piece, as the
// Python contenders do. Warm-up runs first (V8 compiles the parser), then timed runs (wall time: the process's CPU
// time would count V8's background threads too); prints the best time and the final values as one line of JSON. Run by bench/suites/reference.py:
//
//   node bench/reference.mjs CASE.json MODULE_DIR
//
// CASE.json: {"calls": [[piece, ...], ...], "warmup": N, "runs": N}; MODULE_DIR: where `npm install` put the package.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [casePath, moduleDir] = process.argv.slice(2);
const { calls, warmup, runs } = JSON.parse(readFileSync(casePath, "utf8"));
const entry = join(moduleDir, "node_modules", "@earendil-works", "pi-ai", "dist", "utils", "streaming-json.js");
const { StreamingJsonParser } = await import(pathToFileURL(entry).href);

function replay() {
  const finals = [];
  for (const pieces of calls) {
    const parser = new StreamingJsonParser();
    let value;
    for (const piece of pieces) {
      parser.append(piece);
      value = parser.snapshot();
    }
    finals.push(value === undefined ? null : value);
  }
  return finals;
}

let finals = null;
for (let i = 0; i < warmup; i++) finals = replay();
const times = [];
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  finals = replay();
  times.push(Number(process.hrtime.bigint() - start) / 1e9);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ seconds: times[0], times, finals }));
