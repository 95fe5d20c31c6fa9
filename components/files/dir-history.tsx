import Link from "next/link";

/** One history row, as the service returns it. */
export interface DirHistoryEntry {
  id: string;
  version: number;
  source: string;
  /** Where the commit came from outside the app (`mcp:<token> (<client>)`), or `null`. */
  via?: string | null;
  actorName: string | null;
  created: string[];
  updated: string[];
  deleted: string[];
  createdAt: string;
}

const sourceLabels: Record<string, string> = {
  turn: "agent turn",
  editor: "editor",
  retry: "retry",
  resolve: "conflict resolution",
  mcp: "MCP",
};

/** A dir's successful commits, newest first, with a link to older ones. */
export function DirHistory(props: {
  dirKind: string;
  commits: DirHistoryEntry[];
  nextCursor: string | null;
}) {
  return (
    <section className="space-y-2" data-testid="commit-history">
      <h2 className="font-medium">Commit history</h2>
      {props.commits.length === 0 ? (
        <p className="text-muted-foreground text-sm">No commits yet.</p>
      ) : (
        <ol className="divide-border divide-y text-sm">
          {props.commits.map((commit) => (
            <li key={commit.id} className="py-2" data-testid="history-entry">
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="font-mono">v{commit.version}</span>
                <span>{sourceLabels[commit.source] ?? commit.source}</span>
                {commit.actorName ? (
                  <span className="text-muted-foreground">by {commit.actorName}</span>
                ) : null}
                {commit.via ? (
                  <span className="text-muted-foreground" data-testid="history-via">
                    via {commit.via}
                  </span>
                ) : null}
                <time className="text-muted-foreground" dateTime={commit.createdAt}>
                  {new Date(commit.createdAt).toISOString().replace("T", " ").slice(0, 19)} UTC
                </time>
              </div>
              <ul className="text-muted-foreground mt-1 font-mono text-xs">
                {commit.created.map((path) => (
                  <li key={`c:${path}`}>+ {path}</li>
                ))}
                {commit.updated.map((path) => (
                  <li key={`u:${path}`}>~ {path}</li>
                ))}
                {commit.deleted.map((path) => (
                  <li key={`d:${path}`}>- {path}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      )}
      {props.nextCursor ? (
        <Link
          className="text-sm underline"
          href={`/files?dir=${props.dirKind}&history=${encodeURIComponent(props.nextCursor)}`}
        >
          Older commits
        </Link>
      ) : null}
    </section>
  );
}
