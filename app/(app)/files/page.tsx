import { EmptyState } from "@/components/empty-state";

export default function FilesPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Files</h1>
      <EmptyState title="Nothing here yet">
        Persistent dirs — your memory and the company knowledge — will be browsable here.
      </EmptyState>
    </div>
  );
}
