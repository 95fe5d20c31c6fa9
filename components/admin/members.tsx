"use client";

import { useState } from "react";
import {
  changeRoleAction,
  createInviteAction,
  removeMemberAction,
  erasePersonAction,
  revokeInviteAction,
} from "@/app/(app)/admin/members/actions";
import { Button } from "@/components/ui/button";
import { ConfirmActionButton } from "@/components/ui/confirm-action-button";
import { CopyButton } from "@/components/ui/copy-button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input, Select } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import type { Role } from "@/lib/harness";

const roles = ["member", "editor", "admin"] as const;

/** A UTC timestamp the server and the browser render alike (no hydration mismatch). */
function utc(iso: string): string {
  return `${iso.replace("T", " ").slice(0, 16)} UTC`;
}

export function InviteCreator() {
  const [role, setRole] = useState<Role>("member");
  const [note, setNote] = useState("");
  // Every link made on this visit, newest first: the server keeps only a hash of each token, so a
  // link cannot be shown again later, and a new invite must not hide the previous one.
  const [links, setLinks] = useState<{ url: string; role: string; note: string }[]>([]);
  const { pending, error, run } = useAction();
  return (
    <div className="space-y-3">
      <Form
        className="flex flex-wrap items-end gap-2"
        onSubmit={() => {
          const forWhom = note.trim();
          run(() => createInviteAction({ role, note: forWhom }), {
            onSuccess: ({ inviteToken }) => {
              setLinks((previous) => [
                {
                  url: `${window.location.origin}/sign-up?invite=${inviteToken}`,
                  role,
                  note: forWhom,
                },
                ...previous,
              ]);
              setNote("");
            },
          });
        }}
      >
        <div className="grid w-full min-w-0 gap-1 sm:w-auto sm:max-w-xs sm:flex-1">
          <Label htmlFor="invite-note">For whom (optional)</Label>
          <Input
            id="invite-note"
            data-testid="invite-note"
            placeholder="Name or email, for your own reference"
            maxLength={200}
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
        </div>
        <div className="grid gap-1">
          <Label htmlFor="invite-role">Role</Label>
          <Select
            id="invite-role"
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
        </div>
        <Button type="submit" data-testid="create-invite" disabled={pending}>
          Create invite link
        </Button>
      </Form>
      {links.length > 0 ? (
        <div className="space-y-2" data-testid="new-invite-links">
          <p className="text-muted-foreground text-sm">
            Each link works once and expires in 7 days. Copy it now: it is not shown again after you
            leave this page (the invite stays listed under Open invites).
          </p>
          <ul className="space-y-2">
            {links.map((link, index) => (
              <li key={link.url} className="space-y-1" data-testid="new-invite">
                <div className="text-sm">
                  <span className="font-medium">{link.note || "Invite"}</span>
                  <span className="text-muted-foreground"> · {link.role}</span>
                  {index === 0 ? (
                    <span className="text-muted-foreground"> · just created</span>
                  ) : null}
                </div>
                <div className="flex items-center gap-1">
                  <Input
                    readOnly
                    aria-label={`Invite link${link.note ? ` for ${link.note}` : ""}`}
                    value={link.url}
                    data-testid="invite-link"
                    onFocus={(e) => e.target.select()}
                  />
                  <CopyButton text={link.url} label="Copy invite link" testId="copy-invite-link" />
                </div>
              </li>
            ))}
          </ul>
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
  // One action for the row: its controls wait for each other and share the message below the role.
  const action = useAction();
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
          disabled={action.pending}
          onChange={(e) => {
            const role = e.target.value as Role;
            action.run(() => changeRoleAction({ membershipId: props.membershipId, role }));
          }}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </Select>
        <FormMessage message={action.error} />
      </td>
      <td className="text-right">
        <ConfirmActionButton
          action={action}
          variant="ghost"
          data-testid="remove-member"
          confirm={`Remove ${props.email} from this workspace?`}
          call={() => removeMemberAction({ membershipId: props.membershipId })}
        >
          Remove
        </ConfirmActionButton>
        {props.isSelf ? null : (
          <ConfirmActionButton
            action={action}
            variant="ghost"
            className="text-red-700 dark:text-red-400"
            data-testid="erase-member"
            confirm={`Erase ${props.email}? Their chats, chat notes and exports in this workspace are deleted, and — if this is their only workspace — their memory with its history and their account. What they added to company knowledge stays, shown as by “a former member”. This cannot be undone.`}
            call={() => erasePersonAction({ membershipId: props.membershipId })}
          >
            Erase
          </ConfirmActionButton>
        )}
      </td>
    </tr>
  );
}

export function InviteRow(props: {
  inviteId: string;
  role: string;
  note: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}) {
  return (
    <tr className="border-border border-t" data-testid="open-invite">
      <td data-label="For" className="py-2">
        {props.note || <span className="text-muted-foreground">(no note)</span>}
      </td>
      <td data-label="Role">{props.role}</td>
      <td data-label="Created" className="text-muted-foreground">
        {utc(props.createdAt)} by {props.createdBy}
      </td>
      <td data-label="Expires" className="text-muted-foreground">
        {utc(props.expiresAt)}
      </td>
      <td className="text-right">
        <ConfirmActionButton
          variant="ghost"
          data-testid="revoke-invite"
          confirm={`Revoke the ${props.role} invite${props.note ? ` for ${props.note}` : ""}? Its link stops working.`}
          call={() => revokeInviteAction({ inviteId: props.inviteId })}
        >
          Revoke
        </ConfirmActionButton>
      </td>
    </tr>
  );
}
