export const NAV_ITEMS = [
  { href: "/", label: "Overview" },
  { href: "/records", label: "Records" },
  { href: "/lookup", label: "Lookup" },
  { href: "/stuck", label: "Stuck" },
  { href: "/metrics", label: "Metrics" },
  { href: "/tools", label: "Tools" },
  { href: "/keys", label: "Keys" },
  { href: "/audit", label: "Audit" },
] as const;
