"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type DragEvent } from "react";
import { conversionStatusAction } from "@/app/(app)/files/actions";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { formatBytes } from "@/lib/harness/format-bytes";

/** One file of the batch on its way. */
interface Row {
  name: string;
  size: number;
  /** Bytes of this file sent so far (derived from the request's progress). */
  sent: number;
  state: "uploading" | "converting" | "converted" | "no-text" | "refused" | "failed";
  message?: string;
  path?: string;
  originalPath?: string | null;
}

interface UploadAnswer {
  accepted?: { name: string; path: string; originalPath: string | null; status: string }[];
  refused?: { name: string; message: string }[];
  error?: string;
}

const ACCEPT = ".pdf,.docx,.xlsx,.html,.htm,.md,.markdown,.txt,.text,.csv";
const POLL_MS = 1500;

/** A dropped folder's files, with their paths inside it (`policies/travel.pdf`). */
async function filesOfEntry(
  entry: FileSystemEntry,
  prefix = "",
): Promise<{ file: File; name: string }[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    return [{ file, name: `${prefix}${file.name}` }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  // readEntries answers in pages until an empty one.
  for (;;) {
    const page = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (page.length === 0) break;
    children.push(...page);
  }
  const nested = await Promise.all(
    children.map((child) => filesOfEntry(child, `${prefix}${entry.name}/`)),
  );
  return nested.flat();
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 100 : Math.min(100, Math.round((part / whole) * 100));
}

/**
 * Upload on the Files page: drop or pick several files or a folder; one request per batch with a
 * progress bar per file and overall (each file's share of the request's bytes), then each file's
 * conversion followed until it is converted, or refused with its reason.
 */
export function UploadPanel(props: { dirKind: string; harnessDir: string; maxFileBytes: number }) {
  const router = useRouter();
  const [rows, setRows] = useState<Row[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  // Follow the conversions until none is pending.
  const converting = rows.filter((row) => row.state === "converting" && row.path);
  const pendingKey = converting.map((row) => row.path).join("\n");
  useEffect(() => {
    if (pendingKey === "") return;
    const timer = setTimeout(() => {
      void conversionStatusAction({
        harnessDir: props.harnessDir,
        paths: pendingKey.split("\n"),
      }).then((result) => {
        if (!result.ok) return;
        const byPath = new Map(result.data.map((status) => [status.path, status]));
        setRows((current) =>
          current.map((row) => {
            const status = row.path ? byPath.get(row.path) : undefined;
            if (!status || status.status === "converting") return row;
            if (status.status === "converted")
              return { ...row, state: status.noText ? "no-text" : "converted" };
            return {
              ...row,
              state: "failed",
              message: status.status === "failed" ? status.message : "The file is gone.",
            };
          }),
        );
        if (result.data.every((status) => status.status !== "converting")) router.refresh();
      });
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [pendingKey, props.harnessDir, router]);

  const upload = (files: { file: File; name: string }[]) => {
    if (files.length === 0) return;
    setError(null);
    setBusy(true);
    const batch: Row[] = files.map(({ file, name }) => ({
      name,
      size: file.size,
      sent: 0,
      state: "uploading",
    }));
    setRows(batch);
    const form = new FormData();
    for (const { file, name } of files) {
      form.append("name", name);
      form.append("file", file, file.name);
    }
    const request = new XMLHttpRequest();
    request.open("POST", `/api/files/upload?dir=${encodeURIComponent(props.dirKind)}`);
    request.setRequestHeader("x-cairn-upload", "1");
    request.upload.onprogress = (event) => {
      // The files go in order: each one's share of the bytes sent so far.
      let left = event.loaded;
      setRows((current) =>
        current.map((row) => {
          const sent = Math.max(0, Math.min(row.size, left));
          left -= row.size;
          return { ...row, sent };
        }),
      );
    };
    request.onerror = () => {
      setBusy(false);
      setError("The upload did not reach the server. Nothing was stored; try again.");
      setRows((current) =>
        current.map((row) => ({ ...row, state: "failed", message: "not sent" })),
      );
    };
    request.onload = () => {
      setBusy(false);
      let answer: UploadAnswer = {};
      try {
        answer = JSON.parse(request.responseText) as UploadAnswer;
      } catch {
        answer = { error: `The server answered ${request.status}.` };
      }
      if (answer.error) {
        setError(answer.error);
        setRows((current) =>
          current.map((row) => ({ ...row, state: "refused", message: answer.error })),
        );
        return;
      }
      const accepted = new Map((answer.accepted ?? []).map((item) => [item.name, item]));
      const refused = new Map((answer.refused ?? []).map((item) => [item.name, item]));
      setRows((current) =>
        current.map((row) => {
          const ok = accepted.get(row.name);
          if (ok) {
            return {
              ...row,
              sent: row.size,
              path: ok.path,
              originalPath: ok.originalPath,
              state: ok.status === "converting" ? "converting" : "converted",
            };
          }
          const no = refused.get(row.name);
          return {
            ...row,
            sent: row.size,
            state: "refused",
            message: no?.message ?? "Not stored.",
          };
        }),
      );
      router.refresh();
    };
    request.send(form);
  };

  const onDrop = async (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const items = Array.from(event.dataTransfer.items);
    const entries = items.map((item) => item.webkitGetAsEntry?.() ?? null);
    if (entries.length > 0 && entries.every((entry) => entry !== null)) {
      const files = (await Promise.all(entries.map((entry) => filesOfEntry(entry)))).flat();
      upload(files);
    } else {
      upload(Array.from(event.dataTransfer.files).map((file) => ({ file, name: file.name })));
    }
  };

  const totalBytes = rows.reduce((sum, row) => sum + row.size, 0);
  const sentBytes = rows.reduce((sum, row) => sum + row.sent, 0);

  return (
    <section className="space-y-3" data-testid="upload-panel" aria-label="Upload documents">
      <div
        data-testid="upload-drop"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => void onDrop(event)}
        className={cn(
          "border-border flex flex-col gap-2 rounded-lg border border-dashed p-4 text-sm sm:flex-row sm:items-center sm:justify-between",
          dragging && "bg-muted",
        )}
      >
        <p className="text-muted-foreground">
          Drop documents or a folder here — PDF, Word (.docx), Excel (.xlsx), HTML, CSV, Markdown or
          text, up to {formatBytes(props.maxFileBytes)} each. They land in <code>uploads/</code>,
          converted to text the agent can read; the original stays beside it.
        </p>
        <div className="flex shrink-0 gap-2">
          {(
            [
              ["Choose files", fileInput],
              ["Choose folder", folderInput],
            ] as const
          ).map(([label, input]) => (
            <Button
              key={label}
              type="button"
              variant="outline"
              size="sm"
              disabled={busy}
              onClick={() => input.current?.click()}
            >
              {label}
            </Button>
          ))}
        </div>
        <input
          ref={fileInput}
          data-testid="upload-input"
          type="file"
          multiple
          accept={ACCEPT}
          className="hidden"
          onChange={(event) => {
            upload(Array.from(event.target.files ?? []).map((file) => ({ file, name: file.name })));
            event.target.value = "";
          }}
        />
        <input
          ref={folderInput}
          type="file"
          multiple
          className="hidden"
          // A folder picker: each file carries its path inside the folder.
          {...{ webkitdirectory: "" }}
          onChange={(event) => {
            upload(
              Array.from(event.target.files ?? []).map((file) => ({
                file,
                name: file.webkitRelativePath || file.name,
              })),
            );
            event.target.value = "";
          }}
        />
      </div>
      {error ? (
        <p className="text-destructive text-sm" role="alert" data-testid="upload-error">
          {error}
        </p>
      ) : null}
      {rows.length > 0 ? (
        <div className="space-y-2" data-testid="upload-rows">
          <div className="flex items-center gap-3 text-xs">
            <span className="w-24 shrink-0 font-medium">All files</span>
            <progress
              className="h-2 w-full"
              max={100}
              value={percent(sentBytes, totalBytes)}
              data-testid="upload-overall"
            />
            <span className="w-10 text-right">{percent(sentBytes, totalBytes)}%</span>
          </div>
          <ul className="space-y-1">
            {rows.map((row) => (
              <li
                key={row.name}
                className="text-sm"
                data-testid="upload-row"
                data-state={row.state}
                data-name={row.name}
              >
                <div className="flex items-center gap-3">
                  <span className="min-w-0 flex-1 truncate font-mono text-xs" title={row.name}>
                    {row.name}
                  </span>
                  <progress
                    className="h-2 w-24 shrink-0 sm:w-40"
                    max={100}
                    value={percent(row.sent, row.size)}
                  />
                  <span
                    className={cn(
                      "w-24 shrink-0 text-right text-xs",
                      (row.state === "refused" || row.state === "failed") && "text-destructive",
                    )}
                    data-testid="upload-state"
                  >
                    {
                      {
                        uploading: `${percent(row.sent, row.size)}%`,
                        converting: "converting…",
                        converted: "converted",
                        "no-text": "no text found",
                        refused: "refused",
                        failed: "failed",
                      }[row.state]
                    }
                  </span>
                </div>
                {row.message ? (
                  <p className="text-destructive text-xs" data-testid="upload-reason">
                    {row.message}
                  </p>
                ) : null}
                {row.path && (row.state === "converted" || row.state === "no-text") ? (
                  <p className="text-xs">
                    <a
                      className="underline"
                      href={`/files?dir=${props.dirKind}&path=${encodeURIComponent(row.path)}`}
                    >
                      Open {row.path}
                    </a>
                    {row.originalPath ? (
                      <>
                        {" · "}
                        <a
                          className="underline"
                          data-testid="upload-original"
                          href={`/api/files/raw?dir=${props.dirKind}&path=${encodeURIComponent(row.originalPath)}`}
                        >
                          Download the original
                        </a>
                      </>
                    ) : null}
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
