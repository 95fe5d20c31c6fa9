import { describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type PersistentDir } from "@/lib/harness";
import { createCommitLog } from "./sql-commit-log";
import { createDirBacking, readDirFile } from "./dir-backing";
import { sqlFor } from "./sql";

type Body = { dirKey: string };

describe(`concurrent appends to one memory file (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();

  it("commits 40 turns that each append a line: 40 lines, 0 conflicts", async () => {
    const sql = sqlFor(database.target);
    const backing = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody }) => extraBody.dirKey,
    });
    const dirs: PersistentDir<Body>[] = [{ harnessDir: "/persistent/user", ...backing }];
    const commitLog = createCommitLog({ sql });
    const extraBody = { dirKey: "user:appends" };
    const seed = await openTurnCheckout({ dirs, extraBody, session: {}, commitLog });
    seed.checkout.writeFile({ path: "/persistent/user/notes.md", content: "# Notes\n" });
    await seed.finishTurn({ status: "completed" });

    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const turn = await openTurnCheckout({ dirs, extraBody, session: {}, commitLog });
        const notes = await turn.checkout.readFileOrThrow({ path: "/persistent/user/notes.md" });
        turn.checkout.writeFile({
          path: "/persistent/user/notes.md",
          content: `${String(notes)}- note ${index}\n`,
        });
        return turn.finishTurn({ status: "completed" });
      }),
    );
    const commits = results.flatMap((result) =>
      result.status === "not-configured" ? [] : result.commits,
    );
    expect(commits.filter((commit) => commit.status !== "succeeded")).toEqual([]);
    const text = await readDirFile({ sql, dirKey: "user:appends", path: "notes.md" });
    const lines = String(text?.content).trimEnd().split("\n");
    expect(lines[0]).toBe("# Notes");
    expect(lines.slice(1).sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `- note ${index}`).sort(),
    );
    expect(await database.db.dirCommitRecord.count()).toBe(0);
  });
});
