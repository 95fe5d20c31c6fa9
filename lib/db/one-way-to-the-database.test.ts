// One way to the database at run time (issue 29, decision 0060): every query of the app, the CLI
// and the library runs on the SQL layer (lib/sql-storage/sql). Prisma keeps the schema, the
// migrations, the generated types and tests' fixtures; this test fails on a production file that
// reaches the database through Prisma's model API, `$queryRaw`/`$executeRaw` or `$transaction`.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = process.cwd();
const FOLDERS = ["lib", "app", "components", "cli"];

/** lib/db's own client setup, and the generated clients. */
const SETUP = new Set(["lib/db/client.ts", "lib/db/connections.ts", "lib/db/migrate.ts"]);

function productionFiles(folder: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(ROOT, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "generated") walk(child);
      } else if (
        /\.tsx?$/.test(entry.name) &&
        !/\.test\.tsx?$/.test(entry.name) &&
        entry.name !== "testing.ts" &&
        !SETUP.has(child)
      ) {
        files.push(child);
      }
    }
  };
  walk(folder);
  return files;
}

/** The schema's models as the client names them (`DirCommit` → `dirCommit`). */
function modelNames(): string[] {
  const schema = readFileSync(path.join(ROOT, "prisma/sqlite/schema.prisma"), "utf8");
  return [...schema.matchAll(/^model (\w+) \{/gm)].map(
    ([, name]) => name!.charAt(0).toLowerCase() + name!.slice(1),
  );
}

const OPERATIONS = [
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
  "count",
  "aggregate",
  "groupBy",
];

/** What a file does through Prisma at run time, as `line: text` (empty when nothing). */
export function prismaQueriesIn(source: string, models: readonly string[]): string[] {
  const modelApi = new RegExp(`\\.(${models.join("|")})\\s*\\.(${OPERATIONS.join("|")})\\s*[(<]`);
  const raw = /\$(queryRaw|executeRaw|transaction)/;
  return source
    .split("\n")
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter(({ line }) => modelApi.test(line) || raw.test(line))
    .map(({ line, number }) => `${number}: ${line.trim()}`);
}

describe("one way to the database at run time", () => {
  const models = modelNames();

  it("recognises Prisma's model API and raw queries, and not a Map's delete", () => {
    expect(prismaQueriesIn(`await db.chat.findMany({ where: {} })`, models)).toHaveLength(1);
    expect(prismaQueriesIn(`getDb().turn.updateMany({`, models)).toHaveLength(1);
    expect(prismaQueriesIn("await db.$executeRaw`DELETE`", models)).toHaveLength(1);
    expect(prismaQueriesIn(`await db.$transaction(async (tx) => {`, models)).toHaveLength(1);
    expect(prismaQueriesIn(`this.cache.delete(key); sql.run("DELETE …")`, models)).toEqual([]);
  });

  it("no production file queries through Prisma (only lib/db's setup may hold a client)", () => {
    const offenders: string[] = [];
    for (const file of FOLDERS.flatMap(productionFiles)) {
      const found = prismaQueriesIn(readFileSync(path.join(ROOT, file), "utf8"), models);
      if (found.length > 0) offenders.push(`${file}\n  ${found.join("\n  ")}`);
    }
    expect(offenders, "query through the SQL layer (lib/sql-storage/sql) instead").toEqual([]);
  });

  it("no production file outside lib/db asks for the process's Prisma client", () => {
    const offenders = FOLDERS.flatMap(productionFiles).filter(
      (file) =>
        !file.startsWith("lib/db/") &&
        /\bgetDb\(\)/.test(
          readFileSync(path.join(ROOT, file), "utf8").replace(/^\s*(\/\/|\*|\/\*).*$/gm, ""),
        ),
    );
    expect(offenders, "take the SQL client (getSql() or cairn().sql) instead").toEqual([]);
  });
});
