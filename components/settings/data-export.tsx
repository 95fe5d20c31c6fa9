"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { requestDataExportAction } from "@/app/(app)/settings/data/actions";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { useAction } from "@/lib/actions/use-action";
import { formatBytes } from "@/lib/harness/format-bytes";

/** One export as the page lists it. */
export interface DataExportItem {
  id: string;
  status: "queued" | "building" | "ready" | "failed";
  bytes: number | null;
  error: string | null;
  createdAt: string;
  expiresAt: string | null;
}

const STATUS_LABEL: Record<DataExportItem["status"], string> = {
  queued: "Preparing…",
  building: "Preparing…",
  ready: "Ready",
  failed: "Failed",
};

/**
 * "Download my data": asks for an export, lists the recent ones and offers each ready one for
 * download. While one is being prepared the list refreshes itself every 2 seconds.
 */
export function DataExportPanel({ exports }: { exports: DataExportItem[] }) {
  const router = useRouter();
  const { pending, error, run } = useAction();
  const preparing = exports.some((item) => item.status === "queued" || item.status === "building");

  useEffect(() => {
    if (!preparing) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [preparing, router]);

  return (
    <div className="max-w-3xl space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <Button
          type="button"
          data-testid="request-export"
          disabled={pending || preparing}
          onClick={() => run(() => requestDataExportAction({}))}
        >
          Download my data
        </Button>
        {preparing ? (
          <span className="text-muted-foreground text-sm" role="status">
            Preparing your export… it appears below when ready.
          </span>
        ) : null}
      </div>
      <FormMessage message={error} />
      {exports.length === 0 ? (
        <p className="text-muted-foreground text-sm" data-testid="no-exports">
          No exports yet.
        </p>
      ) : (
        <ul
          className="divide-border border-border divide-y rounded-md border"
          data-testid="exports"
        >
          {exports.map((item) => (
            <li
              key={item.id}
              className="flex flex-wrap items-center gap-3 px-3 py-2 text-sm"
              data-testid="export-row"
              data-status={item.status}
            >
              <span>
                {new Date(item.createdAt).toISOString().slice(0, 16).replace("T", " ")} UTC
              </span>
              <Badge>{STATUS_LABEL[item.status]}</Badge>
              {item.status === "ready" && item.bytes !== null ? (
                <>
                  <span className="text-muted-foreground">{formatBytes(item.bytes)}</span>
                  <a
                    href={`/api/exports/${item.id}`}
                    className="text-primary inline-flex min-h-11 items-center underline underline-offset-4"
                    data-testid="download-export"
                    download
                  >
                    Download zip
                  </a>
                  {item.expiresAt ? (
                    <span className="text-muted-foreground">
                      until {new Date(item.expiresAt).toISOString().slice(0, 10)}
                    </span>
                  ) : null}
                </>
              ) : null}
              {item.status === "failed" && item.error ? (
                <span className="text-destructive">{item.error}</span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
