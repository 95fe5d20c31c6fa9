import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createInMemoryDirBacking, loadCheckout, type Checkout } from "../../persistent";
import type { HarnessTurn, TurnResult } from "../types";

/** Test support for turns: scripted mock models (they record every call) and stream helpers. */

/** The token usage every scripted reply reports. */
export const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model reply that is plain text. */
export function textReply(text: string): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: text },
    { type: "text-end", id: "t" },
    { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
  ] as LanguageModelV4StreamPart[];
}

/** A model reply that calls one tool. */
export function toolCallReply(
  toolName: string,
  input: unknown,
  id = "call-1",
): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "tool-call", toolCallId: id, toolName, input: JSON.stringify(input) },
    { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
  ] as LanguageModelV4StreamPart[];
}

/** What a mock model's `doStream` returns for `chunks`: streamed at once, without delays. */
export function streamOf(chunks: LanguageModelV4StreamPart[]) {
  return {
    stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
  };
}

/**
 * A mock model that answers each call with the next scripted reply (the last one repeats) and
 * records every call in `doStreamCalls`. `beforeReply` runs before each reply is streamed.
 */
export function scriptedModel(
  replies: LanguageModelV4StreamPart[][],
  beforeReply?: (call: number) => void | Promise<void>,
): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const call = index++;
      await beforeReply?.(call);
      return streamOf(replies[Math.min(call, replies.length - 1)]!);
    },
  });
}

/** Everything a recorded call sent to the model, as one string (instructions, messages, tool results). */
export function promptText(call: LanguageModelV4CallOptions): string {
  return JSON.stringify(call.prompt);
}

/** The results of every tool call the model got back in `call`, in order. */
export function toolResults(call: LanguageModelV4CallOptions): string[] {
  return call.prompt
    .filter((message) => message.role === "tool")
    .flatMap((message) => message.content)
    .map((part) => JSON.stringify(part));
}

export function userMessage(text: string, id = `u-${text.length}`): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

/** Reads the UI stream to its end, as a browser would, and returns the finished result. */
export async function drain(turn: HarnessTurn): Promise<TurnResult> {
  const reader = turn.toUIMessageStream().getReader();
  while (!(await reader.read()).done);
  return turn.finished;
}

/**
 * A turn's checkout of two in-memory dirs: `/persistent/user` with `notes.md` (three lines) and a
 * read-only `/persistent/company` with `handbook.md`.
 */
export async function notesAndHandbookCheckout(): Promise<Checkout> {
  return loadCheckout({
    dirs: [
      {
        harnessDir: "/persistent/user",
        // The limits of a personal memory dir of an earlier default, so limits are easy to reach.
        limits: { maxFiles: 2000, maxDirBytes: 20 * 1024 * 1024, maxFileBytes: 1024 * 1024 },
        ...createInMemoryDirBacking({ files: { "notes.md": "one\ntwo\nthree" } }),
      },
      {
        harnessDir: "/persistent/company",
        commit: "read-only",
        ...createInMemoryDirBacking({ files: { "handbook.md": "Deploy on Fridays" } }),
      },
    ],
    extraBody: {},
    session: {},
  });
}
