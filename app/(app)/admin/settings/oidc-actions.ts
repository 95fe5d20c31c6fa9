"use server";

import { forbidden } from "next/navigation";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { cairn } from "@/lib/cairn";
import { getSql } from "@/lib/sql-storage/sql";
import type { Actor } from "@/lib/harness";
import {
  deleteOidcSettings,
  mayManageOidcSettings,
  OidcClientSecretMissing,
  oidcSettingsInputSchema,
  saveOidcSettings,
} from "@/lib/oidc-settings";

/**
 * Admin → Settings → Single sign-on (decision 0053). Admins only, and only admins of the
 * instance's first workspace: the issuer vouches for emails on every workspace's accounts.
 */

async function requireOidcManager(actor: Actor) {
  if (!(await mayManageOidcSettings(getSql(), actor))) forbidden();
}

export const saveOidcSettingsAction = action(
  { input: oidcSettingsInputSchema, role: "admin" },
  async ({ input, actor }) => {
    await requireOidcManager(actor);
    if (cairn().config.oidc)
      fail(
        "conflict:environment",
        "The server's CAIRN_OIDC_* variables set single sign-on; remove them to manage it here.",
      );
    try {
      await saveOidcSettings(getSql(), {
        input,
        workspaceId: actor.workspaceId,
        key: cairn().oidcKey(),
        by: actor.userId,
      });
    } catch (error) {
      if (error instanceof OidcClientSecretMissing) fail("validation:input", error.message);
      throw error;
    }
    cairn().savedOidc.forget();
    cairn().logger.info({ userId: actor.userId }, "single sign-on settings saved");
    revalidatePath("/admin/settings");
  },
);

export const removeOidcSettingsAction = action(
  { input: z.object({}), role: "admin" },
  async ({ actor }) => {
    await requireOidcManager(actor);
    await deleteOidcSettings(getSql());
    cairn().savedOidc.forget();
    cairn().logger.info({ userId: actor.userId }, "single sign-on settings removed");
    revalidatePath("/admin/settings");
  },
);
