/**
 * The keys of the report tree's rows, which the viewer gives, the renderer opens and closes, and the month close
 * points at ("Show in report"): a letter for the level and what the row stands for. An organization row is one per
 * currency pair. The ledger builds the same keys in SQL (treeKeySql in core/ledger/keys.ts, from TREE_LEVEL).
 */
export const TREE_LEVEL = {
  organization: 'o',
  service: 's',
  subscription: 'u',
  line: 'l',
  /** The tree by service: a service at the top (per currency pair), an organization under it. */
  serviceTop: 'v',
  organizationUnderService: 'vo',
} as const;
export type TreeLevel = keyof typeof TREE_LEVEL;

export function treeKey(level: Exclude<TreeLevel, 'organization'>, id: string | number): string {
  return `${TREE_LEVEL[level]}:${id}`;
}

/** An organization's row: the organization (its key) in one currency pair. */
export function organizationTreeKey(orgKey: string, currencyKey: string): string {
  return `${TREE_LEVEL.organization}:${orgKey}|${currencyKey}`;
}

/** What a key of `level` stands for, or null when the key is of another level. */
export function treeKeyId(level: TreeLevel, key: string): string | null {
  const prefix = `${TREE_LEVEL[level]}:`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : null;
}
