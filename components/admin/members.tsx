"use client";

import { useState } from "react";
import {
  changeRoleAction,
  createInviteAction,
  removeMemberAction,
  revokeInviteAction,
} from "@/app/(app)/admin/members/actions";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { FormMessage } from "@/components/ui/form-message";
import { Input, Select } from "@/components/ui/input";
import { useAction } from "@/lib/actions/use-action";
import type { Role } from "@/lib/harness";

const roles = ["member", "editor", "admin"] as const;

export function InviteCreator() {
  const [role, setRole] = useState<Role>("member");
  // Every link made on this visit, newest first: the server keeps only a hash of each token, so a
  // link cannot be shown again later, and a new invite must not hide the previous one.
  const [links, setLinks] = useState<{ url: string; role: string }[]>([]);
  const link = links[0] ?? null;
  const { pending, error, run } = useAction();
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2">
        <Select
          aria-label="Invite role"
          data-testid="invite-role"
          value={role}
          onChange={(e) => setRole(e.target.value as Role)}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        <Button
          data-testid="create-invite"
          disabled={pending}
          onClick={() =>
            run(() => createInviteAction({ role }), {
              onSuccess: ({ inviteToken }) =>
                setLinks((previous) => [
                  { url: `${window.location.origin}/sign-up?invite=${inviteToken}`, role },
                  ...previous,
                ]),
            })
          }
        >
          Create invite link
        </Button>
      </div>
      {link ? (
        <div className="space-y-1">
          <p className="text-muted-foreground text-sm">
            Share this {link.role} invite. It works once and expires in 7 days. Copy it now: it is
            not shown again after you leave this page.
          </p>
          <div className="flex items-center gap-1">
            <Input
              readOnly
              value={link.url}
              data-testid="invite-link"
              onFocus={(e) => e.target.select()}
            />
            <CopyButton text={link.url} label="Copy invite link" testId="copy-invite-link" />
          </div>
          {links.length > 1 ? (
            <details className="text-sm">
              <summary className="text-muted-foreground cursor-pointer">
                Earlier links made on this visit ({links.length - 1})
              </summary>
              <ul className="mt-1 space-y-1">
                {links.slice(1).map((earlier) => (
                  <li key={earlier.url} className="flex items-center gap-1">
                    <span className="text-muted-foreground w-14 shrink-0 text-xs">
                      {earlier.role}
                    </span>
                    <Input readOnly value={earlier.url} data-testid="earlier-invite-link" />
                    <CopyButton text={earlier.url} label="Copy invite link" />
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      ) : null}
      <FormMessage message={error} />
    </div>
  );
}

export function MemberRow(props: {
  membershipId: string;
  name: string;
  email: string;
  role: string;
  isSelf: boolean;
}) {
  const { pending, error, run } = useAction();
  return (
    <tr
      className="border-border border-t"
      data-testid={`member-${props.email}`}
      data-membership-id={props.membershipId}
    >
      <td data-label="Name" className="py-2">
        {props.name}
        {props.isSelf ? <span className="text-muted-foreground"> (you)</span> : null}
      </td>
      <td data-label="Email">{props.email}</td>
      <td data-label="Role">
        <Select
          aria-label={`Role of ${props.email}`}
          data-testid="member-role"
          defaultValue={props.role}
          disabled={pending}
          onChange={(e) => {
            const role = e.target.value as Role;
            run(() => changeRoleAction({ membershipId: props.membershipId, role }));
          }}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        <FormMessage message={error} />
      </td>
      <td className="text-right">
        <Button
          variant="ghost"
          size="sm"
          disabled={pending}
          data-testid="remove-member"
          onClick={() => {
            if (window.confirm(`Remove ${props.email} from this workspace?`)) {
              run(() => removeMemberAction({ membershipId: props.membershipId }));
            }
          }}
        >
          Remove
        </Button>
      </td>
    </tr>
  );
}

export function InviteRow(props: { inviteId: string; role: string; expiresAt: string }) {
  const { pending, run } = useAction();
  return (
    <li className="flex items-center justify-between gap-2">
      <span>
        {props.role} invite · expires {new Date(props.expiresAt).toLocaleString()}
      </span>
      <Button
        variant="ghost"
        size="sm"
        disabled={pending}
        onClick={() => run(() => revokeInviteAction({ inviteId: props.inviteId }))}
      >
        Revoke
      </Button>
    </li>
  );
}
