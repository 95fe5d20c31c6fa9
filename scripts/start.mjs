#!/usr/bin/env node
// `npm start`: prepare (AUTH_SECRET, database), build when the sources are newer than the
// last build, then serve on $PORT (default 3000).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { prepare, root } from "./prepare.mjs";

prepare();

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
    built === 0 ? "cairn: building the app (first start)…" : "cairn: sources changed, rebuilding…",
  );
  const build = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/next/dist/bin/next"), "build"],
    {
      cwd: root,
      stdio: "inherit",
      env: process.env,
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT ?? "3000";
const server = spawn(
  process.execPath,
  [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", port],
  {
    cwd: root,
    stdio: "inherit",
    env: process.env,
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
