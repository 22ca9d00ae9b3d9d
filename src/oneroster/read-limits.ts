// How many records a whole-collection read asks for per page and how many pages it keeps in flight: the
// defaults and bounds of --page-size and --concurrency, shared by the commands and the audit doctor runs.
export const DEFAULT_PAGE_SIZE = 1000;
export const MAX_PAGE_SIZE = 10_000;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 8;
