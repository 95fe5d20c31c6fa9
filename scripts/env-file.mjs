// Minimal reader/writer for the local env file (.env.local) that `npm start` keeps.
import { existsSync, readFileSync, appendFileSync, chmodSync, statSync } from "node:fs";

/** Parse KEY=value lines (no interpolation); quotes around values are removed. */
export function readEnvFile(path) {
  if (!existsSync(path)) return {};
  const values = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (match) values[match[1]] = match[2].replace(/^(['"])(.*)\1$/, "$2");
  }
  return values;
}

export function appendEnvValue(path, key, value, comment) {
  appendFileSync(path, `${comment ? `# ${comment}\n` : ""}${key}=${value}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created: an existing one is tightened too.
  makeOwnerOnly(path);
}

/**
 * Makes an existing file owner-only (0600): the env file holds AUTH_SECRET and often a database
 * URL with its password. Returns false (and leaves it) when it is missing or not ours to change.
 */
export function makeOwnerOnly(path) {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return true;
  } catch {
    return false;
  }
}
