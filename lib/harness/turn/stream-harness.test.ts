import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { Actor } from "../actor";
import {
  createInMemoryCommitLog,
  createInMemoryDirBacking,
  memory,
  type InMemoryDirBacking,
  type PersistentDir,
} from "../persistent";
import { createHarness, InMemoryHarnessStorage, type Harness } from "../store";
import {
  drain,
  scriptedModel,
  textReply,
  toolCallReply,
  usage,
  userMessage,
} from "./internal/testing";
import { streamHarness } from "./stream-harness";
import type { HarnessDefinition, TurnResult } from "./types";

type Extra = { actor: Actor };
type Session = { chatId: string };

function systemText(call: LanguageModelV4CallOptions): string {
  return call.prompt
    .filter((message) => message.role === "system")
    .map((message) => (message as { content: string }).content)
    .join("\n");
}

function toolNames(call: LanguageModelV4CallOptions): string[] {
  return (call.tools ?? []).map((tool) => tool.name).sort();
}

const member: Actor = { userId: "u1", workspaceId: "w1", role: "member" };
const editor: Actor = { userId: "u2", workspaceId: "w1", role: "editor" };

interface Setup {
  userBacking: InMemoryDirBacking;
  companyBacking: InMemoryDirBacking;
  storage: InMemoryHarnessStorage;
  definition: (model: MockLanguageModelV4) => HarnessDefinition<Extra, Session>;
}

function setup(): Setup {
  const userBacking = createInMemoryDirBacking({
    files: { "preferences.md": "Prefers short answers.\n" },
  });
  const companyBacking = createInMemoryDirBacking({
    files: { "handbook.md": "# Handbook\nDeploys happen on Fridays.\n" },
  });
  const storage = new InMemoryHarnessStorage();
  const commitLog = createInMemoryCommitLog();
  const dirs: PersistentDir<Extra, Session>[] = [
    memory<Extra, Session>({ harnessDir: "/persistent/user", ...userBacking }),
    {
      harnessDir: "/persistent/company",
      ...companyBacking,
      canWrite: ({ extraBody }) => extraBody.actor.role !== "member",
    },
  ];
  return {
    userBacking,
    companyBacking,
    storage,
    definition: (model) => ({
      model: () => model,
      instructions: "You are Cairn's test assistant.",
      persistentDirs: dirs,
      commitLog,
      store: ({ extraBody, session }): Harness =>
        createHarness({ storage, actor: extraBody.actor, chatId: session.chatId }),
      tokenBudget: 300,
    }),
  };
}

async function runTurn(
  definition: HarnessDefinition<Extra, Session>,
  actor: Actor,
  text: string,
): Promise<TurnResult> {
  const turn = streamHarness({
    harness: definition,
    messages: [userMessage(text)],
    session: { chatId: "chat-1" },
    extraBody: { actor },
  });
  return drain(turn);
}

describe("streamHarness", () => {
  it("puts the harness view within its budget and the memory listing into the instructions", async () => {
    const { definition, storage } = setup();
    const seed = createHarness({ storage, actor: editor, chatId: null });
    await seed.createEntry({
      kind: "memory",
      global: true,
      title: "Deploy day",
      content: "We deploy on Fridays.",
    });
    for (let index = 0; index < 40; index++) {
      await seed.createEntry({
        kind: "memory",
        global: true,
        title: `Filler ${index}`,
        content: "lorem ipsum ".repeat(40),
      });
    }
    const model = scriptedModel([textReply("Noted.")]);
    const result = await runTurn(definition(model), member, "When do we deploy?");

    expect(result.error).toBeUndefined();
    expect(result.status).toBe("completed");
    const system = systemText(model.doStreamCalls[0]!);
    expect(system).toContain("You are Cairn's test assistant.");
    expect(system).toContain("[global:deploy-day]");
    expect(system).toContain("preferences.md");
    expect(system).toContain("/persistent/company: read-only this turn");
    const harnessSection = result.instructions.sections.find(
      (section) => section.name === "harness",
    )!;
    expect(harnessSection.tokens).toBeLessThanOrEqual(300);
    expect(harnessSection.details?.truncated).toBe(true);
    expect(result.trace.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        "turn.started",
        "dir.loaded",
        "instructions.built",
        "model.step",
        "turn.finished",
      ]),
    );
  });

  it("reads the harness once: later turns reuse the snapshot and catch up from revisions", async () => {
    const { definition, storage } = setup();
    const calls: string[] = [];
    const counted = new Proxy(storage, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const base = definition(scriptedModel([textReply("ok")]));
    const withCounting = (model: MockLanguageModelV4): HarnessDefinition<Extra, Session> => ({
      ...base,
      model: () => model,
      store: ({ extraBody, session }) =>
        createHarness({ storage: counted, actor: extraBody.actor, chatId: session.chatId }),
    });
    const seed = createHarness({ storage, actor: editor, chatId: null });
    for (let index = 0; index < 30; index++) {
      await seed.createEntry({
        kind: "memory",
        global: true,
        title: `Lesson ${index}`,
        content: "x",
      });
    }

    await runTurn(withCounting(scriptedModel([textReply("one")])), member, "first");
    expect(calls).toContain("listEntries");

    calls.length = 0;
    const second = scriptedModel([textReply("two")]);
    await runTurn(withCounting(second), member, "second");
    expect(calls).toEqual(["getHarnessVersion"]);

    await seed.createEntry({
      kind: "memory",
      global: true,
      title: "Kubernetes upgrades",
      content: "drain first",
    });
    calls.length = 0;
    const third = scriptedModel([textReply("three")]);
    await runTurn(withCounting(third), member, "how do we do kubernetes upgrades?");
    expect(calls).not.toContain("listEntries");
    expect(calls).toContain("listRevisionsInRange");
    expect(systemText(third.doStreamCalls[0]!)).toContain("[global:kubernetes-upgrades]");
  });

  it("commits a file the model wrote with the memory tool after the turn", async () => {
    const { definition, userBacking } = setup();
    const model = scriptedModel([
      toolCallReply("memory", {
        command: "create",
        path: "/persistent/user/colour.md",
        file_text: "Favourite colour: teal\n",
      }),
      textReply("I will remember that."),
    ]);
    const result = await runTurn(
      definition(model),
      member,
      "Remember that my favourite colour is teal",
    );

    expect(result.status).toBe("completed");
    expect(userBacking.files()["colour.md"]).toBe("Favourite colour: teal\n");
    expect(userBacking.storeCalls).toHaveLength(1);
    expect(userBacking.storeCalls[0]!.changes.created.map((file) => file.path)).toEqual([
      "colour.md",
    ]);
    expect(result.persistence).toMatchObject({ status: "succeeded" });
    // The second model call carried the tool result back.
    const toolMessage = model.doStreamCalls[1]!.prompt.find((message) => message.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("Created /persistent/user/colour.md");
    expect(toolNames(model.doStreamCalls[0]!)).toEqual(
      [
        "bash",
        "create_entry",
        "delegate",
        "delete_entry",
        "load_skill",
        "memory",
        "update_entry",
      ].sort(),
    );
  });

  it("gives a member a tool error for a company write and commits nothing there; an editor succeeds", async () => {
    const { definition, companyBacking } = setup();
    const write = {
      command: "create",
      path: "/persistent/company/policy.md",
      file_text: "New policy\n",
    };
    const memberModel = scriptedModel([
      toolCallReply("memory", write),
      textReply("I could not write that."),
    ]);
    const memberResult = await runTurn(definition(memberModel), member, "Write the policy");

    const toolMessage = JSON.stringify(
      memberModel.doStreamCalls[1]!.prompt.find((message) => message.role === "tool"),
    );
    expect(toolMessage).toMatch(/Error: .*read-only/i);
    expect(companyBacking.storeCalls).toHaveLength(0);
    expect(companyBacking.files()["policy.md"]).toBeUndefined();
    expect(memberResult.trace.some((event) => event.type === "tool.result" && event.isError)).toBe(
      true,
    );

    const editorModel = scriptedModel([toolCallReply("memory", write), textReply("Done.")]);
    await runTurn(definition(editorModel), editor, "Write the policy");
    expect(companyBacking.files()["policy.md"]).toBe("New policy\n");
  });

  it("fails the turn on a provider error and commits nothing", async () => {
    const { definition, userBacking } = setup();
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls++;
        if (calls === 1) {
          return {
            stream: simulateReadableStream({
              chunks: toolCallReply("memory", {
                command: "create",
                path: "/persistent/user/x.md",
                file_text: "x",
              }),
              initialDelayInMs: null,
              chunkDelayInMs: null,
            }),
          };
        }
        throw new Error("upstream 500: provider exploded");
      },
    });
    const result = await runTurn(definition(model), member, "Do something");

    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("provider exploded");
    expect(userBacking.storeCalls).toHaveLength(0);
    expect(result.persistence.status).toBe("succeeded");
    expect(
      result.persistence.status !== "not-configured" &&
        result.persistence.commits.every((commit) => commit.status === "skipped"),
    ).toBe(true);
  });

  it("fails the turn on an error in the middle of the model's stream, and commits nothing", async () => {
    const { definition, userBacking } = setup();
    const model = scriptedModel([
      toolCallReply("memory", { command: "create", path: "/persistent/user/y.md", file_text: "y" }),
      [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Half an ans" },
        { type: "error", error: new Error("connection reset by provider") },
      ] as LanguageModelV4StreamPart[],
    ]);
    const result = await runTurn(definition(model), member, "Write y");

    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("connection reset by provider");
    expect(userBacking.storeCalls).toHaveLength(0);
  });

  it("describes each error once, with the error itself — never the text it returned, echoed back", async () => {
    const { definition } = setup();
    const provider = new Error("401 invalid api key");
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw provider;
      },
    });
    const seen: unknown[] = [];
    const turn = streamHarness({
      harness: definition(model),
      messages: [userMessage("Hello")],
      session: { chatId: "chat-1" },
      extraBody: { actor: member },
      describeError: (error) => {
        seen.push(error);
        return "The model provider rejected the API key.";
      },
    });
    const result = await drain(turn);

    expect(result.status).toBe("failed");
    expect(result.error?.message).toBe("The model provider rejected the API key.");
    expect(seen).toEqual([provider]);
  });

  it("reports the usage of every step, and ends an aborted turn (the stop button) as aborted with nothing committed", async () => {
    const { definition, userBacking } = setup();
    const completed = await runTurn(
      definition(
        scriptedModel([
          toolCallReply("memory", {
            command: "create",
            path: "/persistent/user/u.md",
            file_text: "u",
          }),
          textReply("Saved."),
        ]),
      ),
      member,
      "Write u",
    );
    expect(completed.status).toBe("completed");
    expect(completed.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    const stored = userBacking.storeCalls.length;

    const controller = new AbortController();
    const slow = new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            ...Array.from({ length: 50 }, (_, index) => ({
              type: "text-delta" as const,
              id: "t",
              delta: `word${index} `,
            })),
            { type: "text-end", id: "t" },
            { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
          ] as LanguageModelV4StreamPart[],
          initialDelayInMs: null,
          chunkDelayInMs: 10,
        }),
      }),
    });
    const turn = streamHarness({
      harness: definition(slow),
      messages: [userMessage("Tell me a long story")],
      session: { chatId: "chat-1" },
      extraBody: { actor: member },
      abortSignal: controller.signal,
    });
    const reader = turn.toUIMessageStream().getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if ((value as { type: string }).type === "text-delta") controller.abort();
    }
    const aborted = await turn.finished;
    expect(aborted.status).toBe("aborted");
    expect(userBacking.storeCalls).toHaveLength(stored);
  });

  it("runs a sub-agent with its own instructions and only its allowed tools", async () => {
    const { definition, storage } = setup();
    await createHarness({ storage, actor: editor, chatId: null }).createSubagent({
      global: true,
      name: "researcher",
      description: "Looks things up in files",
      instructions: "You are a careful researcher.",
      tools: ["bash", "delegate"],
    });
    const model = scriptedModel([
      toolCallReply("delegate", { subagent: "researcher", task: "Find the deploy day" }),
      textReply("The researcher says Fridays."),
    ]);
    // The nested call is a generate call.
    model.doGenerate = async (options) => {
      model.doGenerateCalls.push(options);
      return {
        content: [{ type: "text", text: "Fridays, per the handbook." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      } as Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;
    };
    const result = await runTurn(definition(model), member, "Ask the researcher");

    expect(result.status).toBe("completed");
    const nested = model.doGenerateCalls[0]!;
    expect(systemText(nested)).toBe("You are a careful researcher.");
    expect(toolNames(nested)).toEqual(["bash"]);
    expect(result.trace).toContainEqual(
      expect.objectContaining({ type: "delegate", subagent: "researcher", tools: ["bash"] }),
    );
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain("Fridays, per the handbook.");
  });
});
