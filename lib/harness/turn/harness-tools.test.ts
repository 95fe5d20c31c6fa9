import { describe, expect, it } from "vitest";
import { createHarness, InMemoryHarnessStorage } from "../store";
import { createHarnessTools } from "./harness-tools";

const actor = { userId: "u1", workspaceId: "w1", role: "member" as const };
const options = { toolCallId: "call_1", messages: [] };

/** Issue 15, item 7: what a chat turn wrote is recorded as the agent's, so the Memory page can say so. */
describe("harness tools", () => {
  it("record their writes with cause agent, not as the person's own edits", async () => {
    const harness = createHarness({ storage: new InMemoryHarnessStorage(), actor, chatId: "c1" });
    const tools = createHarnessTools({ harness });
    const run = (name: string, input: unknown) =>
      (tools[name]!.execute as (input: unknown, options: unknown) => Promise<string>)(
        input,
        options,
      );
    expect(
      await run("create_entry", { kind: "memory", title: "Tea", content: "Likes tea." }),
    ).toMatch(/^Created/);
    await run("update_entry", {
      kind: "memory",
      id: "tea",
      expectedVersion: 1,
      content: "Green tea.",
    });
    await run("delete_entry", { kind: "memory", id: "tea", expectedVersion: 2 });
    const history = await harness.history({ entryId: "tea", kind: "memory", scope: "local" });
    expect(history.map((revision) => [revision.action, revision.cause])).toEqual([
      ["create", "agent"],
      ["update", "agent"],
      ["delete", "agent"],
    ]);
    expect(history[0]!.after?.source).toBe("agent");
  });
});
