import { headers } from "next/headers";
import { McpSetup, TokenCreator, TokenRow } from "@/components/settings/access-tokens";
import { TableHead } from "@/components/ui/table-head";
import { listOwnTokens } from "@/lib/access-tokens/queries";
import { requireActor } from "@/lib/auth";
import { requestOrigin } from "@/lib/security";

export const metadata = { title: "Access tokens" };

export const dynamic = "force-dynamic";

export default async function AccessTokensPage() {
  const actor = await requireActor();
  const tokens = await listOwnTokens(actor);
  // The address this page was reached at: the one an MCP client on the same network uses.
  const mcpUrl = `${requestOrigin({ headers: await headers() }) ?? ""}/api/mcp`;
  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Access tokens</h1>
        <p className="text-muted-foreground max-w-3xl text-sm">
          Personal access tokens let other agents (Claude Code, Cursor, Claude Desktop…) use this
          workspace&apos;s memory through MCP at <code>{mcpUrl}</code>. A token acts as you, in this
          workspace, with your current role: if your role changes, so does what the token may do.
          Signing out does not revoke tokens (they serve clients that outlive a browser session):
          revoke one here when you no longer need it. Removal from the workspace revokes them all,
          for good. Setup: see <code>docs/mcp.md</code>.
        </p>
      </div>
      <section className="space-y-3">
        <h2 className="font-medium">New token</h2>
        <TokenCreator mcpUrl={mcpUrl} />
      </section>
      <section className="space-y-3">
        <h2 className="font-medium">Connect a client</h2>
        <McpSetup mcpUrl={mcpUrl} />
      </section>
      <section className="space-y-2">
        <h2 className="font-medium">Your tokens</h2>
        {tokens.length === 0 ? (
          <p className="text-muted-foreground text-sm" data-testid="no-tokens">
            No tokens yet.
          </p>
        ) : (
          <table className="table-cards w-full text-sm" data-testid="tokens-table">
            <TableHead
              columns={["Name", "Token", "Created", "Last used", "Expires", "Client", ""]}
            />
            <tbody>
              {tokens.map((token) => (
                <TokenRow
                  key={token.id}
                  id={token.id}
                  name={token.name}
                  prefix={token.prefix}
                  createdAt={token.createdAt.toISOString()}
                  lastUsedAt={token.lastUsedAt?.toISOString() ?? null}
                  expiresAt={token.expiresAt?.toISOString() ?? null}
                  clientName={token.clientName}
                  state={token.state}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
