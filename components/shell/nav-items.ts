export const NAV_ITEMS = [
  { href: "/", label: "Overview" },
  { href: "/records", label: "Records" },
  { href: "/lookup", label: "Lookup" },
  { href: "/stuck", label: "Stuck" },
  { href: "/metrics", label: "Metrics" },
  // The page's h1 is longer than the side bar has room for.
  { href: "/duplicates", label: "Duplicates", heading: "Duplicates that got through" },
  { href: "/tools", label: "Tools" },
  { href: "/keys", label: "Keys" },
  { href: "/audit", label: "Audit" },
] as const;
