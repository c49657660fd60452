import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { getRecordFacets, type FacetOptions, type RecordFacets } from "@/lib/records/facet-counts";
import { formatInstant } from "@/lib/url-state/time-range";
import {
  filterToParams,
  pageLinks,
  type PageDirection,
  type PageLinks,
  type PageSize,
  type RecordsQuery,
} from "@/lib/records/list-filters";
import { listRecords, type RecordListItem } from "@/lib/records/list-records";

/** The records list as the page and GET /api/v1/records both serve it: one page, its facets, links. */
export type RecordsListing = {
  filter: {
    tenant: string | null;
    subject: string | null;
    tool: string | null;
    status: string | null;
    stuck: boolean;
    field: { label: string; value: string } | null;
    from: string | null;
    to: string | null;
  };
  records: RecordListItem[];
  page: {
    limit: PageSize;
    dir: PageDirection;
    nextCursor: string | null;
    prevCursor: string | null;
    /** Query strings ("?tenant=acme&cursor=…") of the neighbouring pages and the first page. */
    links: PageLinks;
  };
  facets: RecordFacets;
  generatedAt: string;
};

export async function loadRecordsListing(
  db: Db,
  actor: Actor,
  query: RecordsQuery,
  config: IdemConfig,
  now: Date,
  facetOptions?: FacetOptions,
): Promise<RecordsListing> {
  const [page, facets] = await Promise.all([
    listRecords(db, actor, query, config, now),
    getRecordFacets(db, actor, query, config, now, facetOptions),
  ]);
  const base = { ...filterToParams(query), limit: query.limit };
  return {
    filter: {
      tenant: query.tenant,
      subject: query.subject,
      tool: query.tool,
      status: query.status,
      stuck: query.stuck,
      field: query.field,
      from: query.from ? formatInstant(query.from) : null,
      to: query.to ? formatInstant(query.to) : null,
    },
    records: page.records,
    page: {
      limit: query.limit,
      dir: query.dir,
      nextCursor: page.nextCursor,
      prevCursor: page.prevCursor,
      links: pageLinks(base, page),
    },
    facets,
    generatedAt: now.toISOString(),
  };
}
