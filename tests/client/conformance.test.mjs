// conformance.test.mjs — the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16,
// needs Node >= 22) against `neuronlens serve --conformance-fixtures`. The suite speaks only Streamable
// HTTP, so the server is reached through stdio-http-bridge.mjs (loopback, free port, one server process
// per MCP session), which this test starts and stops by its own PID.
//
// Runs the whole active server suite once with --expected-failures conformance-baseline.yml, so the
// suite's exit status is 1 on a regression (a scenario outside the baseline fails) AND on a newly passing
// scenario (a stale baseline entry). On top of that it asserts, from each scenario's checks.json, that
// the generic scenarios (server-initialize, ping, tools-list, logging-set-level) pass and are not in the
// baseline, and prints a pass/fail table with the failure messages.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, existsSync, createWriteStream } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NEURONLENS, NODE, OUT, binScript, check, describe, done, note, run } from "./lib.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BASELINE = path.join(HERE, "conformance-baseline.yml");
const GENERIC = ["server-initialize", "ping", "tools-list", "logging-set-level"];
const FIXTURE_BACKED = ["tools-call-simple-text", "tools-call-error", "tools-call-with-progress", "tools-call-with-logging",
  "tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content", "resources-list",
  "prompts-list"];

// The baseline is a tiny fixed-format YAML file: `server:` then `  - name` lines (comments allowed).
const baseline = readFileSync(BASELINE, "utf8").split("\n")
  .map((l) => l.replace(/#.*/, "").match(/^\s+-\s+(\S+)\s*$/)?.[1]).filter(Boolean);
check("baseline: none of the generic scenarios is an expected failure", GENERIC.every((s) => !baseline.includes(s)), baseline);

// --- start the bridge --------------------------------------------------------------------------------
const bridgeLog = createWriteStream(path.join(OUT, "bridge.log"));
const bridge = spawn(NODE, [path.join(HERE, "stdio-http-bridge.mjs"), "--exit-on-stdin-eof", "0", "--",
                            NEURONLENS, "serve", "--conformance-fixtures"],
                     { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, BRIDGE_MAX_MS: "240000" } });
bridge.stderr.pipe(bridgeLog);
const bridgeExit = new Promise((resolve) => bridge.on("exit", (code, signal) => resolve({ code, signal })));
const url = await new Promise((resolve) => {
  let buf = "";
  const timer = setTimeout(() => resolve(undefined), 15000);
  bridge.stdout.setEncoding("utf8").on("data", (d) => {
    buf += d;
    const nl = buf.indexOf("\n");
    if (nl >= 0) { clearTimeout(timer); try { resolve(JSON.parse(buf.slice(0, nl)).url); } catch { resolve(undefined); } }
  });
  bridge.on("exit", () => { clearTimeout(timer); resolve(undefined); });
});
if (!check("bridge: listening on 127.0.0.1", typeof url === "string" && url.startsWith("http://127.0.0.1:"), url)) {
  bridge.kill("SIGKILL");
  done();
}
note(`bridge pid ${bridge.pid} at ${url}; log ${path.join(OUT, "bridge.log")}`);

// --- run the suite -----------------------------------------------------------------------------------
const resultsDir = path.join(OUT, "results");
const r = await run(NODE, [binScript("conformance"), "server", "--url", url, "--expected-failures", BASELINE, "-o", resultsDir],
                    { timeoutMs: 150000, cwd: OUT });
note(`conformance server (active suite): exit ${r.code} in ${r.ms} ms`);
const tail = r.stdout.slice(r.stdout.indexOf("=== SUMMARY ==="));
for (const line of tail.split("\n")) if (line.trim()) note(`  ${line.replace(/\x1b\[[0-9;]*m/g, "")}`);

// --- stop the bridge by its PID (SIGTERM, bounded; then SIGKILL) -----------------------------------------
bridge.kill("SIGTERM");
const stopped = await Promise.race([bridgeExit, new Promise((res) => setTimeout(() => res(undefined), 8000))]);
if (!stopped) bridge.kill("SIGKILL");
check("bridge: stops on SIGTERM within 8 s", stopped !== undefined && stopped.code === 0, stopped);

await new Promise((res) => bridgeLog.end(res));
const bridgeText = readFileSync(path.join(OUT, "bridge.log"), "utf8");
check("server stderr (via the bridge): no sanitizer report (ASan/UBSan builds)",
      !/ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:/.test(bridgeText), bridgeText.slice(-3000));

// --- per-scenario results ----------------------------------------------------------------------------
const scenarios = new Map();    // name → {pass, failures: [msg]}
if (existsSync(resultsDir)) {
  for (const d of readdirSync(resultsDir)) {
    const f = path.join(resultsDir, d, "checks.json");
    if (!existsSync(f)) continue;
    const name = d.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    const checks = JSON.parse(readFileSync(f, "utf8"));
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    scenarios.set(name, { pass: bad.length === 0 && checks.some((c) => c.status === "SUCCESS"),
                          failures: bad.map((c) => `${c.status}: ${c.errorMessage ?? c.description}`) });
  }
}
note("scenario | result | baseline | reason");
for (const [name, s] of [...scenarios].sort()) {
  note(`  ${name} | ${s.pass ? "pass" : "FAIL"} | ${baseline.includes(name) ? "expected failure" : "-"}` +
       `${s.failures.length ? ` | ${s.failures[0]}` : ""}`);
}
for (const name of [...GENERIC, ...FIXTURE_BACKED]) check(`scenario ${name} ran`, scenarios.has(name), [...scenarios.keys()]);
for (const name of GENERIC) check(`scenario ${name} passes (generic)`, scenarios.get(name)?.pass === true, scenarios.get(name));
const regressions = [...scenarios].filter(([n, s]) => !s.pass && !baseline.includes(n)).map(([n, s]) => `${n}: ${s.failures.join("; ")}`);
const newlyPassing = [...scenarios].filter(([n, s]) => s.pass && baseline.includes(n)).map(([n]) => n);
const unknownEntries = baseline.filter((n) => !scenarios.has(n));
check("no regression: every failing scenario is in conformance-baseline.yml", regressions.length === 0, regressions.join("\n"));
check("no stale baseline entry: no scenario in conformance-baseline.yml passes now (remove it)", newlyPassing.length === 0, newlyPassing);
check("every baseline entry names a scenario that ran", unknownEntries.length === 0, unknownEntries);
check("conformance --expected-failures: exit 0 (failures are exactly the baseline)", r.code === 0, describe(r));
note(`${[...scenarios.values()].filter((s) => s.pass).length} of ${scenarios.size} scenarios pass; results in ${resultsDir}`);
done();
