#!/usr/bin/env node
// Runs the Prisma CLI for one provider: `node scripts/prisma.mjs sqlite|postgres <args…>`.
// Picks the provider's config file and, for PostgreSQL, preloads the timer fix.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const [provider, ...args] = process.argv.slice(2);
if (provider !== "sqlite" && provider !== "postgres") {
  console.error("usage: node scripts/prisma.mjs sqlite|postgres <prisma arguments>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");
const preload =
  provider === "postgres" ? ["--require", path.join(root, "scripts/prisma-unref-timers.cjs")] : [];
const result = spawnSync(
  process.execPath,
  [...preload, cli, ...args, "--config", path.join(root, "prisma", provider, "prisma.config.ts")],
  {
    stdio: "inherit",
    env: { CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1", ...process.env },
  },
);
process.exit(result.status ?? 1);
