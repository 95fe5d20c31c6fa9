// Prisma CLI configuration for SQLite, with the JavaScript schema engine (no downloaded
// binaries). See docs/decisions/0001-prisma-6-js-schema-engine.md.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { PrismaConfig } from "prisma";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";

const url = process.env.DATABASE_URL?.startsWith("file:")
  ? process.env.DATABASE_URL
  : `file:${path.resolve("data/prisma-cli.db")}`;
// better-sqlite3 cannot create the file's folder; on a fresh clone `data/` does not exist yet.
mkdirSync(path.dirname(url.slice("file:".length)), { recursive: true });
// The schema's datasource reads DATABASE_URL; it must resolve or the CLI tries to download an engine.
process.env.DATABASE_URL = url;

/**
 * The shadow-database replay sends a whole migration file through one parameterless
 * executeRaw, which better-sqlite3 refuses for multi-statement SQL; route it to executeScript.
 */
function wrap(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = (query) =>
    query.args.length === 0 ? adapter.executeScript(query.sql).then(() => 0) : executeRaw(query);
  return adapter;
}

export default {
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(import.meta.dirname, "schema.prisma"),
  migrations: { path: path.join(import.meta.dirname, "migrations") },
  async adapter() {
    const factory = new PrismaBetterSQLite3({ url }, { shadowDatabaseUrl: ":memory:" });
    return {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => wrap(await factory.connect()),
      connectToShadowDb: async () => wrap(await factory.connectToShadowDb()),
    };
  },
} satisfies PrismaConfig;
