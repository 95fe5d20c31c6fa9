// Server memory with many people's dirs in one process (issue 23, "Figures"): BENCH_PEOPLE
// people (default 50), each with a personal memory dir of BENCH_NOTES notes (default 5,000) of
// BENCH_NOTE_BYTES (default 2,000) on SQLite, through the app's SQL backing and the core's lazy
// checkout; BENCH_TURNS turns (default 200) round-robin over the people, each one a memory turn:
// open the checkout, build the memory listing the prompt gets (newest notes' first lines), read
// one note, write it back changed, commit. Prints RSS and heap after every 25 turns, and whether
// RSS is flat over the last half.
//   npx tsx bench/dir-people.ts
//   BENCH_PEOPLE=10 BENCH_NOTES=1000 npx tsx bench/dir-people.ts
import { pathToFileURL } from "node:url";

import { memory, openTurnCheckout } from "@/lib/harness";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { createDirBacking, sqlFor } from "@/lib/sql-storage";
import { freshDatabase } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 50);
const NOTES = Number(process.env.BENCH_NOTES ?? 5_000);
const NOTE_BYTES = Number(process.env.BENCH_NOTE_BYTES ?? 2_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const BATCH = 5_000;

const note = (person: number, index: number, version: number) =>
  `# note ${index} of person ${person} v${version}\n`.padEnd(
    NOTE_BYTES,
    `${(index + person) % 10}`,
  );

type Body = { dirKey: string };

export async function benchDirPeople(): Promise<string> {
  const database = await freshDatabase("sqlite");
  try {
    const sql = sqlFor(database.target);
    const backing = createDirBacking<Body>({ sql, dirKey: ({ extraBody }) => extraBody.dirKey });
    const seedStarted = performance.now();
    for (let person = 0; person < PEOPLE; person += 1) {
      let cursor = 0;
      for (let start = 0; start < NOTES; start += BATCH) {
        const created = [];
        for (let index = start; index < Math.min(NOTES, start + BATCH); index += 1)
          created.push({
            path: `notes/${index % 50}/n${index}.md`,
            content: note(person, index, 0),
          });
        const result = await backing.store({
          extraBody: { dirKey: `user:${person}` },
          session: null,
          harnessDir: "/persistent/user",
          cursor,
          changes: { created, updated: [], deleted: [] },
        });
        if (result.status !== "stored") throw new Error("seed lost its compare-and-swap");
        cursor = Number(result.cursor);
      }
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const dirs = [memory<Body>({ harnessDir: "/persistent/user", ...backing })];
    const commitLog = createInMemoryCommitLog();
    const samples: { turn: number; rssMB: number; heapMB: number }[] = [];
    const durations: number[] = [];
    global.gc?.();
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const person = turn % PEOPLE;
      const index = (turn * 7919) % NOTES;
      const path = `/persistent/user/notes/${index % 50}/n${index}.md`;
      const started = performance.now();
      const checkout = await openTurnCheckout({
        dirs,
        extraBody: { dirKey: `user:${person}` },
        session: null,
        commitLog,
      });
      await dirs[0]!.listingForPrompt({ checkout: checkout.checkout });
      const before = await checkout.checkout.readFile({ path });
      checkout.checkout.writeFile({ path, content: `${String(before)}\nturn ${turn}` });
      const persistence = await checkout.finishTurn({ status: "completed" });
      durations.push(performance.now() - started);
      if (persistence.status !== "succeeded")
        throw new Error(`turn ${turn}: ${persistence.status}`);
      if (turn % 25 === 0) {
        global.gc?.();
        const usage = process.memoryUsage();
        samples.push({
          turn,
          rssMB: Math.round(usage.rss / 1e6),
          heapMB: Math.round(usage.heapUsed / 1e6),
        });
      }
    }
    const half = samples.filter((sample) => sample.turn > TURNS / 2);
    const spread = Math.max(...half.map((s) => s.rssMB)) - Math.min(...half.map((s) => s.rssMB));
    return [
      `Dir people: ${PEOPLE} people × ${NOTES.toLocaleString("en-US")} notes of ${NOTE_BYTES} B (SQLite), ${TURNS} memory turns round-robin`,
      loadLine(),
      `seed ${Math.round((PEOPLE * NOTES) / seedSeconds).toLocaleString("en-US")} files/s; turn p50 ${ms(summarize(durations).p50)}, p95 ${ms(summarize(durations).p95)}`,
      `RSS over the last ${half.length * 25} turns: ${Math.min(...half.map((s) => s.rssMB))}–${Math.max(...half.map((s) => s.rssMB))} MB (spread ${spread} MB)`,
      "",
      table(samples.map((s) => ({ turn: s.turn, "RSS MB": s.rssMB, "heap MB": s.heapMB }))),
    ].join("\n");
  } finally {
    await database.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchDirPeople());
}
