import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import {
  createInMemoryCommitLog,
  createInMemoryDirBacking,
  createInMemorySpool,
  createInMemoryTurnJournal,
  type TurnJournalEntry,
} from "../persistent";
import { streamOf, textReply, toolCallReply } from "./internal/testing";
import { streamHarness } from "./stream-harness";
import type { HarnessDefinition } from "./types";

const writeCall = toolCallReply("memory", {
  command: "create",
  path: "/persistent/user/x.md",
  file_text: "X",
});
const answer = textReply("Noted.");

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "remember X" }] };

describe("streamHarness with a turn journal", () => {
  it("journals a tool's write before the model sees the tool's result, and forgets it once committed", async () => {
    const journal = createInMemoryTurnJournal();
    const seenAtAnswer: TurnJournalEntry[][] = [];
    let call = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        call += 1;
        if (call === 2) seenAtAnswer.push(journal.all());
        return streamOf(call === 1 ? writeCall : answer);
      },
    });
    const backing = createInMemoryDirBacking();
    const harness: HarnessDefinition<unknown, unknown> = {
      model: () => model,
      instructions: "base",
      persistentDirs: [{ harnessDir: "/persistent/user", ...backing }],
      commitLog: createInMemoryCommitLog(),
      journal,
      spool: createInMemorySpool(),
    };
    const turn = streamHarness({
      harness,
      messages: [user],
      session: null,
      extraBody: {},
      turnId: "turn-1",
    });
    const result = await turn.finished;
    expect(result.status).toBe("completed");
    expect(seenAtAnswer[0]).toHaveLength(1);
    expect(seenAtAnswer[0]![0]).toMatchObject({
      turnId: "turn-1",
      harnessDir: "/persistent/user",
      changes: { created: [{ path: "x.md", content: "X" }] },
    });
    expect(backing.files()).toEqual({ "x.md": "X" });
    expect(journal.all()).toEqual([]);
  });

  it("tells the model a write is not safe when neither the journal nor the spool keeps it", async () => {
    const journal = createInMemoryTurnJournal();
    journal.write = () => Promise.reject(new Error("database down"));
    const spool = createInMemorySpool();
    spool.failing = true;
    const outputs: unknown[] = [];
    let call = 0;
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        call += 1;
        for (const message of options.prompt)
          if (message.role === "tool") outputs.push(...message.content);
        return streamOf(call === 1 ? writeCall : answer);
      },
    });
    const turn = streamHarness({
      harness: {
        model: () => model,
        instructions: "base",
        persistentDirs: [{ harnessDir: "/persistent/user", ...createInMemoryDirBacking() }],
        commitLog: createInMemoryCommitLog(),
        journal,
        spool,
      },
      messages: [user],
      session: null,
      extraBody: {},
      turnId: "turn-2",
    });
    await turn.finished;
    expect(JSON.stringify(outputs)).toContain("could not be saved durably");
  });
});
