import { DataExportPanel } from "@/components/settings/data-export";
import { DeleteMemoryPanel } from "@/components/settings/delete-memory";
import { requireActor } from "@/lib/auth";
import { DATA_EXPORT_KEEP_DAYS, listDataExports } from "@/lib/data-export";
import { getSql } from "@/lib/sql-storage";

export const dynamic = "force-dynamic";

export const metadata = { title: "Your data · Cairn" };

export default async function YourDataPage() {
  const actor = await requireActor();
  const exports = await listDataExports({ sql: getSql(), actor });
  return (
    <div className="space-y-8">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Your data</h1>
        <p className="text-muted-foreground max-w-3xl text-sm">
          Download everything Cairn keeps that is yours in this workspace: your chats (as JSON and
          Markdown), your memory files as they are now (uploaded originals included) and the notes
          that belong to your chats. Company knowledge and the workspace&apos;s shared entries are
          the team&apos;s and are not included. An export is prepared in the background and can be
          downloaded for {DATA_EXPORT_KEEP_DAYS} days.
        </p>
      </div>
      <DataExportPanel
        exports={exports.map((item) => ({
          id: item.id,
          status: item.status,
          bytes: item.bytes,
          error: item.error,
          createdAt: item.createdAt.toISOString(),
          expiresAt: item.expiresAt?.toISOString() ?? null,
        }))}
      />
      <section className="space-y-2">
        <h2 className="font-medium">Delete my memory</h2>
        <p className="text-muted-foreground max-w-3xl text-sm">
          Deletes what Cairn remembers about you: your memory files <strong>with every earlier
          version</strong> (they no longer appear in Files history, on the Memory page, in search
          or in exports, and cannot be restored), the notes that belong to your chats with their
          history, and your exports. Your chats stay; delete them from the chat list. Company
          knowledge you added belongs to the team and stays.
        </p>
        <DeleteMemoryPanel />
      </section>
    </div>
  );
}
