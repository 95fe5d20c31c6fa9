"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  createWorkspaceInvite,
  findWorkspaceMembership,
  isLastAdmin,
  removeMembership,
  revokeOpenInvite,
  setMembershipRole,
} from "@/lib/accounts/queries";
import { action, fail } from "@/lib/actions";
import { erasePerson } from "@/lib/erasure";
import { getSql } from "@/lib/sql-storage/sql";
import { ROLES } from "@/lib/harness";

const roleSchema = z.enum(ROLES, { error: "Choose a role for the invite." });
const membershipIdSchema = z.string().min(1);

// Every action: the shared wrapper (parse, Actor: admin or 403), then ownership (the row must
// be in the actor's workspace), then the change.

export const createInviteAction = action(
  {
    input: z.object({
      role: roleSchema,
      note: z.string().trim().max(200, { error: "Keep the note under 200 characters." }).optional(),
    }),
    role: "admin",
  },
  async ({ input, actor }) => {
    const { token } = await createWorkspaceInvite({
      workspaceId: actor.workspaceId,
      createdById: actor.userId,
      role: input.role,
      note: input.note,
    });
    revalidatePath("/admin/members");
    return { inviteToken: token };
  },
);

/** The membership of the actor's workspace, or `not_found:member`. */
async function ownMembership(workspaceId: string, membershipId: string) {
  const membership = await findWorkspaceMembership(workspaceId, membershipId);
  if (!membership) fail("not_found:member", "That member is not in this workspace.");
  return membership;
}

function failLastAdmin(): never {
  fail("conflict:last_admin", "A workspace needs at least one admin.");
}

export const changeRoleAction = action(
  { input: z.object({ membershipId: membershipIdSchema, role: z.enum(ROLES) }), role: "admin" },
  async ({ input, actor }) => {
    const membership = await ownMembership(actor.workspaceId, input.membershipId);
    if (input.role !== "admin" && (await isLastAdmin(actor.workspaceId, membership.id)))
      failLastAdmin();
    await setMembershipRole(actor, membership.id, input.role);
    revalidatePath("/admin/members");
  },
);

export const removeMemberAction = action(
  { input: z.object({ membershipId: membershipIdSchema }), role: "admin" },
  async ({ input, actor }) => {
    const membership = await ownMembership(actor.workspaceId, input.membershipId);
    if (await isLastAdmin(actor.workspaceId, membership.id)) failLastAdmin();
    // Their access tokens for this workspace are revoked with the membership, and their
    // sessions end everywhere, not only in this workspace.
    await removeMembership(actor, membership);
    revalidatePath("/admin/members");
  },
);

export const revokeInviteAction = action(
  { input: z.object({ inviteId: z.string().min(1) }), role: "admin" },
  async ({ input, actor }) => {
    await revokeOpenInvite(actor, input.inviteId);
    revalidatePath("/admin/members");
  },
);

/**
 * "Erase this person": their chats, chat notes, exports, tokens and membership here, and — when
 * this was their only workspace — their memory with its history and their account (lib/erasure).
 * Never oneself, never the last admin.
 */
export const erasePersonAction = action(
  { input: z.object({ membershipId: membershipIdSchema }), role: "admin" },
  async ({ input, actor }) => {
    const membership = await ownMembership(actor.workspaceId, input.membershipId);
    if (membership.userId === actor.userId)
      fail(
        "conflict:erase_self",
        "You cannot erase yourself. Use “Delete my memory” on Settings, or ask another admin.",
      );
    if (await isLastAdmin(actor.workspaceId, membership.id)) failLastAdmin();
    const result = await erasePerson({ sql: getSql(), admin: actor, userId: membership.userId });
    revalidatePath("/admin/members");
    revalidatePath("/admin/audit");
    return result;
  },
);
