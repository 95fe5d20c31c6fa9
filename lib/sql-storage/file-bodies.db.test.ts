import { randomUUID } from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { collectFileBodies } from "@/lib/workspace-dirs";
import { createDirBacking } from "./dir-backing";
import { sha256Hex } from "./internal/files";
import { observeSql, sqlFor, type Sql } from "./sql";

const database = registerTestDatabase();
let sql: Sql;
beforeAll(() => {
  sql = sqlFor(database.target);
});

type Body = { dirKey: string };
const backing = () =>
  createDirBacking<Body>({
    sql,
    dirKey: ({ extraBody }) => extraBody.dirKey,
    snapshotCache: false,
  });

async function commit(
  dirKey: string,
  cursor: number,
  changes: {
    created?: { path: string; content: string }[];
    updated?: { path: string; content: string }[];
    deleted?: string[];
  },
) {
  const result = await backing().store({
    extraBody: { dirKey },
    session: null,
    harnessDir: "/persistent/company",
    cursor,
    snapshot: {},
    changes: { created: [], updated: [], deleted: [], ...changes },
  });
  expect(result.status).toBe("stored");
}

const bodyCount = async (content: string) =>
  Number(
    (await sql.get<{ count: number }>(
      `SELECT COUNT(*) AS "count" FROM "FileBody" WHERE "sha256" = ?`,
      [sha256Hex(Buffer.from(content))],
    ))!.count,
  );

describe(`content-addressed file bodies on ${testDatabaseProvider()}`, () => {
  it("stores a body once for every path and dir that holds it, and loads each back", async () => {
    const shared = `policy ${randomUUID()}\n`;
    const [a, b] = [`company:${randomUUID()}`, `company:${randomUUID()}`];
    await commit(a, 0, {
      created: [
        { path: "one.md", content: shared },
        { path: "two.md", content: shared },
      ],
    });
    await commit(b, 0, { created: [{ path: "copy.md", content: shared }] });
    expect(await bodyCount(shared)).toBe(1);
    const loaded = await backing().load({ extraBody: { dirKey: a }, session: null });
    expect({ ...loaded.files }).toEqual({ "one.md": shared, "two.md": shared });
  });

  it("writes the same statements for a one-file commit whatever the dir's size", async () => {
    const statementsOfOneFileCommit = async (files: number) => {
      const dirKey = `company:${randomUUID()}`;
      await commit(dirKey, 0, {
        created: Array.from({ length: files }, (_, index) => ({
          path: `docs/${index}.md`,
          content: `${dirKey} ${index}`,
        })),
      });
      const seen: string[] = [];
      const stop = observeSql((event) => seen.push(event.text));
      try {
        await commit(dirKey, 1, { updated: [{ path: "docs/0.md", content: `${dirKey} new` }] });
      } finally {
        stop();
      }
      return seen;
    };
    const small = await statementsOfOneFileCommit(5);
    const large = await statementsOfOneFileCommit(600);
    expect(large).toEqual(small);
    expect(large.filter((text) => text.includes('"FileBody"'))).toHaveLength(1);
  });

  it("collects a body no file holds after the grace period, and keeps one still held", async () => {
    const dirKey = `company:${randomUUID()}`;
    const other = `company:${randomUUID()}`;
    const [gone, kept] = [`gone ${randomUUID()}`, `kept ${randomUUID()}`];
    await commit(dirKey, 0, {
      created: [
        { path: "gone.md", content: gone },
        { path: "kept.md", content: kept },
      ],
    });
    await commit(other, 0, { created: [{ path: "also.md", content: kept }] });
    await commit(dirKey, 1, { deleted: ["gone.md", "kept.md"] });

    // Within the grace period nothing goes: a commit may be writing it right now.
    await collectFileBodies({ sql });
    expect(await bodyCount(gone)).toBe(1);

    const later = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000);
    const collected = await collectFileBodies({ sql, now: later });
    expect(collected.deleted).toBeGreaterThanOrEqual(1);
    expect(await bodyCount(gone)).toBe(0);
    expect(await bodyCount(kept)).toBe(1);
    const loaded = await backing().load({ extraBody: { dirKey: other }, session: null });
    expect({ ...loaded.files }).toEqual({ "also.md": kept });

    // Written again later, it is stored again and loads.
    await commit(dirKey, 2, { created: [{ path: "back.md", content: gone }] });
    expect(await bodyCount(gone)).toBe(1);
  });
});
