import { formatBytes } from "@/lib/harness/format-bytes";
import { DocumentRefusedError } from "../document-refused-error";

/** Most entries a DOCX/XLSX may hold (a real one holds tens to a few thousand). */
const MAX_ZIP_ENTRIES = 10_000;

/**
 * Reads a zip's central directory and refuses it before anything is inflated when its entries
 * declare more than `maxUnzippedBytes` in all, more than 10,000 entries, or a zip64 size (which no
 * office file of the accepted size needs). Sizes that lie are caught later: JSZip (used by mammoth
 * and ExcelJS) checks each entry's inflated length against its declared size.
 */
export function assertZipWithinLimits(options: {
  fileName: string;
  bytes: Uint8Array;
  maxUnzippedBytes: number;
}): void {
  const { fileName, bytes, maxUnzippedBytes } = options;
  const corrupt = (): never => {
    throw new DocumentRefusedError({
      fileName,
      reason: "corrupt",
      message: "it is not a readable zip archive (a DOCX or XLSX is one); the file may be damaged.",
    });
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // End of central directory: 22 bytes plus a comment of at most 65,535 bytes, from the end.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65_535); at -= 1) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) corrupt();
  const entries = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  if (entries === 0xffff || offset === 0xffffffff || entries > MAX_ZIP_ENTRIES) {
    throw new DocumentRefusedError({
      fileName,
      reason: "zip_bomb",
      message: `it holds too many entries (more than ${MAX_ZIP_ENTRIES}); refused as a possible zip bomb.`,
    });
  }
  let total = 0;
  for (let index = 0; index < entries; index += 1) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== 0x02014b50) corrupt();
    const uncompressed = view.getUint32(offset + 24, true);
    total += uncompressed;
    if (uncompressed === 0xffffffff || total > maxUnzippedBytes) {
      throw new DocumentRefusedError({
        fileName,
        reason: "zip_bomb",
        message: `it unpacks to more than ${formatBytes(maxUnzippedBytes)} (the limit for a DOCX or XLSX); refused as a possible zip bomb.`,
      });
    }
    offset +=
      46 +
      view.getUint16(offset + 28, true) +
      view.getUint16(offset + 30, true) +
      view.getUint16(offset + 32, true);
  }
}
