import Link from "next/link";
import { DirHistory } from "@/components/files/dir-history";
import { FileEditor } from "@/components/files/file-editor";
import { FileTree } from "@/components/files/file-tree";
import { FileViewer } from "@/components/files/file-viewer";
import { UploadPanel } from "@/components/files/upload-panel";
import { cairn } from "@/lib/cairn";
import { Badge } from "@/components/ui/badge";
import { toAppError } from "@/lib/app-error";
import { requireActor } from "@/lib/auth";
import { DEFAULT_DIR_LIMITS } from "@/lib/harness";
import { getPersistentDirs, type OpenedFile } from "@/lib/persistent-dirs";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { cn } from "@/lib/utils";

export const dynamic = "force-dynamic";

type SearchParams = Promise<RawSearchParams>;

export default async function FilesPage({ searchParams }: { searchParams: SearchParams }) {
  const actor = await requireActor();
  const params: { dir?: string; path?: string; history?: string; commit?: string } =
    firstSearchValues(await searchParams);
  const service = getPersistentDirs();
  const dirs = service.listVisibleDirs({ actor });
  const selected = dirs.find((dir) => dir.kind === params.dir) ?? dirs[0]!;
  const [listing, history, openFailures, selectedCommit] = await Promise.all([
    service.listFiles({ actor, harnessDir: selected.harnessDir }),
    // A mangled history cursor shows the newest page rather than an error.
    service
      .listHistory({ actor, harnessDir: selected.harnessDir, cursor: params.history, limit: 20 })
      .catch(() => service.listHistory({ actor, harnessDir: selected.harnessDir, limit: 20 })),
    service.listFailures({ actor, status: "open", limit: 100 }),
    params.commit && selected.hasHistory
      ? service.readCommit({ actor, harnessDir: selected.harnessDir, id: params.commit })
      : null,
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
        <div>
          <h1 className="text-2xl font-semibold">Files</h1>
          <p className="text-muted-foreground text-sm">
            Files Cairn keeps between chats: your memory, your company&apos;s knowledge and each
            chat&apos;s notes. A change you save here is checked against the latest version, the
            same way the agent&apos;s changes are, so nobody&apos;s edit is silently lost.
          </p>
        </div>
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
          {selected.writable ? null : "You can read it; your role cannot change it."}
        </p>
        {selected.writable && selected.hasHistory ? (
          <UploadPanel
            dirKind={selected.kind}
            harnessDir={selected.harnessDir}
            maxFileBytes={Math.min(
              cairn().config.upload.maxFileBytes,
              DEFAULT_DIR_LIMITS.maxFileBytes,
            )}
          />
        ) : null}
        <div className="grid gap-6 md:grid-cols-[16rem_1fr]">
          <div className="space-y-2">
            <div className="flex items-center justify-between">
              <h2 className="font-medium">Files</h2>
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
            <FileTree
              dirKind={selected.kind}
              files={listing.files}
              selectedPath={opened?.path ?? null}
            />
          </div>
          <div className="min-w-0 space-y-2">
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
                maxFileBytes={DEFAULT_DIR_LIMITS.maxFileBytes}
              />
            ) : opened ? (
              <>
                <FileViewer path={opened.path} text={opened.text} size={opened.size} />
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
                {listing.files.length === 0 ? "This dir is empty." : "Choose a file to view it."}
              </p>
            )}
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
          selected={selectedCommit}
          canRestore={selected.writable}
        />
      ) : null}
    </div>
  );
}
