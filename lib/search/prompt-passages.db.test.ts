// The prompt's passages (decision 0063): candidates from the message's rare words (or, when all
// are common, the newest passages holding all of them), ranked here with BM25 over every word, in
// two statements however large the knowledge base, under the search's access rule. On SQLite and
// PostgreSQL.
import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import type { Actor, Role } from "@/lib/harness";
import { createDirBacking, sqlFor, type Sql } from "@/lib/sql-storage";
import { observeSql } from "@/lib/sql-storage/sql";
import { indexDirCommit } from "./index-store";
import { countWords, PROMPT_TERM_MAX_PASSAGES, searchPromptPassages } from "./prompt-passages";
import { visibleScopes } from "./search";
import { formatSnippet } from "./snippet";

const database = registerTestDatabase();
let sql: Sql;
const people: Record<"alice" | "bob" | "outsider", Actor> = {} as never;

async function person(name: string, workspaceId: string, role: Role): Promise<Actor> {
  const user = await database.db.user.create({ data: { email: `${name}@acme.test`, name } });
  await database.db.membership.create({ data: { userId: user.id, workspaceId, role } });
  return { userId: user.id, workspaceId, role };
}

/** Files committed to a dir through the app's backing, indexed in the commit (as the app does). */
async function commit(dirKey: string, files: Record<string, string>): Promise<void> {
  const backing = createDirBacking<null>({
    sql,
    dirKey: () => dirKey,
    onDirCommitted: indexDirCommit,
  });
  const loaded = await backing.load({ extraBody: null, session: null } as never);
  const created = Object.entries(files).map(([path, content]) => ({ path, content }));
  const result = await backing.store({
    extraBody: null,
    session: null,
    harnessDir: dirKey.startsWith("user:") ? "/persistent/user" : "/persistent/company",
    changes: { created, updated: [], deleted: [] },
    snapshot: { ...loaded.files, ...files },
    cursor: loaded.cursor,
  } as never);
  expect(result.status).toBe("stored");
}

const prompt = (actor: Actor, message: string) =>
  searchPromptPassages(sql, {
    actor,
    message,
    kinds: ["company", "docs", "memory"],
    limit: 20,
  });

beforeAll(async () => {
  sql = sqlFor(database.target);
  const acme = (await database.db.workspace.create({ data: { name: "Acme" } })).id;
  const other = (await database.db.workspace.create({ data: { name: "Other" } })).id;
  people.alice = await person("alice", acme, "member");
  people.bob = await person("bob", acme, "member");
  people.outsider = await person("outsider", other, "admin");
  // A handbook whose every page says "handbook": more pages than a word may choose.
  const pages: Record<string, string> = {};
  for (let page = 0; page < PROMPT_TERM_MAX_PASSAGES + 5; page += 1)
    pages[`handbook/page-${page}.md`] = `The handbook, page ${page}, on desks and chairs.`;
  await commit(`company:${acme}`, {
    ...pages,
    "policies/retention.md": [
      "# Data policy",
      "",
      "Backups run nightly.",
      "",
      "## Retention",
      "Customer data is kept for ninety days, then erased.",
    ].join("\n"),
    "policies/travel.md": "# Travel\n\nTrains over planes. Mention retention of receipts once.",
  });
  await commit(`company:${other}`, { "retention.md": "# Retention\n\nOther's retention rules." });
  await commit(`user:${people.bob.userId}`, { "secret.md": "Bob's retention plan: quit in May." });
  await commit(`user:${people.alice.userId}`, {
    "me.md": "Alice likes ninety-minute retention talks.",
  });
});

describe(`the prompt's passages on ${testDatabaseProvider()}`, () => {
  it("are chosen by the message's rare words, heading above body, with their lines", async () => {
    const hits = await prompt(people.alice, "What does the handbook say about retention?");
    expect(hits[0]).toMatchObject({
      location: "/persistent/company/policies/retention.md",
      title: "Retention",
      lineStart: 5,
      lineEnd: 6,
    });
    expect(formatSnippet(hits[0]!.snippet)).toContain("**Retention**");
    // The rare word chose the candidates; the word on every handbook page only weighs in the
    // ranking, so no page comes in (retention.md twice: its first passage has the word in its path).
    expect(hits.map((hit) => hit.location).sort()).toEqual([
      "/persistent/company/policies/retention.md",
      "/persistent/company/policies/retention.md",
      "/persistent/company/policies/travel.md",
      "/persistent/user/me.md",
    ]);
  });

  it("a message of common words finds the newest passages holding them all", async () => {
    const hits = await prompt(people.alice, "the handbook's chairs");
    expect(hits).toHaveLength(20);
    expect(hits.every((hit) => hit.location.includes("/handbook/page-"))).toBe(true);
    expect(await prompt(people.alice, "   ")).toEqual([]);
    expect(await prompt(people.alice, "nothing matches zyxwv")).toEqual([]);
  });

  it("never include another person's memory or another workspace's knowledge", async () => {
    const alice = (await prompt(people.alice, "retention plan")).map((hit) => hit.location);
    expect(alice).not.toContain("/persistent/user/secret.md");
    expect(alice.join(" ")).not.toMatch(/Other/);
    const bob = (await prompt(people.bob, "retention plan")).map((hit) => hit.location);
    expect(bob[0]).toBe("/persistent/user/secret.md");
    expect(bob).not.toContain("/persistent/user/me.md");
    const outsider = await prompt(people.outsider, "retention");
    expect(outsider.map((hit) => hit.location)).toEqual(["/persistent/company/retention.md"]);
  });

  it("cost two statements, whatever the knowledge base holds", async () => {
    const statements: string[] = [];
    const stop = observeSql((event) => statements.push(event.text));
    try {
      await prompt(people.alice, "handbook desks chairs retention ninety");
    } finally {
      stop();
    }
    expect(statements).toHaveLength(2);
  });
});

describe(`counting the message's words on ${testDatabaseProvider()}`, () => {
  it("counts up to the cap; PostgreSQL takes a word its statistics call common as estimated", async () => {
    const scopes = visibleScopes(people.alice, ["company", "docs", "memory"]);
    // 3,200 passages of another workspace's knowledge holding one word (rows as the index has them).
    const rows = Array.from({ length: 3_200 }, (_, index) => index);
    for (let start = 0; start < rows.length; start += 400) {
      const batch = rows.slice(start, start + 400);
      await sql.run(
        `INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
         VALUES ${batch.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        batch.flatMap((index) => [
          `dir:company:elsewhere:${index}`,
          "company",
          "workspace:elsewhere",
          `wiki/page-${index}.md`,
          "",
          `The ubiquitous word, page ${index}.`,
          1,
          1,
          new Date(),
        ]),
      );
    }
    if (sql.dialect === "postgres") await sql.run(`ANALYZE "SearchPassage"`);
    const { words } = await countWords(sql, ["ubiquitous", "handbook", "retention"], scopes);
    const [ubiquitous, handbook, retention] = words;
    expect(retention).toEqual({ term: "retention", passages: 4, counted: true });
    expect(handbook).toEqual({
      term: "handbook",
      passages: PROMPT_TERM_MAX_PASSAGES + 1,
      counted: true,
    });
    if (sql.dialect === "postgres") {
      // Common in the table (another workspace's): estimated, not counted.
      expect(ubiquitous!.counted).toBe(false);
      expect(ubiquitous!.passages).toBeGreaterThan(3_000);
    } else {
      // None of it is Alice's to count.
      expect(ubiquitous).toEqual({ term: "ubiquitous", passages: 0, counted: true });
    }
  });
});
