import { MockEmbeddingModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { sqlFor, type Sql } from "@/lib/sql-storage";
import { reciprocalRankFusion } from "./embeddings";
import { searchPassages } from "./search";
import { createSearchService, type SearchEmbeddingsResolver } from "./search-service";

const database = registerTestDatabase();
const provider = testDatabaseProvider();
const actor = { userId: "u-embed", workspaceId: "w-embed" };
let sql: Sql;

/**
 * A deterministic test embedder: texts about burrows (and the query) point one way, everything
 * else the other, so the semantic order is known. It records every call.
 */
function burrowEmbedder() {
  return new MockEmbeddingModelV3({
    provider: "test",
    modelId: "burrows",
    maxEmbeddingsPerCall: 100,
    doEmbed: ({ values }) =>
      Promise.resolve({
        embeddings: values.map((text) =>
          text.includes("burrow") || text === "wombat" ? [1, 0] : [0, 1],
        ),
        warnings: [],
      }),
  });
}

async function passage(path: string, title: string, body: string) {
  await sql.run(
    `INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
     VALUES (?, 'memory', ?, ?, ?, ?, 1, 3, ?)`,
    [`dir:user:${actor.userId}:${path}`, `user:${actor.userId}`, path, title, body, new Date()],
  );
}

beforeAll(async () => {
  sql = sqlFor(database.target);
  await passage("a.md", "Wombat", "notes about the wombat");
  await passage("b.md", "Zoo", "wombat wombat wombat feeding times");
  await passage(
    "c.md",
    "Garden",
    "a long paragraph on digging, soil, tunnels and where the wombat lives: a burrow under the old shed, and other things",
  );
});

describe("reciprocal rank fusion", () => {
  it("adds 1 / (k + rank) over the rankings, ties in the first ranking's order", () => {
    expect(
      reciprocalRankFusion([
        ["a", "b", "c"],
        ["c", "a", "b"],
      ]),
    ).toEqual(["a", "c", "b"]);
    expect(reciprocalRankFusion([["a", "b"], []])).toEqual(["a", "b"]);
    // With a small k, second place in both rankings beats first place in one.
    expect(
      reciprocalRankFusion(
        [
          ["x", "y"],
          ["z", "y"],
        ],
        1,
      ),
    ).toEqual(["y", "x", "z"]);
  });
});

describe(`semantic re-ranking on ${provider}`, () => {
  it("re-ranks the lexical candidates with the embedder's vectors and stores them once", async () => {
    const lexical = await searchPassages(sql, { actor, query: "wombat" });
    expect(lexical.map((hit) => hit.path)).toHaveLength(3);
    const lastLexically = lexical.at(-1)!.path;
    expect(lastLexically).toBe("c.md");

    const model = burrowEmbedder();
    const reranked = await searchPassages(sql, { actor, query: "wombat", embeddings: { model } });
    // The burrow passage, last lexically and first semantically, passes the middle one.
    expect(reranked.map((hit) => hit.path)).toEqual([lexical[0]!.path, "c.md", lexical[1]!.path]);
    // One call: the query first, then every candidate's heading and text.
    expect(model.doEmbedCalls).toHaveLength(1);
    const sent = model.doEmbedCalls[0]!.values;
    expect(sent[0]).toBe("wombat");
    expect([...sent.slice(1)].sort()).toEqual(
      [
        "Wombat\nnotes about the wombat",
        "Zoo\nwombat wombat wombat feeding times",
        expect.stringMatching(/^Garden\na long paragraph/) as unknown as string,
      ].sort(),
    );

    // The vectors are stored per passage: the next search embeds only the query.
    const again = await searchPassages(sql, { actor, query: "wombat", embeddings: { model } });
    expect(again.map((hit) => hit.path)).toEqual(reranked.map((hit) => hit.path));
    expect(model.doEmbedCalls).toHaveLength(2);
    expect(model.doEmbedCalls[1]!.values).toEqual(["wombat"]);
    const stored = await sql.all<{ model: string }>(`SELECT "model" FROM "SearchPassageVector"`);
    expect(stored.map((row) => row.model)).toEqual([
      "test:burrows",
      "test:burrows",
      "test:burrows",
    ]);
  });

  it("answers lexically when the embedder fails", async () => {
    const model = new MockEmbeddingModelV3({
      doEmbed: () => Promise.reject(new Error("provider down")),
    });
    const lexical = await searchPassages(sql, { actor, query: "wombat" });
    const hits = await searchPassages(sql, { actor, query: "wombat", embeddings: { model } });
    expect(hits.map((hit) => hit.path)).toEqual(lexical.map((hit) => hit.path));
  });
});

describe(`search mode on ${provider}`, () => {
  it("is lexical without an embedding model and names the model with one", async () => {
    const modeWith = (embeddings?: SearchEmbeddingsResolver) =>
      createSearchService({ sql, docsFolder: null, embeddings }).mode(actor.workspaceId);
    expect(await modeWith()).toEqual({
      mode: "lexical",
      reason: "no embedding model is configured",
    });
    const off = () => Promise.resolve({ off: "AI_EMBEDDING_MODEL is not set" });
    expect(await modeWith(off)).toEqual({
      mode: "lexical",
      reason: "AI_EMBEDDING_MODEL is not set",
    });
    const semantic = () => Promise.resolve({ model: burrowEmbedder(), label: "test:burrows" });
    expect(await modeWith(semantic)).toEqual({
      mode: "semantic",
      model: "test:burrows",
    });
  });
});
