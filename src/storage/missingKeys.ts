import type { SiteStore } from './siteStore.js';

/** The keys the store does not have, listing each folder they are in once (not a read per key). */
export async function missingKeys(store: Pick<SiteStore, 'list'>, keys: readonly string[]): Promise<string[]> {
  const folders = new Map<string, string[]>();
  for (const key of keys) {
    const folder = key.slice(0, key.lastIndexOf('/') + 1);
    const wanted = folders.get(folder);
    if (wanted) wanted.push(key);
    else folders.set(folder, [key]);
  }
  const missing: string[] = [];
  for (const [folder, wanted] of folders) {
    const present = new Set(await store.list(folder));
    missing.push(...wanted.filter((key) => !present.has(key)));
  }
  return missing;
}
