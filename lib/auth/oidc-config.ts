import { cairn } from "@/lib/cairn";
import type { OidcConfig } from "@/lib/config";
import { OIDC_PROVIDER_ID } from "./oidc-sign-in";

/**
 * The single sign-on in force: the `CAIRN_OIDC_*` variables when `CAIRN_OIDC_ISSUER` is set
 * (they win, as a whole), else what an admin saved on Admin → Settings, else none
 * (decision 0053). Cheap: the saved row is read at most every few seconds per process.
 */
export async function currentOidcConfig(): Promise<OidcConfig | null> {
  const { config, savedOidc } = cairn();
  return config.oidc ?? (await savedOidc.current());
}

/** The sign-in page's single sign-on button, or null when single sign-on is off. */
export async function oidcSignInButton(): Promise<{
  id: string;
  name: string;
  only: boolean;
} | null> {
  const oidc = await currentOidcConfig();
  return oidc ? { id: OIDC_PROVIDER_ID, name: oidc.name, only: oidc.only } : null;
}
