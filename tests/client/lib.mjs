// lib.mjs — shared helpers of the client-suite tests: the environment run.sh sets up, a bounded child
// runner, and TAP-style checks (`ok N - name` / `not ok N - name` + details), so meson's log shows every
// assertion. A test ends with done(), which exits 1 if any check failed.
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";

export const NEURONLENS = process.env.NEURONLENS;
export const CLIENTS = process.env.NL_MCP_CLIENTS;
export const OUT = process.env.NL_CLIENT_OUT;
export const NODE = process.execPath;
if (!NEURONLENS || !CLIENTS || !OUT) {
  console.error("lib.mjs: run through tests/client/run.sh (NEURONLENS, NL_MCP_CLIENTS, NL_CLIENT_OUT unset)");
  process.exit(2);
}

/** The real JS file behind node_modules/.bin/NAME, to run it with this (Node 22) binary. */
export const binScript = (name) => realpathSync(path.join(CLIENTS, "node_modules", ".bin", name));

/**
 * Runs cmd with args; never throws. Resolves {code, signal, stdout, stderr, ms, timedOut}. On timeout the
 * child gets SIGTERM, then SIGKILL 2 s later.
 */
export function run(cmd, args, { timeoutMs = 30000, env = process.env, cwd, input } = {}) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "", stderr = "", timedOut = false, killTimer;
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), 2000);
    }, timeoutMs);
    child.on("error", (e) => { stderr += `spawn error: ${e.message}\n`; });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - t0), timedOut });
    });
  });
}

/** Maps fn over items with at most `limit` running at once; results keep the input order. */
export async function pool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => { while (next < items.length) { const i = next++; results[i] = await fn(items[i], i); } };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** First JSON object in text (one JSON document, or the first parsable line), else undefined. */
export function parseJson(text) {
  try { return JSON.parse(text); } catch { /* fall through to line mode */ }
  for (const line of text.split("\n")) {
    try { return JSON.parse(line); } catch { /* next */ }
  }
  return undefined;
}

let n = 0, failed = 0;
const clip = (s, max = 1500) => (s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s);

/** One assertion. detail (string or object) is printed under a failing check to show what was seen. */
export function check(name, cond, detail) {
  n++;
  if (cond) { console.log(`ok ${n} - ${name}`); return true; }
  failed++;
  console.log(`not ok ${n} - ${name}`);
  if (detail !== undefined) {
    const d = typeof detail === "string" ? detail : JSON.stringify(detail);
    for (const line of clip(d).split("\n")) console.log(`  # ${line}`);
  }
  return false;
}

export const note = (msg) => { for (const line of String(msg).split("\n")) console.log(`# ${line}`); };

/** Describes a run() result for a failing check. */
export const describe = (r) => ({ code: r.code, signal: r.signal, ms: r.ms, timedOut: r.timedOut,
                                  stdout: clip(r.stdout, 800), stderr: clip(r.stderr, 800) });

export function done() {
  console.log(`1..${n}`);
  console.log(failed ? `# FAILED ${failed} of ${n} checks` : `# all ${n} checks passed`);
  process.exit(failed ? 1 : 0);
}
