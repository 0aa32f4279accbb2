import { describe, expect, it } from 'vitest';
import { organizationTreeKey, treeKey, treeKeyId } from './tree-keys';

describe('the keys of the report tree', () => {
  it('name a row by its level and what it stands for, and read back what a key of a level stands for', () => {
    expect(organizationTreeKey('org-1', 'USD→SEK')).toBe('o:org-1|USD→SEK');
    expect(treeKey('service', 12)).toBe('s:12');
    expect(treeKey('subscription', '7')).toBe('u:7');
    expect(treeKeyId('service', 's:12,13')).toBe('12,13');
    expect(treeKeyId('subscription', 's:12')).toBeNull();
  });
});
