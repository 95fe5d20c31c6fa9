import path from "node:path";

/** Which database a URL points at. Code above lib/db never needs to know. */
export type DatabaseTarget =
  { provider: "sqlite"; url: string; filePath: string } | { provider: "postgresql"; url: string };

/** Where the SQLite database lives when nothing is configured. */
export function defaultDataDirectory(): string {
  return path.resolve(
    /*turbopackIgnore: true*/ process.env.CAIRN_DATA_DIR ?? path.join(process.cwd(), "data"),
  );
}

/**
 * Resolve `DATABASE_URL` (or the given URL) to a provider.
 *
 * - unset or empty → SQLite at `<data dir>/cairn.db`
 * - `file:<path>` → SQLite at that path (relative paths resolve against the working directory)
 * - `postgres://` or `postgresql://` → PostgreSQL
 *
 * Anything else is refused with a message that names the accepted forms.
 */
export function resolveDatabaseTarget(
  url: string | undefined = process.env.DATABASE_URL,
): DatabaseTarget {
  // Asked on every database access (getDb, getSql): the last answer is kept for the same inputs.
  const dataDir = process.env.CAIRN_DATA_DIR;
  const cwd = process.cwd();
  if (last && last.url === url && last.dataDir === dataDir && last.cwd === cwd) return last.target;
  const target = Object.freeze(resolveUncached(url));
  last = { url, dataDir, cwd, target };
  return target;
}

let last:
  | { url: string | undefined; dataDir: string | undefined; cwd: string; target: DatabaseTarget }
  | undefined;

function resolveUncached(url: string | undefined): DatabaseTarget {
  return resolveDatabaseTargetFrom({
    url,
    dataDir: defaultDataDirectory(),
    cwd: process.cwd(),
  });
}

/**
 * The pure form of `resolveDatabaseTarget`: `url` against an absolute data dir (for the default
 * SQLite file) and a working directory (for relative `file:` paths). Throws on a URL that is
 * neither form; `loadConfig` (lib/config) reports that as a bad `DATABASE_URL`.
 */
export function resolveDatabaseTargetFrom(options: {
  url: string | undefined;
  dataDir: string;
  cwd: string;
}): DatabaseTarget {
  const value = options.url?.trim();
  if (!value) {
    const filePath = path.join(options.dataDir, "cairn.db");
    return { provider: "sqlite", url: `file:${filePath}`, filePath };
  }
  if (value.startsWith("file:")) {
    const raw = value.slice("file:".length).replace(/^\/\/(?=\/)/, "");
    if (!raw) throw new Error("DATABASE_URL=file: needs a path, e.g. file:./data/cairn.db");
    const filePath = path.resolve(/*turbopackIgnore: true*/ options.cwd, raw.split("?")[0]!);
    return { provider: "sqlite", url: `file:${filePath}`, filePath };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    return { provider: "postgresql", url: value };
  }
  throw new Error(
    `DATABASE_URL must be a file: URL (SQLite) or a postgres:// URL (PostgreSQL); got "${value.split(":")[0]}:…"`,
  );
}
