import { InviteCreator, InviteRow, MemberRow } from "@/components/admin/members";
import { TableHead } from "@/components/ui/table-head";
import { listOpenInvites, listWorkspaceMembers } from "@/lib/accounts/queries";
import { requireRole } from "@/lib/auth";

export const metadata = { title: "Members" };

export const dynamic = "force-dynamic";

export default async function MembersPage() {
  const actor = await requireRole("admin");
  const [memberships, invites] = await Promise.all([
    listWorkspaceMembers(actor.workspaceId),
    listOpenInvites(actor.workspaceId),
  ]);
  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-semibold">Members</h1>
        <p className="text-muted-foreground text-sm">
          Admins manage members and invites. Editors may write global harness entries and company
          knowledge; members write their own chats and memory.
        </p>
      </div>
      <section className="space-y-3">
        <h2 className="font-medium">Invite someone</h2>
        <InviteCreator />
      </section>
      <section className="space-y-2">
        <h2 className="font-medium">People</h2>
        <table className="table-cards w-full text-sm" data-testid="members-table">
          <TableHead columns={["Name", "Email", "Role", ""]} />
          <tbody>
            {memberships.map((membership) => (
              <MemberRow
                key={membership.id}
                membershipId={membership.id}
                name={membership.user.name}
                email={membership.user.email}
                role={membership.role}
                isSelf={membership.userId === actor.userId}
              />
            ))}
          </tbody>
        </table>
      </section>
      <section className="space-y-2">
        <h2 className="font-medium">Open invites</h2>
        <p className="text-muted-foreground text-sm">
          Invites nobody has used yet. Cairn keeps only a fingerprint of each link, so a link cannot
          be shown again: if one is lost, revoke it and create a new one.
        </p>
        {invites.length === 0 ? (
          <p className="text-muted-foreground text-sm" data-testid="no-open-invites">
            No open invites.
          </p>
        ) : (
          <table className="table-cards w-full text-sm" data-testid="open-invites">
            <TableHead columns={["For", "Role", "Created", "Expires", ""]} />
            <tbody>
              {invites.map((invite) => (
                <InviteRow
                  key={invite.id}
                  inviteId={invite.id}
                  role={invite.role}
                  note={invite.note}
                  createdBy={invite.createdBy.name}
                  createdAt={invite.createdAt.toISOString()}
                  expiresAt={invite.expiresAt.toISOString()}
                />
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
