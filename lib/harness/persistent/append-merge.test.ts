import { describe, expect, it } from "vitest";

import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { seededRandom, sleep } from "./internal/testing";
import { openTurnCheckout } from "./open-turn-checkout";
import type { PersistentDir } from "./types";

const harnessDir = "/persistent/user";

describe("concurrent appends to one file", () => {
  it("commits 40 turns that each append a line: 40 lines, no conflicts", async () => {
    const backing = createInMemoryDirBacking({ files: { "notes.md": "# Notes\n" } });
    const random = seededRandom(7);
    const jitter = () => sleep(Math.floor(random() * 4));
    const dirs: PersistentDir[] = [
      {
        harnessDir,
        load: async (options) => {
          await jitter();
          return backing.load(options);
        },
        store: async (options) => {
          await jitter();
          return backing.store(options);
        },
      },
    ];
    const commitLog = createInMemoryCommitLog();
    const results = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const turn = await openTurnCheckout({
          dirs,
          extraBody: {},
          session: { chatId: `chat-${index}` },
          commitLog,
        });
        const notes = (await turn.checkout.readFileOrThrow({
          path: `${harnessDir}/notes.md`,
        })) as string;
        turn.checkout.writeFile({
          path: `${harnessDir}/notes.md`,
          content: `${notes}- note ${index}\n`,
        });
        await jitter();
        return turn.finishTurn({ status: "completed" });
      }),
    );
    const commits = results.flatMap((result) =>
      result.status === "not-configured" ? [] : result.commits,
    );
    expect(commits.filter((commit) => commit.status !== "succeeded")).toEqual([]);
    const { files } = await backing.load({ extraBody: {}, session: { chatId: "check" } });
    const lines = (files["notes.md"] as string).trimEnd().split("\n");
    expect(lines[0]).toBe("# Notes");
    expect(lines.slice(1).sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `- note ${index}`).sort(),
    );
  });
});
