import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { createPersistentDirsService } from "@/lib/workspace-dirs";
import { writeAgedMemoryHistory } from "@/lib/workspace-dirs/testing";
import { getDirHistoryUsage, sqlFor } from "@/lib/sql-storage";
import { main } from "./main";
import { capture } from "./testing";

describe(`cairn dirs compact (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const previousUrl = process.env.DATABASE_URL;
  const inside: Actor = { userId: "u-in", workspaceId: "w-in", role: "admin" };
  const outside: Actor = { userId: "u-out", workspaceId: "w-out", role: "admin" };

  beforeAll(async () => {
    process.env.DATABASE_URL = database.target.url;
    for (const actor of [inside, outside]) {
      const name = actor.workspaceId;
      await database.db.workspace.create({ data: { id: actor.workspaceId, name } });
      await database.db.user.create({
        data: { id: actor.userId, email: `${actor.userId}@example.com`, name: actor.userId },
      });
      await database.db.membership.create({
        data: { userId: actor.userId, workspaceId: actor.workspaceId, role: actor.role },
      });
      await writeAgedMemoryHistory(
        createPersistentDirsService({ sql: database.sql }),
        database.sql,
        actor,
      );
    }
  });
  afterAll(() => {
    process.env.DATABASE_URL = previousUrl;
  });

  const usage = (actor: Actor) =>
    getDirHistoryUsage({ sql: sqlFor(database.target), dirKey: `user:${actor.userId}` });

  it("compacts one workspace's dirs past the window, and says what it freed", async () => {
    const outsideBefore = await usage(outside);
    const { io, out } = capture();
    expect(await main(["dirs", "compact", "--workspace", "w-in"], io)).toBe(0);
    expect(out.join("\n")).toMatch(
      /^compacted workspace "w-in" \(2 dirs\): versions older than 30 days \(before .*\); 1 version\(s\) in 1 dir\(s\) cut down, 11 B freed$/,
    );
    expect((await usage(inside)).compactedBelow).toBe(3);
    expect(await usage(outside)).toEqual(outsideBefore);
  });

  it("compacts every dir with a window of its own, and refuses a bad one or an unknown workspace", async () => {
    const { io, out } = capture();
    expect(await main(["dirs", "compact", "--retention-days", "0"], io)).toBe(0);
    expect(out.join("\n")).toMatch(/^compacted every dir: versions older than 0 days/);
    expect((await usage(outside)).compactedBelow).toBe(4);
    const bad = capture();
    expect(await main(["dirs", "compact", "--retention-days", "soon"], bad.io)).toBe(2);
    expect(bad.err.join("\n")).toContain("--retention-days must be a whole number");
    const unknown = capture();
    expect(await main(["dirs", "compact", "--workspace", "nope"], unknown.io)).toBe(1);
    expect(unknown.err.join("\n")).toContain('no workspace named "nope"');
  });
});
