import { hkdfSync } from "node:crypto";
import { z } from "zod";
import type { OidcConfig } from "@/lib/config";
// Directly, not through lib/config: see the module's comment (an import cycle through lib/cairn).
import { domainList, groupRoles } from "@/lib/config/oidc-lists";
import { ROLES, type Role } from "@/lib/harness";
import { toDate, type SqlExecutor } from "@/lib/sql-storage/sql";
import { isHttpUrl } from "@/lib/utils";
import {
  openSecret,
  sealSecret,
  SealedSecretUnreadable,
  type ModelKeyring,
} from "@/lib/model-settings";

/** The id of the instance's one `OidcSettings` row. */
export const OIDC_SETTINGS_ID = "instance";

/** The key that seals the saved client secret: from `AUTH_SECRET`, with an `info` of its own. */
export function oidcKeyFromSecret(secret: string): ModelKeyring {
  if (secret.trim() === "") throw new Error("AUTH_SECRET is empty: it cannot seal secrets.");
  return new Uint8Array(hkdfSync("sha256", secret, "cairn", "cairn oidc client secret", 32));
}

/** Saved single sign-on as the admin page shows it: never the secret, only that one is saved. */
export interface OidcSettingsView {
  issuer: string;
  clientId: string;
  clientSecretSet: true;
  name: string;
  /** As typed back into the form: `example.com, example.org`. */
  allowedDomains: string;
  defaultRole: Role;
  groupsClaim: string | null;
  /** As typed back into the form: `cairn-admins=admin, writers=editor`. */
  groupRoles: string;
  /** The workspace auto-joined accounts join (the one the settings were saved from). */
  workspaceName: string;
  updatedAt: string;
}

const issuerUrl = z
  .string()
  .trim()
  .min(1, "Enter the issuer URL")
  .max(500)
  .refine(
    isHttpUrl,
    "Enter the issuer's address, starting with https://, such as https://id.example.com/realms/acme",
  );

/**
 * What the form sends. `clientSecret` blank keeps the saved one. Domains and group pairs are
 * parsed by the same rules as `CAIRN_OIDC_ALLOWED_DOMAINS` and `CAIRN_OIDC_GROUP_ROLES`.
 */
export const oidcSettingsInputSchema = z
  .object({
    issuer: issuerUrl,
    clientId: z.string().trim().min(1, "Enter the client id").max(500),
    clientSecret: z.string().trim().max(2000).optional(),
    name: z.string().trim().max(60).optional(),
    allowedDomains: z.string().max(2000).optional().pipe(domainList),
    defaultRole: z.enum(ROLES),
    groupsClaim: z.string().trim().max(100).optional(),
    groupRoles: z.string().max(2000).optional().pipe(groupRoles),
  })
  .superRefine((value, context) => {
    if (Object.keys(value.groupRoles).length > 0 && !value.groupsClaim)
      context.addIssue({
        code: "custom",
        path: ["groupsClaim"],
        message: "Name the claim that lists a person's groups (often groups) to map them to roles",
      });
  });

export type OidcSettingsInput = z.input<typeof oidcSettingsInputSchema>;
type ParsedInput = z.output<typeof oidcSettingsInputSchema>;

function pairsText(mapping: Readonly<Record<string, Role>>): string {
  return Object.entries(mapping)
    .map(([group, role]) => `${group}=${role}`)
    .join(", ");
}

function parsePairs(text: string): Readonly<Record<string, Role>> {
  const parsed = groupRoles.safeParse(text);
  return parsed.success ? parsed.data : {};
}

/** The instance's `OidcSettings` row, with its workspace's name. */
interface OidcSettingsRow {
  workspaceId: string;
  issuer: string;
  clientId: string;
  clientSecretEncrypted: string;
  name: string;
  allowedDomains: string;
  defaultRole: string;
  groupsClaim: string | null;
  groupRoles: string;
  updatedAt: Date;
  workspace: { name: string };
}

async function readOidcSettingsRow(sql: SqlExecutor): Promise<OidcSettingsRow | null> {
  const row = await sql.get<
    Omit<OidcSettingsRow, "updatedAt" | "workspace"> & { updatedAt: unknown; workspaceName: string }
  >(
    `SELECT o."workspaceId", o."issuer", o."clientId", o."clientSecretEncrypted", o."name",
            o."allowedDomains", o."defaultRole", o."groupsClaim", o."groupRoles", o."updatedAt",
            w."name" AS "workspaceName"
     FROM "OidcSettings" o JOIN "Workspace" w ON w."id" = o."workspaceId"
     WHERE o."id" = ?`,
    [OIDC_SETTINGS_ID],
  );
  if (!row) return null;
  const { workspaceName, ...rest } = row;
  return { ...rest, updatedAt: toDate(row.updatedAt), workspace: { name: workspaceName } };
}

/** The saved settings for the admin page, or null when none are saved. */
export async function readOidcSettingsView(sql: SqlExecutor): Promise<OidcSettingsView | null> {
  const row = await readOidcSettingsRow(sql);
  if (!row) return null;
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    clientSecretSet: true,
    name: row.name,
    allowedDomains: row.allowedDomains.split(",").filter(Boolean).join(", "),
    defaultRole: (ROLES as readonly string[]).includes(row.defaultRole)
      ? (row.defaultRole as Role)
      : "member",
    groupsClaim: row.groupsClaim,
    groupRoles: pairsText(parsePairs(row.groupRoles)),
    workspaceName: row.workspace.name,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Thrown by `saveOidcSettings` when there is no secret to keep and none was typed. */
export class OidcClientSecretMissing extends Error {
  constructor() {
    super("Enter the client secret the identity provider gave you for Cairn.");
    this.name = "OidcClientSecretMissing";
  }
}

/**
 * Saves the instance's single sign-on, sealing a newly typed client secret (a blank one keeps
 * the saved secret). Auto-joined accounts join `workspaceId`. The version goes up by one.
 */
export async function saveOidcSettings(
  sql: SqlExecutor,
  options: { input: ParsedInput; workspaceId: string; key: ModelKeyring; by: string },
): Promise<void> {
  const { input } = options;
  const current = await sql.get<{ clientSecretEncrypted: string }>(
    `SELECT "clientSecretEncrypted" FROM "OidcSettings" WHERE "id" = ?`,
    [OIDC_SETTINGS_ID],
  );
  const typed = input.clientSecret ? input.clientSecret : null;
  if (!typed && !current) throw new OidcClientSecretMissing();
  const values = {
    workspaceId: options.workspaceId,
    issuer: input.issuer.replace(/\/+$/, ""),
    clientId: input.clientId,
    clientSecretEncrypted: typed ? sealSecret(typed, options.key) : current!.clientSecretEncrypted,
    name: input.name ? input.name : "single sign-on",
    allowedDomains: input.allowedDomains.join(","),
    defaultRole: input.defaultRole,
    groupsClaim: input.groupsClaim ? input.groupsClaim : null,
    groupRoles: pairsText(input.groupRoles),
    updatedBy: options.by,
  };
  await sql.run(
    `INSERT INTO "OidcSettings"
       ("id", "workspaceId", "issuer", "clientId", "clientSecretEncrypted", "name", "allowedDomains",
        "defaultRole", "groupsClaim", "groupRoles", "updatedBy", "version", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
     ON CONFLICT ("id") DO UPDATE SET
       "workspaceId" = excluded."workspaceId", "issuer" = excluded."issuer",
       "clientId" = excluded."clientId", "clientSecretEncrypted" = excluded."clientSecretEncrypted",
       "name" = excluded."name", "allowedDomains" = excluded."allowedDomains",
       "defaultRole" = excluded."defaultRole", "groupsClaim" = excluded."groupsClaim",
       "groupRoles" = excluded."groupRoles", "updatedBy" = excluded."updatedBy",
       "version" = "OidcSettings"."version" + 1, "updatedAt" = excluded."updatedAt"`,
    [
      OIDC_SETTINGS_ID,
      values.workspaceId,
      values.issuer,
      values.clientId,
      values.clientSecretEncrypted,
      values.name,
      values.allowedDomains,
      values.defaultRole,
      values.groupsClaim,
      values.groupRoles,
      values.updatedBy,
      new Date(),
    ],
  );
}

/** Removes the saved single sign-on: the sign-in page no longer offers it. */
export async function deleteOidcSettings(sql: SqlExecutor): Promise<void> {
  await sql.run(`DELETE FROM "OidcSettings" WHERE "id" = ?`, [OIDC_SETTINGS_ID]);
}

/** What the saved row means to sign-in: a configuration, or why it cannot be used. */
export type SavedOidcResult =
  { status: "configured"; config: OidcConfig } | { status: "unreadable"; message: string };

/**
 * The saved settings as sign-in reads them (the secret opened), or null when none are saved.
 * "OIDC only" and the break-glass email are the environment's alone (decision 0053).
 */
export async function readSavedOidcConfig(
  sql: SqlExecutor,
  key: ModelKeyring,
): Promise<SavedOidcResult | null> {
  const row = await sql.get<{
    issuer: string;
    clientId: string;
    clientSecretEncrypted: string;
    name: string;
    allowedDomains: string;
    workspaceId: string;
    defaultRole: string;
    groupsClaim: string | null;
    groupRoles: string;
  }>(
    `SELECT "issuer", "clientId", "clientSecretEncrypted", "name", "allowedDomains", "workspaceId",
            "defaultRole", "groupsClaim", "groupRoles"
     FROM "OidcSettings" WHERE "id" = ?`,
    [OIDC_SETTINGS_ID],
  );
  if (!row) return null;
  let clientSecret: string;
  try {
    clientSecret = openSecret(row.clientSecretEncrypted, key);
  } catch (error) {
    if (error instanceof SealedSecretUnreadable)
      return {
        status: "unreadable",
        message:
          "The saved single sign-on client secret cannot be read: AUTH_SECRET has changed since it was saved. An admin must enter it again on Admin → Settings.",
      };
    throw error;
  }
  const groupsClaim = row.groupsClaim;
  return {
    status: "configured",
    config: {
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecret,
      name: row.name,
      allowedDomains: Object.freeze(row.allowedDomains.split(",").filter(Boolean)),
      // By id: a renamed workspace stays the one people join.
      workspace: row.workspaceId,
      defaultRole: (ROLES as readonly string[]).includes(row.defaultRole)
        ? (row.defaultRole as Role)
        : "member",
      only: false,
      breakGlassEmail: null,
      groupsClaim,
      groupRoles: Object.freeze(groupsClaim ? parsePairs(row.groupRoles) : {}),
    },
  };
}

/**
 * May this admin change the instance's single sign-on? Only an admin of the instance's first
 * workspace (the one its first account created): an issuer vouches for emails, and Cairn matches
 * accounts by verified email across every workspace, so choosing the issuer is an instance-wide
 * power that an admin of any one workspace must not have (decision 0053).
 */
export async function mayManageOidcSettings(
  sql: SqlExecutor,
  actor: { workspaceId: string; role: Role },
): Promise<boolean> {
  if (actor.role !== "admin") return false;
  const first = await sql.get<{ id: string }>(
    `SELECT "id" FROM "Workspace" ORDER BY "createdAt" ASC, "id" ASC LIMIT 1`,
  );
  return first?.id === actor.workspaceId;
}
