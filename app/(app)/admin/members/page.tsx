import { InviteCreator, InviteRow, MemberRow } from "@/components/admin/members";
import { listOpenInvites, listWorkspaceMembers } from "@/lib/accounts/queries";
import { requireRole } from "@/lib/auth";

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
          <thead className="text-muted-foreground text-left">
            <tr>
              <th className="py-2">Name</th>
              <th>Email</th>
              <th>Role</th>
              <th />
            </tr>
          </thead>
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
        {invites.length === 0 ? (
          <p className="text-muted-foreground text-sm">No open invites.</p>
        ) : (
          <ul className="space-y-1 text-sm">
            {invites.map((invite) => (
              <InviteRow
                key={invite.id}
                inviteId={invite.id}
                role={invite.role}
                expiresAt={invite.expiresAt.toISOString()}
              />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
