// The three sources (docs/api.md#jobs). These strings are part of the public API and of the queue names.
export const SOURCES = ['google_maps', 'linkedin', 'shopify'] as const;
export type Source = (typeof SOURCES)[number];

export const DEFAULT_SOURCE: Source = 'google_maps';
