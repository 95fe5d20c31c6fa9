import { EntryForm } from "@/components/harness/entry-form";
import { requireActor } from "@/lib/auth";
import { canWriteGlobal } from "@/lib/harness";
import { listChats } from "@/lib/harness-service";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";

export const dynamic = "force-dynamic";

export default async function NewEntryPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const { chat } = firstSearchValues(await searchParams);
  const chats = await listChats(actor);
  return (
    <div className="max-w-3xl space-y-6">
      <h1 className="text-2xl font-semibold">New harness entry</h1>
      <EntryForm
        chats={chats.map((c) => ({ id: c.id, title: c.title }))}
        canWriteGlobal={canWriteGlobal(actor)}
        defaultChatId={chats.some((c) => c.id === chat) ? chat : undefined}
      />
    </div>
  );
}
