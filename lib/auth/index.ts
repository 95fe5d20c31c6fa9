export { auth, handlers, signIn, signOut, githubEnabled, clientAddressOf } from "./auth";
export { getActor, listOwnWorkspaces, requireActor, requireRole, switchWorkspace } from "./actor";
