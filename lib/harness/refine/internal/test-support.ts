import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { type Actor } from "../../actor";
import { createHarness, InMemoryHarnessStorage, type Harness } from "../../store";
import { createRefinementLock } from "../refinement-lock";
import { InMemoryRefinementStore } from "../refinement-store";

/** Test-only helpers: scripted mock models that record what they were sent, and a harness fixture. */

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};

/** A model reply whose text is `text` (JSON.stringify of non-strings). */
export function reply(
  value: unknown,
  finishReason: "stop" | "length" = "stop",
): LanguageModelV4GenerateResult {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: finishReason, raw: finishReason },
    usage,
    warnings: [],
  };
}

/** A mock model answering each call with the next scripted reply (the last one repeats). */
export function scriptedModel(
  replies: (LanguageModelV4GenerateResult | Error)[],
  modelId = "mock-model",
): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    modelId,
    doGenerate: async () => {
      const next = replies[Math.min(index++, replies.length - 1)]!;
      if (next instanceof Error) throw next;
      return next;
    },
  });
}

/** The user-message text of a recorded call. */
export function promptOf(call: LanguageModelV4CallOptions): string {
  return call.prompt
    .filter((message) => message.role === "user")
    .flatMap((message) =>
      (message.content as { type: string; text?: string }[]).map((part) => part.text ?? ""),
    )
    .join("\n");
}

/** The system text of a recorded call. */
export function systemOf(call: LanguageModelV4CallOptions): string {
  return call.prompt
    .filter((message) => message.role === "system")
    .map((message) => (message as { content: string }).content)
    .join("\n");
}

/** The text between `<name>` and `</name>` of a prompt. */
export function sectionOf(prompt: string, name: string): string {
  const start = prompt.indexOf(`<${name}>\n`);
  const end = prompt.indexOf(`\n</${name}>`, start);
  if (start < 0 || end < 0) throw new Error(`no section ${name}`);
  return prompt.slice(start + name.length + 3, end);
}

/** Every section (`<name>` … `</name>`, each on a line of its own) of a prompt, by name. */
export function sectionsOf(prompt: string): Record<string, string> {
  return Object.fromEntries(
    [...prompt.matchAll(/^<([\w-]+)>\n([\s\S]*?)\n<\/\1>$/gm)].map(([, name, text]) => [
      name,
      text,
    ]),
  );
}

/**
 * What a recorded call asked for, to compare with `toMatchObject`: its output limit, response
 * format, system text and the sections of its user text.
 */
export function requestOf(call: LanguageModelV4CallOptions) {
  return {
    maxOutputTokens: call.maxOutputTokens,
    responseFormat: call.responseFormat,
    system: systemOf(call),
    sections: sectionsOf(promptOf(call)),
  };
}

export const WORKSPACE = "w1";
export const member: Actor = { userId: "member-1", workspaceId: WORKSPACE, role: "member" };
export const otherMember: Actor = { userId: "member-2", workspaceId: WORKSPACE, role: "member" };
export const editor: Actor = { userId: "editor-1", workspaceId: WORKSPACE, role: "editor" };
export const admin: Actor = { userId: "admin-1", workspaceId: WORKSPACE, role: "admin" };

/** A deterministic clock: one second per reading. */
export function testClock(start = Date.UTC(2025, 0, 1)): () => Date {
  let tick = 0;
  return () => new Date(start + tick++ * 1000);
}

/** Sequential ids with a prefix. */
export function sequentialIds(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${String(++next).padStart(4, "0")}`;
}

/** One in-memory storage with harnesses for several actors and chats over it. */
export function harnessFixture() {
  const storage = new InMemoryHarnessStorage();
  const clock = testClock();
  const ids = sequentialIds("rev");
  return {
    storage,
    clock,
    harness(actor: Actor, chatId: string | null): Harness {
      return createHarness({ storage, actor, chatId, clock, generateId: ids });
    },
  };
}

/**
 * What a refinement pipeline test runs on: a harness fixture, an in-memory refinement store, a
 * clock from 2025-06-01, sequential `ref-` ids and an in-process lock.
 */
export function refinementFixture() {
  return {
    fixture: harnessFixture(),
    store: new InMemoryRefinementStore(),
    clock: testClock(Date.UTC(2025, 5, 1)),
    ids: sequentialIds("ref"),
    lock: createRefinementLock(),
  };
}
