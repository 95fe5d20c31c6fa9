import type { Db } from "@/lib/db";

/** A fixed-window limit: at most `limit` counted hits in the last `windowMs`. */
export interface RateLimitRule {
  bucket: string;
  limit: number;
  windowMs: number;
}

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** Failed sign-ins allowed per email and per client address in the window. */
export function signInRules(options: { email: string; clientAddress: string }): RateLimitRule[] {
  return [
    {
      bucket: `sign-in:email:${options.email.toLowerCase()}`,
      limit: Number(process.env.CAIRN_SIGNIN_LIMIT_EMAIL ?? 5),
      windowMs: SIGN_IN_WINDOW_MS,
    },
    {
      bucket: `sign-in:ip:${options.clientAddress}`,
      limit: Number(process.env.CAIRN_SIGNIN_LIMIT_IP ?? 20),
      windowMs: SIGN_IN_WINDOW_MS,
    },
  ];
}

/**
 * Returns the number of seconds until the first exhausted rule frees up, or 0 when every
 * rule has room. Counts live in the database so all app instances share them.
 */
export async function retryAfterSeconds(
  db: Db,
  rules: RateLimitRule[],
  now = new Date(),
): Promise<number> {
  let wait = 0;
  for (const rule of rules) {
    const since = new Date(now.getTime() - rule.windowMs);
    const hits = await db.rateLimitHit.findMany({
      where: { bucket: rule.bucket, createdAt: { gt: since } },
      orderBy: { createdAt: "asc" },
      select: { createdAt: true },
      take: rule.limit,
    });
    if (hits.length >= rule.limit) {
      const oldest = hits[0]!.createdAt.getTime();
      wait = Math.max(wait, Math.ceil((oldest + rule.windowMs - now.getTime()) / 1000));
    }
  }
  return wait;
}

/** Count one hit against every rule, and prune hits older than the window. */
export async function recordHit(db: Db, rules: RateLimitRule[], now = new Date()): Promise<void> {
  await db.$transaction([
    ...rules.map((rule) =>
      db.rateLimitHit.create({ data: { bucket: rule.bucket, createdAt: now } }),
    ),
    db.rateLimitHit.deleteMany({
      where: { createdAt: { lt: new Date(now.getTime() - SIGN_IN_WINDOW_MS) } },
    }),
  ]);
}

export async function clearHits(db: Db, bucket: string): Promise<void> {
  await db.rateLimitHit.deleteMany({ where: { bucket } });
}
