// inspector-cli.test.mjs — MCP Inspector v2 in CLI mode (`mcp-inspector --cli`, pinned 2.12.0, run with
// Node 22) against `neuronlens serve`: one Inspector process per method, each spawning its own server.
//
// Inspector 2.12 exit codes: 0 success; 1 usage or other error (also a JSON-RPC error from the server);
// 4 server unreachable; 5 the tool returned isError:true or does not exist; 6 --strict schema errors.
// Errors are also printed on stderr as {"error":{"code","message"}}.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import path from "node:path";
import { NEURONLENS, NODE, OUT, binScript, check, describe, done, note, parseJson, pool, run } from "./lib.mjs";

const INSPECTOR = binScript("mcp-inspector");
const TOOLS = ["orient", "summary", "trace-extract", "kernel-attribution", "collective-gaps"];
const PROMPTS = ["diagnose-profile", "layer-latency"];
// A directory with no profile in it (one unrelated file), and a path that does not exist.
const EMPTY_DIR = mkdtempSync(path.join(OUT, "no-profile-"));
writeFileSync(path.join(EMPTY_DIR, "notes.txt"), "not a profile\n");
const MISSING_PATH = path.join(OUT, "does-not-exist");
// A directory that makes orient produce many data-quality notes: 250 directories deeper than its depth
// limit and 250 tiny JSON exports that match no NTFF (250 profiles, so a default call shows one page).
const NOISY_DIR = mkdtempSync(path.join(OUT, "noisy-"));
for (let i = 0; i < 250; i++) {
  mkdirSync(path.join(NOISY_DIR, `deep${i}`, "a", "b", "c", "d", "e", "f", "g", "h", "i"), { recursive: true });
  writeFileSync(path.join(NOISY_DIR, `export${i}.json`), '{"instruction": []}\n');
}

const inspector = (...args) =>
  run(NODE, [INSPECTOR, "--cli", "-q", "--format", "json", NEURONLENS, "serve", ...args], { timeoutMs: 30000 });
const lastJsonLine = (text) => {
  const lines = text.trim().split("\n").reverse();
  for (const l of lines) { try { return JSON.parse(l); } catch { /* next */ } }
  return undefined;
};
const textOf = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The Inspector runs below are independent; run them four at a time (each takes 0.5-1.5 s).
const calls = {
  initialize: ["--method", "initialize"],
  toolsList: ["--method", "tools/list"],
  strict: ["--method", "tools/list", "--strict"],
  resourcesList: ["--method", "resources/list"],
  templatesList: ["--method", "resources/templates/list"],
  promptsList: ["--method", "prompts/list"],
  promptGet: ["--method", "prompts/get", "--prompt-name", "diagnose-profile", "--prompt-args", "path=/data/run1"],
  promptGetMissingArg: ["--method", "prompts/get", "--prompt-name", "layer-latency"],
  setLevel: ["--method", "logging/setLevel", "--log-level", "debug"],
  orient: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", JSON.stringify({ path: EMPTY_DIR })],
  orientTmp: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", '{"path": "/tmp"}'],
  orientNoisy: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", JSON.stringify({ path: NOISY_DIR })],
  ...Object.fromEntries(TOOLS.map((t) => [`missing:${t}`,
    ["--method", "tools/call", "--tool-name", t, "--tool-args-json", JSON.stringify({ path: MISSING_PATH })]])),
  orientBadType: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", '{"path": 5}'],
  orientMissing: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", "{}"],
  orientExtra: ["--method", "tools/call", "--tool-name", "orient", "--tool-args-json", '{"path": "/tmp", "bogus": 1}'],
  unknownTool: ["--method", "tools/call", "--tool-name", "no_such_tool", "--tool-args-json", "{}"],
  resourceMissing: ["--method", "resources/read", "--uri", "neuronlens://references/no-such-reference"],
};
const t0 = performance.now();
const names = Object.keys(calls);
const results = Object.fromEntries((await pool(names, 4, (k) => inspector(...calls[k]))).map((r, i) => [names[i], r]));

// --- initialize ---------------------------------------------------------------------------------------
{
  const r = results.initialize, res = parseJson(r.stdout)?.result;
  check("initialize: exit 0", r.code === 0, describe(r));
  check("initialize: protocolVersion 2025-11-25", res?.protocolVersion === "2025-11-25", res);
  check("initialize: serverInfo.name neuronlens", res?.serverInfo?.name === "neuronlens", res?.serverInfo);
  check("initialize: serverInfo.version is a string", typeof res?.serverInfo?.version === "string", res?.serverInfo);
  const caps = res?.capabilities ?? {};
  check("initialize: capabilities tools, resources, prompts, logging",
        ["tools", "resources", "prompts", "logging"].every((c) => typeof caps[c] === "object"), caps);
}

// --- tools/list ---------------------------------------------------------------------------------------
{
  const r = results.toolsList, tools = parseJson(r.stdout)?.result?.tools;
  check("tools/list: exit 0", r.code === 0, describe(r));
  const got = (tools ?? []).map((t) => t.name);
  check(`tools/list: exactly ${TOOLS.join(", ")}`,
        got.length === TOOLS.length && [...got].sort().join() === [...TOOLS].sort().join(), got);
  for (const t of tools ?? []) {
    check(`tools/list: ${t.name}: name is 1-64 chars of [a-z0-9_-]`, /^[a-z0-9_-]{1,64}$/.test(t.name), t.name);
    check(`tools/list: ${t.name}: description`, typeof t.description === "string" && t.description.length > 20,
          t.description);
    check(`tools/list: ${t.name}: inputSchema type object`, t.inputSchema?.type === "object", t.inputSchema);
    check(`tools/list: ${t.name}: outputSchema type object`, t.outputSchema?.type === "object", t.outputSchema);
    check(`tools/list: ${t.name}: annotations readOnlyHint true, openWorldHint false`,
          t.annotations?.readOnlyHint === true && t.annotations?.openWorldHint === false, t.annotations);
  }
}

// --- tools/list --strict: Inspector's tool-schema portability report (stderr) ---------------------------
{
  const r = results.strict;
  const summary = r.stderr.match(/(\d+) errors?, (\d+) warnings? across (\d+) tools?/);
  note(`tools/list --strict: exit ${r.code}; ${summary ? summary[0] : "no summary line"}`);
  const warnings = [...r.stderr.matchAll(/^Warning: tool "([^"]+)"\n\s+Path: (\S+)\n\s+Issue: ([^.]+)\./gm)];
  for (const w of warnings) note(`  warning: ${w[1]} ${w[2]}: ${w[3]}`);
  check("tools/list --strict: exit 0 (no schema errors)", r.code === 0, describe(r));
  check("tools/list --strict: reports 0 errors", summary !== null && summary[1] === "0", r.stderr);
}

// --- resources ----------------------------------------------------------------------------------------
let firstUri;
{
  const r = results.resourcesList, list = parseJson(r.stdout)?.result?.resources ?? [];
  check("resources/list: exit 0", r.code === 0, describe(r));
  check("resources/list: 5 resources", list.length === 5, list.map((x) => x.uri));
  check("resources/list: all text/markdown", list.length > 0 && list.every((x) => x.mimeType === "text/markdown"),
        list.map((x) => x.mimeType));
  check("resources/list: uris under neuronlens://references/, with name and description",
        list.length > 0 && list.every((x) => x.uri?.startsWith("neuronlens://references/") && x.name && x.description),
        list);
  firstUri = list[0]?.uri;
  const t = results.templatesList, tpl = parseJson(t.stdout)?.result?.resourceTemplates ?? [];
  check("resources/templates/list: exit 0, one template neuronlens://references/{name}",
        t.code === 0 && tpl.length === 1 && tpl[0].uriTemplate === "neuronlens://references/{name}", describe(t));
  const m = results.resourceMissing;
  check("resources/read of an unknown uri: exit 1 with a not-found error",
        m.code === 1 && /not found/i.test(m.stderr), describe(m));
}
if (firstUri) {
  const r = await inspector("--method", "resources/read", "--uri", firstUri);
  const c = parseJson(r.stdout)?.result?.contents ?? [];
  check(`resources/read ${firstUri}: exit 0`, r.code === 0, describe(r));
  check("resources/read: one text/markdown content with that uri",
        c.length === 1 && c[0].uri === firstUri && c[0].mimeType === "text/markdown", c.map((x) => ({ ...x, text: undefined })));
  check("resources/read: Markdown text starting with a heading", /^# \S/.test(c[0]?.text ?? ""), (c[0]?.text ?? "").slice(0, 200));
}

// --- prompts ------------------------------------------------------------------------------------------
{
  const r = results.promptsList, prompts = parseJson(r.stdout)?.result?.prompts ?? [];
  check("prompts/list: exit 0", r.code === 0, describe(r));
  check(`prompts/list: exactly ${PROMPTS.join(", ")}`,
        prompts.map((p) => p.name).sort().join() === [...PROMPTS].sort().join(), prompts.map((p) => p.name));
  check("prompts/list: every prompt has a required 'path' argument",
        prompts.length > 0 && prompts.every((p) => p.arguments?.some((a) => a.name === "path" && a.required === true)), prompts);
  const g = results.promptGet, msgs = parseJson(g.stdout)?.result?.messages ?? [];
  check("prompts/get diagnose-profile path=/data/run1: exit 0", g.code === 0, describe(g));
  check("prompts/get: a user message that names the path and mentions orient",
        msgs.length >= 1 && msgs[0].role === "user" && msgs[0].content?.type === "text" &&
        msgs[0].content.text.includes("/data/run1") && msgs[0].content.text.includes("orient"), msgs);
  const m = results.promptGetMissingArg;
  check("prompts/get layer-latency without its required path: exit 1, Invalid params naming 'path'",
        m.code === 1 && /invalid params/i.test(m.stderr) && m.stderr.includes("path"), describe(m));
}

// --- logging/setLevel ---------------------------------------------------------------------------------
check("logging/setLevel debug: exit 0", results.setLevel.code === 0, describe(results.setLevel));

// --- tools/call ---------------------------------------------------------------------------------------
{
  // orient landed (it used to answer every call with an honest isError "not implemented"; this block
  // asserted exit 5 and that text until then). Now: a directory without profiles is a success with an
  // empty, schema-shaped structuredContent and a data-quality note saying nothing was found.
  const r = results.orient, res = parseJson(r.stdout)?.result, sc = res?.structuredContent;
  check("tools/call orient {path: <dir without profiles>}: exit 0", r.code === 0, describe(r));
  check("tools/call orient: not isError, a text block", res?.isError !== true && textOf(res).length > 0, res);
  check("tools/call orient: structuredContent with profiles [] and total 0",
        Array.isArray(sc?.profiles) && sc.profiles.length === 0 && sc.total === 0, sc);
  check("tools/call orient: data_quality entries with problem and fix, provenance object",
        Array.isArray(sc?.data_quality) && sc.data_quality.length > 0 &&
        sc.data_quality.every((d) => typeof d.problem === "string" && typeof d.fix === "string") &&
        typeof sc?.provenance === "object" && sc.provenance !== null, sc);
  // /tmp: whatever the machine keeps there (FIFOs, deep trees, many files) must give a bounded success.
  const t = results.orientTmp, tres = parseJson(t.stdout)?.result;
  check("tools/call orient {path:/tmp}: exit 0 with structuredContent.profiles (an array)",
        t.code === 0 && tres?.isError !== true && Array.isArray(tres?.structuredContent?.profiles), describe(t));
  note(`orient {path:/tmp}: ${t.stdout.length} bytes, ${tres?.structuredContent?.total} profile(s), ` +
       `${tres?.structuredContent?.data_quality?.length} data_quality entries`);
  // Response budget (mcp.md §7): a default call answers in a few KB and never beyond the 32-64 KiB text
  // budget, whatever is at the path; the page of profiles is bounded by max_rows and so must be the rest.
  const b = results.orientNoisy, bres = parseJson(b.stdout)?.result, bsc = bres?.structuredContent;
  note(`orient {path: <noisy dir>}: ${b.stdout.length} bytes, ${bsc?.shown} of ${bsc?.total} profiles shown, ` +
       `${bsc?.data_quality?.length} data_quality entries`);
  check("tools/call orient {path: <noisy dir>}: exit 0, paged (shown < total, next_cursor)",
        b.code === 0 && bsc?.shown < bsc?.total && typeof bsc?.next_cursor === "string", describe(b));
  check("tools/call orient {path: <noisy dir>}: default answer within the 64 KiB budget", b.stdout.length < 65536,
        `${b.stdout.length} bytes; data_quality has ${bsc?.data_quality?.length} entries`);
}
for (const tool of TOOLS) {
  // A path that does not exist is a domain failure: an isError result the model can act on (exit 5), never
  // a protocol error; tools whose analysis has not landed say "not implemented" instead.
  const r = results[`missing:${tool}`], res = parseJson(r.stdout)?.result;
  check(`tools/call ${tool} {path: <missing>}: exit 5, isError with a message`,
        r.code === 5 && res?.isError === true && textOf(res).length > 20, describe(r));
  check(`tools/call ${tool} {path: <missing>}: message names the path or says 'not implemented'`,
        textOf(res).includes(MISSING_PATH) || /not implemented/.test(textOf(res)), res);
}
for (const [key, what, arg] of [["orientBadType", '{"path": 5}', "path"], ["orientMissing", "{}", "path"],
                                ["orientExtra", '{"path": "/tmp", "bogus": 1}', "bogus"]]) {
  const r = results[key], res = parseJson(r.stdout)?.result;
  check(`tools/call orient ${what}: exit 5 (isError:true, a tool error, not a protocol error)`, r.code === 5, describe(r));
  check(`tools/call orient ${what}: the error names the argument '${arg}'`,
        res?.isError === true && textOf(res).includes(arg) && /invalid arguments/i.test(textOf(res)), res);
}
{
  // Inspector checks the name against tools/list itself and never sends the call (the server's -32602
  // answer to an unknown tool is asserted by sdk-v1, whose client does send it).
  const r = results.unknownTool, err = lastJsonLine(r.stderr)?.error;
  check("tools/call no_such_tool: exit 5, error tool_not_found", r.code === 5 && err?.code === "tool_not_found", describe(r));
}

note(`Inspector runs: ${Object.entries(results).map(([k, r]) => `${k} ${r.ms} ms`).join(", ")}`);
note(`total ${Math.round(performance.now() - t0)} ms`);
done();
