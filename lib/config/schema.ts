import path from "node:path";
import { z } from "zod";
import { isHttpUrl } from "@/lib/utils";
import { parseTrustedProxies, type TrustedProxies } from "@/lib/auth/client-address";
import { resolveDatabaseTargetFrom, type DatabaseTarget } from "@/lib/db/database-url";
import {
  DEFAULT_DIR_LIMITS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_SHELL_LIMITS,
  isRole,
  type DirLimits,
  type Role,
} from "@/lib/harness";
import {
  parseFaultInjection,
  type FaultInjectionSetting,
} from "@/lib/workspace-dirs/fault-injection";
import { domainList, groupRoles } from "./oidc-lists";
import { parseMcpAllowedOrigins } from "@/lib/security/dns-rebinding-guard";
import { parseImageOrigins } from "@/lib/security/image-origins";
import { parseOriginList } from "@/lib/security/origin-list";
import { DEFAULT_FAILED_COMMITS_MAX_BYTES } from "@/lib/sql-storage/sql-commit-log";
import { DEFAULT_DIR_HISTORY_SETTINGS, type DirHistorySettings } from "@/lib/sql-storage/dir-history";

/**
 * The defaults of the documented variables, as README.md's Configuration table states them
 * (`lib/config/load-config.test.ts` checks that the two agree).
 */
export const CONFIG_DEFAULTS = Object.freeze({
  PORT: 3000,
  CAIRN_SIGNIN_LIMIT_EMAIL: 5,
  CAIRN_SIGNIN_LIMIT_IP: 20,
  CAIRN_BCRYPT_COST: 12,
  CAIRN_SHELL_TIMEOUT_MS: DEFAULT_SHELL_LIMITS.timeoutMs,
  CAIRN_SHELL_MEMORY_MB: DEFAULT_SHELL_LIMITS.memoryMb,
  CAIRN_SHELL_OUTPUT_CHARS: DEFAULT_SHELL_LIMITS.maxOutputChars,
  CAIRN_MAX_TURNS_PER_USER: 2,
  CAIRN_TURNS_PER_MINUTE: 30,
  CAIRN_TURN_LEASE_MS: 60_000,
  CAIRN_COMMIT_RETRY_ATTEMPTS: DEFAULT_RETRY_POLICY.maxAttempts,
  CAIRN_COMMIT_RETRY_DELAY_MS: DEFAULT_RETRY_POLICY.baseDelayMs,
  CAIRN_DURABILITY_INTERVAL_MS: 5_000,
  CAIRN_DIR_HISTORY_MAX_BYTES: DEFAULT_DIR_HISTORY_SETTINGS.maxDirBytes,
  CAIRN_WORKSPACE_HISTORY_MAX_BYTES: DEFAULT_DIR_HISTORY_SETTINGS.maxSharedBytes,
  CAIRN_DIR_HISTORY_RETENTION_DAYS: DEFAULT_DIR_HISTORY_SETTINGS.retentionDays,
  CAIRN_FAILED_COMMITS_MAX_BYTES: DEFAULT_FAILED_COMMITS_MAX_BYTES,
  CAIRN_DIR_MAX_FILES: DEFAULT_DIR_LIMITS.maxFiles,
  CAIRN_DIR_MAX_BYTES: DEFAULT_DIR_LIMITS.maxDirBytes,
  CAIRN_DIR_MAX_FILE_BYTES: DEFAULT_DIR_LIMITS.maxFileBytes,
  CAIRN_JOB_EXPIRE_SECONDS: 300,
  CAIRN_UPLOAD_MAX_FILE_BYTES: 1024 * 1024,
  CAIRN_UPLOAD_MAX_BATCH_BYTES: 32 * 1024 * 1024,
  CAIRN_COMPACTION_THRESHOLD: 0.7,
  OLLAMA_BASE_URL: "http://127.0.0.1:11434",
});

// Every variable is read as text; blank (or only spaces) counts as unset, as it always has.
const text = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** A whole number in [min, max], default `fallback`; `_` separators are not accepted. */
function wholeNumber(fallback: number, options: { min?: number; max?: number } = {}) {
  const min = options.min ?? 1;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const wanted =
    max === Number.MAX_SAFE_INTEGER
      ? min === 1
        ? "a positive whole number"
        : `a whole number of at least ${min}`
      : `a whole number from ${min} to ${max}`;
  return text.transform((value, context) => {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) {
      context.addIssue({ code: "custom", message: `must be ${wanted}, got "${value}"` });
      return z.NEVER;
    }
    return number;
  });
}

/** Like `wholeNumber`, but `off` (any case) means "no limit" (`null`). */
function wholeNumberOrOff(fallback: number | null) {
  return text.transform((value, context) => {
    if (value === undefined) return fallback;
    if (value.toLowerCase() === "off") return null;
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
      context.addIssue({
        code: "custom",
        message: `must be a positive whole number or "off", got "${value}"`,
      });
      return z.NEVER;
    }
    return number;
  });
}

/** An http(s) URL; not echoed in the message (it may carry credentials). */
const httpUrl = text.refine(
  (value) => value === undefined || isHttpUrl(value),
  { message: "must be an http(s) URL" },
);

/**
 * A parser from another module that throws on a bad value: its message becomes the issue. (Pass
 * a function that calls it: those modules import the process's configuration in turn.)
 */
function parsedBy<T>(parse: (value: string | undefined) => T) {
  return text.transform((value, context) => {
    try {
      return parse(value);
    } catch (error) {
      context.addIssue({
        code: "custom",
        message: error instanceof Error ? error.message : String(error),
      });
      return z.NEVER;
    }
  });
}

/** `on` or `off` (any case), default `fallback`. */
function onOff(fallback: boolean) {
  return text.transform((value, context) => {
    if (value === undefined) return fallback;
    const normalized = value.toLowerCase();
    if (normalized !== "on" && normalized !== "off") {
      context.addIssue({ code: "custom", message: `must be "on" or "off", got "${value}"` });
      return z.NEVER;
    }
    return normalized === "on";
  });
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
/** A level of `CAIRN_LOG_LEVEL`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every environment variable Cairn reads at run time (README.md: Configuration, Models, Running
 * on PostgreSQL, Command line), as text in, typed values out. Unknown variables are ignored.
 */
export const envSchema = z.object({
  DATABASE_URL: parsedBy((value) => {
    // The form only; resolved against CAIRN_DATA_DIR and the working directory in toConfig.
    resolveDatabaseTargetFrom({ url: value, dataDir: "/", cwd: "/" });
    return value;
  }),
  CAIRN_DATA_DIR: text,
  PORT: wholeNumber(CONFIG_DEFAULTS.PORT, { min: 1, max: 65_535 }),
  AUTH_SECRET: text,
  AUTH_GITHUB_ID: text,
  AUTH_GITHUB_SECRET: text,
  CAIRN_SIGNIN_LIMIT_EMAIL: wholeNumber(CONFIG_DEFAULTS.CAIRN_SIGNIN_LIMIT_EMAIL),
  CAIRN_SIGNIN_LIMIT_IP: wholeNumber(CONFIG_DEFAULTS.CAIRN_SIGNIN_LIMIT_IP),
  CAIRN_TRUSTED_PROXIES: parsedBy((value) => parseTrustedProxies(value)),
  // bcrypt accepts costs 4–31; every step doubles the time a hash takes.
  CAIRN_BCRYPT_COST: wholeNumber(CONFIG_DEFAULTS.CAIRN_BCRYPT_COST, { min: 4, max: 31 }),
  CAIRN_COMPANY_DOCS_DIR: text,
  CAIRN_IMAGE_ORIGINS: parsedBy((value) =>
    parseImageOrigins(value, (message) => {
      throw new Error(
        message.replace(/^CAIRN_IMAGE_ORIGINS: ignoring (\S+) — /, "$1 is not an origin: "),
      );
    }),
  ),
  CAIRN_MCP_ALLOWED_ORIGINS: parsedBy((value) =>
    parseOriginList(value, "CAIRN_MCP_ALLOWED_ORIGINS", (message) => {
      throw new Error(
        message.replace(/^CAIRN_MCP_ALLOWED_ORIGINS: ignoring (\S+) — /, "$1 is not an origin: "),
      );
    }),
  ),
  AUTH_URL: httpUrl,
  NEXTAUTH_URL: httpUrl,
  CAIRN_SHELL_TIMEOUT_MS: wholeNumber(CONFIG_DEFAULTS.CAIRN_SHELL_TIMEOUT_MS),
  CAIRN_SHELL_MEMORY_MB: wholeNumber(CONFIG_DEFAULTS.CAIRN_SHELL_MEMORY_MB),
  CAIRN_SHELL_OUTPUT_CHARS: wholeNumber(CONFIG_DEFAULTS.CAIRN_SHELL_OUTPUT_CHARS),
  CAIRN_MAX_TURNS_PER_USER: wholeNumber(CONFIG_DEFAULTS.CAIRN_MAX_TURNS_PER_USER),
  CAIRN_TURNS_PER_MINUTE: wholeNumber(CONFIG_DEFAULTS.CAIRN_TURNS_PER_MINUTE),
  CAIRN_TURN_LEASE_MS: wholeNumber(CONFIG_DEFAULTS.CAIRN_TURN_LEASE_MS),
  CAIRN_COMMIT_RETRY_ATTEMPTS: wholeNumber(CONFIG_DEFAULTS.CAIRN_COMMIT_RETRY_ATTEMPTS),
  CAIRN_COMMIT_RETRY_DELAY_MS: wholeNumber(CONFIG_DEFAULTS.CAIRN_COMMIT_RETRY_DELAY_MS),
  CAIRN_DURABILITY_INTERVAL_MS: wholeNumber(CONFIG_DEFAULTS.CAIRN_DURABILITY_INTERVAL_MS),
  CAIRN_DIR_HISTORY_MAX_BYTES: wholeNumberOrOff(CONFIG_DEFAULTS.CAIRN_DIR_HISTORY_MAX_BYTES),
  CAIRN_WORKSPACE_HISTORY_MAX_BYTES: wholeNumberOrOff(
    CONFIG_DEFAULTS.CAIRN_WORKSPACE_HISTORY_MAX_BYTES,
  ),
  CAIRN_DIR_HISTORY_RETENTION_DAYS: wholeNumberOrOff(
    CONFIG_DEFAULTS.CAIRN_DIR_HISTORY_RETENTION_DAYS,
  ),
  CAIRN_FAILED_COMMITS_MAX_BYTES: wholeNumberOrOff(CONFIG_DEFAULTS.CAIRN_FAILED_COMMITS_MAX_BYTES),
  CAIRN_DIR_MAX_FILES: wholeNumber(CONFIG_DEFAULTS.CAIRN_DIR_MAX_FILES),
  CAIRN_DIR_MAX_BYTES: wholeNumber(CONFIG_DEFAULTS.CAIRN_DIR_MAX_BYTES),
  CAIRN_DIR_MAX_FILE_BYTES: wholeNumber(CONFIG_DEFAULTS.CAIRN_DIR_MAX_FILE_BYTES),
  CAIRN_FAULT_INJECTION: parsedBy((value) => parseFaultInjection(value)),
  CAIRN_WORKERS: text.transform((value, context) => {
    const normalized = value?.toLowerCase() ?? "on";
    if (normalized !== "on" && normalized !== "off") {
      context.addIssue({ code: "custom", message: `must be "off" or "on", got "${value}"` });
      return z.NEVER;
    }
    return normalized === "on";
  }),
  CAIRN_JOB_EXPIRE_SECONDS: wholeNumber(CONFIG_DEFAULTS.CAIRN_JOB_EXPIRE_SECONDS),
  CAIRN_UPLOAD_MAX_FILE_BYTES: wholeNumber(CONFIG_DEFAULTS.CAIRN_UPLOAD_MAX_FILE_BYTES),
  CAIRN_UPLOAD_MAX_BATCH_BYTES: wholeNumber(CONFIG_DEFAULTS.CAIRN_UPLOAD_MAX_BATCH_BYTES),
  CAIRN_COMPACTION_THRESHOLD: text.transform((value, context) => {
    if (value === undefined) return CONFIG_DEFAULTS.CAIRN_COMPACTION_THRESHOLD;
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0 || number > 1) {
      context.addIssue({
        code: "custom",
        message: `must be a number above 0 and at most 1 (a share of the context window), got "${value}"`,
      });
      return z.NEVER;
    }
    return number;
  }),
  AI_PROVIDER: text.transform((value, context) => {
    if (value === undefined) return undefined;
    const provider = value.toLowerCase();
    if (provider !== "openai" && provider !== "anthropic" && provider !== "openai-compatible") {
      const alias = ["ollama", "vllm", "lmstudio", "lm-studio", "llama.cpp", "llamacpp"].includes(
        provider,
      )
        ? ` (for ${value}, use openai-compatible with AI_BASE_URL set to its /v1 endpoint)`
        : "";
      context.addIssue({
        code: "custom",
        message: `must be openai, anthropic or openai-compatible, got "${value}"${alias}`,
      });
      return z.NEVER;
    }
    return provider;
  }),
  AI_MODEL: text,
  AI_API_KEY: text,
  OPENAI_API_KEY: text,
  ANTHROPIC_API_KEY: text,
  AI_BASE_URL: httpUrl,
  AI_REFINE_MODEL: text,
  AI_EMBEDDING_MODEL: text,
  AI_CONTEXT_WINDOW: text.transform((value, context) => {
    if (value === undefined) return undefined;
    const digits = value.replace(/[_,]/g, "");
    const number = Number(digits);
    if (!/^\d+$/.test(digits) || !Number.isSafeInteger(number) || number < 1) {
      context.addIssue({
        code: "custom",
        message: `must be a whole number of tokens, got "${value}"`,
      });
      return z.NEVER;
    }
    return number;
  }),
  OLLAMA_BASE_URL: httpUrl,
  CAIRN_LOG_LEVEL: text.transform((value, context) => {
    if (value === undefined) return "info" as LogLevel;
    const level = value.toLowerCase();
    if (!(LOG_LEVELS as readonly string[]).includes(level)) {
      context.addIssue({
        code: "custom",
        message: `must be one of ${LOG_LEVELS.join(", ")}, got "${value}"`,
      });
      return z.NEVER;
    }
    return level as LogLevel;
  }),
  CAIRN_LOG_FORMAT: text.transform((value, context) => {
    if (value === undefined) return undefined;
    const format = value.toLowerCase();
    if (format !== "json" && format !== "pretty") {
      context.addIssue({ code: "custom", message: `must be "json" or "pretty", got "${value}"` });
      return z.NEVER;
    }
    return format;
  }),
  // Long enough that guessing it is hopeless; never echoed.
  CAIRN_METRICS_TOKEN: text.refine((value) => value === undefined || value.length >= 16, {
    message: "must be at least 16 characters (openssl rand -hex 24)",
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  CAIRN_TRACE_CONTENT: onOff(false),
  CAIRN_OIDC_ISSUER: httpUrl,
  CAIRN_OIDC_CLIENT_ID: text,
  CAIRN_OIDC_CLIENT_SECRET: text,
  CAIRN_OIDC_NAME: text,
  CAIRN_OIDC_ALLOWED_DOMAINS: domainList,
  CAIRN_OIDC_WORKSPACE: text,
  CAIRN_OIDC_DEFAULT_ROLE: text.transform((value, context) => {
    const role = value?.toLowerCase() ?? "member";
    if (!isRole(role)) {
      context.addIssue({
        code: "custom",
        message: `must be member, editor or admin, got "${value}"`,
      });
      return z.NEVER;
    }
    return role;
  }),
  CAIRN_OIDC_ONLY: onOff(false),
  CAIRN_OIDC_BREAK_GLASS_EMAIL: text.refine(
    (value) => value === undefined || /^[^\s@]+@[^\s@]+$/.test(value),
    { message: "must be an email address" },
  ),
  CAIRN_OIDC_GROUPS_CLAIM: text,
  CAIRN_OIDC_GROUP_ROLES: groupRoles,
  CAIRN_URL: httpUrl,
  CAIRN_TOKEN: text,
});

/** The environment's variables as the schema reads them. */
export type ParsedEnv = z.output<typeof envSchema>;

/** The model variables, as `resolveModelConfig` (lib/ai) reads them: trimmed, blank = unset. */
export type ModelEnvironment = Readonly<Partial<Record<ModelVariable, string>>>;

type ModelVariable =
  | "AI_PROVIDER"
  | "AI_MODEL"
  | "AI_API_KEY"
  | "OPENAI_API_KEY"
  | "ANTHROPIC_API_KEY"
  | "AI_BASE_URL"
  | "AI_REFINE_MODEL"
  | "AI_EMBEDDING_MODEL"
  | "AI_CONTEXT_WINDOW"
  | "OLLAMA_BASE_URL";

/** Cairn's configuration: one object, parsed once from the environment by `loadConfig`. */
export interface CairnConfig {
  /** `DATABASE_URL` resolved (unset: SQLite at `<dataDir>/cairn.db`). */
  database: DatabaseTarget;
  /** `CAIRN_DATA_DIR`, absolute (default `./data`): the default database and the spool. */
  dataDir: string;
  /** `PORT` of `npm start`. */
  port: number;
  /** `AUTH_SECRET`; `null` when unset (the durability refuses to start without it). */
  authSecret: string | null;
  /** `AUTH_GITHUB_ID` and `AUTH_GITHUB_SECRET`, or `null` when GitHub sign-in is off. */
  github: { clientId: string; clientSecret: string } | null;
  /** `CAIRN_SIGNIN_LIMIT_EMAIL`, `CAIRN_SIGNIN_LIMIT_IP`. */
  signIn: { perEmailAndAddress: number; perAddress: number };
  /** `CAIRN_TRUSTED_PROXIES`, parsed. */
  trustedProxies: TrustedProxies;
  /** `CAIRN_BCRYPT_COST`. */
  bcryptCost: number;
  /** `CAIRN_COMPANY_DOCS_DIR`, or `null`. */
  companyDocsDir: string | null;
  /** Origins `/api/mcp` accepts besides loopback: `CAIRN_MCP_ALLOWED_ORIGINS` and the origin of `AUTH_URL` / `NEXTAUTH_URL`. */
  mcpAllowedOrigins: readonly string[];
  /** `CAIRN_IMAGE_ORIGINS`, as origins. */
  imageOrigins: readonly string[];
  /** `CAIRN_SHELL_TIMEOUT_MS`, `CAIRN_SHELL_MEMORY_MB`, `CAIRN_SHELL_OUTPUT_CHARS`. */
  shell: { timeoutMs: number; memoryMb: number; maxOutputChars: number };
  /** `CAIRN_MAX_TURNS_PER_USER`, `CAIRN_TURNS_PER_MINUTE`, `CAIRN_TURN_LEASE_MS`. */
  turns: { maxPerUser: number; perMinute: number; leaseMs: number };
  /** `CAIRN_COMMIT_RETRY_ATTEMPTS`, `CAIRN_COMMIT_RETRY_DELAY_MS` (the cap stays the core's). */
  commitRetry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  /** `CAIRN_DURABILITY_INTERVAL_MS`. */
  durabilityIntervalMs: number;
  /** `CAIRN_DIR_HISTORY_MAX_BYTES`, `CAIRN_WORKSPACE_HISTORY_MAX_BYTES`, `CAIRN_DIR_HISTORY_RETENTION_DAYS`. */
  dirHistory: Readonly<DirHistorySettings>;
  /** `CAIRN_DIR_MAX_FILES`, `CAIRN_DIR_MAX_BYTES`, `CAIRN_DIR_MAX_FILE_BYTES`: each database-backed dir's limits. */
  dirLimits: Readonly<DirLimits>;
  /** `CAIRN_FAILED_COMMITS_MAX_BYTES`; `null` when off (decision 0030). */
  failedCommitsMaxBytes: number | null;
  /** `CAIRN_FAULT_INJECTION` (testing only), parsed; `null` when off. */
  faultInjection: FaultInjectionSetting | null;
  /** `CAIRN_WORKERS` is not `off`. */
  workers: boolean;
  /** `CAIRN_JOB_EXPIRE_SECONDS`. */
  jobExpireSeconds: number;
  /** `CAIRN_UPLOAD_MAX_FILE_BYTES`, `CAIRN_UPLOAD_MAX_BATCH_BYTES` (issue 25). */
  upload: { maxFileBytes: number; maxBatchBytes: number };
  /** `CAIRN_COMPACTION_THRESHOLD`. */
  compactionThreshold: number;
  /** The `AI_*` variables, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` and `OLLAMA_BASE_URL`. */
  models: ModelEnvironment;
  /** `CAIRN_URL` and `CAIRN_TOKEN`, for `cairn mcp` (the stdio bridge). */
  mcpBridge: { url: string | null; token: string | null };
  /** `CAIRN_LOG_LEVEL`; `CAIRN_LOG_FORMAT` (unset: `json` when `NODE_ENV` is production, else `pretty`). */
  log: { level: LogLevel; format: "json" | "pretty" };
  /** `CAIRN_METRICS_TOKEN`; `null` turns `/api/metrics` off (404). */
  metricsToken: string | null;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` (traces off when `null`) and `CAIRN_TRACE_CONTENT`. */
  tracing: { endpoint: string | null; content: boolean };
  /** OpenID Connect sign-in (`CAIRN_OIDC_*`), or `null` when `CAIRN_OIDC_ISSUER` is unset. */
  oidc: OidcConfig | null;
}

/** OpenID Connect sign-in, from the `CAIRN_OIDC_*` variables (docs/auth.md). */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label: "Sign in with {name}". */
  name: string;
  /** Emails of these domains join `workspace` on first sign-in; empty: invite only. */
  allowedDomains: readonly string[];
  /** The workspace (name or id) auto-joined accounts go to. */
  workspace: string | null;
  /** The role of an auto-joined account (unless a group maps to another). */
  defaultRole: Role;
  /** Password sign-in is off for everyone but `breakGlassEmail`. */
  only: boolean;
  breakGlassEmail: string | null;
  /** The ID token / userinfo claim listing the person's groups; `null`: groups are ignored. */
  groupsClaim: string | null;
  /** Group → role; the highest role of the person's groups wins. */
  groupRoles: Readonly<Record<string, Role>>;
}

/**
 * The parsed variables as the configuration object; `cwd` resolves relative paths, `nodeEnv`
 * (`NODE_ENV`, set by Next itself) picks the log format when `CAIRN_LOG_FORMAT` is unset.
 */
export function toConfig(env: ParsedEnv, cwd: string, nodeEnv?: string): CairnConfig {
  const dataDir = path.resolve(cwd, env.CAIRN_DATA_DIR ?? "data");
  const models: Partial<Record<ModelVariable, string>> = {};
  for (const name of [
    "AI_PROVIDER",
    "AI_MODEL",
    "AI_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AI_BASE_URL",
    "AI_REFINE_MODEL",
    "AI_EMBEDDING_MODEL",
    "OLLAMA_BASE_URL",
  ] as const) {
    const value = env[name];
    if (value !== undefined) models[name] = value;
  }
  if (env.AI_CONTEXT_WINDOW !== undefined) models.AI_CONTEXT_WINDOW = String(env.AI_CONTEXT_WINDOW);
  return {
    database: resolveDatabaseTargetFrom({ url: env.DATABASE_URL, dataDir, cwd }),
    dataDir,
    port: env.PORT,
    authSecret: env.AUTH_SECRET ?? null,
    github:
      env.AUTH_GITHUB_ID && env.AUTH_GITHUB_SECRET
        ? { clientId: env.AUTH_GITHUB_ID, clientSecret: env.AUTH_GITHUB_SECRET }
        : null,
    signIn: {
      perEmailAndAddress: env.CAIRN_SIGNIN_LIMIT_EMAIL,
      perAddress: env.CAIRN_SIGNIN_LIMIT_IP,
    },
    trustedProxies: env.CAIRN_TRUSTED_PROXIES,
    bcryptCost: env.CAIRN_BCRYPT_COST,
    companyDocsDir: env.CAIRN_COMPANY_DOCS_DIR ?? null,
    mcpAllowedOrigins: Object.freeze(
      parseMcpAllowedOrigins({
        CAIRN_MCP_ALLOWED_ORIGINS: env.CAIRN_MCP_ALLOWED_ORIGINS.join(" "),
        AUTH_URL: env.AUTH_URL,
        NEXTAUTH_URL: env.NEXTAUTH_URL,
      }),
    ),
    imageOrigins: Object.freeze(env.CAIRN_IMAGE_ORIGINS),
    shell: {
      timeoutMs: env.CAIRN_SHELL_TIMEOUT_MS,
      memoryMb: env.CAIRN_SHELL_MEMORY_MB,
      maxOutputChars: env.CAIRN_SHELL_OUTPUT_CHARS,
    },
    turns: {
      maxPerUser: env.CAIRN_MAX_TURNS_PER_USER,
      perMinute: env.CAIRN_TURNS_PER_MINUTE,
      leaseMs: env.CAIRN_TURN_LEASE_MS,
    },
    commitRetry: {
      maxAttempts: env.CAIRN_COMMIT_RETRY_ATTEMPTS,
      baseDelayMs: env.CAIRN_COMMIT_RETRY_DELAY_MS,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs,
    },
    durabilityIntervalMs: env.CAIRN_DURABILITY_INTERVAL_MS,
    dirHistory: Object.freeze({
      maxDirBytes: env.CAIRN_DIR_HISTORY_MAX_BYTES,
      maxSharedBytes: env.CAIRN_WORKSPACE_HISTORY_MAX_BYTES,
      retentionDays: env.CAIRN_DIR_HISTORY_RETENTION_DAYS,
    }),
    dirLimits: Object.freeze({
      maxFiles: env.CAIRN_DIR_MAX_FILES,
      maxDirBytes: env.CAIRN_DIR_MAX_BYTES,
      maxFileBytes: env.CAIRN_DIR_MAX_FILE_BYTES,
    }),
    failedCommitsMaxBytes: env.CAIRN_FAILED_COMMITS_MAX_BYTES,
    faultInjection: env.CAIRN_FAULT_INJECTION,
    workers: env.CAIRN_WORKERS,
    jobExpireSeconds: env.CAIRN_JOB_EXPIRE_SECONDS,
    upload: {
      maxFileBytes: env.CAIRN_UPLOAD_MAX_FILE_BYTES,
      maxBatchBytes: env.CAIRN_UPLOAD_MAX_BATCH_BYTES,
    },
    compactionThreshold: env.CAIRN_COMPACTION_THRESHOLD,
    models: Object.freeze(models),
    mcpBridge: { url: env.CAIRN_URL ?? null, token: env.CAIRN_TOKEN ?? null },
    log: {
      level: env.CAIRN_LOG_LEVEL,
      format: env.CAIRN_LOG_FORMAT ?? (nodeEnv === "production" ? "json" : "pretty"),
    },
    metricsToken: env.CAIRN_METRICS_TOKEN ?? null,
    tracing: {
      endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
      content: env.CAIRN_TRACE_CONTENT,
    },
    oidc:
      env.CAIRN_OIDC_ISSUER && env.CAIRN_OIDC_CLIENT_ID && env.CAIRN_OIDC_CLIENT_SECRET
        ? {
            issuer: env.CAIRN_OIDC_ISSUER,
            clientId: env.CAIRN_OIDC_CLIENT_ID,
            clientSecret: env.CAIRN_OIDC_CLIENT_SECRET,
            name: env.CAIRN_OIDC_NAME ?? "single sign-on",
            allowedDomains: Object.freeze(env.CAIRN_OIDC_ALLOWED_DOMAINS),
            workspace: env.CAIRN_OIDC_WORKSPACE ?? null,
            defaultRole: env.CAIRN_OIDC_DEFAULT_ROLE,
            only: env.CAIRN_OIDC_ONLY,
            breakGlassEmail: env.CAIRN_OIDC_BREAK_GLASS_EMAIL?.toLowerCase() ?? null,
            groupsClaim: env.CAIRN_OIDC_GROUPS_CLAIM ?? null,
            groupRoles: Object.freeze(env.CAIRN_OIDC_GROUP_ROLES),
          }
        : null,
  };
}
