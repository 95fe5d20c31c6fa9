#!/usr/bin/env node
// Authors a migration for both providers from the current SQLite schema:
//   npm run db:new-migration -- add_harness
// 1. syncs the PostgreSQL schema, 2. for each provider diffs its migrations folder (replayed
// into a shadow database) against its schema and writes the SQL under the same folder name.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hasStatements, withoutRawObjects } from "./db-raw-objects.mjs";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:new-migration -- <name in snake_case>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const folder = `${stamp}_${name}`;

const sync = spawnSync("npx", ["tsx", "scripts/db-sync.ts"], { cwd: root, stdio: "inherit" });
if (sync.status !== 0) process.exit(sync.status ?? 1);

for (const provider of ["sqlite", "postgres"]) {
  const migrations = `prisma/${provider}/migrations`;
  const result = spawnSync(
    process.execPath,
    [
      "scripts/prisma.mjs",
      provider,
      "migrate",
      "diff",
      "--from-migrations",
      migrations,
      "--to-schema-datamodel",
      `prisma/${provider}/schema.prisma`,
      "--script",
    ],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
  // Statements dropping what raw SQL made (the search index's FTS5 tables) are left out.
  const script = withoutRawObjects(result.stdout);
  if (!hasStatements(script)) {
    console.log(`${provider}: no changes`);
    continue;
  }
  mkdirSync(path.join(root, migrations, folder), { recursive: true });
  writeFileSync(path.join(root, migrations, folder, "migration.sql"), script);
  console.log(`${provider}: wrote ${migrations}/${folder}/migration.sql`);
}
