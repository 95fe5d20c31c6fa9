#!/usr/bin/env node
// `npm start`: prepare (AUTH_SECRET, database), build when the sources are newer than the
// last build, then serve on $PORT (default 3000).
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { prepare, root } from "./prepare.mjs";
import { supervise } from "./supervise.mjs";

prepare();

// Under `npm start` (npm → sh -c → node) watch npm too: killed outright, it leaves the shell
// running and would leave next-server behind. Run directly (`node scripts/start.mjs`, the e2e
// server, `nohup`), only signals stop us.
const watchAncestors =
  process.env.npm_lifecycle_event === "start" ? 2 : process.env.CAIRN_WATCH_PARENT === "1" ? 1 : 0;

const sourceRoots = [
  "app",
  "components",
  "lib",
  "prisma",
  "public",
  "next.config.ts",
  "package-lock.json",
  "tsconfig.json",
];
const skip = new Set(["node_modules", "generated", ".next"]);

function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) {
    if (!skip.has(entry)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}

const buildId = path.join(root, ".next", "BUILD_ID");
const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
const sources = Math.max(...sourceRoots.map((entry) => newestMtime(path.join(root, entry))));
if (process.env.CAIRN_SKIP_BUILD !== "1" && (built === 0 || sources > built)) {
  console.log(
    built === 0
      ? "cairn: building the app (first start; 5 to 15 minutes on a 2-core machine, about 2 on a fast laptop)…"
      : "cairn: sources changed, rebuilding…",
  );
  // Supervised like the server: stopping `npm start` during the build stops the build too.
  const build = await supervise(
    process.execPath,
    [path.join(root, "node_modules/next/dist/bin/next"), "build"],
    { spawn: { cwd: root, env: process.env }, watchAncestors },
  );
  if (build.stopped || build.code !== 0) process.exit(build.code);
}

const port = process.env.PORT ?? "3000";
// next-server runs in its own process group, stopped with this process whatever stops it
// (Ctrl+C, SIGTERM to npm, a closed terminal, npm killed outright): see scripts/supervise.mjs.
const server = await supervise(
  process.execPath,
  [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", port],
  { spawn: { cwd: root, env: process.env }, watchAncestors },
);
process.exit(server.code);
