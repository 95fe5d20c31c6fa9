import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Entry } from "../types";
import { EntryFacts, WordDictionary } from "./entry-facts";
import { queryTerms, relevance } from "./lexical-relevance";
import { testEntry } from "./test-entry";

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
  return testEntry({
    id: fields.id,
    kind: "skill",
    title: fields.title,
    content: fields.content,
    path: fields.path,
    metadata: { name: fields.name, description: fields.description },
  });
}

/** The remembered-words scoring the prompt view uses, for entries scored in turn. */
function indexedScores(dictionary: WordDictionary, entries: Entry[], terms: string[]): number[] {
  dictionary.prepare(terms);
  return entries.map((entry) => new EntryFacts(entry).score(dictionary));
}

const fieldsArbitrary = fc.record({
  title: tricky,
  id: tricky,
  path: tricky,
  content: tricky,
  name: tricky,
  description: tricky,
});
const queryArbitrary = fc.oneof(
  tricky,
  fc.constantFrom("deploy the İ release", "σ ς i̇ deploy", "k ff", "deploys DEPLOYMENTS"),
);

describe("relevance", () => {
  it("the prompt view's remembered-words scoring equals the plain definition, across queries and entries", () => {
    // One dictionary for the whole run, as in a long-lived process: words interned by
    // earlier queries and entries, words first seen after `prepare`, and stale marks from
    // earlier queries must all leave the scores exact.
    const dictionary = new WordDictionary();
    fc.assert(
      fc.property(fc.array(fieldsArbitrary, { maxLength: 6 }), queryArbitrary, (fields, query) => {
        const entries = fields.map(entryOf);
        const terms = queryTerms(query);
        expect(indexedScores(dictionary, entries, terms)).toEqual(
          entries.map((entry) => relevance(entry, terms)),
        );
      }),
      { numRuns: 1500 },
    );
  });

  it("keeps scoring exact when the same facts are scored again for other queries", () => {
    const dictionary = new WordDictionary();
    const entry = entryOf({
      title: "Deployment checklist",
      id: "deploy-checklist",
      path: "ops",
      content: "Run the migrations before the release",
      name: "",
      description: "",
    });
    const facts = new EntryFacts(entry);
    for (const query of ["deploy", "migration", "checklist release", "nothing here", "deploy"]) {
      const terms = queryTerms(query);
      dictionary.prepare(terms);
      expect(facts.score(dictionary)).toBe(relevance(entry, terms));
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

  it("matches words by prefix, not inside words, and folds plural terms", () => {
    const entry = entryOf({
      title: "Deployment notes",
      id: "n",
      path: "ops",
      content: "Start the workers; PostgreSQL hosts the queue",
      name: "",
      description: "",
    });
    expect(relevance(entry, queryTerms("deploy"))).toBe(2);
    expect(relevance(entry, queryTerms("deploys"))).toBe(2);
    expect(relevance(entry, queryTerms("art"))).toBe(0);
    expect(relevance(entry, queryTerms("postgres worker"))).toBe(2);
    expect(relevance(entry, queryTerms("sql"))).toBe(0);
  });

  it("drops stopwords, one-letter words and duplicates from the query, and keeps -ss/-us/-is", () => {
    expect(queryTerms("How do I deploy the Deploys to a cluster?")).toEqual(["deploy", "cluster"]);
    expect(queryTerms("class status analysis x")).toEqual(["class", "status", "analysis"]);
    expect(queryTerms("")).toEqual([]);
    expect(queryTerms(undefined)).toEqual([]);
  });
});
