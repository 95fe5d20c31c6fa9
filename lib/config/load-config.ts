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
  // Settings that only make sense together, once each one parsed.
  if (result.success) issues.push(...oidcIssues(env));
  if (!result.success || issues.length > 0) throw new ConfigError(issues);
  return toConfig(result.data, options.cwd ?? process.cwd(), env.NODE_ENV);
}

/** OpenID Connect settings that only make sense together. */
function oidcIssues(env: Readonly<Record<string, string | undefined>>): ConfigIssue[] {
  const set = (name: string) => Boolean(env[name]?.trim());
  const issues: ConfigIssue[] = [];
  if (set("CAIRN_OIDC_ISSUER")) {
    for (const name of ["CAIRN_OIDC_CLIENT_ID", "CAIRN_OIDC_CLIENT_SECRET"]) {
      if (!set(name)) {
        issues.push({
          variable: name,
          message:
            "must be set too: OpenID Connect needs CAIRN_OIDC_ISSUER, CAIRN_OIDC_CLIENT_ID and CAIRN_OIDC_CLIENT_SECRET",
        });
      }
    }
  } else {
    for (const name of ["CAIRN_OIDC_CLIENT_ID", "CAIRN_OIDC_ALLOWED_DOMAINS", "CAIRN_OIDC_ONLY"]) {
      if (set(name) && !(name === "CAIRN_OIDC_ONLY" && env[name]?.trim().toLowerCase() === "off")) {
        issues.push({ variable: name, message: "needs CAIRN_OIDC_ISSUER (OpenID Connect is off)" });
      }
    }
  }
  if (set("CAIRN_OIDC_ALLOWED_DOMAINS") && !set("CAIRN_OIDC_WORKSPACE")) {
    issues.push({
      variable: "CAIRN_OIDC_WORKSPACE",
      message: "must be set too: accounts of CAIRN_OIDC_ALLOWED_DOMAINS join that workspace",
    });
  }
  if (env.CAIRN_OIDC_GROUP_ROLES?.trim() && !set("CAIRN_OIDC_GROUPS_CLAIM")) {
    issues.push({
      variable: "CAIRN_OIDC_GROUPS_CLAIM",
      message: "must be set too: CAIRN_OIDC_GROUP_ROLES maps the groups of that claim",
    });
  }
  return issues;
}
