import { describe, expect, it } from "vitest";
import { fts5Match, matcherOf, parseQuery, tsQuery } from "./query";
import { formatSnippet, snippetOf } from "./snippet";

describe("parseQuery", () => {
  it("keeps words and phrases, drops stop words, and takes the last word as a prefix", () => {
    const query = parseQuery('what is the "launch date" of atla');
    expect(query).toEqual({ terms: ["atla"], phrases: [["launch", "date"]], prefixLast: true });
    expect(fts5Match(query)).toBe('"atla"* OR "launch date"');
    expect(tsQuery(query)).toBe("atla:* | (launch <-> date)");
    expect(parseQuery("metric ").prefixLast).toBe(false);
  });

  it("lets no query syntax through", () => {
    const query = parseQuery(`body:" OR NEAR( a* ) -- ' ; DROP TABLE x & | ! <->`);
    for (const word of [...query.terms, ...query.phrases.flat()]) {
      expect(word).toMatch(/^[\p{L}\p{N}_]+$/u);
    }
    expect(fts5Match(parseQuery('"'))).toBe("");
  });

  it("falls back to stop words when nothing else is left", () => {
    expect(parseQuery("the who").terms).toEqual(["the", "who"]);
  });
});

describe("snippets", () => {
  it("marks the matched words in the best window", () => {
    const text = `${"filler ".repeat(50)}the metrics dashboard shows latency ${"tail ".repeat(50)}`;
    const snippet = snippetOf(text, matcherOf(parseQuery("metric dashboard")));
    expect(formatSnippet(snippet)).toContain("**metrics** **dashboard** shows latency");
    expect(formatSnippet(snippet).startsWith("… ")).toBe(true);
  });
});
