import { FileText, Folder } from "lucide-react";
import Link from "next/link";
import { cn } from "@/lib/utils";

/** One file as the tree shows it. */
export interface FileTreeItem {
  path: string;
  size: number;
  isText: boolean;
}

interface TreeNode {
  name: string;
  file?: FileTreeItem;
  children: Map<string, TreeNode>;
}

function buildTree(files: FileTreeItem[]): TreeNode {
  const root: TreeNode = { name: "", children: new Map() };
  for (const file of files) {
    let node = root;
    const segments = file.path.split("/");
    segments.forEach((segment, index) => {
      const key = index === segments.length - 1 ? `f:${segment}` : `d:${segment}`;
      let child = node.children.get(key);
      if (!child) {
        child = { name: segment, children: new Map() };
        node.children.set(key, child);
      }
      if (index === segments.length - 1) child.file = file;
      node = child;
    });
  }
  return root;
}

function sortedChildren(node: TreeNode): TreeNode[] {
  // Folders first, then files, each by name.
  return [...node.children.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, child]) => child);
}

function Branch(props: { node: TreeNode; dirKind: string; selectedPath: string | null }) {
  return (
    <ul className="space-y-0.5 pl-3 first:pl-0">
      {sortedChildren(props.node).map((child) =>
        child.file ? (
          <li key={`f:${child.name}`}>
            <Link
              href={`/files?dir=${props.dirKind}&path=${encodeURIComponent(child.file.path)}`}
              data-testid="file-link"
              data-path={child.file.path}
              aria-current={child.file.path === props.selectedPath ? "page" : undefined}
              className={cn(
                "hover:bg-muted flex items-center gap-1.5 rounded px-1.5 py-0.5 text-sm",
                child.file.path === props.selectedPath && "bg-muted font-medium",
              )}
            >
              <FileText className="size-3.5 shrink-0" />
              <span className="truncate">{child.name}</span>
            </Link>
          </li>
        ) : (
          <li key={`d:${child.name}`}>
            <span className="text-muted-foreground flex items-center gap-1.5 px-1.5 py-0.5 text-sm">
              <Folder className="size-3.5 shrink-0" />
              {child.name}
            </span>
            <Branch node={child} dirKind={props.dirKind} selectedPath={props.selectedPath} />
          </li>
        ),
      )}
    </ul>
  );
}

/** The files of a dir as a folder tree; each file links to the viewer. */
export function FileTree(props: {
  dirKind: string;
  files: FileTreeItem[];
  selectedPath: string | null;
}) {
  if (props.files.length === 0) {
    return (
      <p className="text-muted-foreground text-sm" data-testid="file-tree-empty">
        No files yet.
      </p>
    );
  }
  return (
    <div data-testid="file-tree">
      <Branch
        node={buildTree(props.files)}
        dirKind={props.dirKind}
        selectedPath={props.selectedPath}
      />
    </div>
  );
}
