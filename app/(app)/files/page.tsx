import Link from "next/link";
import { DirHistory } from "@/components/files/dir-history";
import { FileEditor } from "@/components/files/file-editor";
import { FileFilter } from "@/components/files/file-filter";
import { FileTree, type FileTreePage } from "@/components/files/file-tree";
import { FileViewer } from "@/components/files/file-viewer";
import { PageHeader } from "@/components/page-header";
import { PromoteForm, SuggestFileChange } from "@/components/review/suggest-forms";
import { UploadPanel } from "@/components/files/upload-panel";
import { cairn } from "@/lib/cairn";
import { Badge } from "@/components/ui/badge";
import { toAppError } from "@/lib/app-error";
import { requireActor } from "@/lib/auth";
import { canWriteGlobal } from "@/lib/harness";
import { getPersistentDirs, type DirBrowsePage, type OpenedFile } from "@/lib/workspace-dirs";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { cn } from "@/lib/utils";

export const metadata = { title: "Files" };

export const dynamic = "force-dynamic";

type SearchParams = Promise<RawSearchParams>;

/** The folders a file sits in, outermost first (`a/b/c.md` → `a`, `a/b`). */
function foldersOf(path: string): string[] {
  const segments = path.split("/").slice(0, -1);
  return segments.map((_, index) => segments.slice(0, index + 1).join("/"));
}

/** A page as the tree takes it (no dates: nothing there shows them). */
function treePage(page: DirBrowsePage): FileTreePage {
  return {
    folder: page.folder,
    folders: page.folders,
    foldersTruncated: page.foldersTruncated,
    files: page.files.map(({ path, size, isText }) => ({ path, size, isText })),
    nextAfter: page.nextAfter,
    fileCount: page.fileCount,
  };
}

const count = (value: number) => value.toLocaleString("en-US");

export default async function FilesPage({ searchParams }: { searchParams: SearchParams }) {
  const actor = await requireActor();
  const params: { dir?: string; path?: string; history?: string; commit?: string; q?: string } =
    firstSearchValues(await searchParams);
  // "Filter by path": the server lists only the matching files (issue 23: a dir may hold 100,000).
  const filter = (params.q ?? "").trim().slice(0, 400);
  const service = getPersistentDirs();
  const dirs = service.listVisibleDirs({ actor });
  const selected = dirs.find((dir) => dir.kind === params.dir) ?? dirs[0]!;
  const [listing, openFolders, history, openFailures, selectedCommit, limits] = await Promise.all([
    service.browseFiles({ actor, harnessDir: selected.harnessDir, filter }),
    // The open file's folders are listed open, so the tree shows where it sits. A path that is
    // not one (a mangled link) opens nothing here; the viewer says what is wrong with it.
    filter === "" && params.path
      ? Promise.all(
          foldersOf(params.path).map((folder) =>
            service.browseFiles({ actor, harnessDir: selected.harnessDir, folder }),
          ),
        ).catch(() => [])
      : [],
    // A mangled history cursor shows the newest page rather than an error.
    service
      .listHistory({ actor, harnessDir: selected.harnessDir, cursor: params.history, limit: 20 })
      .catch(() => service.listHistory({ actor, harnessDir: selected.harnessDir, limit: 20 })),
    service.listFailures({ actor, status: "open", limit: 100 }),
    params.commit && selected.hasHistory
      ? service.readCommit({ actor, harnessDir: selected.harnessDir, id: params.commit })
      : null,
    // What a save or an upload here meets: the workspace's limits within the server's.
    service.limitsFor({ actor, harnessDir: selected.harnessDir }),
  ]);
  let opened: OpenedFile | null = null;
  let openError: string | null = null;
  if (params.path) {
    try {
      opened = await service.readFile({
        actor,
        harnessDir: selected.harnessDir,
        path: params.path,
      });
      if (!opened) openError = `No file ${params.path} in ${selected.label}.`;
    } catch (error) {
      openError = toAppError(error).message;
    }
  }
  const failureCount = openFailures.failures.length;

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between sm:gap-4">
        <PageHeader title="Files">
          Files Cairn keeps between chats: your memory, your company&apos;s knowledge and each
          chat&apos;s notes. A change you save here is checked against the latest version, the same
          way the agent&apos;s changes are, so nobody&apos;s edit is silently lost.
        </PageHeader>
        <Link
          href="/files/failures"
          data-testid="failures-link"
          className="hover:bg-muted shrink-0 self-start rounded-md border px-3 py-1.5 text-sm whitespace-nowrap"
        >
          Commit failures
          {failureCount > 0 ? ` (${failureCount}${openFailures.nextCursor ? "+" : ""})` : ""}
        </Link>
      </div>

      <nav className="grid gap-3 sm:grid-cols-3" aria-label="Dirs">
        {dirs.map((dir) => (
          <Link
            key={dir.harnessDir}
            href={`/files?dir=${dir.kind}`}
            data-testid={`dir-${dir.kind}`}
            aria-current={dir.harnessDir === selected.harnessDir ? "page" : undefined}
            className={cn(
              "border-border hover:bg-muted rounded-lg border p-3 text-sm",
              dir.harnessDir === selected.harnessDir && "bg-muted",
            )}
          >
            <span className="flex items-center justify-between gap-2">
              <span className="font-medium">{dir.label}</span>
              <Badge data-testid="dir-badge">{dir.writable ? "writable" : "read-only"}</Badge>
            </span>
            <span className="text-muted-foreground mt-1 block font-mono text-xs">
              {dir.harnessDir}
            </span>
          </Link>
        ))}
      </nav>

      <section className="space-y-3" data-testid="dir-view" data-dir={selected.harnessDir}>
        <p className="text-muted-foreground text-sm">
          {selected.description}{" "}
          {selected.writable
            ? null
            : selected.kind === "company"
              ? "You can read it; changes you (or your agent) make are suggested for review."
              : "You can read it; your role cannot change it."}
        </p>
        {selected.writable && selected.hasHistory ? (
          <UploadPanel
            dirKind={selected.kind}
            harnessDir={selected.harnessDir}
            maxFileBytes={Math.min(cairn().config.upload.maxFileBytes, limits.maxFileBytes)}
          />
        ) : null}
        <div className="grid gap-6 md:grid-cols-[18rem_1fr]">
          <div className="space-y-2">
            <div className="flex items-center justify-between gap-2">
              <h2 className="font-medium">
                Files{" "}
                <span
                  className="text-muted-foreground text-sm font-normal"
                  data-testid="file-count"
                >
                  {filter
                    ? `${count(listing.fileCount)} of ${count(listing.totalFiles)} match`
                    : `${count(listing.totalFiles)} ${listing.totalFiles === 1 ? "file" : "files"}`}
                </span>
              </h2>
              {selected.writable ? (
                <Link
                  href={`/files?dir=${selected.kind}`}
                  data-testid="new-file"
                  className="text-sm underline"
                >
                  New file
                </Link>
              ) : null}
            </div>
            <FileFilter dirKind={selected.kind} filter={filter} openPath={opened?.path ?? null} />
            <FileTree
              key={`${selected.harnessDir}:${filter}:${String(listing.cursor)}`}
              dirKind={selected.kind}
              harnessDir={selected.harnessDir}
              filter={filter}
              root={treePage(listing)}
              openFolders={openFolders.map(treePage)}
              selectedPath={opened?.path ?? null}
            />
          </div>
          {/* At phone width an open file comes before the tree: a tap on a file shows it, not
              a screen of the tree again. */}
          <div className={cn("min-w-0 space-y-2", opened && "order-first md:order-none")}>
            {openError ? (
              <p className="text-destructive text-sm" data-testid="file-error">
                {openError}
              </p>
            ) : null}
            {selected.writable && (opened === null || opened.text !== null) ? (
              <FileEditor
                key={`${selected.harnessDir}:${opened?.path ?? ""}`}
                harnessDir={selected.harnessDir}
                dirKind={selected.kind}
                file={opened}
                dirCursor={listing.cursor}
                maxFileBytes={limits.maxFileBytes}
              />
            ) : opened ? (
              <>
                <FileViewer path={opened.path} text={opened.text} size={opened.size} />
                {selected.kind === "company" && opened.text !== null ? (
                  <SuggestFileChange
                    key={`${opened.path}:${String(opened.cursor)}`}
                    harnessDir={selected.harnessDir}
                    path={opened.path}
                    text={opened.text}
                    cursor={opened.cursor}
                  />
                ) : null}
                {opened.text === null && selected.hasHistory ? (
                  <a
                    className="text-sm underline"
                    data-testid="download-file"
                    href={`/api/files/raw?dir=${selected.kind}&path=${encodeURIComponent(opened.path)}`}
                  >
                    Download {opened.path.split("/").pop()}
                  </a>
                ) : null}
              </>
            ) : (
              <p className="text-muted-foreground text-sm" data-testid="no-file-selected">
                {listing.totalFiles === 0
                  ? "This dir is empty."
                  : "Choose a file to view it, or filter by path to find one."}
              </p>
            )}
            {selected.kind === "user" && opened?.text ? (
              <PromoteForm
                key={`promote:${opened.path}`}
                text={opened.text}
                title={opened.path.split("/").pop()?.replace(/\.md$/, "") ?? opened.path}
                path={opened.path}
                canApply={canWriteGlobal(actor)}
              />
            ) : null}
          </div>
        </div>
      </section>

      {selected.hasHistory ? (
        <DirHistory
          dirKind={selected.kind}
          harnessDir={selected.harnessDir}
          commits={history.commits}
          nextCursor={history.nextCursor}
          historyCursor={params.history}
          openPath={opened?.path}
          filter={filter}
          selected={selectedCommit}
          canRestore={selected.writable}
        />
      ) : null}
    </div>
  );
}
