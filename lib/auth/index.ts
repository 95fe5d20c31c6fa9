export { auth, handlers, signIn, signOut, githubEnabled, oidcSignIn, revokeSessions } from "./auth";
export { clientAddressOf } from "./client-address";
export { getActor, listOwnWorkspaces, requireActor, requireRole, switchWorkspace } from "./actor";
export { SIGN_IN_MESSAGES, signInMessage, type SignInRefusal } from "./sign-in-messages";
export {
  canWriteGlobal,
  isAdmin,
  isJudgeable,
  isRestorable,
  isRollbackable,
  mayDecideProposal,
  mayJudge,
  mayRestore,
  mayWriteRefinementScope,
} from "./permissions";
