"use client";

import { useState } from "react";
import { createTokenAction, revokeTokenAction } from "@/app/(app)/settings/tokens/actions";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmActionButton } from "@/components/ui/confirm-action-button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input, Select } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { copyText } from "@/lib/copy-text";
import { useAction } from "@/lib/actions/use-action";

const expiryChoices = [
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
  { days: 365, label: "1 year" },
  { days: 0, label: "Never" },
] as const;

function formatDate(value: string | null): string {
  return value ? new Date(value).toISOString().slice(0, 10) : "—";
}

/**
 * Creates a token and shows it once, with a copy button and, when `mcpUrl` is given, the client
 * configuration with the token filled in.
 */
export function TokenCreator({ mcpUrl }: { mcpUrl?: string } = {}) {
  const [name, setName] = useState("");
  const [expiresInDays, setExpiresInDays] = useState<string>("90");
  const [token, setToken] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const { pending, error, run } = useAction();
  return (
    <div className="max-w-2xl space-y-3">
      <Form
        className="flex flex-wrap items-end gap-2"
        onSubmit={() => {
          run(() => createTokenAction({ name, expiresInDays }), {
            onSuccess: (result) => {
              setToken(result.token);
              setCopied(false);
              setName("");
            },
          });
        }}
      >
        <div className="min-w-56 flex-1 space-y-1">
          <Label htmlFor="token-name">Name</Label>
          <Input
            id="token-name"
            data-testid="token-name"
            placeholder="e.g. laptop — Claude Code"
            value={name}
            maxLength={100}
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <div className="space-y-1">
          <Label htmlFor="token-expiry">Expires</Label>
          <Select
            id="token-expiry"
            data-testid="token-expiry"
            value={expiresInDays}
            onChange={(event) => setExpiresInDays(event.target.value)}
          >
            {expiryChoices.map((choice) => (
              <option key={choice.days} value={String(choice.days)}>
                {choice.label}
              </option>
            ))}
          </Select>
        </div>
        <Button type="submit" data-testid="create-token" disabled={pending}>
          Create token
        </Button>
      </Form>
      {token ? (
        <div className="border-border space-y-2 rounded-md border p-3" data-testid="new-token">
          <p className="text-sm">
            Copy your token now: it is shown only once. Cairn keeps only a hash of it.
          </p>
          <div className="flex gap-2">
            <Input
              readOnly
              value={token}
              className="font-mono"
              data-testid="new-token-value"
              onFocus={(event) => event.target.select()}
            />
            <Button
              type="button"
              variant="outline"
              data-testid="copy-token"
              onClick={() => {
                void copyText(token).then(setCopied);
              }}
            >
              {copied ? "Copied" : "Copy"}
            </Button>
          </div>
          {mcpUrl ? <McpSetup mcpUrl={mcpUrl} token={token} /> : null}
        </div>
      ) : null}
      <FormMessage message={error} />
    </div>
  );
}

/** One token in the list, with a revoke button while it is active. */
export function TokenRow(props: {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  clientName: string | null;
  state: "active" | "expired" | "revoked";
}) {
  return (
    <tr className="border-border border-t" data-testid="token-row" data-state={props.state}>
      <td data-label="Name" className="py-2">
        {props.name}
      </td>
      <td data-label="Token" className="font-mono text-xs">
        {props.prefix}…
      </td>
      <td data-label="Created">{formatDate(props.createdAt)}</td>
      <td data-label="Last used" data-testid="token-last-used">
        {props.lastUsedAt ? formatDate(props.lastUsedAt) : "never"}
      </td>
      <td data-label="Expires">{props.expiresAt ? formatDate(props.expiresAt) : "never"}</td>
      <td data-label="Client" className="text-muted-foreground">
        {props.clientName ?? "—"}
      </td>
      <td className="text-right">
        {props.state === "active" ? (
          <ConfirmActionButton
            variant="outline"
            data-testid="revoke-token"
            confirm={`Revoke "${props.name}"? Clients using it stop working at once.`}
            call={() => revokeTokenAction({ id: props.id })}
          >
            Revoke
          </ConfirmActionButton>
        ) : (
          <Badge data-testid="token-state">{props.state}</Badge>
        )}
      </td>
    </tr>
  );
}

/** The JSON an MCP client that speaks Streamable HTTP with headers reads (Cursor, Windsurf, …). */
export function mcpClientConfig(mcpUrl: string, token: string): string {
  return JSON.stringify(
    { mcpServers: { cairn: { url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } },
    null,
    2,
  );
}

/** A block of text to paste elsewhere, with a Copy button that says when it copied. */
function CopyBlock({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="space-y-1">
      <div className="flex items-center justify-between gap-2">
        <span className="text-sm font-medium">{label}</span>
        <Button
          type="button"
          variant="outline"
          size="sm"
          data-testid={`${testId}-copy`}
          aria-label={`Copy ${label}`}
          onClick={() => {
            void copyText(text).then((done) => {
              setCopied(done);
              if (done) setTimeout(() => setCopied(false), 1500);
            });
          }}
        >
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
      <pre
        className="bg-muted overflow-x-auto rounded-md p-3 font-mono text-xs"
        data-testid={testId}
        // Scrollable by keyboard (axe: scrollable-region-focusable).
        tabIndex={0}
      >
        {text}
      </pre>
    </div>
  );
}

/**
 * How to connect an MCP client: the server's full MCP URL, a ready-made client configuration and
 * the Claude Code command, each with Copy. `token` fills them in (right after creating one);
 * without it they hold a placeholder to replace.
 */
export function McpSetup({ mcpUrl, token }: { mcpUrl: string; token?: string }) {
  const shown = token ?? "cairn_pat_…";
  return (
    <div className="max-w-3xl space-y-3" data-testid="mcp-setup">
      <div className="space-y-1">
        <Label htmlFor="mcp-url">MCP URL</Label>
        <div className="flex gap-2">
          <Input
            id="mcp-url"
            readOnly
            value={mcpUrl}
            className="font-mono"
            data-testid="mcp-url"
            onFocus={(event) => event.target.select()}
          />
          <CopyUrlButton url={mcpUrl} />
        </div>
      </div>
      <CopyBlock
        label="Client configuration (JSON)"
        text={mcpClientConfig(mcpUrl, shown)}
        testId="mcp-config"
      />
      <CopyBlock
        label="Claude Code"
        text={`claude mcp add --transport http cairn ${mcpUrl} \\\n  --header "Authorization: Bearer ${shown}"`}
        testId="mcp-claude-code"
      />
      {token ? null : (
        <p className="text-muted-foreground text-xs">
          Replace <code>cairn_pat_…</code> with a token you create above (or create one: the
          configuration shown with it has the token filled in). Clients that speak only stdio
          (Claude Desktop) use the bridge: see <code>docs/mcp.md</code>.
        </p>
      )}
    </div>
  );
}

function CopyUrlButton({ url }: { url: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      type="button"
      variant="outline"
      data-testid="mcp-url-copy"
      aria-label="Copy MCP URL"
      onClick={() => {
        void copyText(url).then(setCopied);
      }}
    >
      {copied ? "Copied" : "Copy"}
    </Button>
  );
}
