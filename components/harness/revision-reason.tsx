import Link from "next/link";

/** Ids the core writes into revision reasons ("Rollback of refinement <id>", "… <id>: …"). */
const REFINEMENT_ID = /\brefinement ([A-Za-z0-9-]{8,})/;

/**
 * A revision's reason in words: a refinement named by its raw id becomes a link to its page
 * ("Rollback of a refinement"), so nobody has to read or copy an id.
 */
export function RevisionReason({ reason }: { reason: string }) {
  if (!reason) return <>—</>;
  const match = REFINEMENT_ID.exec(reason);
  if (!match) return <>{reason}</>;
  const before = reason.slice(0, match.index);
  const after = reason.slice(match.index + match[0].length);
  return (
    <>
      {before}
      <Link className="underline" href={`/refinements/${match[1]}`}>
        a refinement
      </Link>
      {after}
    </>
  );
}
