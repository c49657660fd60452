"use client";

import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";

export function SignOutButton() {
  return (
    <Button
      variant="secondary"
      size="md"
      className="shrink-0 px-2.5 py-1 font-normal"
      onClick={() => void signOut({ callbackUrl: "/sign-in" })}
    >
      Sign out
    </Button>
  );
}
