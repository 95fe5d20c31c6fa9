import { describe, expect, it } from "vitest";
import { checkDocument, convertDocument, DocumentRefusedError, normalizeUploadName } from "./index";
import {
  makeCorruptPdf,
  makeDocx,
  makeEncryptedPdf,
  makeExecutable,
  makeReportPdf,
  makeScannedPdf,
  makeXlsx,
  makeZipBomb,
  SAMPLE_CSV,
  SAMPLE_HTML,
} from "./testing";

const text = (value: string) => new TextEncoder().encode(value);

async function refusal(promise: Promise<unknown>): Promise<DocumentRefusedError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!DocumentRefusedError.isInstance(error))
    throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe("convertDocument", () => {
  it("converts a PDF's text layer with page markers, headings and a table", async () => {
    const converted = await convertDocument({ name: "policy.pdf", bytes: await makeReportPdf() });
    expect(converted).toMatchObject({ type: "pdf", pages: 2, noText: false, keepsOriginal: true });
    const { markdown } = converted;
    expect(markdown).toContain("<!-- page 1 -->");
    expect(markdown).toContain("<!-- page 2 -->");
    expect(markdown.indexOf("<!-- page 2 -->")).toBeGreaterThan(
      markdown.indexOf("<!-- page 1 -->"),
    );
    expect(markdown).toMatch(/^# Travel Policy$/m);
    expect(markdown).toMatch(/^## Expense limits$/m);
    expect(markdown).toContain("Receipts are kept for seven years.");
    expect(markdown).toContain("| Item | Limit | Approver |");
    expect(markdown).toContain("| Hotel | 180 EUR | Manager |");
    // The table is on page 2, after its marker.
    expect(markdown.indexOf("| Hotel")).toBeGreaterThan(markdown.indexOf("<!-- page 2 -->"));
  });

  it("stores a PDF without a text layer flagged 'no text found'", async () => {
    const converted = await convertDocument({ name: "scan.pdf", bytes: await makeScannedPdf() });
    expect(converted.noText).toBe(true);
    expect(converted.markdown).toContain("No text found");
  });

  it("converts a DOCX: headings, paragraphs and the table survive", async () => {
    const { markdown, type } = await convertDocument({
      name: "handbook.docx",
      bytes: await makeDocx(),
    });
    expect(type).toBe("docx");
    expect(markdown).toMatch(/^# Onboarding Handbook$/m);
    expect(markdown).toMatch(/^## First week$/m);
    expect(markdown).toContain("Every new colleague gets a buddy.");
    expect(markdown).toContain("| Day | Task |");
    expect(markdown).toContain("| Tuesday | Meet the team |");
  });

  it("converts HTML without its script and style", async () => {
    const { markdown } = await convertDocument({ name: "runbook.html", bytes: text(SAMPLE_HTML) });
    expect(markdown).toMatch(/^# Deploy runbook$/m);
    expect(markdown).toContain("**Tuesdays**");
    expect(markdown).toMatch(/^- Tag the release$/m);
    expect(markdown).toContain("| staging | Ops |");
    expect(markdown).not.toContain("alert");
    expect(markdown).not.toContain("color:red");
  });

  it("converts a CSV to a Markdown table, quotes and all", async () => {
    const { markdown } = await convertDocument({ name: "people.csv", bytes: text(SAMPLE_CSV) });
    expect(markdown).toContain("| name | role | note |");
    expect(markdown).toContain('| Ada | admin | likes "tea", not coffee |');
  });

  it("converts an XLSX sheet by sheet and splits large sheets", async () => {
    const small = await convertDocument({ name: "budget.xlsx", bytes: await makeXlsx() });
    expect(small.markdown).toMatch(/^## Budget$/m);
    expect(small.markdown).toContain("| Team | Quarter | Amount |");
    expect(small.markdown).toContain("| Sales | Q1 | 1200 |");
    expect(small.markdown).toMatch(/^## Notes$/m);
    const large = await convertDocument({
      name: "big.xlsx",
      bytes: await makeXlsx({ rows: 250 }),
      limits: { maxTableRows: 100 },
    });
    expect(large.markdown.match(/\| Team \| Quarter \| Amount \|/g)).toHaveLength(3);
    expect(large.markdown).toContain("<!-- rows 201–250 of 250 -->");
  });

  it("keeps Markdown and text as they are", async () => {
    const converted = await convertDocument({ name: "notes.md", bytes: text("# Notes\n\n- a\n") });
    expect(converted).toMatchObject({ markdown: "# Notes\n\n- a\n", keepsOriginal: false });
  });

  it("refuses a corrupt PDF, an encrypted PDF, an oversized file and a renamed executable", async () => {
    const corrupt = await refusal(convertDocument({ name: "broken.pdf", bytes: makeCorruptPdf() }));
    expect(corrupt).toMatchObject({ reason: "corrupt", fileName: "broken.pdf" });
    expect(corrupt.message).toBe(
      "broken.pdf: the PDF could not be read (it is damaged or not really a PDF).",
    );

    const encrypted = await refusal(
      convertDocument({ name: "secret.pdf", bytes: await makeEncryptedPdf() }),
    );
    expect(encrypted.reason).toBe("encrypted");
    expect(encrypted.message).toMatch(/^secret\.pdf: the PDF is encrypted \(password-protected\)/);

    const oversized = await refusal(
      convertDocument({
        name: "big.txt",
        bytes: text("x".repeat(2048)),
        limits: { maxFileBytes: 1024 },
      }),
    );
    expect(oversized.reason).toBe("too_large");
    expect(oversized.message).toBe("big.txt: it is 2 KiB; the limit is 1 KiB.");

    const executable = await refusal(
      convertDocument({ name: "invoice.pdf", bytes: makeExecutable() }),
    );
    expect(executable.reason).toBe("mislabeled");
    expect(executable.message).toBe(
      "invoice.pdf: it is named .pdf but its content is a Windows executable; refused.",
    );
  });

  it("refuses a zip bomb before inflating it", async () => {
    const bomb = await makeZipBomb({ unzippedBytes: 8 * 1024 * 1024 });
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const error = await refusal(
      convertDocument({
        name: "bomb.docx",
        bytes: bomb,
        limits: { maxUnzippedBytes: 1024 * 1024 },
      }),
    );
    expect(error.reason).toBe("zip_bomb");
    expect(error.message).toContain("unpacks to more than 1 MiB");
  });

  it("refuses unsupported types and text types holding binary data", () => {
    expect(() =>
      checkDocument({ name: "photo.png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }),
    ).toThrow(/photo\.png: \.png files are not supported/);
    expect(() =>
      checkDocument({ name: "notes.txt", bytes: new Uint8Array([0x41, 0x00, 0x42]) }),
    ).toThrow(/notes\.txt: it is named \.txt but its content is binary data/);
  });
});

describe("normalizeUploadName", () => {
  it("keeps folders and normalizes to NFC", () => {
    expect(normalizeUploadName({ name: "policies/travel.pdf" })).toBe("policies/travel.pdf");
    expect(normalizeUploadName({ name: "Cafe\u0301.md" })).toBe("Caf\u00e9.md");
  });

  it.each([
    ["../etc/passwd.md", /"\.\." or "\." folders/],
    ["a/./b.md", /"\.\." or "\." folders/],
    ["bad\u0000name.pdf", /control|character/i],
    ["evil\u202egpj.pdf", /invisible|direction|character/i],
    ["/abs.md", /absolute/],
    ["win\\path.md", /backslash/],
  ])("refuses %j", (name, message) => {
    try {
      normalizeUploadName({ name });
      throw new Error("not refused");
    } catch (error) {
      expect(DocumentRefusedError.isInstance(error)).toBe(true);
      expect((error as DocumentRefusedError).reason).toBe("name");
      expect((error as Error).message).toMatch(message);
    }
  });
});
