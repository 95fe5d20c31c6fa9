import { describe, expect, it } from "vitest";
import { fts5Match, matcherOf, parseQuery, termMatcher, termPattern, tsQuery } from "./query";
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

describe("termPattern", () => {
  it("finds in a text exactly the words termMatcher accepts", () => {
    const text =
      "policy policies policyholders apolicy policy_x metric metrics metrical été étés 7 77";
    const words = text.split(" ");
    for (const term of ["policy", "metric", "été", "7", "77"]) {
      const found = text.match(termPattern(term)) ?? [];
      expect(found, term).toEqual(words.filter(termMatcher(term)));
    }
    expect("policies, policy.".match(termPattern("policy"))).toEqual(["policies", "policy"]);
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
