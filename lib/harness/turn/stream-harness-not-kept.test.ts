import { describe, expect, it } from "vitest";
import type { Actor } from "../actor";
import { HarnessValidationError } from "../errors";
import { createInMemoryCommitLog, createInMemoryDirBacking, memory } from "../persistent";
import { createHarness, InMemoryHarnessStorage } from "../store";
import { scriptedModel, textReply, toolCallReply, userMessage } from "./internal/testing";
import { streamHarness } from "./stream-harness";
import type { TurnStatusData } from "./types";

type Extra = { actor: Actor };
const member: Actor = { userId: "u1", workspaceId: "w1", role: "member" };

// Decision 0030, "Commit failures have a bound": a turn whose refused commit was not kept says
// so in its `data-turn` part (what the chat's save line renders), apart from the failures that
// wait on Commit failures.
describe("streamHarness: a refused commit the commit log did not keep", () => {
  it("is counted as not kept, with its reason, and not as a failure waiting for a person", async () => {
    const backing = createInMemoryDirBacking();
    const storage = new InMemoryHarnessStorage();
    const turn = streamHarness<Extra, { chatId: string }>({
      harness: {
        model: () =>
          scriptedModel([
            toolCallReply("memory", {
              command: "create",
              path: "/persistent/user/big.md",
              file_text: "x".repeat(2_000),
            }),
            textReply("Noted."),
          ]),
        instructions: "Test.",
        persistentDirs: [
          memory<Extra, { chatId: string }>({
            harnessDir: "/persistent/user",
            load: backing.load,
            store: async () => {
              throw new HarnessValidationError({ surface: "dir", message: "The history is full." });
            },
            owner: ({ extraBody }) => `user:${extraBody.actor.userId}`,
          }),
        ],
        // Room for nothing: the refusal is not kept.
        commitLog: createInMemoryCommitLog({ maxOwnerBytes: 100 }),
        store: ({ extraBody, session }) =>
          createHarness({ storage, actor: extraBody.actor, chatId: session.chatId }),
      },
      messages: [userMessage("Remember this")],
      session: { chatId: "chat-1" },
      extraBody: { actor: member },
    });
    const parts: Array<{ type: string; data?: unknown }> = [];
    const reader = turn.toUIMessageStream().getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      parts.push(chunk.value as { type: string; data?: unknown });
    await turn.finished;
    const data = parts.find((part) => part.type === "data-turn")?.data as TurnStatusData;
    expect(data.persistence).toMatchObject({
      status: "failed",
      failedCommits: 0,
      pendingCommits: 0,
      notKeptCommits: 1,
    });
    expect(data.persistence.notKept).toMatch(
      /^The history is full\. This change was not kept: the open commit records of user:u1 already hold 0 bytes/,
    );
  });
});
