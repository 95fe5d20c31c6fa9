import { handleMcpRequest } from "@/lib/mcp";
import { getPersistentDirs } from "@/lib/workspace-dirs";
import { requestFeedbackRefinement } from "@/lib/refinement-runs";
import { harnessStorageFor } from "@/lib/sql-storage";
import { getSql } from "@/lib/sql-storage/sql";

export const dynamic = "force-dynamic";

/**
 * The MCP endpoint (Streamable HTTP, stateless, JSON responses). Authorised by a personal access
 * token (`Authorization: Bearer cairn_pat_…`); the role comes from the membership per request.
 * See docs/mcp.md.
 */
function handle(request: Request): Promise<Response> {
  return handleMcpRequest(request, {
    sql: getSql(),
    dirs: getPersistentDirs(),
    harnessStorage: harnessStorageFor(),
    requestFeedbackRefinement,
  });
}

export { handle as DELETE, handle as GET, handle as POST };
