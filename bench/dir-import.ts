// `cairn dir import` throughput (issue 23, "Figures": 100,000 files of ~500 MB at 2,000 files/s
// on SQLite and 1,000 files/s on PostgreSQL). Generates a folder of BENCH_IMPORT_FILES Markdown
// files (default 10,000; the workload is 100,000) of about BENCH_IMPORT_FILE_BYTES
// (default 5,000) each — headings and paragraphs of Zipf-distributed words in 37 top folders —
// once per size under the system's temporary folder, then imports it into a fresh database's
// company knowledge through the CLI's own command (parts, search indexing, history), and prints
// files/s, MB/s and the share of the time the search index took (measured by a second import
// into another fresh database with the index switched off, BENCH_IMPORT_NO_INDEX=1 to include).
//   npx tsx bench/dir-import.ts
//   BENCH_IMPORT_FILES=100000 BENCH_IMPORT_DATABASES=sqlite npx tsx bench/dir-import.ts
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";

import { loadConfig } from "@/lib/config";
import { createDb, type DatabaseTarget } from "@/lib/db";
import { dirImportCommand } from "@/cli/dir-import-command";
import { freshDatabase } from "./databases";
import { loadLine, table } from "./stats";

const FILES = Number(process.env.BENCH_IMPORT_FILES ?? 10_000);
const FILE_BYTES = Number(process.env.BENCH_IMPORT_FILE_BYTES ?? 5_000);
const PROVIDERS = (process.env.BENCH_IMPORT_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];
const WITHOUT_INDEX = process.env.BENCH_IMPORT_NO_INDEX === "1";
const FOLDERS = 37;

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 20,000 pronounceable words, sampled with probability proportional to 1 / rank. */
function wordSampler(next: () => number) {
  const consonants = "bdfgklmnprstvz";
  const vowels = "aiou";
  const words: string[] = [];
  for (let rank = 0; words.length < 20_000; rank += 1) {
    let word = "";
    let rest = rank;
    do {
      const syllable = rest % (consonants.length * vowels.length);
      word += consonants[Math.floor(syllable / vowels.length)]! + vowels[syllable % vowels.length]!;
      rest = Math.floor(rest / (consonants.length * vowels.length));
    } while (rest > 0);
    words.push(word);
  }
  const cumulative = new Float64Array(words.length);
  let total = 0;
  words.forEach((_, rank) => {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  });
  return () => {
    const target = next() * total;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

/** The corpus folder for this size, generated once (a marker file says it is complete). */
function corpus(): { folder: string; bytes: number } {
  const folder = path.join(tmpdir(), `cairn-import-corpus-${FILES}-${FILE_BYTES}`);
  const marker = `${folder}.complete`;
  const next = random(23);
  const word = wordSampler(next);
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 14) }, word);
    return `${words.join(" ")}.`;
  };
  if (!existsSync(marker)) {
    rmSync(folder, { recursive: true, force: true });
    let bytes = 0;
    for (let index = 0; index < FILES; index += 1) {
      const top = `area-${index % FOLDERS}`;
      const sub = `topic-${Math.floor(index / FOLDERS) % 27}`;
      const dir = path.join(folder, top, sub);
      if (index < FOLDERS * 27) mkdirSync(dir, { recursive: true });
      let text = `# ${word()} ${word()} ${index}\n\n`;
      let section = 0;
      while (text.length < FILE_BYTES) {
        if (next() < 0.2) text += `## ${word()} ${word()} ${(section += 1)}\n\n`;
        text += `${Array.from({ length: 2 + Math.floor(next() * 5) }, sentence).join(" ")}\n\n`;
      }
      writeFileSync(path.join(dir, `note-${index}.md`), text);
      bytes += Buffer.byteLength(text);
    }
    writeFileSync(marker, String(bytes));
    return { folder, bytes };
  }
  return { folder, bytes: Number(readFileSync(marker, "utf8")) };
}

async function importOnce(provider: DatabaseTarget["provider"], folder: string, index: boolean) {
  const database = await freshDatabase(provider);
  try {
    const db = createDb(database.target);
    await db.workspace.create({ data: { id: "w-bench", name: "Bench" } });
    await db.$disconnect();
    const base = loadConfig({
      ...process.env,
      DATABASE_URL: database.target.url,
      CAIRN_DIR_MAX_FILES: String(Math.max(FILES, 100_000)),
    });
    const config = { ...base, database: database.target };
    const lines: string[] = [];
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const code = await dirImportCommand(
      [folder, "--workspace", "Bench", "--dir", "company"],
      { out: (line) => lines.push(line), err: () => undefined },
      config,
      { searchIndex: index },
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStarted);
    if (code !== 0) throw new Error(`import failed: ${lines.join("\n")}`);
    return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, summary: lines[0] ?? "" };
  } finally {
    await database.drop();
  }
}

async function main() {
  const { folder, bytes } = corpus();
  console.log(
    `dir import: ${FILES.toLocaleString("en-US")} files, ${(bytes / 1e6).toFixed(0)} MB; ${cpus().length} cores; load ${loadavg()[0]!.toFixed(1)}`,
  );
  const rows: Record<string, string>[] = [];
  for (const provider of PROVIDERS) {
    const indexed = await importOnce(provider, folder, true);
    const row = (run: typeof indexed, index: string) => ({
      database: provider,
      "search index": index,
      time: `${run.seconds.toFixed(1)} s`,
      "files/s": Math.round(FILES / run.seconds).toLocaleString("en-US"),
      "MB/s": (bytes / 1e6 / run.seconds).toFixed(1),
      "import process CPU": `${run.cpuSeconds.toFixed(1)} s`,
    });
    rows.push(row(indexed, "written"));
    if (WITHOUT_INDEX) rows.push(row(await importOnce(provider, folder, false), "off"));
    console.log(`  ${provider}: ${indexed.summary}`);
  }
  console.log(table(rows));
  console.log(loadLine());
}

await main();
