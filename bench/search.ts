// Search (issue 24), on SQLite and PostgreSQL:
// 1. retrieval: a generated corpus (people, projects, decisions spread over many session notes)
//    with questions whose answer lives in known lines; recall@5/@10 and MRR of the passage that
//    holds the answer, beside a plain BM25 over whole files (recall@3 of the file);
// 2. latency: p50/p95 of searches over BENCH_SEARCH_PASSAGES (100,000) passages;
// 3. commit overhead: one dir commit of a changed 4 KB Markdown file with and without indexing.
import { randomUUID } from "node:crypto";

import type { DatabaseTarget } from "@/lib/db";
import { indexDirChanges, indexDirCommit, searchPassages, splitIntoPassages } from "@/lib/search";
import { parseQuery } from "@/lib/search/query";
import { memory, openTurnCheckout, runMemoryCommand } from "@/lib/harness";
import { createDirBacking, sqlFor, type Sql } from "@/lib/storage";
import { freshDatabase } from "./databases";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { loadLine, ms, table, timeIt, type Summary } from "./stats";

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
  let at5 = 0;
  let at10 = 0;
  let reciprocal = 0;
  let file3 = 0;
  let file10 = 0;
  for (const question of questions) {
    const hits = await searchPassages(sql, { actor, query: question.query, limit: 10 });
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
    const ranked = baseline(question.query);
    const fileRank = ranked.indexOf(question.file);
    if (fileRank !== -1 && fileRank < 3) file3 += 1;
    if (fileRank !== -1 && fileRank < 10) file10 += 1;
  }
  const passages = [...files.values()].reduce(
    (sum, text) => sum + splitIntoPassages(text).length,
    0,
  );
  const n = questions.length;
  const pct = (count: number) => `${((100 * count) / n).toFixed(1)}%`;
  return {
    corpus: `${files.size} files, ${passages} passages, ${n} questions`,
    "passage recall@5": pct(at5),
    "passage recall@10": pct(at10),
    "passage MRR@10": (reciprocal / n).toFixed(3),
    "whole-file BM25 recall@3": pct(file3),
    "whole-file BM25 recall@10": pct(file10),
  };
}

/** `count` passages over 50 people's memory and the workspace's company knowledge (direct rows). */
async function seedPassages(sql: Sql, count: number) {
  const rng = random(7);
  const words = [...FILLER, ...PEOPLE, ...PROJECTS, ...COMPONENTS, ...TECHS].map((word) =>
    word.toLowerCase(),
  );
  const perStatement = sql.dialect === "sqlite" ? 1 : 200;
  const now = Date.now();
  await sql.transaction(async (tx) => {
    for (let start = 0; start < count; start += perStatement) {
      const values: (string | number | Date)[] = [];
      const rows = Math.min(perStatement, count - start);
      for (let row = 0; row < rows; row += 1) {
        const index = start + row;
        const owner = index % 51;
        const audience = owner === 50 ? `workspace:${actor.workspaceId}` : `user:user-${owner}`;
        const body = Array.from({ length: 60 }, () => rng.pick(words)).join(" ");
        values.push(
          `dir:bench:${index}`,
          owner === 50 ? "company" : "memory",
          audience,
          `notes/file-${index % 5000}.md`,
          rng.pick(PROJECTS),
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

async function latency(sql: Sql) {
  const seeded = performance.now();
  await seedPassages(sql, PASSAGES);
  const seedMs = performance.now() - seeded;
  const rng = random(11);
  const queries = Array.from({ length: QUERIES }, (_, index) => {
    const words = [rng.pick(PROJECTS), rng.pick(COMPONENTS), rng.pick(TECHS)];
    return words.slice(0, 1 + (index % 3)).join(" ");
  });
  let next = 0;
  // A workspace member (user-3): their memory and the company's passages are searched.
  const member = { userId: "user-3", workspaceId: actor.workspaceId };
  const summary = await timeIt(
    () =>
      searchPassages(sql, { actor: member, query: queries[next++ % queries.length]!, limit: 10 }),
    { iterations: QUERIES, warmup: 10 },
  );
  return { seedMs, summary };
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
  const results: Record<string, Timed> = {};
  for (const indexed of [false, true]) {
    const dirKey = `user:commit-${indexed}-${randomUUID()}`;
    const backing = createDirBacking<null>({
      sql,
      dirKey: () => dirKey,
      ...(indexed ? { onDirCommitted: indexDirCommit } : {}),
    });
    const dir = memory<null, null>({ harnessDir: "/persistent/user", ...backing });
    const commitLog = createInMemoryCommitLog();
    let tag = 0;
    const commit = async () => {
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
    results[indexed ? "indexed" : "plain"] = await timeIt(commit, {
      iterations: COMMITS,
      warmup: 10,
    });
  }
  const { plain, indexed } = results as { plain: Timed; indexed: Timed };
  return {
    edit,
    "turn commit p50 / p95, no index": `${ms(plain.p50)} / ${ms(plain.p95)}`,
    indexed: `${ms(indexed.p50)} / ${ms(indexed.p95)}`,
    "overhead (p50)": `${((indexed.p50 / plain.p50 - 1) * 100).toFixed(1)}%`,
    "overhead (cpu p50)": `${((indexed.cpu.p50 / plain.cpu.p50 - 1) * 100).toFixed(1)}%`,
  };
}

export async function benchSearch(): Promise<string> {
  const quality: Record<string, string>[] = [];
  const speed: Record<string, string>[] = [];
  const commits: Record<string, string>[] = [];
  for (const provider of PROVIDERS) {
    const database = await freshDatabase(provider);
    try {
      const sql = sqlFor(database.target);
      quality.push({ database: provider, ...(await retrieval(sql)) });
      commits.push({ database: provider, ...(await commitOverhead(sql, "one section")) });
      commits.push({ database: provider, ...(await commitOverhead(sql, "every section")) });
      const { seedMs, summary } = await latency(sql);
      speed.push({
        database: provider,
        passages: PASSAGES.toLocaleString("en-US"),
        queries: String(summary.n),
        p50: ms(summary.p50),
        p95: ms(summary.p95),
        min: ms(summary.min),
        "seeding (not searched)": ms(seedMs),
      });
    } finally {
      await database.drop();
    }
  }
  return [
    `## Search: retrieval on a generated corpus (${loadLine()})`,
    table(quality),
    "",
    `## Search: latency of one search (limit 10, a member: own memory + company knowledge)`,
    table(speed),
    "",
    `## Search: a turn's commit of a changed 4 KB Markdown file (8 sections), with and without indexing`,
    table(commits),
  ].join("\n");
}
