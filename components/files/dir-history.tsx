import Link from "next/link";
import { DiffView } from "@/components/harness/diff-view";
import type { CommitDetail } from "@/lib/workspace-dirs";
import type { RecordedContent } from "@/lib/sql-storage";
import { cn } from "@/lib/utils";
import { RestoreCommitButton } from "./restore-commit-button";

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
  editor: "edited by hand",
  retry: "retry",
  resolve: "conflict resolution",
  mcp: "MCP",
  restore: "restore",
  import: "bulk import",
};

/** Paths a history row names before "… and N more files". */
const MAX_LISTED_PATHS = 12;

function textOf(content: RecordedContent): string {
  return content.state === "text" ? content.text : "";
}

function sideLabel(content: RecordedContent, version: number): string {
  if (content.state === "absent") return `v${version} (no file)`;
  return `v${version}`;
}

/** What one commit did to each file: a side-by-side diff, or why there is none. */
function CommitChanges({ detail }: { detail: CommitDetail }) {
  return (
    <div className="mt-2 space-y-3" data-testid="commit-changes">
      {detail.files.map((file) => {
        const missing = [file.before, file.after].find(
          (side) =>
            side.state === "unrecorded" || side.state === "binary" || side.state === "compacted",
        );
        return (
          <div
            key={file.path}
            className="space-y-1"
            data-testid="commit-file"
            data-path={file.path}
          >
            <p className="font-mono text-xs">
              {file.path} <span className="text-muted-foreground">({file.change})</span>
            </p>
            {missing ? (
              <p className="text-muted-foreground text-xs">
                {missing.state === "binary"
                  ? "Binary content: no text diff."
                  : missing.state === "compacted"
                    ? "The content on one side of this change is no longer kept: versions older than the history's retention window are compacted (who changed which files, and when, is kept)."
                    : "The content on one side of this change was not kept (saved before Cairn kept file contents in the history)."}
              </p>
            ) : (
              <DiffView
                before={textOf(file.before)}
                after={textOf(file.after)}
                beforeLabel={sideLabel(file.before, detail.version - 1)}
                afterLabel={sideLabel(file.after, detail.version)}
              />
            )}
          </div>
        );
      })}
    </div>
  );
}

/**
 * A dir's successful commits, newest first, with a link to older ones. The selected commit
 * (`?commit=`) shows its diff; people who may write the dir can restore an earlier version.
 */
export function DirHistory(props: {
  dirKind: string;
  harnessDir: string;
  commits: DirHistoryEntry[];
  nextCursor: string | null;
  /** The `history` page cursor in the URL, kept when a row is opened. */
  historyCursor?: string;
  /** The file open above the history, kept open when a row is opened. */
  openPath?: string;
  /** The file list's filter (`q`), kept when a row is opened. */
  filter?: string;
  selected: CommitDetail | null;
  canRestore: boolean;
}) {
  // The newest commit is the current state: restoring it would change nothing.
  const newestId = props.historyCursor ? null : props.commits[0]?.id;
  const hrefFor = (commitId: string | null) => {
    const query = new URLSearchParams({ dir: props.dirKind });
    if (props.openPath) query.set("path", props.openPath);
    if (props.filter) query.set("q", props.filter);
    if (props.historyCursor) query.set("history", props.historyCursor);
    if (commitId) query.set("commit", commitId);
    return `/files?${query.toString()}${commitId ? `#commit-${commitId}` : "#commit-history"}`;
  };
  return (
    <section className="space-y-2" data-testid="commit-history" id="commit-history">
      <h2 className="font-medium">Commit history</h2>
      <p className="text-muted-foreground text-sm">
        Every saved change, newest first. Open one to see what changed
        {props.canRestore
          ? "; Restore puts its files back to how it left them, as a new version."
          : "."}
      </p>
      {props.commits.length === 0 ? (
        <p className="text-muted-foreground text-sm">No commits yet.</p>
      ) : (
        <ol className="divide-border divide-y text-sm">
          {props.commits.map((commit) => {
            const open = props.selected?.id === commit.id;
            const paths = [...commit.created, ...commit.updated, ...commit.deleted];
            // A bulk import changes thousands of files: the row names the first few.
            const listed = [
              ...commit.created.map((path) => ({ mark: "+", path })),
              ...commit.updated.map((path) => ({ mark: "~", path })),
              ...commit.deleted.map((path) => ({ mark: "-", path })),
            ].slice(0, MAX_LISTED_PATHS);
            return (
              <li
                key={commit.id}
                id={`commit-${commit.id}`}
                className={cn("py-2", open && "bg-muted/40 -mx-2 rounded-md px-2")}
                data-testid="history-entry"
                data-version={commit.version}
              >
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
                  <span className="ml-auto flex items-center gap-2">
                    <Link
                      href={hrefFor(open ? null : commit.id)}
                      scroll={false}
                      className="underline"
                      data-testid="show-commit"
                    >
                      {open ? "Hide changes" : "Show changes"}
                    </Link>
                    {props.canRestore && commit.id !== newestId ? (
                      <RestoreCommitButton
                        harnessDir={props.harnessDir}
                        commitId={commit.id}
                        version={commit.version}
                        paths={paths.slice(0, MAX_LISTED_PATHS)}
                        pathCount={paths.length}
                      />
                    ) : null}
                  </span>
                </div>
                <ul className="text-muted-foreground mt-1 font-mono text-xs">
                  {listed.map(({ mark, path }) => (
                    <li key={`${mark}:${path}`}>
                      {mark} {path}
                    </li>
                  ))}
                  {paths.length > listed.length ? (
                    <li data-testid="history-more-paths">
                      … and {(paths.length - listed.length).toLocaleString("en-US")} more files
                    </li>
                  ) : null}
                </ul>
                {open && props.selected ? <CommitChanges detail={props.selected} /> : null}
              </li>
            );
          })}
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
