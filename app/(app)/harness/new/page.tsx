import { EntryForm } from "@/components/harness/entry-form";
import { requireActor } from "@/lib/auth";
import { canWriteGlobal } from "@/lib/harness";
import { getOwnChat, listChats } from "@/lib/harness-for-actor";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";

export const metadata = { title: "New entry" };

export const dynamic = "force-dynamic";

/** The location picker lists this many of the person's most recent chats (and `?chat=`'s). */
const PICKER_CHATS = 100;

export default async function NewEntryPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const { chat } = firstSearchValues(await searchParams);
  const [recent, chosen] = await Promise.all([
    listChats(actor, { limit: PICKER_CHATS }),
    chat ? getOwnChat(actor, chat.slice(0, 100)) : null,
  ]);
  const chats =
    chosen && !recent.items.some((c) => c.id === chosen.id)
      ? [chosen, ...recent.items]
      : recent.items;
  return (
    <div className="max-w-3xl space-y-6">
      <h1 className="text-2xl font-semibold">New harness entry</h1>
      <EntryForm
        chats={chats.map((c) => ({ id: c.id, title: c.title }))}
        canWriteGlobal={canWriteGlobal(actor)}
        defaultChatId={chosen?.id}
      />
    </div>
  );
}
