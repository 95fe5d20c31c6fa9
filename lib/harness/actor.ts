/** A workspace role. Order matters: later roles can do everything earlier ones can. */
export const ROLES = ["member", "editor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who acts in a request, derived on the server from the auth session — never from request
 * bodies or model output. The runtime carries it in `extraBody`.
 */
export interface Actor {
  userId: string;
  workspaceId: string;
  role: Role;
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Whether `role` is at least `minimum` in the member < editor < admin order. */
export function hasRole(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

/** Global harness entries and the company knowledge dir are written by editors and admins. */
export function canWriteGlobal(actor: Pick<Actor, "role">): boolean {
  return hasRole(actor.role, "editor");
}
