export { auth, handlers, signIn, signOut, githubEnabled, revokeSessions } from "./auth";
export { currentOidcConfig, oidcSignInButton } from "./oidc-config";
export { OIDC_PROVIDER_ID } from "./oidc-sign-in";
export { clientAddressOf } from "./client-address";
export { getActor, listOwnWorkspaces, requireActor, requireRole, switchWorkspace } from "./request-actor";
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
