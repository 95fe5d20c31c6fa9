export {
  auth,
  handlers,
  signIn,
  signOut,
  githubEnabled,
  clientAddressOf,
  revokeSessions,
} from "./auth";
export { getActor, listOwnWorkspaces, requireActor, requireRole, switchWorkspace } from "./actor";
