import { envSchema, toConfig, type CairnConfig } from "./schema";

/** One variable that could not be read, and why. */
export interface ConfigIssue {
  variable: string;
  message: string;
}

/** `NAME: why`, or the message alone when it already starts with the name (a parser's own). */
function lineOf(issue: ConfigIssue): string {
  return issue.message.startsWith(issue.variable)
    ? issue.message
    : `${issue.variable} ${issue.message}`;
}

const configErrorMarker = Symbol.for("cairn.config.error");

/**
 * The environment holds bad values: `issues` names each variable and why. Its message lists them
 * all, one a line, so a start that stops on it says everything to fix at once.
 */
export class ConfigError extends Error {
  private readonly [configErrorMarker] = true;
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(
      `Cairn's configuration has ${issues.length === 1 ? "a bad value" : `${issues.length} bad values`}:\n` +
        issues.map((issue) => `  ${lineOf(issue)}`).join("\n"),
    );
    this.name = "ConfigError";
    this.issues = issues;
  }

  static isInstance(error: unknown): error is ConfigError {
    return typeof error === "object" && error !== null && configErrorMarker in error;
  }
}

/**
 * Parses the environment once into Cairn's configuration (`lib/config/schema.ts`): every
 * documented variable, typed, with its default. Blank values count as unset; unknown variables
 * are ignored. Throws one `ConfigError` listing every bad variable. `cwd` resolves relative
 * paths (`DATABASE_URL=file:./…`, `CAIRN_DATA_DIR`); default the process's.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: { cwd?: string } = {},
): CairnConfig {
  const result = envSchema.safeParse(env);
  const issues: ConfigIssue[] = result.success
    ? []
    : result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "(environment)"),
        message: issue.message,
      }));
  const github = [env.AUTH_GITHUB_ID?.trim(), env.AUTH_GITHUB_SECRET?.trim()];
  if (Boolean(github[0]) !== Boolean(github[1])) {
    issues.push({
      variable: github[0] ? "AUTH_GITHUB_SECRET" : "AUTH_GITHUB_ID",
      message: "must be set too: GitHub sign-in needs both AUTH_GITHUB_ID and AUTH_GITHUB_SECRET",
    });
  }
  if (!result.success || issues.length > 0) throw new ConfigError(issues);
  return toConfig(result.data, options.cwd ?? process.cwd());
}
