import { errorResponse } from "@/lib/app-error";
import { getActor } from "@/lib/auth";
import { cairn } from "@/lib/cairn";
import { HarnessNotFoundError } from "@/lib/harness";
import { formatBytes } from "@/lib/harness/format-bytes";
import { getPersistentDirs } from "@/lib/workspace-dirs";
import { refusalError, RequestError } from "@/lib/request-error";
import { readBodyWithLimit, refuseBody, refuseForeignRequest } from "@/lib/security";
import { getUploads, type UploadFile } from "@/lib/uploads";

export const dynamic = "force-dynamic";

/** The header every upload sends: a cross-origin HTML form cannot set it (decision 0050). */
const UPLOAD_HEADER = "x-cairn-upload";

/**
 * POST a batch of documents to a dir (`?dir=user|company`), as `multipart/form-data` with
 * `file` parts and, in the same order, `name` fields (the relative path inside a dropped folder).
 * origin → header → actor → write permission → body (at most `CAIRN_UPLOAD_MAX_BATCH_BYTES`) →
 * per-file checks → one commit → conversion jobs. Answers `{ accepted, refused }` at once; the
 * conversions run on the job queue. Nothing of the body is read before the Actor is known and
 * allowed to write the dir.
 */
export async function POST(request: Request) {
  const refuse = (error: unknown) => refuseBody(request, errorResponse(error));
  const refused = refuseForeignRequest(request, { mediaType: "multipart/form-data" });
  if (refused) return refuse(refusalError(refused));
  if (request.headers.get(UPLOAD_HEADER) !== "1")
    return refuse(new RequestError("foreign", `Uploads must send the ${UPLOAD_HEADER} header.`));
  const actor = await getActor();
  if (!actor) return refuse(new RequestError("unauthenticated", "Sign in first."));
  const kind = new URL(request.url).searchParams.get("dir");
  const dirs = getPersistentDirs();
  const dir = dirs.listVisibleDirs({ actor }).find((candidate) => candidate.kind === kind);
  if (!dir) return refuse(new HarnessNotFoundError({ surface: "dir", message: "No such dir." }));
  try {
    dirs.assertCanWrite({ actor, harnessDir: dir.harnessDir });
  } catch (error) {
    return refuse(error);
  }
  const maxBytes = cairn().config.upload.maxBatchBytes;
  const body = await readBodyWithLimit(request, { maxBytes });
  if (body.status === "too_large") {
    return refuse(
      new RequestError(
        "too_large",
        `The upload is larger than ${formatBytes(maxBytes)}; send fewer files at once.`,
      ),
    );
  }
  let form: FormData;
  try {
    form = await new Response(body.bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    return errorResponse(new RequestError("invalid", "The upload could not be read."));
  }
  const parts = form.getAll("file");
  const names = form.getAll("name");
  const files: UploadFile[] = [];
  for (const [index, part] of parts.entries()) {
    if (typeof part === "string") continue;
    const name = names[index];
    files.push({
      name: typeof name === "string" && name !== "" ? name : part.name,
      bytes: new Uint8Array(await part.arrayBuffer()),
    });
  }
  if (files.length === 0)
    return errorResponse(new RequestError("invalid", "No files in the upload."));
  try {
    const result = await getUploads().uploadBatch({ actor, harnessDir: dir.harnessDir, files });
    return Response.json(result, { status: result.accepted.length > 0 ? 200 : 422 });
  } catch (error) {
    return errorResponse(error);
  }
}
