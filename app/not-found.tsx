import { NothingHere } from "@/components/ui/nothing-here";

export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <NothingHere />
    </main>
  );
}
