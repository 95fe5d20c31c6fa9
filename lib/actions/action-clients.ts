import "server-only";
import { requireActor } from "@/lib/auth";
import { createActionClient } from "./create-action";

export const { action, publicAction } = createActionClient({ resolveActor: requireActor });
