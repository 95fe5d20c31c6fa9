export { auth, handlers, signIn, signOut, githubEnabled, clientAddressOf } from "./auth";
export { getActor, requireActor, requireRole } from "./actor";
