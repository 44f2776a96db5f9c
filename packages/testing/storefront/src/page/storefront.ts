// The storefront's script, as a shop's front-end developer writes it from InstantSearch's and
// instant-meilisearch's guides: only the host, the search key and the index come from the page's
// address. Runs in the browser (bundled by ../build.ts).
import { instantMeiliSearch } from "@meilisearch/instant-meilisearch";
import instantsearch from "instantsearch.js";
import type { Hit } from "instantsearch.js/es/types/results.js";
import type { TemplateParams } from "instantsearch.js/es/types/templates.js";
import {
  configure,
  hits,
  pagination,
  refinementList,
  searchBox,
  sortBy,
} from "instantsearch.js/es/widgets/index.js";

const params = new URLSearchParams(location.search);
const host = params.get("host") ?? "";
const apiKey = params.get("key") ?? "";
const indexName = params.get("index") ?? "products";

const { searchClient } = instantMeiliSearch(host, apiKey, { placeholderSearch: true });
const search = instantsearch({ indexName, searchClient });

const errors = document.getElementById("errors") as HTMLElement;
search.on("error", (event: { error?: unknown }) => {
  const error = event.error as { message?: string; httpStatus?: number } | undefined;
  const line = document.createElement("li");
  line.textContent = `${error?.httpStatus ?? ""} ${error?.message ?? String(event.error)}`.trim();
  errors.append(line);
});

search.addWidgets([
  configure({ hitsPerPage: 5 }),
  searchBox({ container: "#searchbox", placeholder: "Search products" }),
  sortBy({
    container: "#sort",
    items: [
      { label: "Relevance", value: indexName },
      { label: "Price: low to high", value: `${indexName}:price:asc` },
      { label: "Price: high to low", value: `${indexName}:price:desc` },
    ],
  }),
  refinementList({ container: "#categories", attribute: "category", searchable: true, limit: 10 }),
  hits({
    container: "#hits",
    templates: {
      item: (hit: Hit, { html }: TemplateParams) =>
        html`<span class="title">${String(hit.title)}</span> <span class="category">${String(hit.category)}</span> <span class="price">${String(hit.price)}</span>`,
    },
  }),
  pagination({ container: "#pagination" }),
]);
// What a test waits for before it reads the page: every render (and every failed search) counted,
// with InstantSearch's status at that moment.
const rendered = () => {
  document.body.dataset.renders = String(Number(document.body.dataset.renders ?? "0") + 1);
  document.body.dataset.status = search.status;
};
search.on("render", rendered);
search.on("error", rendered);
search.start();
