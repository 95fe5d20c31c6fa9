import { generateText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLogger } from "@/lib/cairn/testing";
import { aiSdkWarningLogger, installAiSdkWarningLogger } from "./ai-sdk-warnings";

const previous = globalThis.AI_SDK_LOG_WARNINGS;
afterEach(() => {
  globalThis.AI_SDK_LOG_WARNINGS = previous;
});

/** A model that answers "ok" and warns, as the openai-compatible provider does for a schema. */
function warningModel() {
  return new MockLanguageModelV4({
    provider: "openai-compatible.chat",
    modelId: "local-model",
    doGenerate: async () => ({
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [
        { type: "unsupported", feature: "responseFormat", details: "JSON schema is ignored." },
      ],
    }),
  });
}

describe("the AI SDK's warnings", () => {
  it("become one warn line per distinct warning of a model, in the app's log", async () => {
    const logger = recordingLogger();
    installAiSdkWarningLogger(logger);
    const model = warningModel();
    for (let call = 0; call < 3; call += 1) await generateText({ model, prompt: "hi" });

    expect(model.doGenerateCalls).toHaveLength(3);
    expect(logger.lines).toEqual([
      {
        level: "warn",
        message:
          'model call warning: the feature "responseFormat" is not supported: JSON schema is ignored.',
        fields: { provider: "openai-compatible.chat", model: "local-model", warning: "unsupported" },
      },
    ]);
  });

  it("words every kind, and tells another model's warning apart", () => {
    const logger = recordingLogger();
    const log = aiSdkWarningLogger(logger);
    log({
      provider: "p",
      model: "a",
      warnings: [
        { type: "compatibility", feature: "tools" },
        { type: "deprecated", setting: "maxTokens", message: "Use maxOutputTokens." },
        { type: "other", message: "Something else." },
      ],
    });
    log({ provider: "p", model: "b", warnings: [{ type: "compatibility", feature: "tools" }] });
    expect(logger.lines.map((line) => [line.fields.model, line.message])).toEqual([
      ["a", 'model call warning: the feature "tools" is used in a compatibility mode'],
      ["a", 'model call warning: deprecated: "maxTokens": Use maxOutputTokens.'],
      ["a", "model call warning: Something else."],
      ["b", 'model call warning: the feature "tools" is used in a compatibility mode'],
    ]);
  });
});
