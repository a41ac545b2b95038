// smoke-v1.mjs — a stdio MCP client built on the official TypeScript SDK v1 (@modelcontextprotocol/sdk,
// pinned 1.32.2), per ../../../shared/docs/mcp.md §8.5. It drives one server process through the calls a
// host makes and prints ONE JSON OBJECT PER LINE, {"<step>": value}, on stdout; sdk-v1.test.mjs asserts
// on those lines. A step that fails prints {"error": {"step", "code", "message"}} and the script goes on
// with the next step where that makes sense; the exit status is 1 if any step failed.
//
// Usage (node_modules next to this file must hold the SDK: tests/client/install-clients.sh links it):
//   node smoke-v1.mjs <server command> [args...]
//   e.g. node smoke-v1.mjs build/neuronlens serve --conformance-fixtures
// Env: MCP_TOOL=name MCP_ARGS='{"k":"v"}' adds one call of that tool (line "call"; progress lines
// "callProgress"). MCP_CHILD_ENV='{"K":"V"}' adds variables for the server (the SDK otherwise passes only HOME,
// LOGNAME, PATH, SHELL, TERM, USER). Steps that need the fixture tools (test_tool_with_logging,
// test_tool_with_progress, test_sleep) run only when tools/list offers them.
//
// Lines: initialize, ping, tools, resources, readResource, resourceTemplates, prompts, getPrompt,
// setLoggingLevel, logging, progress* + progressCall, cancel, pingAfterCancel, invalidArgs, unknownTool,
// call, close.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
if (!command) { console.error("usage: node smoke-v1.mjs <server command> [args...]"); process.exit(2); }
const env = { ...process.env, ...JSON.parse(process.env.MCP_CHILD_ENV ?? "{}") };
const out = (k, v) => console.log(JSON.stringify({ [k]: v }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
let failed = false;
const fail = (step, e) => { failed = true; out("error", { step, code: e?.code, message: String(e?.message ?? e) }); };
const step = async (name, fn) => { try { return await fn(); } catch (e) { fail(name, e); return undefined; } };
async function pageAll(method, key) {           // follows nextCursor; returns {items, pages}
  let cursor, items = [], pages = 0;
  do {
    const p = await client[method](cursor ? { cursor } : undefined);
    items.push(...p[key]); cursor = p.nextCursor; pages++;
  } while (cursor && pages < 1000);
  return { items, pages };
}

// Errors the SDK reports outside any request: stray progress for a finished/cancelled token, a response
// to a cancelled request ("unknown message ID"), unparsable lines. Counted to catch a server that keeps
// working on (or answers) a cancelled call.
const asyncErrors = [];
const client = new Client({ name: "neuronlens-smoke-v1", version: "0.0.1" });
client.onerror = (e) => asyncErrors.push({ t: now(), message: String(e?.message ?? e) });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });

const transport = new StdioClientTransport({ command, args, env, stderr: "inherit" });
try {
  await client.connect(transport, { timeout: 10000 });
} catch (e) {
  fail("initialize", e);
  await client.close().catch(() => {});
  process.exit(1);
}
out("initialize", { serverInfo: client.getServerVersion(), capabilities: client.getServerCapabilities(),
                    instructionsChars: (client.getInstructions() ?? "").length, pid: transport.pid });

await step("ping", async () => { const t = now(); await client.ping({ timeout: 5000 }); out("ping", { ms: Math.round(now() - t) }); });

const tools = await step("tools", async () => {
  const { items, pages } = await pageAll("listTools", "tools");
  out("tools", { count: items.length, pages, names: items.map((t) => t.name) });
  return items;
}) ?? [];
const has = (name) => tools.some((t) => t.name === name);

const resources = await step("resources", async () => {
  const { items, pages } = await pageAll("listResources", "resources");
  out("resources", { count: items.length, pages, uris: items.map((r) => r.uri), mimeTypes: [...new Set(items.map((r) => r.mimeType))] });
  return items;
}) ?? [];
if (resources.length) await step("readResource", async () => {
  const r = await client.readResource({ uri: resources[0].uri });
  out("readResource", { uri: resources[0].uri, contents: r.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, chars: c.text?.length })) });
});
await step("resourceTemplates", async () => {
  const { items } = await pageAll("listResourceTemplates", "resourceTemplates");
  out("resourceTemplates", { uriTemplates: items.map((t) => t.uriTemplate) });
});

const prompts = await step("prompts", async () => {
  const { items, pages } = await pageAll("listPrompts", "prompts");
  out("prompts", { count: items.length, pages, names: items.map((p) => p.name) });
  return items;
}) ?? [];
if (prompts.length) await step("getPrompt", async () => {
  const p = prompts[0];
  const a = Object.fromEntries((p.arguments ?? []).filter((x) => x.required).map((x) => [x.name, x.name === "path" ? "/data/run1" : "1"]));
  const r = await client.getPrompt({ name: p.name, arguments: a });
  out("getPrompt", { name: p.name, arguments: a, messages: r.messages.map((m) => ({ role: m.role, type: m.content.type, text: m.content.text })) });
});

await step("setLoggingLevel", async () => { await client.setLoggingLevel("debug"); out("setLoggingLevel", "ok"); });

if (has("test_tool_with_logging")) await step("logging", async () => {
  logs.length = 0;
  const res = await client.callTool({ name: "test_tool_with_logging", arguments: {} }, undefined, { timeout: 10000 });
  await sleep(100);                              // notifications are dispatched asynchronously
  out("logging", { isError: res.isError ?? false, text: res.content?.[0]?.text, messages: logs.map((l) => ({ level: l.level, data: l.data })) });
});

if (has("test_tool_with_progress")) await step("progressCall", async () => {
  // The fixture reports 0, 50, 100 of 100 about 50 ms apart and returns right after 100: SDK v1 drops a
  // progress line that arrives in the same read as the response (mcp.md §4.5), so expect 0 and 50.
  const res = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined,
    { timeout: 10000, onprogress: (p) => out("progress", p) });
  out("progressCall", { isError: res.isError ?? false, content: res.content });
});

if (has("test_sleep")) {
  await step("cancel", async () => {
    // A 5 s call aborted after 200 ms: the SDK sends notifications/cancelled {requestId} and rejects the
    // call at once. The server must stop the work and send nothing more for it: no response ("unknown
    // message ID") and no further progress ("unknown token"; test_sleep reports progress every 100 ms).
    const ac = new AbortController();
    const t0 = now();
    let abortedAt = 0, progress = 0;
    setTimeout(() => { abortedAt = now(); ac.abort("smoke-v1 cancels"); }, 200);
    let outcome;
    try {
      const r = await client.callTool({ name: "test_sleep", arguments: { ms: 5000 } }, undefined,
        { timeout: 15000, signal: ac.signal, onprogress: () => progress++ });
      outcome = { resolved: true, result: r };
    } catch (e) {
      outcome = { resolved: false, name: e?.name, code: e?.code, message: String(e?.message ?? e) };
    }
    const settled = now();
    await sleep(600);                            // room for stray messages about the cancelled request
    const stray = asyncErrors.filter((e) => e.t >= abortedAt && /unknown (token|message ID)/.test(e.message));
    out("cancel", { ...outcome, settledMs: Math.round(settled - t0),
                    settledAfterAbortMs: abortedAt ? Math.round(settled - abortedAt) : null, progressBeforeAbort: progress,
                    strayAfterCancel: stray.length, stray: stray.slice(0, 3).map((e) => e.message) });
  });
  await step("pingAfterCancel", async () => { const t = now(); await client.ping({ timeout: 5000 }); out("pingAfterCancel", { ms: Math.round(now() - t) }); });
  await step("invalidArgs", async () => {
    const r = await client.callTool({ name: "test_sleep", arguments: { ms: "soon" } }, undefined, { timeout: 10000 });
    out("invalidArgs", { isError: r.isError ?? false, text: r.content?.[0]?.text });
  });
}

await step("unknownTool", async () => {
  try {
    const r = await client.callTool({ name: "no_such_tool", arguments: {} }, undefined, { timeout: 10000 });
    out("unknownTool", { resolved: true, result: r });
  } catch (e) {
    out("unknownTool", { resolved: false, code: e?.code, message: String(e?.message ?? e) });
  }
});

// MCP_TOOL / MCP_ARGS: one more call of any tool. SDK v1 validates a successful result's structuredContent
// against the tool's outputSchema (from the tools/list above) and rejects the call if it does not match.
if (process.env.MCP_TOOL) await step("call", async () => {
  const res = await client.callTool({ name: process.env.MCP_TOOL, arguments: JSON.parse(process.env.MCP_ARGS ?? "{}") },
    undefined, { timeout: 30000, onprogress: (p) => out("callProgress", p) });
  out("call", res);
});

// close(): the SDK ends the server's stdin, waits up to 2 s for it to exit, then SIGTERM, 2 s, SIGKILL.
const pid = transport.pid;
const t0 = now();
await client.close();
const closeMs = Math.round(now() - t0);
let alive = false;
try { process.kill(pid, 0); alive = true; } catch { /* ESRCH: gone */ }
out("close", { ms: closeMs, serverStillRunning: alive,
               otherAsyncErrors: asyncErrors.filter((e) => !/unknown (token|message ID)/.test(e.message)).map((e) => e.message) });
process.exit(failed ? 1 : 0);
