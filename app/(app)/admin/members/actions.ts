"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { createInvite } from "@/lib/accounts";
import { requireRole, revokeSessions } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { ROLES } from "@/lib/harness";

export type AdminActionResult = { ok: true; inviteToken?: string } | { ok: false; error: string };

const roleSchema = z.enum(ROLES);

// Every action: parse input, then the Actor (admin or 403), then ownership, then the change.

export async function createInviteAction(input: {
  role: string;
  note?: string;
}): Promise<AdminActionResult> {
  const parsed = z
    .object({ role: roleSchema, note: z.string().trim().max(200).optional() })
    .safeParse(input);
  const actor = await requireRole("admin");
  if (!parsed.success) {
    return { ok: false, error: "Choose a role; the note may be at most 200 characters." };
  }
  const { token } = await createInvite(getDb(), {
    workspaceId: actor.workspaceId,
    createdById: actor.userId,
    role: parsed.data.role,
    note: parsed.data.note,
  });
  revalidatePath("/admin/members");
  return { ok: true, inviteToken: token };
}

/** Refuses to leave the workspace without an admin. */
async function wouldRemoveLastAdmin(workspaceId: string, membershipId: string): Promise<boolean> {
  const admins = await getDb().membership.findMany({
    where: { workspaceId, role: "admin" },
    select: { id: true },
  });
  return admins.length === 1 && admins[0]!.id === membershipId;
}

export async function changeRoleAction(input: {
  membershipId: string;
  role: string;
}): Promise<AdminActionResult> {
  const parsed = z.object({ membershipId: z.string().min(1), role: roleSchema }).safeParse(input);
  const actor = await requireRole("admin");
  if (!parsed.success) return { ok: false, error: "Invalid role change." };
  const db = getDb();
  const membership = await db.membership.findFirst({
    where: { id: parsed.data.membershipId, workspaceId: actor.workspaceId },
  });
  if (!membership) return { ok: false, error: "That member is not in this workspace." };
  if (
    parsed.data.role !== "admin" &&
    (await wouldRemoveLastAdmin(actor.workspaceId, membership.id))
  ) {
    return { ok: false, error: "A workspace needs at least one admin." };
  }
  await db.membership.update({ where: { id: membership.id }, data: { role: parsed.data.role } });
  revalidatePath("/admin/members");
  return { ok: true };
}

export async function removeMemberAction(input: {
  membershipId: string;
}): Promise<AdminActionResult> {
  const parsed = z.object({ membershipId: z.string().min(1) }).safeParse(input);
  const actor = await requireRole("admin");
  if (!parsed.success) return { ok: false, error: "Invalid member." };
  const db = getDb();
  const membership = await db.membership.findFirst({
    where: { id: parsed.data.membershipId, workspaceId: actor.workspaceId },
  });
  if (!membership) return { ok: false, error: "That member is not in this workspace." };
  if (await wouldRemoveLastAdmin(actor.workspaceId, membership.id)) {
    return { ok: false, error: "A workspace needs at least one admin." };
  }
  await db.membership.delete({ where: { id: membership.id } });
  // The removed person's tokens stop working everywhere, not only in this workspace.
  await revokeSessions(db, membership.userId);
  revalidatePath("/admin/members");
  return { ok: true };
}

export async function revokeInviteAction(input: { inviteId: string }): Promise<AdminActionResult> {
  const parsed = z.object({ inviteId: z.string().min(1) }).safeParse(input);
  const actor = await requireRole("admin");
  if (!parsed.success) return { ok: false, error: "Invalid invite." };
  await getDb().invite.deleteMany({
    where: { id: parsed.data.inviteId, workspaceId: actor.workspaceId, usedAt: null },
  });
  revalidatePath("/admin/members");
  return { ok: true };
}
