// Prisma CLI configuration for PostgreSQL, with the JavaScript schema engine (no downloaded
// binaries). Run it through scripts/prisma.mjs, which preloads a timer fix. Three fixes for
// @prisma/adapter-pg 6.19.3 live here; see docs/decisions/0001-prisma-6-js-schema-engine.md.
import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import type { PrismaConfig } from "prisma";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";

const url = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "")
  ? process.env.DATABASE_URL!
  : (process.env.CAIRN_PG_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
process.env.DATABASE_URL = url;

// Fix 1: the schema engine reads catalog columns of type `name` (OID 19) and `"char"` (OID 18)
// and expects text; report them as text (OID 25).
const resultPrototype = pg.Result.prototype as unknown as {
  addFields(fields: { dataTypeID: number }[]): void;
};
const addFields = resultPrototype.addFields;
resultPrototype.addFields = function (fields) {
  for (const field of fields)
    if (field.dataTypeID === 19 || field.dataTypeID === 18) field.dataTypeID = 25;
  addFields.call(this, fields);
};

/** Discrete connection fields: with a connectionString the adapter's shadow database override is ignored. */
function fieldsOf(connectionUrl: string, database?: string): pg.PoolConfig {
  const parsed = new URL(connectionUrl);
  return {
    host: parsed.hostname || "127.0.0.1",
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username) || process.env.PGUSER || "postgres",
    password: decodeURIComponent(parsed.password) || undefined,
    database: database ?? parsed.pathname.slice(1),
  };
}

/**
 * Migration files run as one parameterless script; send them through executeScript. Fix 4: the
 * adapter's executeScript cuts a script at every `;`, also inside `$$` bodies (functions,
 * triggers, DO blocks) and comments; a script goes to PostgreSQL whole instead, as one simple
 * query, which it splits itself (the runtime migrator does the same, lib/db/migrate.ts).
 */
function wrap(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const client = (adapter as unknown as { client?: pg.Pool }).client;
  if (client) {
    adapter.executeScript = async (script) => {
      await client.query(script);
    };
  }
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
    const main = new PrismaPg(fieldsOf(url));
    return {
      provider: main.provider,
      adapterName: main.adapterName,
      connect: async () => wrap(await main.connect()),
      // Fixes 2 and 3: connect to the shadow database by discrete fields, and close its pool
      // before dropping it (the stock order drops first and fails on open connections).
      connectToShadowDb: async () => {
        const admin = await main.connect();
        const database = `cairn_shadow_${randomUUID().replaceAll("-", "")}`;
        await admin.executeScript(`CREATE DATABASE "${database}"`);
        const shadow = wrap(await new PrismaPg(fieldsOf(url, database)).connect());
        const dispose = shadow.dispose.bind(shadow);
        shadow.dispose = async () => {
          await dispose();
          await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
          await admin.dispose();
        };
        return shadow;
      },
    };
  },
} satisfies PrismaConfig;
