// Drives the e2e scripted model server through the real AI SDK provider, so the browser tests can
// trust it speaks OpenAI's Chat Completions dialect as @ai-sdk/openai-compatible expects.
import { spawn } from "node:child_process";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  scriptedModelServerClient,
  startScriptedModelServer,
  type ScriptedModelServer,
} from "@/e2e/support/scripted-model-server";
import { describeProviderError } from "./describe-provider-error";
import { getChatModel } from "./get-model";
import { closedPortURL } from "./internal/test-http";

describe("scripted model server", () => {
  let server: ScriptedModelServer;
  const model = () =>
    createOpenAICompatible({ name: "scripted", baseURL: server.baseURL }).chatModel(
      "scripted-model",
    );

  beforeAll(async () => {
    server = await startScriptedModelServer();
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  /** Runs streamText to the end; returns the streamed text pieces and any error. */
  async function stream(options: Omit<Parameters<typeof streamText>[0], "model" | "onError">) {
    let error: unknown;
    const result = streamText({
      model: model(),
      ...options,
      onError: (event) => {
        error = event.error;
      },
    } as Parameters<typeof streamText>[0]);
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    return { pieces, error, result };
  }

  it("streams text word by word and records the request", async () => {
    server.setScript([
      { whenLastUserIncludes: "hello", reply: { text: "Hi there, how are you?" } },
    ]);
    const { pieces, error, result } = await stream({
      instructions: "You are Cairn.",
      prompt: "hello",
    });
    expect(error).toBeUndefined();
    expect(pieces.join("")).toBe("Hi there, how are you?");
    expect(pieces.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      model: "scripted-model",
      stream: true,
      messages: [
        { role: "system", content: "You are Cairn." },
        { role: "user", content: "hello" },
      ],
    });
  });

  it("echoes the user by default", async () => {
    const { pieces } = await stream({ prompt: "what is this?" });
    expect(pieces.join("")).toBe("You said: what is this?");
  });

  it("streams slowly with delayMs", async () => {
    server.setScript([{ reply: { text: "one two three four", delayMs: 40 } }]);
    const started = Date.now();
    const { pieces } = await stream({ prompt: "go" });
    expect(pieces.join("")).toBe("one two three four");
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it("runs a tool call round trip: the tool runs and the next request carries its result", async () => {
    server.setScript([
      {
        whenLastUserIncludes: "teal",
        reply: {
          toolCalls: [
            {
              name: "memory",
              arguments: {
                command: "create",
                path: "/persistent/user/preferences.md",
                file_text: "teal",
              },
            },
          ],
        },
      },
    ]);
    const calls: unknown[] = [];
    const { pieces, error, result } = await stream({
      prompt: "remember that my favourite colour is teal",
      tools: {
        memory: tool({
          description: "Edit memory files",
          inputSchema: z.object({ command: z.string(), path: z.string(), file_text: z.string() }),
          execute: (input) => {
            calls.push(input);
            return Promise.resolve(`Created ${input.path}`);
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(error).toBeUndefined();
    expect(calls).toEqual([
      { command: "create", path: "/persistent/user/preferences.md", file_text: "teal" },
    ]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.tools?.map((item) => item.function.name)).toEqual(["memory"]);
    const followUp = server.requests[1]?.messages ?? [];
    expect(followUp.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ type: "function", function: { name: "memory" } }],
    });
    expect(followUp.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: followUp.at(-2)?.tool_calls?.[0]?.id,
    });
    expect(JSON.stringify(followUp.at(-1)?.content)).toContain(
      "Created /persistent/user/preferences.md",
    );
    expect(pieces.join("")).toContain("Done. Tool result:");
    expect(pieces.join("")).toContain("Created /persistent/user/preferences.md");
    expect((await result.steps).length).toBe(2);
  });

  it("answers without streaming too, tool calls included", async () => {
    server.setScript([
      { reply: { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] } },
      {
        whenLastIsToolResult: true,
        reply: (request) => ({
          text: `sum is ${JSON.stringify(request.messages.at(-1)?.content)}`,
        }),
      },
    ]);
    const result = await generateText({
      model: model(),
      prompt: "add 2 and 3",
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => Promise.resolve(a + b),
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(server.requests.map((request) => request.stream ?? false)).toEqual([false, false]);
    expect(result.text).toBe('sum is "5"');
  });

  it("uses a rule at most `times` times", async () => {
    server.setScript([{ times: 1, reply: { text: "first" } }, { reply: { text: "later" } }]);
    expect((await stream({ prompt: "a" })).pieces.join("")).toBe("first");
    expect((await stream({ prompt: "b" })).pieces.join("")).toBe("later");
  });

  it.each([
    [
      401,
      { error: { message: "Incorrect API key provided", type: "invalid_request_error" } },
      "unauthorized",
    ],
    [
      400,
      {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
      "context_too_long",
    ],
    [429, { error: { message: "Rate limit reached", type: "requests" } }, "rate_limited"],
  ] as const)("surfaces a %i as an APICallError classified %s", async (status, body, code) => {
    server.setScript([{ reply: { error: { status, body } } }]);
    const { error } = await stream({ prompt: "hi", maxRetries: 0 });
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: status });
    expect(describeProviderError(error)).toMatchObject({ code, statusCode: status });
  });

  it("classifies a 429 that outlasts the retries as rate_limited", async () => {
    server.setScript([{ reply: { error: { status: 429, headers: { "retry-after-ms": "5" } } } }]);
    const { error } = await stream({ prompt: "hi", maxRetries: 2 });
    expect(server.requests).toHaveLength(3);
    expect(describeProviderError(error).code).toBe("rate_limited");
  });

  it("sends an error midway through a stream", async () => {
    server.setScript([
      {
        reply: {
          text: "partial answer",
          streamError: { message: "Upstream crashed", code: "server_error" },
        },
      },
    ]);
    const { pieces, error } = await stream({ prompt: "hi" });
    expect(pieces.join("")).toBe("partial answer");
    expect(describeProviderError(error)).toMatchObject({
      code: "provider_error",
      message: expect.stringContaining("Upstream crashed") as string,
    });
  });

  it("is the provider getChatModel builds from AI_PROVIDER=openai-compatible", async () => {
    const resolution = await getChatModel({
      env: {
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: server.baseURL,
        AI_MODEL: "scripted-model",
      },
    });
    if (resolution.status !== "ready") throw new Error(resolution.message);
    const result = streamText({ model: resolution.model, prompt: "ping" });
    expect(await result.text).toBe("You said: ping");
    // lib/ai asks for usage in streams, as OpenAI's own servers require.
    expect(server.requests[0]?.stream_options).toEqual({ include_usage: true });
  });

  it("is controllable over HTTP from another process", async () => {
    const client = scriptedModelServerClient(server.baseURL);
    await client.setScript([
      { whenSystemIncludes: "preferences.md", reply: { text: "I see your preferences." } },
      {
        whenLastUserIncludes: "save",
        reply: {
          toolCalls: [{ name: "memory", arguments: { command: "view", path: "/persistent" } }],
        },
      },
    ]);
    const withFile = await stream({
      instructions: "Files: /persistent/user/preferences.md",
      prompt: "hi",
    });
    expect(withFile.pieces.join("")).toBe("I see your preferences.");
    const saving = await stream({
      prompt: "save this",
      tools: {
        memory: tool({
          inputSchema: z.object({ command: z.string(), path: z.string() }),
          execute: () => Promise.resolve("listing"),
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(saving.pieces.join("")).toBe("Done. Tool result: listing");

    const recorded = await client.requests();
    expect(recorded).toHaveLength(3);
    expect(recorded[0]?.messages[0]).toEqual({
      role: "system",
      content: "Files: /persistent/user/preferences.md",
    });

    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((entry) => entry.id)).toEqual(["scripted-model"]);

    const bad = await fetch(`${server.url}/__script`, {
      method: "POST",
      body: JSON.stringify([{ when: "x", reply: {} }]),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'Rule 0 has an unknown key "when".' });

    await client.reset();
    expect(await client.requests()).toEqual([]);
    expect((await stream({ instructions: "preferences.md", prompt: "hi" })).pieces.join("")).toBe(
      "You said: hi",
    );
  });

  it("starts from the command line for Playwright's webServer", async () => {
    const port = Number(new URL(await closedPortURL()).port);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "e2e/support/scripted-model-server.ts", "--port", String(port)],
      { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const banner = await new Promise<string>((resolve, reject) => {
        let output = "";
        child.stdout.on("data", (data: Buffer) => {
          output += data.toString();
          if (output.includes("listening")) resolve(output);
        });
        child.stderr.on("data", (data: Buffer) => (output += data.toString()));
        child.once("exit", (exitCode) => reject(new Error(`exited ${exitCode}: ${output}`)));
      });
      expect(banner).toContain(`http://127.0.0.1:${port}/v1`);
      expect((await fetch(`http://127.0.0.1:${port}/__health`)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  });
});
