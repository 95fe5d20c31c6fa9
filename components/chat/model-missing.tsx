import Link from "next/link";

/** Where an admin connects a model. */
export const CONNECT_MODEL_HREF = "/admin/settings#model";

/**
 * Above a chat when no model can answer: history stays readable and messages wait. Admins get
 * what went wrong and a link to connect a model; everyone else whom to ask, never configuration.
 */
export function ModelMissingNotice({ isAdmin, detail }: { isAdmin: boolean; detail: string }) {
  return (
    <div
      className="space-y-1 rounded-lg border border-amber-500/50 p-3 text-sm"
      data-testid="model-unavailable"
      role="status"
    >
      <p className="font-medium">No model is connected, so replies cannot be written yet.</p>
      {isAdmin ? (
        <p>
          {detail}{" "}
          <Link className="underline" href={CONNECT_MODEL_HREF} data-testid="connect-model-link">
            Connect a model
          </Link>
        </p>
      ) : (
        <p>
          You can read this chat and write: messages are kept and can be sent once a model is
          connected. Ask an admin to connect a model.
        </p>
      )}
    </div>
  );
}
