"use client";

import { ChevronDown, ChevronRight, FileText, Folder, FolderOpen } from "lucide-react";
import Link from "next/link";
import { useState, useTransition, type ReactNode } from "react";
import { browseFilesAction } from "@/app/(app)/files/actions";
import { cn } from "@/lib/utils";

/** One file as the tree shows it. */
export interface FileTreeItem {
  path: string;
  size: number;
  isText: boolean;
}

/** One page of a folder (or of a filter's matches) as the server listed it. */
export interface FileTreePage {
  folder: string;
  folders: { path: string; name: string; fileCount: number }[];
  foldersTruncated: boolean;
  files: FileTreeItem[];
  nextAfter: string | null;
  /** Files in the paged sequence: directly in the folder, or matching the filter. */
  fileCount: number;
}

/** What the tree holds of one folder: its subfolders and the files loaded so far. */
interface Loaded {
  folders: FileTreePage["folders"];
  foldersTruncated: boolean;
  files: FileTreeItem[];
  nextAfter: string | null;
  fileCount: number;
}

const count = (value: number) => value.toLocaleString("en-US");

function loadedOf(page: FileTreePage): Loaded {
  return {
    folders: page.folders,
    foldersTruncated: page.foldersTruncated,
    files: page.files,
    nextAfter: page.nextAfter,
    fileCount: page.fileCount,
  };
}

/** Builds a file's link, keeping the dir and the filter. */
export function fileHref(options: { dirKind: string; path: string; filter?: string }): string {
  const query = new URLSearchParams({ dir: options.dirKind, path: options.path });
  if (options.filter) query.set("q", options.filter);
  return `/files?${query.toString()}`;
}

/**
 * A dir's files a page at a time. Without a filter: the top level's folders (with how many files
 * each holds) and files; a folder opens on click and its files are fetched from the server then,
 * 200 at a time with "Show more". With a filter: the matching files as a flat list of paths,
 * paged the same way. The server decides what the actor may see; this only asks for pages.
 */
export function FileTree(props: {
  dirKind: string;
  harnessDir: string;
  /** The filter the server applied to `root` (empty: none). */
  filter: string;
  root: FileTreePage;
  /** Folders listed already (the open file's ancestors), shown open. */
  openFolders: FileTreePage[];
  selectedPath: string | null;
}) {
  const [loaded, setLoaded] = useState<Record<string, Loaded>>(() => {
    const initial: Record<string, Loaded> = { [props.root.folder]: loadedOf(props.root) };
    for (const page of props.openFolders) initial[page.folder] = loadedOf(page);
    return initial;
  });
  const [open, setOpen] = useState<ReadonlySet<string>>(
    () => new Set(props.openFolders.map((page) => page.folder)),
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [, startTransition] = useTransition();
  const filtering = props.filter !== "";

  /** Fetches a folder's first page, or the next page after `after`, and keeps it. */
  const fetchPage = (folder: string, after: string | null) => {
    setBusy(folder);
    setError(null);
    startTransition(async () => {
      try {
        const result = await browseFilesAction({
          harnessDir: props.harnessDir,
          folder,
          filter: filtering ? props.filter : undefined,
          after,
        });
        if (!result.ok) {
          setError(result.error.message);
          return;
        }
        const page = result.data;
        setLoaded((previous) => {
          const before = previous[folder];
          return {
            ...previous,
            [folder]:
              after !== null && before
                ? {
                    ...before,
                    files: [...before.files, ...page.files],
                    nextAfter: page.nextAfter,
                    fileCount: page.fileCount,
                  }
                : loadedOf(page),
          };
        });
      } catch (caught) {
        setError(caught instanceof Error ? caught.message : String(caught));
      } finally {
        setBusy(null);
      }
    });
  };

  const toggle = (folder: string) => {
    const next = new Set(open);
    if (next.has(folder)) next.delete(folder);
    else {
      next.add(folder);
      if (!loaded[folder]) fetchPage(folder, null);
    }
    setOpen(next);
  };

  const fileLink = (file: FileTreeItem, label: string) => (
    <li key={`f:${file.path}`}>
      <Link
        href={fileHref({ dirKind: props.dirKind, path: file.path, filter: props.filter })}
        data-testid="file-link"
        data-path={file.path}
        title={file.path}
        aria-current={file.path === props.selectedPath ? "page" : undefined}
        className={cn(
          "hover:bg-muted flex items-center gap-1.5 rounded px-1.5 py-0.5 text-sm",
          file.path === props.selectedPath && "bg-muted font-medium",
        )}
      >
        <FileText className="size-3.5 shrink-0" />
        <span className="truncate">{label}</span>
      </Link>
    </li>
  );

  /**
   * The open file, when it sits in this folder past the pages loaded so far: named before "Show
   * more", so the tree always shows where the open file is.
   */
  const pinned = (folder: string, state: Loaded) => {
    const selected = props.selectedPath;
    if (!selected || state.nextAfter === null || filtering) return null;
    const slash = selected.lastIndexOf("/");
    if ((slash < 0 ? "" : selected.slice(0, slash)) !== folder) return null;
    if (state.files.some((file) => file.path === selected)) return null;
    return fileLink({ path: selected, size: 0, isText: true }, selected.slice(slash + 1));
  };

  const showMore = (folder: string, state: Loaded) =>
    state.nextAfter !== null ? (
      <li>
        <button
          type="button"
          data-testid="show-more-files"
          data-folder={folder}
          disabled={busy === folder}
          onClick={() => fetchPage(folder, state.nextAfter)}
          className="text-muted-foreground hover:text-foreground px-1.5 py-0.5 text-xs underline disabled:opacity-50"
        >
          {busy === folder
            ? "Loading…"
            : `Show more (${count(state.fileCount - state.files.length)} more)`}
        </button>
      </li>
    ) : null;

  const branch = (folder: string, depth: number): ReactNode => {
    const state = loaded[folder];
    if (!state) {
      return busy === folder ? (
        <p className="text-muted-foreground pl-6 text-xs">Loading…</p>
      ) : null;
    }
    return (
      <ul className={cn("space-y-0.5", depth > 0 && "pl-3")}>
        {state.folders.map((child) => {
          const expanded = open.has(child.path);
          return (
            <li key={`d:${child.path}`}>
              <button
                type="button"
                data-testid="folder-toggle"
                data-path={child.path}
                aria-expanded={expanded}
                onClick={() => toggle(child.path)}
                className="hover:bg-muted text-muted-foreground hover:text-foreground flex w-full items-center gap-1 rounded px-1 py-0.5 text-left text-sm"
              >
                {expanded ? (
                  <ChevronDown className="size-3.5 shrink-0" />
                ) : (
                  <ChevronRight className="size-3.5 shrink-0" />
                )}
                {expanded ? (
                  <FolderOpen className="size-3.5 shrink-0" />
                ) : (
                  <Folder className="size-3.5 shrink-0" />
                )}
                <span className="truncate">{child.name}</span>
                <span
                  className="bg-muted ml-auto shrink-0 rounded px-1.5 text-xs tabular-nums"
                  data-testid="folder-count"
                  aria-label={`${count(child.fileCount)} files`}
                >
                  {count(child.fileCount)}
                </span>
              </button>
              {expanded ? branch(child.path, depth + 1) : null}
            </li>
          );
        })}
        {state.foldersTruncated ? (
          <li className="text-muted-foreground px-1.5 text-xs">
            More folders than shown: filter by path to find the rest.
          </li>
        ) : null}
        {state.files.map((file) => fileLink(file, file.path.split("/").pop()!))}
        {pinned(folder, state)}
        {showMore(folder, state)}
      </ul>
    );
  };

  const root = loaded[props.root.folder]!;
  if (root.folders.length === 0 && root.files.length === 0) {
    return (
      <p className="text-muted-foreground text-sm" data-testid="file-tree-empty">
        {filtering ? "No file's path matches that filter." : "No files yet."}
      </p>
    );
  }
  return (
    <div
      data-testid="file-tree"
      className="max-h-[60vh] overflow-y-auto pr-1 md:max-h-[calc(100vh-10rem)]"
    >
      {filtering ? (
        <ul className="space-y-0.5">
          {root.files.map((file) => fileLink(file, file.path))}
          {showMore(props.root.folder, root)}
        </ul>
      ) : (
        branch(props.root.folder, 0)
      )}
      {error ? (
        <p className="text-destructive mt-1 text-xs" data-testid="file-tree-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
