// Search (issue 24), on SQLite and PostgreSQL:
// 1. retrieval: a generated corpus (people, projects, decisions spread over many session notes)
//    with questions whose answer lives in known lines; recall@5/@10 and MRR of the passage that
//    holds the answer, beside a plain BM25 over whole files (recall@3 of the file);
// 2. latency: p50/p95 of searches over BENCH_SEARCH_PASSAGES (100,000) passages of a Zipf-distributed
//    vocabulary (BENCH_SEARCH_VOCABULARY, BENCH_SEARCH_ZIPF, BENCH_SEARCH_PEOPLE), queries drawn from it;
// 3. commit overhead: one dir commit of a changed 4 KB Markdown file with and without indexing.
import { randomUUID } from "node:crypto";

import type { DatabaseTarget } from "@/lib/db";
import { MockEmbeddingModelV3 } from "ai/test";

import {
  indexDirChanges,
  indexDirCommit,
  searchPassages,
  searchPromptPassages,
  type SearchHit,
  splitIntoPassages,
  type SearchEmbeddings,
} from "@/lib/search";
import { parseQuery } from "@/lib/search/query";
import { memory, openTurnCheckout, runMemoryCommand } from "@/lib/harness";
import { createDirBacking, sqlFor, type Sql } from "@/lib/sql-storage";
import { freshDatabase } from "./databases";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { loadLine, ms, summarize, table, timeIt, type Summary } from "./stats";

type Timed = Summary & { cpu: Summary };

const PASSAGES = Number(process.env.BENCH_SEARCH_PASSAGES ?? 100_000);
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 200);
const COMMITS = Number(process.env.BENCH_SEARCH_COMMITS ?? 200);
const PROVIDERS = (process.env.BENCH_SEARCH_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];

/** A seeded PRNG (mulberry32), so every run generates the same corpus. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

const PEOPLE = [
  "Alice",
  "Bruno",
  "Chen",
  "Dara",
  "Emeka",
  "Farah",
  "Goran",
  "Hana",
  "Ivo",
  "Jun",
  "Kemal",
  "Lena",
];
const PROJECTS = [
  "Atlas",
  "Borealis",
  "Cinder",
  "Delta",
  "Ember",
  "Fjord",
  "Granite",
  "Harbor",
  "Iris",
  "Juniper",
  "Kestrel",
  "Lumen",
  "Meridian",
  "Nimbus",
  "Onyx",
  "Pylon",
];
const COMPONENTS = [
  "ledger",
  "search",
  "billing",
  "auth",
  "queue",
  "cache",
  "reports",
  "exports",
  "alerts",
  "sync",
];
const TECHS = [
  "PostgreSQL",
  "SQLite",
  "Redis",
  "Kafka",
  "RabbitMQ",
  "Elasticsearch",
  "DuckDB",
  "ClickHouse",
  "NATS",
  "MinIO",
  "Temporal",
  "Envoy",
];
const FILLER =
  "team meeting discussed plan review timeline risk budget customer feedback release sprint estimate follow up status update dependency owner scope priority roadmap milestone".split(
    " ",
  );

interface Question {
  query: string;
  file: string;
  line: number;
}

/**
 * Files of session notes: each session covers several projects; a decision sentence names the
 * project, the component, the chosen technology and who decided; the rest is filler that
 * mentions projects, people and technologies too (distractors). One question per decision.
 */
function generateCorpus(sessions: number) {
  const rng = random(24);
  const files = new Map<string, string>();
  const questions: Question[] = [];
  const decided = new Set<string>();
  const filler = (words: number) => Array.from({ length: words }, () => rng.pick(FILLER)).join(" ");
  for (let session = 1; session <= sessions; session += 1) {
    const lines: string[] = [`# Session ${session}`, ""];
    for (let topic = 0; topic < 4; topic += 1) {
      const project = rng.pick(PROJECTS);
      lines.push(`## ${project} ${rng.pick(["sync", "review", "planning", "retro"])}`, "");
      for (let paragraph = 0; paragraph < 3; paragraph += 1) {
        const component = rng.pick(COMPONENTS);
        const key = `${project}/${component}`;
        if (paragraph === 1 && !decided.has(key)) {
          decided.add(key);
          const tech = rng.pick(TECHS);
          const who = rng.pick(PEOPLE);
          lines.push(
            `${filler(8)}. ${who} decided that ${project} will use ${tech} for the ${component} component.`,
          );
          questions.push({
            query: `What did ${project} decide about the ${component} component?`,
            file: `sessions/session-${session}.md`,
            line: lines.length,
          });
          lines.push(`${filler(12)} ${rng.pick(PEOPLE)} asked about ${rng.pick(TECHS)}.`, "");
        } else {
          lines.push(
            `${filler(14)} ${rng.pick(PEOPLE)} mentioned ${rng.pick(PROJECTS)} and ${rng.pick(TECHS)} for ${rng.pick(COMPONENTS)}.`,
            `${filler(16)}.`,
            "",
          );
        }
      }
    }
    files.set(`sessions/session-${session}.md`, lines.join("\n"));
  }
  return { files, questions };
}

/** Plain BM25 (k1 1.2, b 0.75) over whole files: the baseline. */
function wholeFileBm25(files: Map<string, string>) {
  const tokenize = (text: string) => parseQuery(text).terms;
  const docs = [...files].map(([path, text]) => {
    const counts = new Map<string, number>();
    const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    return { path, counts, length: words.length };
  });
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length;
  const df = new Map<string, number>();
  for (const doc of docs)
    for (const word of doc.counts.keys()) df.set(word, (df.get(word) ?? 0) + 1);
  return (query: string) => {
    const terms = tokenize(query);
    return docs
      .map((doc) => {
        let score = 0;
        for (const term of terms) {
          const tf = doc.counts.get(term) ?? 0;
          if (!tf) continue;
          const idf = Math.log(
            1 + (docs.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5),
          );
          score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * doc.length) / average));
        }
        return { path: doc.path, score };
      })
      .filter((doc) => doc.score > 0)
      .sort((a, b) => b.score - a.score)
      .map((doc) => doc.path);
  };
}

const actor = { userId: "bench-user", workspaceId: "bench-ws" };

async function retrieval(sql: Sql) {
  const { files, questions } = generateCorpus(300);
  const dirKey = `company:${actor.workspaceId}`;
  await sql.transaction((tx) =>
    indexDirChanges(tx, {
      dirKey,
      changes: {
        created: [...files].map(([path, content]) => ({ path, content })),
        updated: [],
        deleted: [],
      },
      at: new Date(),
    }),
  );
  const baseline = wholeFileBm25(files);
  let file3 = 0;
  let file10 = 0;
  for (const question of questions) {
    const ranked = baseline(question.query);
    const fileRank = ranked.indexOf(question.file);
    if (fileRank !== -1 && fileRank < 3) file3 += 1;
    if (fileRank !== -1 && fileRank < 10) file10 += 1;
  }
  const lexicalSearch = (query: string, embeddings?: SearchEmbeddings) =>
    searchPassages(sql, { actor, query, limit: 10, ...(embeddings && { embeddings }) });
  const measure = async (search: (query: string) => Promise<SearchHit[]>) => {
    let at5 = 0;
    let at10 = 0;
    let reciprocal = 0;
    for (const question of questions) {
      const hits = await search(question.query);
      const rank = hits.findIndex(
        (hit) =>
          hit.path === question.file &&
          hit.lineStart <= question.line &&
          question.line <= hit.lineEnd,
      );
      if (rank !== -1 && rank < 5) at5 += 1;
      if (rank !== -1) {
        at10 += 1;
        reciprocal += 1 / (rank + 1);
      }
    }
    return { at5, at10, reciprocal };
  };
  const lexical = await measure((query) => lexicalSearch(query));
  const reranked = await measure((query) => lexicalSearch(query, { model: hashedEmbedder() }));
  const prompt = await measure((message) =>
    searchPromptPassages(sql, { actor, message, kinds: ["company", "docs", "memory"], limit: 10 }),
  );
  const passages = [...files.values()].reduce(
    (sum, text) => sum + splitIntoPassages(text).length,
    0,
  );
  const n = questions.length;
  const pct = (count: number) => `${((100 * count) / n).toFixed(1)}%`;
  const row = (measured: typeof lexical) => ({
    "passage recall@5": pct(measured.at5),
    "passage recall@10": pct(measured.at10),
    "passage MRR@10": (measured.reciprocal / n).toFixed(3),
  });
  const corpus = `${files.size} files, ${passages} passages, ${n} questions`;
  const whole = {
    "whole-file BM25 recall@3": pct(file3),
    "whole-file BM25 recall@10": pct(file10),
  };
  return [
    { corpus, ranking: "lexical", ...row(lexical), ...whole },
    { corpus, ranking: "lexical + hashed test embedder (RRF)", ...row(reranked), ...whole },
    { corpus, ranking: "the prompt's passages (decision 0063)", ...row(prompt), ...whole },
  ];
}

/**
 * A deterministic test embedder for the benchmark: words (stop words dropped, cut to their
 * first five letters as a crude stem) hashed into 256 dimensions, counted and normalised. It
 * knows no synonyms; it measures the re-ranking machinery, not a real model's quality.
 */
const EMBEDDER_STOP_WORDS = new Set(
  "the and for that with what did does about will was were this from have has into".split(" "),
);

function hashedEmbedder() {
  const dimensions = 256;
  const vectorOf = (text: string) => {
    const vector = new Array<number>(dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
      if (word.length < 3 || EMBEDDER_STOP_WORDS.has(word)) continue;
      const stem = word.slice(0, 5);
      let hash = 2166136261;
      for (let index = 0; index < stem.length; index += 1) {
        hash = Math.imul(hash ^ stem.charCodeAt(index), 16777619);
      }
      vector[(hash >>> 0) % dimensions]! += 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return vector.map((value) => value / norm);
  };
  return new MockEmbeddingModelV3({
    provider: "bench",
    modelId: "hashed-256",
    maxEmbeddingsPerCall: 2048,
    doEmbed: ({ values }) => Promise.resolve({ embeddings: values.map(vectorOf), warnings: [] }),
  });
}

/**
 * The latency corpus: a Zipf-distributed vocabulary, as real text has. The most frequent words
 * are English stop words (as in real text; the query parser drops them), the rest are generated
 * words; word `r` of the vocabulary occurs with probability proportional to `1 / r^s`.
 */
const LATENCY_VOCABULARY = Number(process.env.BENCH_SEARCH_VOCABULARY ?? 50_000);
const LATENCY_ZIPF = Number(process.env.BENCH_SEARCH_ZIPF ?? 1.0);
/** Owners of memory besides the workspace's company knowledge (each its own audience). */
const LATENCY_PEOPLE = Number(process.env.BENCH_SEARCH_PEOPLE ?? 50);
const LATENCY_STOP_WORDS =
  "the of and to a in is that for it as was with be by on not he i this are or his from at which but have an they you were her she there been one all we their has would when if so no will more what who my can out up about into them some could than then its our these two may other like only time do any".split(
    " ",
  );

/** Distinct pronounceable words, one per rank (syllables ending in a, i, o, u: little stemming). */
function generatedWord(rank: number): string {
  const consonants = "bdfgklmnprstvz";
  const vowels = "aiou";
  let word = "";
  let rest = rank;
  do {
    const syllable = rest % (consonants.length * vowels.length);
    word += consonants[Math.floor(syllable / vowels.length)]! + vowels[syllable % vowels.length]!;
    rest = Math.floor(rest / (consonants.length * vowels.length));
  } while (rest > 0);
  // At least three syllables, so no generated word is a real short word.
  return word.length < 6 ? `${word}${"ta".repeat((6 - word.length) / 2)}` : word;
}

/** A Zipf sampler over `size` ranks (0-based) with exponent `s`: binary search over the CDF. */
function zipf(size: number, s: number, next: () => number) {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank += 1) {
    total += 1 / Math.pow(rank + 1, s);
    cumulative[rank] = total;
  }
  return (from = 0) => {
    // Sampling ranks >= from: scale into the tail of the CDF.
    const low = from === 0 ? 0 : cumulative[from - 1]!;
    const target = low + next() * (total - low);
    let lo = from;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function latencyVocabulary(): string[] {
  const words = [...LATENCY_STOP_WORDS];
  for (let rank = 0; words.length < LATENCY_VOCABULARY; rank += 1) words.push(generatedWord(rank));
  return words;
}

/**
 * `count` passages (20–100 words, Zipf-distributed) spread evenly over `LATENCY_PEOPLE` people's
 * memory and the workspace's company knowledge, inserted as rows (the triggers index them).
 */
export async function seedPassages(sql: Sql, count: number, vocabulary: readonly string[]) {
  const rng = random(7);
  const sample = zipf(vocabulary.length, LATENCY_ZIPF, rng.next);
  const audiences = LATENCY_PEOPLE + 1;
  const rowsPerStatement = 100;
  const now = Date.now();
  await sql.transaction(async (tx) => {
    for (let start = 0; start < count; start += rowsPerStatement) {
      const values: (string | number | Date)[] = [];
      const rows = Math.min(rowsPerStatement, count - start);
      for (let row = 0; row < rows; row += 1) {
        const index = start + row;
        const owner = index % audiences;
        const company = owner === LATENCY_PEOPLE;
        const length = 20 + Math.floor(rng.next() * 81);
        const body = Array.from({ length }, () => vocabulary[sample()]!).join(" ");
        const title = Array.from(
          { length: 2 },
          () => vocabulary[sample(LATENCY_STOP_WORDS.length)]!,
        ).join(" ");
        values.push(
          `dir:bench:${index}`,
          company ? "company" : "memory",
          company ? `workspace:${actor.workspaceId}` : `user:user-${owner}`,
          `notes/${vocabulary[sample(LATENCY_STOP_WORDS.length)]}-${index % 5000}.md`,
          title,
          body,
          1,
          8,
          new Date(now - index * 1000),
        );
      }
      await tx.run(
        `INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
         VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        values,
      );
    }
  });
}

/**
 * Queries drawn from the corpus's own vocabulary: 1–3 content words (no stop words), each drawn
 * with the same Zipf weights as the text (popular words are searched more often); the last word
 * is matched as a prefix, as in the search box. `common`: the 20 most frequent content words
 * only, the worst case for a full-text index.
 */
export function latencyQueries(vocabulary: readonly string[], kind: "zipf" | "common"): string[] {
  const rng = random(kind === "zipf" ? 11 : 13);
  const sample = zipf(vocabulary.length, LATENCY_ZIPF, rng.next);
  const stop = LATENCY_STOP_WORDS.length;
  return Array.from({ length: QUERIES }, (_, index) =>
    Array.from({ length: 1 + (index % 3) }, () =>
      kind === "zipf" ? vocabulary[sample(stop)]! : vocabulary[stop + Math.floor(rng.next() * 20)]!,
    ).join(" "),
  );
}

async function latency(sql: Sql) {
  const vocabulary = latencyVocabulary();
  const seeded = performance.now();
  await seedPassages(sql, PASSAGES, vocabulary);
  // As `cairn search reindex` does (and autovacuum would soon): the planner's statistics.
  if (sql.dialect === "postgres") await sql.run(`ANALYZE "SearchPassage"`);
  const seedMs = performance.now() - seeded;
  // A workspace member (user-3): their memory and the company's passages are searched.
  const member = { userId: "user-3", workspaceId: actor.workspaceId };
  const results: { queries: string; summary: Timed }[] = [];
  for (const kind of ["zipf", "common"] as const) {
    const queries = latencyQueries(vocabulary, kind);
    let next = 0;
    const summary = await timeIt(
      () =>
        searchPassages(sql, { actor: member, query: queries[next++ % queries.length]!, limit: 10 }),
      { iterations: QUERIES, warmup: 10 },
    );
    results.push({
      queries: kind === "zipf" ? "Zipf-drawn words (1-3)" : "20 most common words (1-3)",
      summary,
    });
    const prompt = await timeIt(
      () =>
        searchPromptPassages(sql, {
          actor: member,
          message: queries[next++ % queries.length]!,
          kinds: ["company", "docs", "memory"],
          limit: 10,
        }),
      { iterations: QUERIES, warmup: 10 },
    );
    results.push({
      queries: `the prompt's passages, ${kind === "zipf" ? "Zipf-drawn" : "most common"} words`,
      summary: prompt,
    });
  }
  return { seedMs, results };
}

/**
 * A turn's commit of one changed file, as the app runs it: load the dir (snapshot cache on),
 * change the file in the checkout, commit at the turn's end (diff, compare-and-swap, history
 * row, and — indexed — the file's passages).
 */
async function commitOverhead(sql: Sql, edit: "one section" | "every section") {
  // 8 sections of ~500 characters; each commit changes one of them, or all.
  const file = (tag: number) =>
    Array.from({ length: 8 }, (_, section) => {
      const version = edit === "every section" ? tag : Math.floor((tag + 7 - section) / 8);
      return [
        `## Section ${section} v${version}`,
        "",
        `${FILLER.join(" ")} ${version}`.padEnd(480, " x"),
      ].join("\n");
    }).join("\n\n");
  // Both dirs commit in turns (plain, indexed, plain, …), so a change in the machine's load
  // during the run affects both alike.
  const commitOf = (indexed: boolean) => {
    const dirKey = `user:commit-${indexed}-${randomUUID()}`;
    const backing = createDirBacking<null>({
      sql,
      dirKey: () => dirKey,
      ...(indexed ? { onDirCommitted: indexDirCommit } : {}),
    });
    const dir = memory<null, null>({ harnessDir: "/persistent/user", ...backing });
    const commitLog = createInMemoryCommitLog();
    let tag = 0;
    return async () => {
      tag += 1;
      const turn = await openTurnCheckout({
        dirs: [dir],
        extraBody: null,
        session: null,
        commitLog,
      });
      await runMemoryCommand(turn.checkout, {
        command: "create",
        path: "/persistent/user/notes.md",
        file_text: file(tag),
      });
      const persistence = await turn.finishTurn({ status: "completed" });
      if (persistence.status !== "succeeded") throw new Error("bench commit failed");
    };
  };
  const commits = { plain: commitOf(false), indexed: commitOf(true) };
  const samples = { plain: [] as number[], indexed: [] as number[] };
  const cpuSamples = { plain: [] as number[], indexed: [] as number[] };
  for (let round = 0; round < COMMITS + 10; round += 1) {
    for (const name of ["plain", "indexed"] as const) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await commits[name]();
      const wall = performance.now() - started;
      const cpu = process.cpuUsage(cpuStarted);
      // The first 10 rounds warm up.
      if (round < 10) continue;
      samples[name].push(wall);
      cpuSamples[name].push((cpu.user + cpu.system) / 1000);
    }
  }
  const results = {
    plain: { ...summarize(samples.plain), cpu: summarize(cpuSamples.plain) },
    indexed: { ...summarize(samples.indexed), cpu: summarize(cpuSamples.indexed) },
  };
  const { plain, indexed }: { plain: Timed; indexed: Timed } = results;
  return {
    edit,
    "turn commit p50 / p95, no index": `${ms(plain.p50)} / ${ms(plain.p95)}`,
    indexed: `${ms(indexed.p50)} / ${ms(indexed.p95)}`,
    "overhead (p50)": `${((indexed.p50 / plain.p50 - 1) * 100).toFixed(1)}%`,
    "overhead (cpu p50)": `${((indexed.cpu.p50 / plain.cpu.p50 - 1) * 100).toFixed(1)}%`,
  };
}

/** Which parts run: `BENCH_SEARCH_PARTS=retrieval,commit,latency` (default all three). */
const PARTS = new Set((process.env.BENCH_SEARCH_PARTS ?? "retrieval,commit,latency").split(","));

export async function benchSearch(): Promise<string> {
  const quality: Record<string, string>[] = [];
  const speed: Record<string, string>[] = [];
  const commits: Record<string, string>[] = [];
  for (const provider of PROVIDERS) {
    const database = await freshDatabase(provider);
    try {
      const sql = sqlFor(database.target);
      if (PARTS.has("retrieval")) {
        for (const row of await retrieval(sql)) quality.push({ database: provider, ...row });
      }
      if (PARTS.has("commit")) {
        commits.push({ database: provider, ...(await commitOverhead(sql, "one section")) });
        commits.push({ database: provider, ...(await commitOverhead(sql, "every section")) });
      }
      if (PARTS.has("latency")) {
        const { seedMs, results } = await latency(sql);
        for (const { queries, summary } of results) {
          speed.push({
            database: provider,
            passages: PASSAGES.toLocaleString("en-US"),
            queries,
            n: String(summary.n),
            p50: ms(summary.p50),
            p95: ms(summary.p95),
            min: ms(summary.min),
            "cpu p50 (client)": ms(summary.cpu.p50),
            "seeding (not searched)": ms(seedMs),
          });
        }
      }
    } finally {
      await database.drop();
    }
  }
  const sections: string[] = [];
  if (quality.length) {
    sections.push(`## Search: retrieval on a generated corpus (${loadLine()})`, table(quality), "");
  }
  if (speed.length) {
    sections.push(
      `## Search: latency of one search (limit 10, a member: own memory + company knowledge; ${LATENCY_VOCABULARY.toLocaleString("en-US")}-word Zipf vocabulary, s = ${LATENCY_ZIPF}, ${LATENCY_PEOPLE} people; ${loadLine()})`,
      table(speed),
      "",
    );
  }
  if (commits.length) {
    sections.push(
      `## Search: a turn's commit of a changed 4 KB Markdown file (8 sections), with and without indexing (${loadLine()})`,
      table(commits),
    );
  }
  return sections.join("\n");
}
