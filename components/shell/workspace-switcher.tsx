import { switchWorkspaceAction } from "@/app/(app)/workspace-actions";
import { Button } from "@/components/ui/button";

/**
 * When the user belongs to several workspaces, a form to switch between them (works without
 * JavaScript). Roles are per workspace: the role badge changes with it.
 */
export function WorkspaceSwitcher(props: {
  workspaces: { id: string; name: string; current: boolean }[];
}) {
  const current = props.workspaces.find((workspace) => workspace.current);
  if (props.workspaces.length < 2) return null;
  return (
    <form action={switchWorkspaceAction} className="flex items-center gap-1">
      <select
        name="workspaceId"
        aria-label="Workspace"
        defaultValue={current?.id}
        data-testid="workspace-select"
        className="border-border h-8 rounded-md border bg-transparent px-2 text-sm"
      >
        {props.workspaces.map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspace.name}
          </option>
        ))}
      </select>
      <Button type="submit" variant="outline" size="sm" data-testid="switch-workspace">
        Switch
      </Button>
    </form>
  );
}
