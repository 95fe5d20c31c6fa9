import { describe, expect, it } from "vitest";
import { messageText, splitIntoPassages, TARGET_CHARS } from "./passages";

const lines = (text: string, from: number, to: number) =>
  text
    .split("\n")
    .slice(from - 1, to)
    .join("\n");

describe("splitIntoPassages", () => {
  it("cuts at headings and keeps each passage's exact line range and heading", () => {
    const text = [
      "# Atlas", // 1
      "", // 2
      "Atlas is the billing rewrite.", // 3
      "", // 4
      "## Decisions", // 5
      "We chose PostgreSQL for the ledger.", // 6
      "", // 7
      "## People", // 8
      "", // 9
      "Alice leads it.", // 10
      "Bob reviews.", // 11
    ].join("\n");
    const passages = splitIntoPassages(text);
    expect(passages.map((p) => [p.heading, p.lineStart, p.lineEnd])).toEqual([
      ["Atlas", 1, 3],
      ["Decisions", 5, 6],
      ["People", 8, 11],
    ]);
    for (const passage of passages) {
      expect(passage.text).toBe(lines(text, passage.lineStart, passage.lineEnd));
    }
  });

  it("joins short paragraphs of one section and splits long ones at line ends", () => {
    const short = Array.from({ length: 3 }, (_, i) => `Note ${i}.`).join("\n\n");
    expect(splitIntoPassages(short)).toHaveLength(1);
    const long = Array.from({ length: 60 }, (_, i) => `Line ${i} ${"x".repeat(40)}`).join("\n");
    const passages = splitIntoPassages(long);
    expect(passages.length).toBeGreaterThan(1);
    expect(passages[0]!.lineStart).toBe(1);
    expect(passages.at(-1)!.lineEnd).toBe(60);
    for (let i = 1; i < passages.length; i += 1) {
      expect(passages[i]!.lineStart).toBe(passages[i - 1]!.lineEnd + 1);
    }
    const paragraphs = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i} ${"y".repeat(80)}`,
    ).join("\n\n");
    for (const passage of splitIntoPassages(paragraphs)) {
      expect(passage.text.length).toBeLessThanOrEqual(TARGET_CHARS + 100);
      expect(passage.text).toBe(lines(paragraphs, passage.lineStart, passage.lineEnd));
    }
  });

  it("ignores headings inside code fences and has nothing for blank text", () => {
    const text = "Intro\n\n```\n# not a heading\n```\n";
    expect(splitIntoPassages(text).map((p) => p.heading)).toEqual([""]);
    expect(splitIntoPassages("\n\n  \n")).toEqual([]);
  });
});

describe("messageText", () => {
  it("joins a message's text parts and ignores the rest and bad JSON", () => {
    expect(
      messageText(
        JSON.stringify([
          { type: "text", text: "a" },
          { type: "tool-x" },
          { type: "text", text: "b" },
        ]),
      ),
    ).toBe("a\nb");
    expect(messageText("not json")).toBe("");
  });
});
