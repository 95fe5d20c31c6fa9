/**
 * A throwaway OpenID Connect issuer on loopback (`oidc-provider`'s development interactions:
 * any login, any password), for the single sign-on tests. The login names the person:
 *
 * - `<name>` → `<name>@sso.example`, email verified (an allowed domain in the e2e server);
 * - `outsider-<name>` → `<name>@elsewhere.example`, verified (not an allowed domain);
 * - `unverified-<name>` → `<name>@sso.example`, **not** verified;
 * - `admin-<name>` → like `<name>`, in the group `cairn-admins`.
 *
 *     node --import tsx e2e/support/oidc-issuer.ts --port 3198 --redirect http://127.0.0.1:3100
 *
 * In-process: `await startOidcIssuer({ port, redirectBase })`.
 */
import type { Server } from "node:http";
import { pathToFileURL } from "node:url";
import Provider from "oidc-provider";

export const OIDC_CLIENT_ID = "cairn-e2e";
export const OIDC_CLIENT_SECRET = "cairn-e2e-oidc-client-secret";

/** The claims the issuer gives a login (see the file's comment). */
export function claimsOf(login: string): Record<string, unknown> {
  const [prefix, rest] = login.includes("-") ? login.split(/-(.*)/s) : ["", login];
  const name = rest || login;
  const domain = prefix === "outsider" ? "elsewhere.example" : "sso.example";
  return {
    sub: login,
    email: `${name}@${domain}`,
    email_verified: prefix !== "unverified",
    name: `${name[0]?.toUpperCase() ?? ""}${name.slice(1)} Sso`,
    groups: prefix === "admin" ? ["cairn-admins"] : ["staff"],
  };
}

/** Starts the issuer on 127.0.0.1:`port`; its client redirects to `<redirectBase>/api/auth/callback/oidc`. */
export async function startOidcIssuer(options: {
  port: number;
  redirectBase: string;
}): Promise<{ issuer: string; close(): Promise<void> }> {
  const issuer = `http://127.0.0.1:${options.port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [`${options.redirectBase}/api/auth/callback/oidc`],
        post_logout_redirect_uris: [options.redirectBase],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      groups: ["groups"],
    },
    scopes: ["openid", "email", "profile", "groups", "offline_access"],
    // The development login's name is the account id (and the subject).
    async findAccount(_context, id) {
      return { accountId: id, claims: () => claimsOf(id) };
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["cairn-e2e-oidc-cookie-key-0123456789"] },
  });
  for (const event of ["server_error", "grant.error"]) {
    provider.on(event, (_context: unknown, error: unknown) => {
      const detail = (error as { error_detail?: string }).error_detail ?? "";
      process.stderr.write(
        `oidc issuer ${event}: ${error instanceof Error ? error.message : String(error)} ${detail}\n`,
      );
    });
  }
  const server: Server = provider.listen(options.port, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    issuer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const argument = (name: string) => {
    const index = process.argv.indexOf(name);
    return index === -1 ? undefined : process.argv[index + 1];
  };
  const port = Number(argument("--port") ?? 3198);
  const redirectBase = argument("--redirect") ?? "http://127.0.0.1:3100";
  const { issuer } = await startOidcIssuer({ port, redirectBase });
  process.stdout.write(`oidc issuer on ${issuer}\n`);
}
