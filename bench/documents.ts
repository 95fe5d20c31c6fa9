// Document conversion and upload (issue 25): converting a 100-page PDF (40 lines of text a page)
// and a 5 MB DOCX (text only — the worst case for conversion work; images would only be dropped)
// through `convertDocument`, with wall time and peak RSS over the process's before-figure
// (sampled every 5 ms); and one upload batch of 1,000 small Markdown files (1 KiB each) into a
// person's memory through the upload service on SQLite: one commit. Run alone:
//
//   npm run bench -- documents
//   BENCH_DOC_PAGES=200 BENCH_UPLOAD_FILES=500 npm run bench -- documents
import { createDb } from "@/lib/db";
import { convertDocument } from "@/lib/documents";
import { makeDocx, makeReportPdf } from "@/lib/documents/testing";
import type { Actor } from "@/lib/harness";
import type { JobQueue } from "@/lib/jobs/job-queue";
import { createPersistentDirsService } from "@/lib/workspace-dirs/dirs-service";
import { sqlFor } from "@/lib/sql-storage";
import { createUploadService } from "@/lib/uploads/upload-service";
import { freshDatabase } from "./databases";
import { loadLine, ms, table } from "./stats";

const PAGES = Number(process.env.BENCH_DOC_PAGES ?? 100);
const DOCX_MB = Number(process.env.BENCH_DOCX_MB ?? 5);
const FILES = Number(process.env.BENCH_UPLOAD_FILES ?? 1000);

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Runs `work` once, sampling RSS every 5 ms: its time and how far RSS rose above where it began. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; peak: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, ms: performance.now() - started, peak: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/** A DOCX of at least `megabytes` MB (text paragraphs). */
async function docxOf(megabytes: number): Promise<Uint8Array> {
  // About 150 bytes of deflated XML a paragraph; one pass, then one correction.
  let paragraphs = Math.ceil((megabytes * 1024 * 1024) / 150);
  let bytes = await makeDocx({ paragraphs });
  if (bytes.byteLength < megabytes * 1024 * 1024) {
    paragraphs = Math.ceil((paragraphs * megabytes * 1024 * 1024 * 1.02) / bytes.byteLength);
    bytes = await makeDocx({ paragraphs });
  }
  return bytes;
}

export async function benchDocuments(): Promise<string> {
  const pdf = await makeReportPdf({ pages: PAGES, fillerLines: 40 });
  const docx = await docxOf(DOCX_MB);
  const limits = { maxFileBytes: 64 * 1024 * 1024 };
  const rows: Record<string, string | number>[] = [];
  // A first, untimed PDF so pdf.js's module load is not counted as conversion.
  await convertDocument({ name: "warm.pdf", bytes: await makeReportPdf(), limits });
  const pdfRun = await measured(() => convertDocument({ name: "report.pdf", bytes: pdf, limits }));
  rows.push({
    input: `PDF, ${PAGES} pages`,
    size: mb(pdf.byteLength),
    time: ms(pdfRun.ms),
    "peak RSS rise": mb(pdfRun.peak),
    markdown: mb(Buffer.byteLength(pdfRun.value.markdown)),
  });
  const docxRun = await measured(() => convertDocument({ name: "big.docx", bytes: docx, limits }));
  rows.push({
    input: "DOCX, text",
    size: mb(docx.byteLength),
    time: ms(docxRun.ms),
    "peak RSS rise": mb(docxRun.peak),
    markdown: mb(Buffer.byteLength(docxRun.value.markdown)),
  });

  const database = await freshDatabase("sqlite");
  const db = createDb(database.target);
  try {
    const actor: Actor = { userId: "bench-user", workspaceId: "bench-w", role: "member" };
    const enqueued: string[] = [];
    const queue = {
      enqueue: async (name: string) => {
        enqueued.push(name);
        return null;
      },
    } as unknown as JobQueue;
    const uploads = createUploadService({
      dirs: createPersistentDirsService({ sql: sqlFor(database.target) }),
      sql: () => sqlFor(database.target),
      queue: () => queue,
    });
    const files = Array.from({ length: FILES }, (_, i) => ({
      name: `notes/note-${String(i).padStart(4, "0")}.md`,
      bytes: new TextEncoder().encode(`# Note ${i}\n\n${"Something worth keeping. ".repeat(40)}\n`),
    }));
    const batch = await measured(() =>
      uploads.uploadBatch({ actor, harnessDir: "/persistent/user", files }),
    );
    if (batch.value.accepted.length !== FILES) {
      throw new Error(
        `only ${batch.value.accepted.length} of ${FILES} landed: ${JSON.stringify(batch.value.refused[0])}`,
      );
    }
    rows.push({
      input: `upload batch, ${FILES} × 1 KiB .md`,
      size: mb(files.reduce((sum, file) => sum + file.bytes.byteLength, 0)),
      time: ms(batch.ms),
      "peak RSS rise": mb(batch.peak),
      markdown: "1 commit",
    });
  } finally {
    await db.$disconnect();
    await database.drop();
  }
  return `## documents (${loadLine()})\n\n${table(rows)}`;
}
