import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Entry } from "../types";
import { queryTerms, relevance } from "./lexical-relevance";

/** The definition, written plainly: lowercase each part on its own and search it. */
function referenceRelevance(entry: Entry, terms: readonly string[]): number {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const metadata = (entry.metadata ?? {}) as Record<string, unknown>;
  const head = [
    text(entry.title).slice(0, 300),
    text(entry.id).slice(0, 100),
    text(entry.path).slice(0, 200),
    text(metadata.name).slice(0, 100),
    text(metadata.description).slice(0, 300),
  ]
    .join(" ")
    .toLowerCase();
  const body = text(entry.content).slice(0, 160).toLowerCase();
  let score = 0;
  for (const term of terms) score += head.includes(term) ? 2 : body.includes(term) ? 1 : 0;
  return score;
}

const tricky = fc.string({
  unit: fc.constantFrom(
    "a",
    "B",
    "deploy",
    "DEPLOY",
    "İ",
    "i",
    "\u0307",
    "Σ",
    "σ",
    "ς",
    " ",
    "\n",
    "😀",
    "\uD800",
    "ǅ",
    "ﬀ",
    "K",
  ),
  maxLength: 60,
});

function entryOf(fields: {
  title: string;
  id: string;
  path: string;
  content: string;
  name: string;
  description: string;
}): Entry {
  return {
    id: fields.id,
    kind: "skill",
    scope: "global",
    chatId: null,
    title: fields.title,
    content: fields.content,
    path: fields.path,
    metadata: { name: fields.name, description: fields.description },
    pinned: false,
    source: "user",
    version: 1,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    createdBy: "u",
    updatedBy: "u",
  };
}

describe("relevance", () => {
  it("matches the plain definition on any text, including characters that change length when lowercased", () => {
    fc.assert(
      fc.property(
        fc.record({
          title: tricky,
          id: tricky,
          path: tricky,
          content: tricky,
          name: tricky,
          description: tricky,
        }),
        fc.oneof(tricky, fc.constantFrom("deploy the İ release", "σ ς i̇ deploy", "k ff")),
        (fields, query) => {
          const entry = entryOf(fields);
          const terms = queryTerms(query);
          expect(relevance(entry, terms)).toBe(referenceRelevance(entry, terms));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("relies on lowercasing never shortening a code point (checked for this runtime's Unicode data)", () => {
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
      const character = String.fromCodePoint(codePoint);
      if (character.toLowerCase().length < character.length) {
        throw new Error(`U+${codePoint.toString(16)} shrinks when lowercased`);
      }
    }
  });

  it("scores head matches 2 and content-prefix matches 1", () => {
    const entry = entryOf({
      title: "Kubernetes Deploy",
      id: "k",
      path: "ops",
      content: "We ROLL back on fridays",
      name: "",
      description: "",
    });
    expect(relevance(entry, queryTerms("deploy rollback roll fridays missing"))).toBe(2 + 1 + 1);
  });
});
