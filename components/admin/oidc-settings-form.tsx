"use client";

import { useState } from "react";
import {
  removeOidcSettingsAction,
  saveOidcSettingsAction,
} from "@/app/(app)/admin/settings/oidc-actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import type { Role } from "@/lib/harness";
import type { OidcSettingsView } from "@/lib/oidc-settings";

const ROLE_LABELS: Record<Role, string> = { member: "Member", editor: "Editor", admin: "Admin" };

/**
 * Admin → Settings → Single sign-on (decision 0053): the instance's OpenID Connect client, saved
 * in the database with the secret sealed and never sent back. Shown to admins of the instance's
 * first workspace. `envOverride`: the `CAIRN_OIDC_*` variables set single sign-on and win, so the
 * form is read-only.
 */
export function OidcSettingsForm({
  saved,
  envOverride,
  redirectUri,
  workspaceName,
}: {
  saved: OidcSettingsView | null;
  envOverride: boolean;
  redirectUri: string;
  workspaceName: string;
}) {
  const [issuer, setIssuer] = useState(saved?.issuer ?? "");
  const [clientId, setClientId] = useState(saved?.clientId ?? "");
  const [clientSecret, setClientSecret] = useState("");
  const [name, setName] = useState(saved?.name ?? "");
  const [allowedDomains, setAllowedDomains] = useState(saved?.allowedDomains ?? "");
  const [defaultRole, setDefaultRole] = useState<Role>(saved?.defaultRole ?? "member");
  const [groupsClaim, setGroupsClaim] = useState(saved?.groupsClaim ?? "");
  const [groupRoles, setGroupRoles] = useState(saved?.groupRoles ?? "");
  const [done, setDone] = useState<string | null>(null);
  const save = useAction();
  const joinWorkspace = saved?.workspaceName ?? workspaceName;
  const fieldError = (field: string) => save.fieldErrors[field]?.[0];

  return (
    <section
      className="max-w-lg space-y-3"
      aria-labelledby="oidc-heading"
      id="single-sign-on"
      data-testid="oidc-settings"
    >
      <h2 id="oidc-heading" className="font-medium">
        Single sign-on
      </h2>
      <p className="text-muted-foreground text-sm">
        Sign in with your identity provider over OpenID Connect (Keycloak, Authentik, Okta, Entra
        ID, Google Workspace). Register Cairn there as a confidential client with this redirect URI:
      </p>
      <p
        className="bg-muted rounded-md px-2 py-1 font-mono text-xs break-all"
        data-testid="oidc-redirect-uri"
      >
        {redirectUri}
      </p>
      {envOverride ? (
        <p
          className="rounded-md border border-amber-500/50 p-2 text-sm"
          data-testid="oidc-env-override"
        >
          The server&apos;s CAIRN_OIDC_* environment variables set single sign-on, and they win over
          anything saved here. Remove them from the server&apos;s environment to manage it on this
          page.
        </p>
      ) : null}
      <Form
        className="space-y-4"
        data-testid="oidc-settings-form"
        onSubmit={() => {
          setDone(null);
          save.run(
            () =>
              saveOidcSettingsAction({
                issuer,
                clientId,
                clientSecret,
                name,
                allowedDomains,
                defaultRole,
                groupsClaim,
                groupRoles,
              }),
            {
              onSuccess: () => {
                setClientSecret("");
                setDone("Saved. The sign-in page offers it now.");
              },
            },
          );
        }}
      >
        <fieldset disabled={envOverride} className="space-y-4 disabled:opacity-60">
          <div className="space-y-2">
            <Label htmlFor="oidc-issuer">Issuer URL</Label>
            <Input
              id="oidc-issuer"
              data-testid="oidc-form-issuer"
              inputMode="url"
              autoComplete="off"
              value={issuer}
              placeholder="https://id.example.com/realms/acme"
              onChange={(event) => setIssuer(event.target.value)}
              aria-invalid={fieldError("issuer") ? true : undefined}
              aria-describedby="oidc-issuer-hint"
            />
            <p id="oidc-issuer-hint" className="text-muted-foreground text-xs">
              {fieldError("issuer") ??
                "Where /.well-known/openid-configuration is served, without that part."}
            </p>
          </div>
          <div className="space-y-2">
            <Label htmlFor="oidc-client-id">Client ID</Label>
            <Input
              id="oidc-client-id"
              data-testid="oidc-form-client-id"
              autoComplete="off"
              value={clientId}
              onChange={(event) => setClientId(event.target.value)}
            />
          </div>
          <div className="space-y-2">
            <Label htmlFor="oidc-client-secret">Client secret</Label>
            <Input
              id="oidc-client-secret"
              data-testid="oidc-form-client-secret"
              type="password"
              autoComplete="off"
              value={clientSecret}
              placeholder={saved ? "Saved — leave empty to keep it" : ""}
              onChange={(event) => setClientSecret(event.target.value)}
              aria-describedby="oidc-client-secret-hint"
            />
            <p id="oidc-client-secret-hint" className="text-muted-foreground text-xs">
              {saved
                ? "A secret is saved (encrypted; it is never shown again). Type a new one to replace it."
                : "Stored encrypted; it is never shown again."}
            </p>
          </div>
          <div className="space-y-2">
            <Label htmlFor="oidc-name">Button label</Label>
            <Input
              id="oidc-name"
              data-testid="oidc-form-name"
              autoComplete="off"
              value={name}
              placeholder="single sign-on"
              onChange={(event) => setName(event.target.value)}
              aria-describedby="oidc-name-hint"
            />
            <p id="oidc-name-hint" className="text-muted-foreground text-xs">
              The sign-in page shows &ldquo;Sign in with {name.trim() || "single sign-on"}&rdquo;.
            </p>
          </div>
          <div className="space-y-2">
            <Label htmlFor="oidc-domains">Domains that join automatically</Label>
            <Input
              id="oidc-domains"
              data-testid="oidc-form-domains"
              autoComplete="off"
              value={allowedDomains}
              placeholder="example.com, example.org"
              onChange={(event) => setAllowedDomains(event.target.value)}
              aria-invalid={fieldError("allowedDomains") ? true : undefined}
              aria-describedby="oidc-domains-hint"
            />
            <p id="oidc-domains-hint" className="text-muted-foreground text-xs">
              {fieldError("allowedDomains") ??
                `A new person whose verified email has one of these domains joins ${joinWorkspace} on first sign-in. Empty: people join by invite only; existing accounts sign in either way.`}
            </p>
          </div>
          <div className="space-y-2">
            <Label htmlFor="oidc-default-role">Their role</Label>
            <select
              id="oidc-default-role"
              data-testid="oidc-form-default-role"
              className="border-input bg-background h-11 w-full rounded-md border px-2 text-sm sm:h-9"
              value={defaultRole}
              onChange={(event) => setDefaultRole(event.target.value as Role)}
            >
              {(Object.keys(ROLE_LABELS) as Role[]).map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABELS[role]}
                </option>
              ))}
            </select>
          </div>
          <details className="space-y-3 text-sm" open={Boolean(saved?.groupsClaim)}>
            <summary className="cursor-pointer font-medium">Roles from groups (optional)</summary>
            <div className="space-y-4 pt-3">
              <div className="space-y-2">
                <Label htmlFor="oidc-groups-claim">Groups claim</Label>
                <Input
                  id="oidc-groups-claim"
                  data-testid="oidc-form-groups-claim"
                  autoComplete="off"
                  value={groupsClaim}
                  placeholder="groups"
                  onChange={(event) => setGroupsClaim(event.target.value)}
                  aria-invalid={fieldError("groupsClaim") ? true : undefined}
                  aria-describedby="oidc-groups-claim-hint"
                />
                <p id="oidc-groups-claim-hint" className="text-muted-foreground text-xs">
                  {fieldError("groupsClaim") ??
                    "The claim that lists a person's groups. Empty: groups are ignored."}
                </p>
              </div>
              <div className="space-y-2">
                <Label htmlFor="oidc-group-roles">Group → role</Label>
                <Input
                  id="oidc-group-roles"
                  data-testid="oidc-form-group-roles"
                  autoComplete="off"
                  value={groupRoles}
                  placeholder="cairn-admins=admin, writers=editor"
                  onChange={(event) => setGroupRoles(event.target.value)}
                  aria-invalid={fieldError("groupRoles") ? true : undefined}
                  aria-describedby="oidc-group-roles-hint"
                />
                <p id="oidc-group-roles-hint" className="text-muted-foreground text-xs">
                  {fieldError("groupRoles") ??
                    `The highest mapped role is set in ${joinWorkspace} at every sign-in: the identity provider decides it.`}
                </p>
              </div>
            </div>
          </details>
          <FormMessage message={save.error ?? done} tone={save.error ? "error" : "info"} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={save.pending} data-testid="oidc-save">
              Save single sign-on
            </Button>
            {saved ? (
              <Button
                type="button"
                variant="ghost"
                data-testid="oidc-remove"
                disabled={save.pending}
                onClick={() =>
                  save.run(() => removeOidcSettingsAction({}), {
                    onSuccess: () => {
                      setDone("Removed. The sign-in page no longer offers single sign-on.");
                      setClientSecret("");
                    },
                  })
                }
              >
                Remove
              </Button>
            ) : null}
          </div>
        </fieldset>
      </Form>
    </section>
  );
}
