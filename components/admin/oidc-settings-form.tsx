"use client";

import { useState } from "react";
import {
  removeOidcSettingsAction,
  saveOidcSettingsAction,
} from "@/app/(app)/admin/settings/oidc-actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { SelectField } from "@/components/ui/select-field";
import { TextField } from "@/components/ui/text-field";
import { useAction } from "@/lib/actions/use-action";
import type { Role } from "@/lib/harness";
import type { OidcSettingsView } from "@/lib/oidc-settings";

const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: "member", label: "Member" },
  { value: "editor", label: "Editor" },
  { value: "admin", label: "Admin" },
];

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
          <TextField
            id="oidc-issuer"
            label="Issuer URL"
            data-testid="oidc-form-issuer"
            inputMode="url"
            autoComplete="off"
            value={issuer}
            placeholder="https://id.example.com/realms/acme"
            onValueChange={setIssuer}
            error={fieldError("issuer")}
            hintId="oidc-issuer-hint"
            hint="Where /.well-known/openid-configuration is served, without that part."
          />
          <TextField
            id="oidc-client-id"
            label="Client ID"
            data-testid="oidc-form-client-id"
            autoComplete="off"
            value={clientId}
            onValueChange={setClientId}
          />
          <TextField
            id="oidc-client-secret"
            label="Client secret"
            data-testid="oidc-form-client-secret"
            type="password"
            autoComplete="off"
            value={clientSecret}
            placeholder={saved ? "Saved — leave empty to keep it" : ""}
            onValueChange={setClientSecret}
            hintId="oidc-client-secret-hint"
            hint={
              saved
                ? "A secret is saved (encrypted; it is never shown again). Type a new one to replace it."
                : "Stored encrypted; it is never shown again."
            }
          />
          <TextField
            id="oidc-name"
            label="Button label"
            data-testid="oidc-form-name"
            autoComplete="off"
            value={name}
            placeholder="single sign-on"
            onValueChange={setName}
            hintId="oidc-name-hint"
            hint={
              <>
                The sign-in page shows &ldquo;Sign in with {name.trim() || "single sign-on"}&rdquo;.
              </>
            }
          />
          <TextField
            id="oidc-domains"
            label="Domains that join automatically"
            data-testid="oidc-form-domains"
            autoComplete="off"
            value={allowedDomains}
            placeholder="example.com, example.org"
            onValueChange={setAllowedDomains}
            error={fieldError("allowedDomains")}
            hintId="oidc-domains-hint"
            hint={`A new person whose verified email has one of these domains joins ${joinWorkspace} on first sign-in. Empty: people join by invite only; existing accounts sign in either way.`}
          />
          <SelectField
            id="oidc-default-role"
            label="Their role"
            data-testid="oidc-form-default-role"
            value={defaultRole}
            options={ROLE_OPTIONS}
            onValueChange={setDefaultRole}
          />
          <details className="space-y-3 text-sm" open={Boolean(saved?.groupsClaim)}>
            <summary className="cursor-pointer font-medium">Roles from groups (optional)</summary>
            <div className="space-y-4 pt-3">
              <TextField
                id="oidc-groups-claim"
                label="Groups claim"
                data-testid="oidc-form-groups-claim"
                autoComplete="off"
                value={groupsClaim}
                placeholder="groups"
                onValueChange={setGroupsClaim}
                error={fieldError("groupsClaim")}
                hintId="oidc-groups-claim-hint"
                hint="The claim that lists a person's groups. Empty: groups are ignored."
              />
              <TextField
                id="oidc-group-roles"
                label="Group → role"
                data-testid="oidc-form-group-roles"
                autoComplete="off"
                value={groupRoles}
                placeholder="cairn-admins=admin, writers=editor"
                onValueChange={setGroupRoles}
                error={fieldError("groupRoles")}
                hintId="oidc-group-roles-hint"
                hint={`The highest mapped role is set in ${joinWorkspace} at every sign-in: the identity provider decides it.`}
              />
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
