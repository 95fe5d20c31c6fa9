/**
 * Optional semantic re-ranking (decision 0052): the lexical candidates of one search are ranked
 * a second time by the cosine similarity of their embeddings to the query's, and the two orders
 * are fused by reciprocal rank fusion. Vectors are stored per passage (`SearchPassageVector`) the
 * first time a passage is a candidate, so a passage is embedded once per model; compared in
 * process over the candidates only (no vector index).
 */
import { cosineSimilarity, embedMany, type EmbeddingModel } from "ai";

import { placeholders, toBytes, type SqlExecutor } from "@/lib/sql-storage/sql";

/** RRF's constant: 60, as in Cormack et al. and most search engines' defaults. */
export const RRF_K = 60;

/** Lexical candidates re-ranked per search when embeddings are on (decision 0052). */
export const RERANK_CANDIDATES = 50;

/** The embedding side of a search: a model from the configured provider. */
export interface SearchEmbeddings {
  /** An AI SDK embedding model (`provider.embeddingModel(id)`, or a mock in tests). */
  model: Exclude<EmbeddingModel, string>;
  abortSignal?: AbortSignal;
}

/**
 * Reciprocal rank fusion: each ranking adds `1 / (k + rank)` (rank from 1) to an item's score;
 * items are returned best first, ties kept in the first ranking's order.
 */
export function reciprocalRankFusion<T>(
  rankings: readonly (readonly T[])[],
  k: number = RRF_K,
): T[] {
  const scores = new Map<T, number>();
  const firstSeen = new Map<T, number>();
  for (const ranking of rankings) {
    ranking.forEach((item, index) => {
      scores.set(item, (scores.get(item) ?? 0) + 1 / (k + index + 1));
      if (!firstSeen.has(item)) firstSeen.set(item, firstSeen.size);
    });
  }
  return [...scores.keys()].sort(
    (a, b) => scores.get(b)! - scores.get(a)! || firstSeen.get(a)! - firstSeen.get(b)!,
  );
}

/** `<provider>:<model id>`: vectors of another model are never compared with this one's. */
export function embeddingModelKey(model: SearchEmbeddings["model"]): string {
  return `${model.provider}:${model.modelId}`;
}

const encodeVector = (vector: readonly number[]) => Buffer.from(new Float32Array(vector).buffer);

function decodeVector(value: unknown): number[] {
  const bytes = toBytes(value);
  const floats = new Float32Array(bytes.byteLength / 4);
  for (let index = 0; index < floats.length; index += 1) {
    floats[index] = bytes.readFloatLE(index * 4);
  }
  return [...floats];
}

/**
 * The candidates' ids (lexical order) re-ranked with embeddings: the query and every candidate
 * without a stored vector of this model are embedded in one `embedMany` call; new vectors are
 * stored (a failure to store is ignored: the next search embeds them again).
 */
export async function rerankWithEmbeddings(
  executor: SqlExecutor,
  options: {
    embeddings: SearchEmbeddings;
    query: string;
    /** Lexical order, best first. */
    candidates: readonly { id: number; text: string }[];
  },
): Promise<number[]> {
  const { embeddings, candidates } = options;
  const lexical = candidates.map((candidate) => candidate.id);
  if (candidates.length < 2) return lexical;
  const modelKey = embeddingModelKey(embeddings.model);
  const stored = new Map<number, number[]>();
  const rows = await executor.all<{ passageId: number; vector: unknown }>(
    `SELECT "passageId", "vector" FROM "SearchPassageVector"
     WHERE "model" = ? AND "passageId" IN (${placeholders(lexical.length)})`,
    [modelKey, ...lexical],
  );
  for (const row of rows) stored.set(Number(row.passageId), decodeVector(row.vector));
  const missing = candidates.filter((candidate) => !stored.has(candidate.id));
  const { embeddings: vectors } = await embedMany({
    model: embeddings.model,
    values: [options.query, ...missing.map((candidate) => candidate.text)],
    abortSignal: embeddings.abortSignal,
    // A search answers as you type: on a failure it answers lexically rather than wait.
    maxRetries: 0,
  });
  const [queryVector, ...fresh] = vectors;
  if (!queryVector) return lexical;
  missing.forEach((candidate, index) => stored.set(candidate.id, fresh[index]!));
  if (missing.length > 0) {
    try {
      await executor.run(
        `INSERT INTO "SearchPassageVector" ("passageId", "model", "vector", "createdAt")
         VALUES ${missing.map(() => "(?, ?, ?, ?)").join(", ")}
         ON CONFLICT ("passageId") DO UPDATE SET "model" = excluded."model",
           "vector" = excluded."vector", "createdAt" = excluded."createdAt"`,
        missing.flatMap((candidate, index) => [
          candidate.id,
          modelKey,
          encodeVector(fresh[index]!),
          new Date(),
        ]),
      );
    } catch {
      // A passage deleted meanwhile (its row gone) or a read-only replica: rank anyway.
    }
  }
  const semantic = [...lexical].sort(
    (a, b) =>
      cosineSimilarity(queryVector, stored.get(b)!) - cosineSimilarity(queryVector, stored.get(a)!),
  );
  return reciprocalRankFusion([lexical, semantic]);
}
