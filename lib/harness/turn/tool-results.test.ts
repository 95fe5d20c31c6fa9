// Tool results inside a turn: bounded before they reach the model, the trace and the stored
// message (issue 14, finding 11); a tool's exception reported as that tool's failure (finding 17).
import { tool, type ToolSet, type UIMessageChunk } from "ai";
import { type MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Actor } from "../actor";
import { createInMemoryCommitLog, createInMemoryDirBacking, memory } from "../persistent";
import { scriptedModel, textReply, toolCallReply } from "./internal/testing";
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS, streamHarness } from "./stream-harness";
import type { HarnessDefinition, TurnResult } from "./types";

type Extra = { actor: Actor };
type Session = { chatId: string };

const member: Actor = { userId: "u1", workspaceId: "w1", role: "member" };

/** Calls `toolName` once, then answers "Done." — recording every call. */
function modelCalling(toolName: string, input: unknown) {
  return scriptedModel([toolCallReply(toolName, input), textReply("Done.")]);
}

function definition(model: MockLanguageModelV4, tools: ToolSet = {}) {
  const user = createInMemoryDirBacking({ files: { "notes.md": "one\n" } });
  const harness: HarnessDefinition<Extra, Session> = {
    model: () => model,
    instructions: "Test assistant.",
    persistentDirs: [memory<Extra, Session>({ harnessDir: "/persistent/user", ...user })],
    commitLog: createInMemoryCommitLog(),
    tools: () => tools,
    shell: { timeoutMs: 60_000 },
  };
  return { harness, user };
}

async function runTurn(
  harness: HarnessDefinition<Extra, Session>,
): Promise<{ result: TurnResult; chunks: UIMessageChunk[] }> {
  const turn = streamHarness({
    harness,
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Go" }] }],
    session: { chatId: "chat-1" },
    extraBody: { actor: member },
    // What the app does: every error that reaches this hook is shown as the provider's.
    describeError: () => "The model provider failed. Try again.",
  });
  const chunks: UIMessageChunk[] = [];
  const reader = turn.toUIMessageStream().getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    chunks.push(next.value);
  return { result: await turn.finished, chunks };
}

function toolMessageSent(model: MockLanguageModelV4): string {
  return JSON.stringify(model.doStreamCalls[1]!.prompt.find((message) => message.role === "tool"));
}

function toolResultEvent(result: TurnResult) {
  const event = result.trace.find((entry) => entry.type === "tool.result");
  if (!event || event.type !== "tool.result") throw new Error("no tool.result in the trace");
  return event;
}

describe("tool failures name the tool", () => {
  it("reports a throwing tool as that tool's failure, not the provider's, and the turn goes on", async () => {
    const model = modelCalling("explode", {});
    const explode = tool({
      description: "Always fails.",
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error("disk on fire");
      },
    });
    const { harness } = definition(model, { explode });
    const { result, chunks } = await runTurn(harness);

    expect(result.status).toBe("completed");
    expect(toolMessageSent(model)).toContain("Error: The explode tool failed: disk on fire");
    expect(toolResultEvent(result)).toMatchObject({ toolName: "explode", isError: true });
    expect(JSON.stringify(chunks)).not.toContain("The model provider failed");
  });

  it("a symbolic link loop made by bash is a clear note, and the command's other changes commit", async () => {
    const model = modelCalling("bash", {
      command: "ln -s /persistent/user /persistent/user/loop; echo hi > /persistent/user/b.md",
    });
    const { harness, user } = definition(model);
    const { result, chunks } = await runTurn(harness);

    expect(result.status).toBe("completed");
    expect(toolMessageSent(model)).toContain("/persistent/user/loop: symbolic links are not kept");
    expect(JSON.stringify(chunks)).not.toContain("The model provider failed");
    expect(user.files()["b.md"]).toBe("hi\n");
  });
});

describe("tool results are bounded", () => {
  it("cuts a huge result with a marker before the model, the trace and the stored message see it", async () => {
    const model = modelCalling("huge", {});
    const huge = tool({
      description: "Returns a lot.",
      inputSchema: z.object({}),
      execute: async () => "x".repeat(300_000),
    });
    const { harness } = definition(model, { huge });
    const { result } = await runTurn(harness);

    const marker = `[… tool output truncated: 50,000 of 300,000 characters shown]`;
    const sent = toolMessageSent(model);
    expect(sent).toContain(marker);
    expect(sent.length).toBeLessThan(DEFAULT_MAX_TOOL_OUTPUT_CHARS + 1_000);
    const traced = toolResultEvent(result).output as string;
    expect(traced.endsWith(marker)).toBe(true);
    const stored = JSON.stringify(result.responseMessage);
    expect(stored).toContain(marker);
    expect(stored.length).toBeLessThan(DEFAULT_MAX_TOOL_OUTPUT_CHARS + 2_000);
  });

  it("cuts an object result by its JSON size", async () => {
    const model = modelCalling("rows", {});
    const rows = tool({
      description: "Returns many rows.",
      inputSchema: z.object({}),
      execute: async () => ({ rows: Array.from({ length: 20_000 }, (_, index) => ({ index })) }),
    });
    const { harness } = definition(model, { rows });
    const { result } = await runTurn({ ...harness, maxToolOutputChars: 1_000 });

    const traced = toolResultEvent(result).output as string;
    expect(typeof traced).toBe("string");
    expect(traced).toMatch(/\[… tool output truncated: 1,000 of [\d,]+ characters shown\]$/);
  });
});
