#!/usr/bin/env node
// Generates the Prisma clients for both providers (the build type-checks both).
import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
for (const provider of ["sqlite", "postgres"]) {
  const result = spawnSync(process.execPath, ["scripts/prisma.mjs", provider, "generate"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (result.status !== 0) {
    console.error(`prisma generate (${provider}) failed`);
    process.exit(result.status ?? 1);
  }
}
console.log("generated Prisma clients for sqlite and postgres");
