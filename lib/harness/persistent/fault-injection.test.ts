import { describe, expect, it } from "vitest";

import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { flakyStore, seededRandom } from "./internal/testing";
import { openTurnCheckout } from "./open-turn-checkout";
import { retryCommit } from "./retry-commit";
import type { PersistentDir } from "./types";

const TURNS = 1000;
const slotLine = (slot: number, by?: number) =>
  by === undefined ? `slot ${slot}: open` : `slot ${slot}: done by turn ${by}`;
// Unique spacer lines keep every slot its own diff3 hunk, so independent edits merge cleanly.
const board = (lines: (slot: number) => string) =>
  Array.from({ length: TURNS }, (_, slot) => `${lines(slot)}\n-- spacer ${slot} --`).join("\n") +
  "\n";

describe("fault injection: a store failing at random over 1,000 turns", () => {
  // 1,000 turns over a growing dir: seconds on a quiet machine, much longer on a loaded one.
  it(
    "commits every change exactly once after retries — none lost, none duplicated",
    { timeout: 180_000 },
    async () => {
      const random = seededRandom(20250101);
      const inner = createInMemoryDirBacking({
        files: { "board.md": board((slot) => slotLine(slot)) },
      });
      const { store, faults } = flakyStore(inner.store, random);
      const dirs: PersistentDir[] = [{ harnessDir: "/persistent/user", load: inner.load, store }];
      const commitLog = createInMemoryCommitLog();
      const retryOpen = async () => {
        const { commits } = await commitLog.listCommits({ status: "open", limit: 10_000 });
        for (const record of commits.reverse())
          await retryCommit({ id: record.id, dirs, commitLog });
      };

      let failedTurns = 0;
      for (let turnIndex = 0; turnIndex < TURNS; turnIndex += 1) {
        const turn = await openTurnCheckout({
          dirs,
          extraBody: { userId: "u1" },
          session: { chatId: "c1" },
          commitLog,
        });
        turn.checkout.writeFile({
          path: `/persistent/user/turns/${turnIndex}.md`,
          content: `turn ${turnIndex}\n`,
        });
        const current = (await turn.checkout.readFileOrThrow({
          path: "/persistent/user/board.md",
        })) as string;
        turn.checkout.writeFile({
          path: "/persistent/user/board.md",
          content: current.replace(
            `${slotLine(turnIndex)}\n`,
            `${slotLine(turnIndex, turnIndex)}\n`,
          ),
        });
        const persistence = await turn.finishTurn({ status: "completed" });
        if (persistence.status === "failed") failedTurns += 1;
        if (random() < 0.3) await retryOpen();
      }
      for (let round = 0; round < 100; round += 1) {
        if ((await commitLog.listCommits({ status: "open", limit: 1 })).commits.length === 0) break;
        await retryOpen();
      }

      expect(faults.before).toBeGreaterThan(50);
      expect(faults.after).toBeGreaterThan(50);
      expect(failedTurns).toBeGreaterThan(100);
      expect((await commitLog.listCommits({ status: "open" })).commits).toEqual([]);
      const files = inner.files();
      for (let turnIndex = 0; turnIndex < TURNS; turnIndex += 1) {
        expect(files[`turns/${turnIndex}.md`]).toBe(`turn ${turnIndex}\n`);
        expect(
          faults.applied.get(`turns/${turnIndex}.md`),
          `turns/${turnIndex}.md applied once`,
        ).toBe(1);
      }
      expect(files["board.md"]).toBe(board((slot) => slotLine(slot, slot)));
      expect(Object.keys(files)).toHaveLength(TURNS + 1);
      const records = commitLog.all();
      expect(records.every((record) => record.status === "resolved")).toBe(true);
      expect(records.some((record) => record.resolution === "already-applied")).toBe(true);
    },
  );
});
