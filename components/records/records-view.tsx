import { ExportButtons } from "@/components/records/export-buttons";
import { FacetChips } from "@/components/records/facet-chips";
import { RecordsEmptyState } from "@/components/records/records-empty-state";
import { RecordsFilterBar } from "@/components/records/records-filter-bar";
import { PageSizeSelect } from "@/components/records/page-size-select";
import { RecordsTable } from "@/components/records/records-table";
import { SearchFieldChip } from "@/components/records/search-field-chip";
import { KeysetPager } from "@/components/ui/keyset-pager";
import { PhoneDisclosure } from "@/components/ui/phone-disclosure";
import {
  activeFilterCount,
  describeFilter,
  filterToParams,
  serializeRecordsParams,
  type RecordsQuery,
} from "@/lib/records/list-filters";
import type { RecordsListing } from "@/lib/records/records-listing";

type Props = {
  query: RecordsQuery;
  listing: RecordsListing;
  configuredTools: string[];
  tenantChoices: string[] | null;
  exportMaxRows: number;
  /** Searchable response fields idem.config.json names; none when not given. */
  searchLabels?: string[];
};

/** The records page below its header: filters, counts, export, the table, the pager. */
export function RecordsView({
  query,
  listing,
  configuredTools,
  tenantChoices,
  exportMaxRows,
  searchLabels = [],
}: Props) {
  const countedTools = listing.facets.tool.entries.flatMap((e) => (e.value === null ? [] : [e.value]));
  const links = listing.page.links;
  const countedStatuses = listing.facets.status.entries.flatMap((e) => (e.value === null ? [] : [e.value]));
  return (
    <>
      {/* Below md the form folds behind "Filters (n)": a phone's first screen shows records, not filters. */}
      <PhoneDisclosure
        id="records-filters"
        label={`Filters (${activeFilterCount(query)})`}
        buttonTestId="records-filters-toggle"
      >
        <RecordsFilterBar
          tools={[...new Set([...configuredTools, ...countedTools])]}
          statuses={countedStatuses}
          tenantChoices={tenantChoices}
          searchLabels={searchLabels}
        />
      </PhoneDisclosure>
      <div className="mb-4 flex flex-wrap items-start gap-4">
        <div className="flex flex-col gap-2">
          <SearchFieldChip query={query} />
          <FacetChips query={query} status={listing.facets.status} tool={listing.facets.tool} />
        </div>
        <div className="ml-auto">
          <ExportButtons filterQuery={serializeRecordsParams(filterToParams(query))} maxRows={exportMaxRows} />
        </div>
      </div>
      {listing.records.length > 0 ? (
        <RecordsTable records={listing.records} now={listing.generatedAt} />
      ) : (
        <RecordsEmptyState
          filterWords={describeFilter(query)}
          pastEnd={query.cursor !== null}
          firstPage={listing.page.links.first}
        />
      )}
      <KeysetPager
        newest={links.prev ? `/records${links.first}` : null}
        newer={links.prev ? `/records${links.prev}` : null}
        older={links.next ? `/records${links.next}` : null}
        summary={`${listing.records.length.toLocaleString("en")} on this page${links.prev ? "" : ", starting at the newest"}`}
        testId="records-pager"
      >
        <PageSizeSelect />
      </KeysetPager>
    </>
  );
}
