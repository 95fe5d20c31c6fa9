#!/usr/bin/env node
// `npm test`: lint, typecheck, unit tests (SQLite), then browser tests against the built app.
// Stops at the first failing step. Set CAIRN_TEST_DB=postgres to run the database-facing unit
// tests on PostgreSQL instead (CI does both).
import { spawnSync } from "node:child_process";

const steps = [
  ["lint", ["run", "lint"]],
  ["typecheck", ["run", "typecheck"]],
  ["unit tests", ["run", "test:unit"]],
  ["browser tests", ["run", "test:e2e"]],
];

for (const [name, args] of steps) {
  console.log(`\n▶ ${name}`);
  const started = Date.now();
  const result = spawnSync("npm", args, { stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    console.error(`\n✖ ${name} failed (exit ${result.status}).`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
