export {
  AccountError,
  createInvite,
  createUserInWorkspace,
  emailSchema,
  findUsableInvite,
  hashInviteToken,
  INVITE_TTL_MS,
  nameSchema,
  passwordSchema,
  removeMember,
  signUpFirstUser,
  signUpWithInvite,
  workspaceNameSchema,
} from "./accounts";
export { currentActor } from "./current-actor";
export { hashPassword, verifyPassword, MIN_PASSWORD_LENGTH } from "./password";
