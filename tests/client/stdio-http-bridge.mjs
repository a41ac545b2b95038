// stdio-http-bridge.mjs — a loopback Streamable HTTP ↔ stdio bridge (mcp.md §8.7), so HTTP-only clients
// such as the official conformance suite can test a stdio server. Built from the TypeScript SDK v1:
// StreamableHTTPServerTransport on the HTTP side (sessions, SSE), StdioClientTransport on the child side.
//
//   node stdio-http-bridge.mjs [--exit-on-stdin-eof] <port|0> -- <command> [args...]
//
// - Binds 127.0.0.1 only. Port 0 picks a free port. Once listening it prints ONE line on stdout,
//   {"url":"http://127.0.0.1:<port>/mcp","port":<port>,"pid":<pid>}; logs go to stderr.
// - One stdio child per MCP session, started only by a POST that is an `initialize` request; requests
//   are forwarded verbatim; each child response goes back on the HTTP stream of its request; a child
//   notification goes to the stream of the request it relates to (by progressToken, else the most
//   recent pending request).
// - DNS-rebinding guard: Host and Origin must be loopback, else 403.
// - Bounded: idle sessions are reaped after BRIDGE_IDLE_MS (default 15 s; test clients rarely send
//   DELETE); the bridge exits by itself after BRIDGE_MAX_MS (default 600 s), on SIGINT/SIGTERM, and, with
//   --exit-on-stdin-eof, when its stdin closes (so it dies with the test that spawned it). On exit it
//   closes every child (stdin EOF, then SIGTERM/SIGKILL per the SDK) within about 5 s.
import http from "node:http";
import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

let argvIn = process.argv.slice(2);
const exitOnStdinEof = argvIn[0] === "--exit-on-stdin-eof";
if (exitOnStdinEof) argvIn = argvIn.slice(1);
const [portArg, ...rest] = argvIn;
const argv = rest[0] === "--" ? rest.slice(1) : rest;
if (portArg === undefined || !/^\d+$/.test(portArg) || !argv.length) {
  console.error("usage: stdio-http-bridge.mjs [--exit-on-stdin-eof] <port|0> -- <cmd> [args...]");
  process.exit(2);
}
const IDLE_MS = Number(process.env.BRIDGE_IDLE_MS ?? 15000);
const MAX_MS = Number(process.env.BRIDGE_MAX_MS ?? 600000);
const LOCAL = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;
const sessions = new Set();          // every live session, initialised or not
const byId = new Map();              // session id → session
const log = (...a) => console.error("[bridge]", ...a);

const readBody = (req) => new Promise((ok, bad) => {
  let b = ""; req.setEncoding("utf8"); req.on("data", (c) => (b += c)); req.on("end", () => ok(b)); req.on("error", bad);
});
const fail = (res, status, msg) => res.writeHead(status, { "content-type": "application/json" })
  .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: msg } }));

async function newSession() {
  const child = new StdioClientTransport({ command: argv[0], args: argv.slice(1), env: process.env, stderr: "inherit" });
  const pending = [], byToken = new Map(), s = { child, timer: null, closed: false };
  s.touch = () => { clearTimeout(s.timer); s.timer = setTimeout(() => s.close(), IDLE_MS); s.timer.unref(); };
  s.close = async () => {
    if (s.closed) return;
    s.closed = true;
    clearTimeout(s.timer);
    sessions.delete(s);
    if (s.http.sessionId) byId.delete(s.http.sessionId);
    await Promise.allSettled([s.http.close(), child.close()]);
  };
  s.http = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => byId.set(id, s) });
  s.http.onmessage = (msg) => {
    if (msg.method && msg.id !== undefined) {
      pending.push(msg.id);
      const tok = msg.params?._meta?.progressToken;
      if (tok !== undefined) byToken.set(tok, msg.id);
    }
    child.send(msg).catch((e) => log("send to child failed:", e.message));
  };
  s.http.onclose = () => { s.close(); };
  child.onmessage = (msg) => {
    if (!msg.method) {                                   // a response
      const i = pending.indexOf(msg.id); if (i >= 0) pending.splice(i, 1);
      for (const [t, id] of byToken) if (id === msg.id) byToken.delete(t);
      return s.http.send(msg).catch((e) => log("send to http failed:", e.message));
    }
    let rel = msg.params?.progressToken !== undefined ? byToken.get(msg.params.progressToken) : undefined;
    if (rel === undefined && pending.length) rel = pending[pending.length - 1];
    return s.http.send(msg, rel !== undefined ? { relatedRequestId: rel } : undefined)
      .catch((e) => log("send to http failed:", e.message));
  };
  child.onerror = (e) => log("child error:", e.message);
  child.onclose = () => { s.close(); };
  sessions.add(s);
  await child.start();
  return s;
}

const server = http.createServer(async (req, res) => {
  try {
    const origin = req.headers.origin ? new URL(req.headers.origin).host : "localhost";
    if (!LOCAL.test(req.headers.host ?? "") || !LOCAL.test(origin)) return fail(res, 403, "Forbidden: non-loopback Host/Origin");
    const body = req.method === "POST" ? JSON.parse((await readBody(req)) || "null") : undefined;
    const sid = req.headers["mcp-session-id"];
    let s = sid ? byId.get(sid) : undefined;
    if (!s) {
      if (sid || req.method !== "POST" || !isInitializeRequest(body)) return fail(res, 400, "Bad Request: no valid session");
      s = await newSession();
    }
    s.touch();
    await s.http.handleRequest(req, res, body);
  } catch (e) {
    log("error:", e?.message ?? e);
    if (!res.headersSent) fail(res, 500, String(e?.message ?? e));
  }
});

let stopping = false;
async function shutdown(why) {
  if (stopping) return;
  stopping = true;
  log(`stopping (${why}); closing ${sessions.size} session(s)`);
  server.close();
  server.closeAllConnections?.();
  const hard = setTimeout(() => process.exit(0), 5000); hard.unref();
  await Promise.allSettled([...sessions].map((s) => s.close()));
  process.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => shutdown(sig));
setTimeout(() => shutdown(`BRIDGE_MAX_MS=${MAX_MS} reached`), MAX_MS).unref();
if (exitOnStdinEof) {
  process.stdin.on("end", () => shutdown("stdin closed"));
  process.stdin.on("error", () => shutdown("stdin error"));
  process.stdin.resume();
}

server.listen(Number(portArg), "127.0.0.1", () => {
  const { port } = server.address();
  const url = `http://127.0.0.1:${port}/mcp`;
  console.log(JSON.stringify({ url, port, pid: process.pid }));
  log(`${url} -> ${argv.join(" ")}`);
});
server.on("error", (e) => { log("listen failed:", e.message); process.exit(1); });
