import { z } from "zod";
import { getActor } from "@/lib/auth";
import { cairn } from "@/lib/cairn";
import { errorResponse } from "@/lib/app-error";
import { RequestError } from "@/lib/request-error";
import { entryHref } from "@/components/harness/entry-href";
import {
  MAX_SEARCH_LIMIT,
  SEARCH_KINDS,
  type SearchHit,
  type SearchKind,
  type SearchResultItem,
} from "@/lib/search";

export const dynamic = "force-dynamic";

const querySchema = z.object({
  q: z.string().max(500),
  kind: z.array(z.enum(SEARCH_KINDS as [SearchKind, ...SearchKind[]])).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT).optional(),
});

/**
 * GET /api/search?q=…[&kind=chat&kind=memory][&limit=N]: the signed-in person's search (their
 * memory and chats, the workspace's company knowledge, docs and harness entries), ranked
 * passages with snippets. The Actor comes from the session cookie; the membership is read
 * again by the search itself.
 */
export async function GET(request: Request) {
  const actor = await getActor();
  if (!actor) return errorResponse(new RequestError("unauthenticated", "Sign in first."));
  const params = new URL(request.url).searchParams;
  const kinds = params.getAll("kind");
  const parsed = querySchema.safeParse({
    q: params.get("q") ?? "",
    kind: kinds.length > 0 ? kinds : undefined,
    limit: params.get("limit") ?? undefined,
  });
  if (!parsed.success) {
    return errorResponse(
      new RequestError("invalid", "Invalid search.", {
        issues: z.flattenError(parsed.error).fieldErrors,
      }),
    );
  }
  try {
    const { mode } = await cairn().search.mode(actor.workspaceId);
    const hits = await cairn().search.search(actor, {
      query: parsed.data.q,
      kinds: parsed.data.kind,
      limit: parsed.data.limit ?? 30,
    });
    return Response.json(
      {
        mode,
        hits: hits.map((hit): SearchResultItem => ({
          kind: hit.kind,
          location: hit.location,
          path: hit.path,
          title: hit.title,
          lineStart: hit.lineStart,
          lineEnd: hit.lineEnd,
          chatId: hit.chatId,
          messageId: hit.messageId,
          updatedAt: hit.updatedAt.toISOString(),
          snippet: hit.snippet,
          href: hrefOf(hit),
        })),
      },
      { headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    return errorResponse(error);
  }
}

const DIR_OF_KIND = { memory: "user", company: "company", docs: "docs" } as const;

/** Where a hit opens in the app: the file, the entry, or the chat at the message. */
function hrefOf(hit: SearchHit): string {
  switch (hit.kind) {
    case "chat":
      return `/chat/${encodeURIComponent(hit.chatId ?? "")}?m=${encodeURIComponent(hit.messageId ?? "")}`;
    case "harness":
      return hit.entry
        ? entryHref({ ...hit.entry, chatId: hit.entry.scope === "local" ? hit.chatId : null })
        : "/harness";
    default:
      return `/files?dir=${DIR_OF_KIND[hit.kind]}&path=${encodeURIComponent(hit.path)}`;
  }
}
