import { HarnessValidationError, validateRelativePath } from "@/lib/harness";
import { DocumentRefusedError } from "./document-refused-error";

/** Longest name of one uploaded file (one path segment), in characters. */
const MAX_NAME_CHARACTERS = 200;

/**
 * The path an uploaded file lands at, relative to its folder: the browser's relative path (a
 * folder upload keeps its sub-folders) in NFC, checked with the dirs' own path rules. Refused: `..`
 * or `.` segments, NUL and other control characters, invisible or direction-changing characters
 * (a name must read as it resolves), lone surrogates, absolute paths, backslashes, names over 200
 * characters. Throws `DocumentRefusedError` (`name`) naming the file.
 */
export function normalizeUploadName(options: { name: string }): string {
  const raw = options.name;
  const shown = JSON.stringify(raw).slice(1, -1);
  const refuse = (message: string): never => {
    throw new DocumentRefusedError({ fileName: shown, reason: "name", message });
  };
  if (raw.includes("\\")) refuse("a file name may not contain a backslash.");
  if (raw.startsWith("/")) refuse("a file name may not be an absolute path.");
  const segments = raw.split("/");
  if (segments.some((segment) => segment === ".." || segment === "."))
    refuse('a file name may not contain ".." or "." folders.');
  if (segments.some((segment) => segment.length > MAX_NAME_CHARACTERS))
    refuse(`a file name may have at most ${MAX_NAME_CHARACTERS} characters.`);
  try {
    return validateRelativePath({ path: raw });
  } catch (error) {
    if (HarnessValidationError.isInstance(error)) return refuse(error.message);
    throw error;
  }
}
