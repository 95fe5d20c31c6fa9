import { describe, expect, it } from "vitest";
import { providerMemoryTool } from "./provider-memory-tool";

describe("providerMemoryTool", () => {
  it("gives Anthropic its native memory tool, executed by the harness", async () => {
    const factory = providerMemoryTool("anthropic");
    expect(factory).toBeDefined();
    const seen: unknown[] = [];
    const tool = factory!(async (input) => {
      seen.push(input);
      return "ok";
    }) as {
      type?: string;
      id?: string;
      execute?: (input: unknown, options: unknown) => Promise<unknown>;
    };
    expect(tool.type).toBe("provider");
    expect(tool.id).toBe("anthropic.memory_20250818");
    await tool.execute?.(
      { command: "view", path: "/persistent/user" },
      { toolCallId: "1", messages: [] },
    );
    expect(seen).toEqual([{ command: "view", path: "/persistent/user" }]);
  });

  it("leaves other providers on the harness's function tool", () => {
    expect(providerMemoryTool("openai")).toBeUndefined();
    expect(providerMemoryTool("openai-compatible")).toBeUndefined();
  });
});
