import bcrypt from "bcryptjs";

const cost = Number(process.env.CAIRN_BCRYPT_COST ?? 12);

export const MIN_PASSWORD_LENGTH = 8;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}
