import "next-auth";
import "next-auth/jwt";

declare module "next-auth" {
  interface Session {
    /** The workspace this session acts in. The role is read from the database per request. */
    workspaceId?: string;
    /** The user's session version when the token was issued; see `revokeSessions`. */
    sessionVersion?: number;
    /** When the token this session was read from expires (ms since the epoch). */
    tokenExpiresAt?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    userId?: string;
    workspaceId?: string;
    role?: string;
    sessionVersion?: number;
  }
}
