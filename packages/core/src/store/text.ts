// Search-text normalisation lives in `@mem/store-spec` (adapters index the same words; issue 35).
export { searchText, searchTextSlow, searchTokens, docTokens, ftsMatchQuery, PRIVATE_USE } from '@mem/store-spec';
