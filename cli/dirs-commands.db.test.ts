import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import { createPersistentDirsService } from "@/lib/workspace-dirs";
import { getDirHistoryUsage, sqlFor } from "@/lib/sql-storage";
import { main } from "./main";
import { capture } from "./testing";

describe(`cairn dirs compact (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const previousUrl = process.env.DATABASE_URL;
  const inside: Actor = { userId: "u-in", workspaceId: "w-in", role: "admin" };
  const outside: Actor = { userId: "u-out", workspaceId: "w-out", role: "admin" };

  /** Three versions of a file in the actor's memory, the first two 40 days old. */
  async function history(actor: Actor) {
    const service = createPersistentDirsService({ sql: database.sql });
    for (const version of [1, 2, 3]) {
      const turn = await openTurnCheckout({
        dirs: service.dirs,
        extraBody: { actor },
        session: null,
        commitLog: service.commitLog,
      });
      turn.checkout.writeFile({ path: "/persistent/user/a.md", content: `v${version}` });
      expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
    }
    await sqlFor(database.target).run(
      `UPDATE "DirCommit" SET "createdAt" = ? WHERE "dirKey" = ? AND "version" <= 2`,
      [new Date(Date.now() - 40 * 86_400_000), `user:${actor.userId}`],
    );
  }

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
      await history(actor);
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
