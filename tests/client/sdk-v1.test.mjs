// sdk-v1.test.mjs — runs smoke-v1.mjs (the official TypeScript SDK v1 client, pinned 1.32.2) against
// `neuronlens serve --conformance-fixtures` and against plain `neuronlens serve`, and asserts on the JSON
// lines it prints (one {"<step>": value} per line; see smoke-v1.mjs).
import { mkdtempSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { NEURONLENS, NODE, OUT, check, describe, done, note, run } from "./lib.mjs";

const SMOKE = path.join(path.dirname(fileURLToPath(import.meta.url)), "smoke-v1.mjs");
const MAIN_TOOLS = ["orient", "summary", "trace-extract", "kernel-attribution", "collective-gaps"];
const FIXTURE_TOOLS = ["test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
  "test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress", "test_error_handling", "test_sleep"];

function lines(stdout) {
  const steps = [];
  for (const l of stdout.split("\n")) {
    if (!l.trim()) continue;
    try { const o = JSON.parse(l); const k = Object.keys(o)[0]; steps.push([k, o[k]]); } catch { steps.push(["unparsable", l]); }
  }
  return steps;
}
const first = (steps, k) => steps.find(([s]) => s === k)?.[1];
const all = (steps, k) => steps.filter(([s]) => s === k).map(([, v]) => v);

// --- with the conformance fixtures -------------------------------------------------------------------
const EMPTY_DIR = mkdtempSync(path.join(OUT, "no-profile-"));
writeFileSync(path.join(EMPTY_DIR, "notes.txt"), "not a profile\n");
{
  // MCP_TOOL: orient on a directory without profiles; the SDK checks structuredContent against orient's
  // outputSchema.
  const r = await run(NODE, [SMOKE, NEURONLENS, "serve", "--conformance-fixtures"], { timeoutMs: 60000,
    env: { ...process.env, MCP_TOOL: "orient", MCP_ARGS: JSON.stringify({ path: EMPTY_DIR }) } });
  const steps = lines(r.stdout);
  note(`smoke-v1 (--conformance-fixtures): exit ${r.code} in ${r.ms} ms; steps: ${steps.map(([k]) => k).join(" ")}`);
  check("fixtures: smoke-v1 exit 0", r.code === 0, describe(r));
  check("fixtures: no failed step", all(steps, "error").length === 0 && all(steps, "unparsable").length === 0, all(steps, "error"));

  const init = first(steps, "initialize");
  check("initialize: serverInfo.name neuronlens", init?.serverInfo?.name === "neuronlens", init);
  check("initialize: capabilities tools, resources, prompts, logging",
        ["tools", "resources", "prompts", "logging"].every((c) => typeof init?.capabilities?.[c] === "object"), init?.capabilities);
  check("initialize: instructions present", init?.instructionsChars > 0, init);
  check("ping: answered", typeof first(steps, "ping")?.ms === "number", first(steps, "ping"));

  const tools = first(steps, "tools");
  check("tools/list (paged): the five tools then the nine fixtures",
        JSON.stringify(tools?.names) === JSON.stringify([...MAIN_TOOLS, ...FIXTURE_TOOLS]), tools);
  const res = first(steps, "resources");
  check("resources/list (paged): 5 text/markdown resources",
        res?.count === 5 && JSON.stringify(res?.mimeTypes) === '["text/markdown"]', res);
  const rr = first(steps, "readResource");
  check("resources/read: one text/markdown content for the uri",
        rr?.contents?.length === 1 && rr.contents[0].uri === rr.uri && rr.contents[0].mimeType === "text/markdown" &&
        rr.contents[0].chars > 100, rr);
  check("resources/templates/list: neuronlens://references/{name}",
        JSON.stringify(first(steps, "resourceTemplates")?.uriTemplates) === '["neuronlens://references/{name}"]',
        first(steps, "resourceTemplates"));
  const pr = first(steps, "prompts");
  check("prompts/list (paged): diagnose-profile, layer-latency",
        JSON.stringify(pr?.names) === '["diagnose-profile","layer-latency"]', pr);
  const gp = first(steps, "getPrompt");
  check("prompts/get: a user text message naming the path",
        gp?.messages?.[0]?.role === "user" && gp.messages[0].type === "text" && gp.messages[0].text.includes("/data/run1"), gp);
  check("logging/setLevel debug: ok", first(steps, "setLoggingLevel") === "ok", first(steps, "setLoggingLevel"));

  const lg = first(steps, "logging");
  check("test_tool_with_logging: three info notifications/message in order, then the result",
        lg?.isError === false && JSON.stringify(lg.messages) === JSON.stringify([
          { level: "info", data: "Tool execution started" }, { level: "info", data: "Tool processing data" },
          { level: "info", data: "Tool execution completed" }]), lg);

  // Progress: the SDK adds a progressToken because onprogress is set. Expected 0 and 50 (100 comes right
  // before the response and SDK v1 may drop it, mcp.md §4.5), strictly increasing, total 100.
  const prog = all(steps, "progress");
  const idx = steps.findIndex(([k]) => k === "progressCall");
  check("test_tool_with_progress: progress notifications arrive before the result",
        prog.length >= 1 && steps.slice(0, idx).filter(([k]) => k === "progress").length === prog.length, { prog, idx });
  check("test_tool_with_progress: progress strictly increasing, total 100",
        prog.every((p, i) => p.total === 100 && (i === 0 || p.progress > prog[i - 1].progress)), prog);
  check("test_tool_with_progress: progress 0 and 50 seen", prog.some((p) => p.progress === 0) && prog.some((p) => p.progress === 50), prog);
  check("test_tool_with_progress: result ok", first(steps, "progressCall")?.isError === false, first(steps, "progressCall"));

  // Cancellation: abort after 200 ms → the SDK sends notifications/cancelled and rejects at once; the
  // server must then stay silent about that request (no response, no more progress; one message already
  // in flight when the cancel arrived is tolerated) and keep serving.
  const c = first(steps, "cancel");
  check("cancel: test_sleep {ms:5000} aborted after 200 ms rejects (not resolves)", c?.resolved === false, c);
  check("cancel: rejected promptly (< 2 s after the abort)", c?.settledAfterAbortMs !== null && c?.settledAfterAbortMs < 2000, c);
  check("cancel: server sent nothing more for the cancelled request (≤ 1 in-flight message)", c?.strayAfterCancel <= 1, c);
  check("ping after cancel: answered", typeof first(steps, "pingAfterCancel")?.ms === "number", first(steps, "pingAfterCancel"));

  const ia = first(steps, "invalidArgs");
  check("tools/call test_sleep {ms:'soon'}: isError result naming 'ms'",
        ia?.isError === true && /invalid arguments/i.test(ia.text) && ia.text.includes("ms"), ia);
  const ut = first(steps, "unknownTool");
  check("tools/call no_such_tool: JSON-RPC error -32602 'Unknown tool'",
        ut?.resolved === false && ut.code === -32602 && /unknown tool/i.test(ut.message), ut);

  const call = first(steps, "call");
  check("tools/call orient {path: <dir without profiles>}: success, structuredContent valid for the SDK (outputSchema)",
        call?.isError !== true && Array.isArray(call?.structuredContent?.profiles) &&
        call.structuredContent.profiles.length === 0, call ?? all(steps, "error"));

  const cl = first(steps, "close");
  check("close(): server exits on stdin EOF in < 2 s", cl?.ms < 2000 && cl?.serverStillRunning === false, cl);
  check("no unexpected asynchronous client errors", cl?.otherAsyncErrors?.length === 0, cl);
  const san = r.stderr.match(/ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:/);
  check("server stderr: no sanitizer report (ASan/UBSan builds)", !san, r.stderr);
  note(`close() took ${cl?.ms} ms; cancel settled ${c?.settledAfterAbortMs} ms after the abort; ` +
       `progress seen: ${prog.map((p) => p.progress).join(", ")}`);
}

// --- plain serve: only the five tools --------------------------------------------------------------
{
  const r = await run(NODE, [SMOKE, NEURONLENS, "serve"], { timeoutMs: 60000 });
  const steps = lines(r.stdout);
  note(`smoke-v1 (serve): exit ${r.code} in ${r.ms} ms`);
  check("serve: smoke-v1 exit 0, no failed step", r.code === 0 && all(steps, "error").length === 0, describe(r));
  check("serve: tools/list is exactly the five tools (no fixtures)",
        JSON.stringify(first(steps, "tools")?.names) === JSON.stringify(MAIN_TOOLS), first(steps, "tools"));
  const cl = first(steps, "close");
  check("serve: close() < 2 s, server gone", cl?.ms < 2000 && cl?.serverStillRunning === false, cl);
}
done();
