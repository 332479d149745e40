import { distance } from 'fastest-levenshtein';

/**
 * The known ids nearest to a mistyped one (at most three): within a few edits, or sharing its
 * prefix up to the last separator (`django__django-1234` for `django__django-12345`).
 */
export function closestIds(wanted: string, known: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(wanted.length / 5));
  const lower = wanted.toLowerCase();
  return known
    .map((id) => ({ id, d: distance(lower, id.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id))
    .slice(0, 3)
    .map(({ id }) => id);
}

/** "unknown task X" plus the nearest ids, for messages. */
export function didYouMean(wanted: string, known: readonly string[]): string {
  const near = closestIds(wanted, known);
  return near.length ? ` (did you mean ${near.join(' or ')}?)` : '';
}
