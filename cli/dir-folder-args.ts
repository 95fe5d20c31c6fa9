import path from "node:path";
import { parseArgs } from "node:util";

import { validateRelativePath } from "@/lib/harness";
import { checkDirTargetArgs } from "./dir-target";
import { UsageError } from "./usage-error";

/** What `cairn dir export` and `cairn dir import` are given, checked. */
export interface DirFolderArgs {
  /** `<folder>`, resolved to an absolute path. */
  root: string;
  /** `--workspace`, `--dir` and `--email`, for `openDirTarget`. */
  target: { workspace: string; dir: "company" | "user"; email?: string };
  /** `--prefix`, a validated relative path without a trailing slash; `""` without it. */
  prefix: string;
}

/**
 * Parses `<folder> --workspace W --dir company|user [--email E] [--prefix PATH]`, the arguments
 * `cairn dir export` and `cairn dir import` share. Throws `UsageError` (with `usage` when the
 * folder is missing or there are more) and the harness's validation error for a bad prefix.
 */
export function parseDirFolderArgs(args: string[], usage: string): DirFolderArgs {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      workspace: { type: "string" },
      dir: { type: "string" },
      email: { type: "string" },
      prefix: { type: "string" },
    },
  });
  const [folder] = positionals;
  if (!folder || positionals.length > 1) throw new UsageError(`usage: ${usage}`);
  checkDirTargetArgs(values);
  return {
    root: path.resolve(folder),
    target: values,
    prefix: values.prefix ? validateRelativePath({ path: values.prefix }) : "",
  };
}
