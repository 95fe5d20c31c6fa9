#!/usr/bin/env node
// Drift check for both providers: replays each migrations folder into a shadow database and
// compares the result with that provider's schema. Exits non-zero on any difference.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { hasStatements, withoutRawObjects } from "./db-raw-objects.mjs";

const root = path.resolve(import.meta.dirname, "..");
let failed = false;
for (const provider of ["sqlite", "postgres"]) {
  const result = spawnSync(
    process.execPath,
    [
      "scripts/prisma.mjs",
      provider,
      "migrate",
      "diff",
      "--from-migrations",
      `prisma/${provider}/migrations`,
      "--to-schema-datamodel",
      `prisma/${provider}/schema.prisma`,
      "--script",
    ],
    { cwd: root, encoding: "utf8" },
  );
  // Objects only raw SQL can make (the search index's FTS5 tables) are not drift.
  const difference = result.status === 0 ? withoutRawObjects(result.stdout) : "";
  if (result.status === 0 && !hasStatements(difference)) {
    console.log(`drift check (${provider}): migrations match the schema`);
  } else {
    failed = true;
    console.error(
      `drift check (${provider}) FAILED (exit ${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
    if (result.status === 0) {
      console.error(difference);
      console.error("Create a migration: npm run db:new-migration -- <name>");
    }
  }
}
process.exit(failed ? 1 : 0);
