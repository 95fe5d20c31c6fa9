import { z } from "zod";
import { isRole, type Role } from "@/lib/harness";

/**
 * The list values of single sign-on, parsed the same way from the environment
 * (`CAIRN_OIDC_ALLOWED_DOMAINS`, `CAIRN_OIDC_GROUP_ROLES`) and from Admin → Settings. A leaf
 * module (zod and the core only): lib/oidc-settings imports it directly, because the config
 * schema's own imports reach lib/cairn, which builds the saved-settings reader.
 */
const text = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** A list of email domains, separated by commas or spaces, lowercased. */
export const domainList = text.transform((value, context) => {
  if (value === undefined) return [];
  const domains = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((domain) => domain.toLowerCase().replace(/^@/, ""));
  for (const domain of domains) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) {
      context.addIssue({ code: "custom", message: `"${domain}" is not a domain (example.com)` });
      return z.NEVER;
    }
  }
  return domains;
});

/** `group=role` pairs separated by commas (`cairn-admins=admin, writers=editor`). */
export const groupRoles = text.transform((value, context) => {
  const mapping: Record<string, Role> = {};
  if (value === undefined) return mapping;
  for (const pair of value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = pair.lastIndexOf("=");
    const group = pair.slice(0, at).trim();
    const role = pair
      .slice(at + 1)
      .trim()
      .toLowerCase();
    if (at <= 0 || !group || !isRole(role)) {
      context.addIssue({
        code: "custom",
        message: `must be group=role pairs with a role of member, editor or admin, got "${pair}"`,
      });
      return z.NEVER;
    }
    mapping[group] = role;
  }
  return mapping;
});
