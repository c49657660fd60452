import { NothingHere } from "@/components/ui/nothing-here";

/** Inside the console's shell, whose <main> already holds the page: the card alone (a second main fails axe). */
export default function ConsoleNotFound() {
  return (
    <div className="flex justify-center py-16">
      <NothingHere />
    </div>
  );
}
