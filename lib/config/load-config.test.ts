import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, CONFIG_DEFAULTS, envSchema, loadConfig } from "@/lib/config";

const readme = readFileSync(path.join(import.meta.dirname, "../../README.md"), "utf8");

/** The text of a README section, from its heading to the next heading of the same level or higher. */
function section(heading: string): string {
  const start = readme.indexOf(`${heading}\n`);
  const level = heading.split(" ")[0]!;
  const rest = readme.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

/** The variables a README table names in its first column (`…_DELAY_MS` completed from its row). */
function tableVariables(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cell = line.split("|")[1]!;
    const found = [...cell.matchAll(/`([A-Z][A-Z0-9_]+|…_[A-Z_]+)`/g)].map((match) => match[1]!);
    for (const name of found) {
      names.push(
        name.startsWith("…") ? `${found[0]!.replace(/_[A-Z]+$/, "")}${name.slice(1)}` : name,
      );
    }
  }
  return names;
}

const documented = [
  ...tableVariables(section("## Configuration")),
  ...tableVariables(section("### Models")),
  // Documented in the text of "Running on PostgreSQL" and "Command line".
  "CAIRN_WORKERS",
  "CAIRN_JOB_EXPIRE_SECONDS",
  "CAIRN_TOKEN",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
];

/** A good value for every variable, different from its default. */
const good: Record<string, string> = {
  DATABASE_URL: "postgres://cairn@db.example:5432/cairn",
  CAIRN_DATA_DIR: "/srv/cairn",
  PORT: "8080",
  AUTH_SECRET: "a-long-secret-0123456789",
  AUTH_GITHUB_ID: "gh-id",
  AUTH_GITHUB_SECRET: "gh-secret",
  CAIRN_SIGNIN_LIMIT_EMAIL: "3",
  CAIRN_SIGNIN_LIMIT_IP: "50",
  CAIRN_TRUSTED_PROXIES: "10.0.0.0/8, ::1",
  CAIRN_BCRYPT_COST: "4",
  CAIRN_COMPANY_DOCS_DIR: "/srv/docs",
  CAIRN_IMAGE_ORIGINS: "https://images.example.com https://cdn.example.com:8443",
  CAIRN_SHELL_TIMEOUT_MS: "1000",
  CAIRN_SHELL_MEMORY_MB: "128",
  CAIRN_SHELL_OUTPUT_CHARS: "500",
  CAIRN_MAX_TURNS_PER_USER: "5",
  CAIRN_TURNS_PER_MINUTE: "12",
  CAIRN_TURN_LEASE_MS: "30000",
  CAIRN_COMMIT_RETRY_ATTEMPTS: "3",
  CAIRN_COMMIT_RETRY_DELAY_MS: "500",
  CAIRN_DURABILITY_INTERVAL_MS: "500",
  CAIRN_DIR_HISTORY_MAX_BYTES: "1048576",
  CAIRN_WORKSPACE_HISTORY_MAX_BYTES: "off",
  CAIRN_DIR_HISTORY_RETENTION_DAYS: "7",
  CAIRN_FAILED_COMMITS_MAX_BYTES: "1048576",
  CAIRN_UPLOAD_MAX_FILE_BYTES: "524288",
  CAIRN_UPLOAD_MAX_BATCH_BYTES: "8388608",
  CAIRN_DIR_MAX_FILES: "100000",
  CAIRN_DIR_MAX_BYTES: "2147483648",
  CAIRN_DIR_MAX_FILE_BYTES: "26214400",
  CAIRN_MCP_ALLOWED_ORIGINS: "https://cairn.example.com http://10.0.0.5:3000",
  AUTH_URL: "https://cairn.example.com",
  NEXTAUTH_URL: "https://cairn.example.com/app",
  CAIRN_FAULT_INJECTION: "fail-first-commit:fail-me",
  CAIRN_WORKERS: "off",
  CAIRN_JOB_EXPIRE_SECONDS: "5",
  CAIRN_COMPACTION_THRESHOLD: "0.5",
  AI_PROVIDER: "openai-compatible",
  AI_MODEL: "llama3.2",
  AI_API_KEY: "not-a-secret",
  OPENAI_API_KEY: "sk-test",
  ANTHROPIC_API_KEY: "sk-ant-test",
  AI_BASE_URL: "http://127.0.0.1:11434/v1",
  AI_REFINE_MODEL: "llama3.2-refine",
  AI_EMBEDDING_MODEL: "nomic-embed-text",
  AI_CONTEXT_WINDOW: "32_768",
  OLLAMA_BASE_URL: "http://127.0.0.1:11435",
  CAIRN_URL: "http://localhost:3000/api/mcp",
  CAIRN_TOKEN: "cairn_pat_x",
  CAIRN_LOG_LEVEL: "debug",
  CAIRN_LOG_FORMAT: "pretty",
  CAIRN_METRICS_TOKEN: "metrics-token-0123456789",
  OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318",
  CAIRN_TRACE_CONTENT: "on",
  CAIRN_OIDC_ISSUER: "https://id.example.com/realms/acme",
  CAIRN_OIDC_CLIENT_ID: "cairn",
  CAIRN_OIDC_CLIENT_SECRET: "oidc-client-secret",
  CAIRN_OIDC_NAME: "Acme ID",
  CAIRN_OIDC_ALLOWED_DOMAINS: "example.com, @Acme.example",
  CAIRN_OIDC_WORKSPACE: "Acme",
  CAIRN_OIDC_DEFAULT_ROLE: "Editor",
  CAIRN_OIDC_ONLY: "on",
  CAIRN_OIDC_BREAK_GLASS_EMAIL: "Root@example.com",
  CAIRN_OIDC_GROUPS_CLAIM: "groups",
  CAIRN_OIDC_GROUP_ROLES: "cairn-admins=admin, writers=editor",
};

/** A bad value for every variable that has one (free text has none). */
const bad: Record<string, string> = {
  DATABASE_URL: "mysql://db/cairn",
  PORT: "70000",
  CAIRN_SIGNIN_LIMIT_EMAIL: "0",
  CAIRN_SIGNIN_LIMIT_IP: "many",
  CAIRN_TRUSTED_PROXIES: "proxy.example",
  CAIRN_BCRYPT_COST: "40",
  CAIRN_IMAGE_ORIGINS: "https://images.example.com/path",
  CAIRN_SHELL_TIMEOUT_MS: "1.5",
  CAIRN_SHELL_MEMORY_MB: "-1",
  CAIRN_SHELL_OUTPUT_CHARS: "lots",
  CAIRN_MAX_TURNS_PER_USER: "0",
  CAIRN_TURNS_PER_MINUTE: "2.5",
  CAIRN_TURN_LEASE_MS: "soon",
  CAIRN_COMMIT_RETRY_ATTEMPTS: "-3",
  CAIRN_COMMIT_RETRY_DELAY_MS: "1e3",
  CAIRN_DURABILITY_INTERVAL_MS: "0",
  CAIRN_DIR_HISTORY_MAX_BYTES: "-5",
  CAIRN_WORKSPACE_HISTORY_MAX_BYTES: "lots",
  CAIRN_DIR_HISTORY_RETENTION_DAYS: "1.5",
  CAIRN_FAILED_COMMITS_MAX_BYTES: "0",
  CAIRN_UPLOAD_MAX_FILE_BYTES: "1 MB",
  CAIRN_UPLOAD_MAX_BATCH_BYTES: "0",
  CAIRN_DIR_MAX_FILES: "0",
  CAIRN_DIR_MAX_BYTES: "2 GiB",
  CAIRN_DIR_MAX_FILE_BYTES: "off",
  CAIRN_MCP_ALLOWED_ORIGINS: "https://cairn.example.com/path",
  AUTH_URL: "ftp://cairn.example.com",
  NEXTAUTH_URL: "not a url",
  CAIRN_FAULT_INJECTION: "fail-always",
  CAIRN_WORKERS: "false",
  CAIRN_JOB_EXPIRE_SECONDS: "0",
  CAIRN_COMPACTION_THRESHOLD: "1.5",
  AI_PROVIDER: "ollama",
  AI_BASE_URL: "ftp://models.example",
  AI_CONTEXT_WINDOW: "big",
  OLLAMA_BASE_URL: "localhost:11434",
  CAIRN_URL: "not a url",
  CAIRN_LOG_LEVEL: "loud",
  CAIRN_LOG_FORMAT: "xml",
  CAIRN_METRICS_TOKEN: "short",
  OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
  CAIRN_TRACE_CONTENT: "yes",
  CAIRN_OIDC_ISSUER: "id.example.com",
  CAIRN_OIDC_ALLOWED_DOMAINS: "not a domain",
  CAIRN_OIDC_DEFAULT_ROLE: "owner",
  CAIRN_OIDC_ONLY: "true",
  CAIRN_OIDC_BREAK_GLASS_EMAIL: "root",
  CAIRN_OIDC_GROUP_ROLES: "admins=owner",
};

describe("loadConfig", () => {
  it("has every variable the README documents, and nothing it does not", () => {
    const keys = Object.keys(envSchema.shape).sort();
    expect([...new Set(documented)].sort()).toEqual(keys.filter((key) => key !== "CAIRN_URL"));
  });

  it("accepts a good value of every documented variable", () => {
    expect(Object.keys(good).sort()).toEqual(Object.keys(envSchema.shape).sort());
    const config = loadConfig(good);
    expect(config.database).toEqual({ provider: "postgresql", url: good.DATABASE_URL });
    expect(config).toMatchObject({
      dataDir: "/srv/cairn",
      port: 8080,
      authSecret: good.AUTH_SECRET,
      github: { clientId: "gh-id", clientSecret: "gh-secret" },
      signIn: { perEmailAndAddress: 3, perAddress: 50 },
      bcryptCost: 4,
      companyDocsDir: "/srv/docs",
      imageOrigins: ["https://images.example.com", "https://cdn.example.com:8443"],
      shell: { timeoutMs: 1000, memoryMb: 128, maxOutputChars: 500 },
      turns: { maxPerUser: 5, perMinute: 12, leaseMs: 30_000 },
      commitRetry: { maxAttempts: 3, baseDelayMs: 500 },
      durabilityIntervalMs: 500,
      dirHistory: { maxDirBytes: 1_048_576, maxSharedBytes: null, retentionDays: 7 },
      faultInjection: { mode: "fail-first-commit", marker: "fail-me" },
      workers: false,
      jobExpireSeconds: 5,
      compactionThreshold: 0.5,
      mcpBridge: { url: good.CAIRN_URL, token: "cairn_pat_x" },
      log: { level: "debug", format: "pretty" },
      metricsToken: good.CAIRN_METRICS_TOKEN,
      tracing: { endpoint: good.OTEL_EXPORTER_OTLP_ENDPOINT, content: true },
      oidc: {
        issuer: good.CAIRN_OIDC_ISSUER,
        clientId: "cairn",
        clientSecret: "oidc-client-secret",
        name: "Acme ID",
        allowedDomains: ["example.com", "acme.example"],
        workspace: "Acme",
        defaultRole: "editor",
        only: true,
        breakGlassEmail: "root@example.com",
        groupsClaim: "groups",
        groupRoles: { "cairn-admins": "admin", writers: "editor" },
      },
    });
    expect(config.trustedProxies.entries).toEqual(["10.0.0.0/8", "::1"]);
    expect(config.models).toMatchObject({
      AI_PROVIDER: "openai-compatible",
      AI_EMBEDDING_MODEL: "nomic-embed-text",
      AI_CONTEXT_WINDOW: "32768",
      OLLAMA_BASE_URL: good.OLLAMA_BASE_URL,
    });
  });

  it("names every bad variable in one error, each with why", () => {
    let caught: unknown;
    try {
      loadConfig(bad);
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    const error = caught as ConfigError;
    expect(error.issues.map((issue) => issue.variable).sort()).toEqual(Object.keys(bad).sort());
    for (const name of Object.keys(bad)) expect(error.message).toContain(name);
    expect(error.message).toContain(
      'CAIRN_BCRYPT_COST must be a whole number from 4 to 31, got "40"',
    );
  });

  it("refuses OpenID Connect settings that do not go together, naming what is missing", () => {
    const issues = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).issues.map((issue) => issue.variable);
      }
    };
    expect(issues({ CAIRN_OIDC_ISSUER: "https://id.example.com" })).toEqual([
      "CAIRN_OIDC_CLIENT_ID",
      "CAIRN_OIDC_CLIENT_SECRET",
    ]);
    expect(issues({ CAIRN_OIDC_ONLY: "on" })).toEqual(["CAIRN_OIDC_ONLY"]);
    expect(issues({ CAIRN_OIDC_ONLY: "off" })).toEqual([]);
    expect(
      issues({
        CAIRN_OIDC_ISSUER: "https://id.example.com",
        CAIRN_OIDC_CLIENT_ID: "c",
        CAIRN_OIDC_CLIENT_SECRET: "s",
        CAIRN_OIDC_ALLOWED_DOMAINS: "example.com",
        CAIRN_OIDC_GROUP_ROLES: "a=admin",
      }),
    ).toEqual(["CAIRN_OIDC_WORKSPACE", "CAIRN_OIDC_GROUPS_CLAIM"]);
  });

  it("logs JSON in production and readable lines elsewhere unless told; observability is off by default", () => {
    expect(loadConfig({ NODE_ENV: "production" }).log).toEqual({ level: "info", format: "json" });
    expect(loadConfig({ NODE_ENV: "development" }).log.format).toBe("pretty");
    expect(loadConfig({ NODE_ENV: "production", CAIRN_LOG_FORMAT: "pretty" }).log.format).toBe(
      "pretty",
    );
    const config = loadConfig({});
    expect(config.metricsToken).toBeNull();
    expect(config.tracing).toEqual({ endpoint: null, content: false });
    expect(config.oidc).toBeNull();
  });

  it("refuses half a GitHub sign-in, naming the missing half", () => {
    expect(() => loadConfig({ AUTH_GITHUB_ID: "x" })).toThrow(/AUTH_GITHUB_SECRET must be set too/);
  });

  it("defaults to the README's values; blank counts as unset", () => {
    const config = loadConfig({ CAIRN_MAX_TURNS_PER_USER: " ", PORT: "" }, { cwd: "/app" });
    expect(config.database).toEqual({
      provider: "sqlite",
      url: "file:/app/data/cairn.db",
      filePath: "/app/data/cairn.db",
    });
    expect(config.dataDir).toBe("/app/data");
    expect(config.port).toBe(CONFIG_DEFAULTS.PORT);
    expect(config.github).toBeNull();
    expect(config.workers).toBe(true);
    expect(config.faultInjection).toBeNull();
    expect(config.turns.maxPerUser).toBe(2);

    // The README's default column, number by number.
    const table = section("## Configuration");
    for (const line of table.split("\n")) {
      if (!line.startsWith("| `")) continue;
      const [, names, defaults] = line.split("|");
      const variables = [...names!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!);
      const values = [...defaults!.matchAll(/`(\d+)`/g)].map((match) => Number(match[1]));
      if (values.length === 0) continue;
      variables.forEach((name, index) => {
        expect(CONFIG_DEFAULTS[name as keyof typeof CONFIG_DEFAULTS], name).toBe(values[index]);
      });
    }
    expect(readme).toContain(`default ${CONFIG_DEFAULTS.CAIRN_COMPACTION_THRESHOLD})`);
    expect(readme).toContain(`(default ${CONFIG_DEFAULTS.CAIRN_JOB_EXPIRE_SECONDS})`);
  });

  it("parses the environments the test suites and e2e servers start with", () => {
    const environments: Record<string, string>[] = [
      {
        CAIRN_BCRYPT_COST: "4",
        AUTH_SECRET: "e2e-secret",
        CAIRN_FAULT_INJECTION: "fail-first-commit:fail-me",
      },
      {
        CAIRN_SIGNIN_LIMIT_IP: "100000",
        CAIRN_JOB_EXPIRE_SECONDS: "5",
        CAIRN_MAX_TURNS_PER_USER: "100",
      },
      {
        CAIRN_FAULT_INJECTION: "fail-first-commit:retry-me",
        CAIRN_COMMIT_RETRY_DELAY_MS: "500",
        CAIRN_DURABILITY_INTERVAL_MS: "500",
      },
      { CAIRN_TURNS_PER_MINUTE: "600" },
      {
        CAIRN_MAX_TURNS_PER_USER: "1",
        CAIRN_TURNS_PER_MINUTE: "10",
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: "http://127.0.0.1:3199/v1",
        AI_MODEL: "scripted-model",
        AI_API_KEY: "e2e-not-a-secret",
      },
      process.env as Record<string, string>,
    ];
    for (const env of environments) expect(() => loadConfig(env)).not.toThrow();
  });
});
