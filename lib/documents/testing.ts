/**
 * Test fixtures, generated (no binary blobs in the repository): a PDF with headings, a table and
 * two pages, an encrypted and a corrupt PDF, a scanned-like PDF without text, a DOCX, an XLSX,
 * an HTML page with a script, a CSV and an executable renamed `.pdf`. Used by the unit tests,
 * the job's database tests, the browser test and the benchmark.
 */
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** Words from a 2,000-word made-up vocabulary in a repeatable order (text that compresses as prose does). */
export function seededWords(seed: number): () => string {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const letters = "etaoinshrdlucmfwypvbgkjqxz";
  const vocabulary = Array.from({ length: 2000 }, () => {
    const length = 2 + (next() % 9);
    return Array.from(
      { length },
      () => letters[Math.min(25, Math.floor(((next() % 1000) / 1000) * 13 + (next() % 14)))]!,
    ).join("");
  });
  return () => vocabulary[next() % vocabulary.length]!;
}

/** A two-page PDF: a title and section headings, body text, and a 3×3 table on page 2. */
export async function makeReportPdf(
  options: { pages?: number; fillerLines?: number } = {},
): Promise<Uint8Array> {
  const words = seededWords(2);
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const pages = options.pages ?? 2;
  for (let number = 1; number <= pages; number += 1) {
    const page = document.addPage([595, 842]);
    let y = 780;
    if (number === 1) {
      page.drawText("Travel Policy", { x: 50, y, size: 24, font: bold });
      y -= 50;
    }
    page.drawText(number === 2 ? "Expense limits" : `Section ${number}`, {
      x: 50,
      y,
      size: 16,
      font: bold,
    });
    y -= 30;
    for (const sentence of [
      `Employees book travel through the portal on page ${number}.`,
      "Receipts are kept for seven years.",
    ]) {
      page.drawText(sentence, { x: 50, y, size: 11, font });
      y -= 16;
    }
    for (let line = 0; line < (options.fillerLines ?? 0); line += 1) {
      page.drawText(Array.from({ length: 12 }, words).join(" "), { x: 50, y, size: 11, font });
      y -= 14;
    }
    if (number === 2) {
      y -= 20;
      const rows = [
        ["Item", "Limit", "Approver"],
        ["Hotel", "180 EUR", "Manager"],
        ["Meals", "60 EUR", "None"],
      ];
      for (const row of rows) {
        row.forEach((cell, column) =>
          page.drawText(cell, { x: 50 + column * 150, y, size: 11, font }),
        );
        y -= 18;
      }
    }
  }
  return document.save({ useObjectStreams: false });
}

/** A PDF whose pages have no text layer (as a scan would be: here, only a drawn rectangle). */
export async function makeScannedPdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  page.drawRectangle({ x: 50, y: 50, width: 400, height: 600 });
  return document.save({ useObjectStreams: false });
}

/** A PDF whose trailer names a standard security handler (a password-protected PDF). */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const bytes = Buffer.from(await makeReportPdf());
  const text = bytes.toString("latin1");
  const encrypt = `/Encrypt << /Filter /Standard /V 1 /R 2 /O <${"0".repeat(64)}> /U <${"1".repeat(64)}> /P -4 >>`;
  return Buffer.from(
    text.replace(/trailer\s*<</, (match) => `${match}\n${encrypt}\n`),
    "latin1",
  );
}

/** Starts like a PDF, then is garbage. */
export function makeCorruptPdf(): Uint8Array {
  return Buffer.from(
    "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\n\u0000\u0001garbage, cut off",
  );
}

/** The start of a Windows executable (`MZ`…), to be named `.pdf`. */
export function makeExecutable(): Uint8Array {
  const bytes = new Uint8Array(256);
  bytes.set([0x4d, 0x5a, 0x90, 0x00, 0x03]);
  return bytes;
}

const DOCX_CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>`;
const DOCX_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOCUMENT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style></w:styles>`;

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const paragraph = (text: string, style?: string) =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ""}<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r></w:p>`;
const table = (rows: string[][]) =>
  `<w:tbl>${rows.map((row) => `<w:tr>${row.map((cell) => `<w:tc>${paragraph(cell)}</w:tc>`).join("")}</w:tr>`).join("")}</w:tbl>`;

/**
 * A DOCX with a `heading 1`, a `heading 2`, paragraphs and a table; `paragraphs` adds that many
 * filler paragraphs (the benchmark's large document).
 */
export async function makeDocx(options: { paragraphs?: number } = {}): Promise<Uint8Array> {
  const words = seededWords(1);
  const filler = Array.from({ length: options.paragraphs ?? 0 }, (_, i) =>
    paragraph(`Paragraph ${i + 1}: ${Array.from({ length: 60 }, words).join(" ")}.`),
  ).join("");
  const body = [
    paragraph("Onboarding Handbook", "Heading1"),
    paragraph("Every new colleague gets a buddy."),
    paragraph("First week", "Heading2"),
    table([
      ["Day", "Task"],
      ["Monday", "Laptop setup"],
      ["Tuesday", "Meet the team"],
    ]),
    filler,
  ].join("");
  const zip = new JSZip();
  zip.file("[Content_Types].xml", DOCX_CONTENT_TYPES);
  zip.file("_rels/.rels", DOCX_RELS);
  zip.file("word/_rels/document.xml.rels", DOCUMENT_RELS);
  zip.file("word/styles.xml", STYLES);
  zip.file(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/** A "DOCX" holding one entry that inflates to `unzippedBytes` of zeros (a zip bomb). */
export async function makeZipBomb(options: { unzippedBytes: number }): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file("[Content_Types].xml", DOCX_CONTENT_TYPES);
  zip.file("word/document.xml", new Uint8Array(options.unzippedBytes));
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/** An XLSX with two sheets: `Budget` (a header and `rows` rows) and an empty `Notes`. */
export async function makeXlsx(options: { rows?: number } = {}): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("Budget");
  sheet.addRow(["Team", "Quarter", "Amount"]);
  const rows = options.rows ?? 2;
  for (let i = 0; i < rows; i += 1)
    sheet.addRow([i === 0 ? "Sales" : `Team ${i + 1}`, "Q1", 1200 + i]);
  workbook.addWorksheet("Notes");
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/** An HTML page with a heading, a list, a table, a script and a style. */
export const SAMPLE_HTML = `<!doctype html><html><head><title>Runbook</title><style>h1{color:red}</style></head>
<body><h1>Deploy runbook</h1><script>alert("stolen cookies")</script>
<p>Deploys happen on <strong>Tuesdays</strong>.</p><ul><li>Tag the release</li><li>Run the pipeline</li></ul>
<table><tr><th>Env</th><th>Owner</th></tr><tr><td>staging</td><td>Ops</td></tr></table></body></html>`;

/** A CSV with a quoted comma and a doubled quote. */
export const SAMPLE_CSV = `name,role,note\nAda,admin,"likes ""tea"", not coffee"\nBob,member,on call\n`;
