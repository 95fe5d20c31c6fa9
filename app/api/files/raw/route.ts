import { errorResponse } from "@/lib/app-error";
import { getActor } from "@/lib/auth";
import { getPersistentDirs } from "@/lib/workspace-dirs";
import { HarnessNotFoundError } from "@/lib/harness";
import { RequestError } from "@/lib/request-error";
import { getUploads } from "@/lib/uploads";

const noSuchFile = () => new HarnessNotFoundError({ surface: "path", message: "No such file." });

export const dynamic = "force-dynamic";

/**
 * GET a stored file byte for byte (`?dir=user|company&path=uploads/report.pdf`), as a download:
 * an uploaded original, or any file of a dir the actor sees. Served as an attachment of type
 * `application/octet-stream` with `nosniff`, so nothing uploaded ever renders in the app's origin.
 */
export async function GET(request: Request) {
  const actor = await getActor();
  if (!actor) return errorResponse(new RequestError("unauthenticated", "Sign in first."));
  const params = new URL(request.url).searchParams;
  const dir = getPersistentDirs()
    .listVisibleDirs({ actor })
    .find((candidate) => candidate.kind === params.get("dir"));
  const path = params.get("path");
  if (!dir || !path) return errorResponse(noSuchFile());
  try {
    const file = await getUploads().readStoredFile({ actor, harnessDir: dir.harnessDir, path });
    if (!file) return errorResponse(noSuchFile());
    const bytes =
      typeof file.content === "string" ? new TextEncoder().encode(file.content) : file.content;
    const name = path.split("/").pop()!;
    return new Response(new Uint8Array(bytes), {
      headers: {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        "content-length": String(bytes.byteLength),
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
