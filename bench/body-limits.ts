// Request bodies against `next start` (issue 31, findings 2 and 3): sends 450 MB chunked bodies
// (made on the fly, never held; no Content-Length) to `/api/chat` without and with a session,
// `/api/mcp` with a token, and a server action without and with a session — first one at a time,
// then `BENCH_BODY_PARALLEL` (2) at once — and prints the answer, how much of the body had been
// sent when it came, and the server's RSS (VmRSS of the next-server process) before, at peak
// (sampled every 25 ms) and 1 s after. Before issue 31: 250 MB → 3.8 GB for two parallel
// signed-out bodies to /api/chat.
//
//   npx tsx bench/body-limits.ts                # builds first when the sources changed
//   CAIRN_SKIP_BUILD=1 npx tsx bench/body-limits.ts
//
// Env: BENCH_BODY_PORT (3152), BENCH_BODY_MB (450), BENCH_BODY_PARALLEL (2).

import { createAccessToken } from "@/lib/access-tokens";
import { createUserInWorkspace } from "@/lib/accounts";
import { sessionCookieFor, startAppServer } from "../integration/support/app-server";
import { megabytes, rssOf, sampleRss, serverPidBelow } from "../integration/support/process-memory";
import { postStreamedBody, type StreamedPostResult } from "../integration/support/streamed-body";
import { loadLine } from "./stats";
import { sqlForDb } from "@/lib/sql-storage/sql";

const PORT = Number(process.env.BENCH_BODY_PORT ?? 3152);
const TOTAL = Number(process.env.BENCH_BODY_MB ?? 450) * 1024 * 1024;
const PARALLEL = Number(process.env.BENCH_BODY_PARALLEL ?? 2);

const app = await startAppServer({ port: PORT });
try {
  const serverPid = serverPidBelow(app.pid);
  const { user, workspace } = await createUserInWorkspace(sqlForDb(app.db), {
    email: "bench@acme.test",
    password: "bench-password",
    name: "Bench",
    role: "member",
    workspaceName: "Acme",
  });
  const cookie = await sessionCookieFor({
    userId: user.id,
    workspaceId: workspace.id,
    role: "member",
  });
  const { token } = await createAccessToken(sqlForDb(app.db), {
    userId: user.id,
    workspaceId: workspace.id,
    name: "bench",
  });
  // The sign-in form's action id, from its progressive-enhancement fields: a real action, so the
  // signed-in case meets Next's own 5 MB limit rather than "unknown action".
  const html = await (await fetch(`${app.baseUrl}/sign-in`)).text();
  const actionId = /\$ACTION_1:0" value="\{&quot;id&quot;:&quot;([0-9a-f]+)&quot;/.exec(html)?.[1];
  if (!actionId) throw new Error("No server action id on /sign-in.");
  const action = { "next-action": actionId, "content-type": "text/plain" };
  const cases: { name: string; path: string; headers: Record<string, string> }[] = [
    { name: "/api/chat, no cookie", path: "/api/chat", headers: {} },
    { name: "/api/chat, session", path: "/api/chat", headers: { cookie } },
    {
      name: "/api/mcp, token",
      path: "/api/mcp",
      headers: { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream" },
    },
    { name: "server action, no cookie", path: "/sign-in", headers: action },
    { name: "server action, session", path: "/sign-in", headers: { ...action, cookie } },
  ];
  // Warm each route once, so its first load is not counted as the body's memory.
  for (const { path, headers } of cases) {
    await fetch(`${app.baseUrl}${path}`, { method: "POST", headers, body: "{}" }).catch(() => {});
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));

  console.log(
    `${loadLine()}\n${TOTAL / 2 ** 20} MB chunked bodies to next start (pid ${serverPid})\n`,
  );
  console.log(
    "| case | at once | answers | answered after (ms) | sent before the answer | RSS before | peak | 1 s after |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const parallel of [1, PARALLEL]) {
    for (const { name, path, headers } of cases) {
      const before = rssOf(serverPid);
      const sampler = sampleRss(serverPid);
      const results: StreamedPostResult[] = await Promise.all(
        Array.from({ length: parallel }, () =>
          postStreamedBody({ url: `${app.baseUrl}${path}`, totalBytes: TOTAL, headers }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const peak = sampler.stop();
      const after = rssOf(serverPid);
      const statuses = results.map((result) => result.status ?? result.error).join(", ");
      const answerMs = results.map((result) => result.answerMs?.toFixed(0) ?? "–").join(", ");
      const sent = results.map((result) => megabytes(result.sentBeforeAnswer)).join(", ");
      console.log(
        `| ${name} | ${parallel} | ${statuses} | ${answerMs} | ${sent} | ${megabytes(before)} | ${megabytes(peak)} | ${megabytes(after)} |`,
      );
    }
  }
  const health = performance.now();
  await fetch(`${app.baseUrl}/api/health`);
  console.log(`\n/api/health afterwards: ${(performance.now() - health).toFixed(0)} ms`);
} finally {
  await app.db.$disconnect();
  await app.stop();
}
