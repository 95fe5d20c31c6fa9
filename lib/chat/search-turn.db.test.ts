// Issue 24: a chat turn's `search` tool names a passage's path and line range, and the model
// opens exactly those lines with `memory view` and `view_range`; the prompt already lists the
// most relevant passages of company knowledge.
import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, runMemoryCommand } from "@/lib/harness";
import { streamOf, textReply, toolCallReply } from "@/lib/harness/testing";
vi.mock("server-only", () => ({}));

/** The text of the prompt's last tool result. */
function lastToolResult(prompt: LanguageModelV4Prompt): string {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return "";
  return JSON.stringify(last.content);
}

// The scripted model: search, then view what the search named, then answer.
const opened: { path: string; range: [number, number] }[] = [];
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const result = lastToolResult(prompt);
    let chunks: LanguageModelV4StreamPart[];
    if (!result) {
      chunks = toolCallReply("search", { query: "retention window", scope: ["company"], limit: 3 });
    } else if (result.includes("passage")) {
      const match = /(\/persistent\/company\/\S+) lines (\d+)-(\d+)/.exec(result)!;
      const range: [number, number] = [Number(match[2]), Number(match[3])];
      opened.push({ path: match[1]!, range });
      chunks = toolCallReply("memory", { command: "view", path: match[1], view_range: range });
    } else {
      chunks = textReply("Ninety days.");
    }
    return streamOf(chunks);
  },
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatModelOnly } = await import("@/lib/ai/testing");
  return chatModelOnly(await importOriginal<typeof AiModule>(), model);
});

const POLICY = [
  "# Data policy", // 1
  "", // 2
  "Backups run nightly at two.", // 3
  "", // 4
  "## Logs", // 5
  "Logs are shipped to the archive.", // 6
  "", // 7
  "## Retention", // 8
  "The retention window for customer data is ninety days.", // 9
  "After that the records are erased.", // 10
  "", // 11
  "## Contacts", // 12
  "Questions go to the privacy desk.", // 13
].join("\n");

describe(`a turn's search leads to a view of the right lines (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor", email: "ada@example.com" });
  beforeAll(async () => {
    const { cairn } = await import("@/lib/cairn");
    const dirs = cairn().persistentDirs;
    const turn = await openTurnCheckout({
      dirs: dirs.dirs,
      extraBody: { actor: world.actor },
      session: null,
      commitLog: dirs.commitLog,
    });
    await runMemoryCommand(turn.checkout, {
      command: "create",
      path: "/persistent/company/policies/data.md",
      file_text: POLICY,
    });
    expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
  });

  it("searches, then views exactly the passage's lines", async () => {
    const { startChatTurn } = await import("./run-chat-turn");
    const message: UIMessage = {
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "How long is the retention window for customer data?" }],
    };
    const started = await startChatTurn({ actor: world.actor, chatId: world.chatId, message });
    expect(started.status).toBe("started");
    if (started.status === "started")
      expect(await started.response.text()).toContain("Ninety days.");

    expect(opened).toEqual([{ path: "/persistent/company/policies/data.md", range: [8, 10] }]);
    const calls = model.doStreamCalls;
    expect(calls).toHaveLength(3);
    // The prompt lists the passage already, with its lines.
    const system = JSON.stringify(calls[0]!.prompt[0]);
    expect(system).toContain("## Relevant passages");
    expect(system).toContain("/persistent/company/policies/data.md lines 8-10 § Retention");
    // The search result names path and lines; the view shows those lines and no others.
    expect(lastToolResult(calls[1]!.prompt)).toContain(
      "/persistent/company/policies/data.md lines 8-10",
    );
    const view = lastToolResult(calls[2]!.prompt);
    expect(view).toContain("ninety days");
    expect(view).toContain("erased");
    expect(view).not.toContain("Backups run nightly");
    expect(view).not.toContain("privacy desk");
  });
});
