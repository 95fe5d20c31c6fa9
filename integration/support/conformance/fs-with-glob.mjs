/**
 * `node:fs` plus `globSync`. On Node 22 that is the real one; on Node 20 a small version that
 * handles the only shape `@modelcontextprotocol/conformance` 0.1.16 calls it with,
 * `globSync("**\/<file name>", { cwd })` (its tier-check reads every `checks.json` below a results
 * folder): the paths, relative to `cwd`, of the files with that name at any depth. Any other
 * pattern throws, so a newer package that needs more fails loudly instead of finding nothing.
 */
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";
export default fs;

function globSyncShim(pattern, options = {}) {
  const match = /^\*\*\/([^*?[\]{}/\\]+)$/.exec(String(pattern));
  if (!match) {
    throw new Error(`fs-with-glob shim: unsupported pattern "${pattern}" (only "**/<name>")`);
  }
  const name = match[1];
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const found = [];
  const walk = (relative) => {
    for (const entry of fs.readdirSync(path.join(cwd, relative), { withFileTypes: true })) {
      const child = relative ? path.join(relative, entry.name) : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (entry.name === name) found.push(child);
    }
  };
  walk("");
  return found;
}

export const globSync = typeof fs.globSync === "function" ? fs.globSync : globSyncShim;
