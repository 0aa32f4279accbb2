import { describe, expect, it } from 'vitest';
import { filterIdentity, isEmptyFilter } from './report-filter';

describe('a report filter', () => {
  it('has one identity whatever the order or absence of its fields, and text counts trimmed', () => {
    expect(filterIdentity({ group: 'A', text: ' x ' })).toBe(filterIdentity({ text: 'x', group: 'A', currency: undefined }));
    expect(filterIdentity({ group: 'A' })).not.toBe(filterIdentity({ service: 'A' }));
    expect(filterIdentity({})).toBe(filterIdentity({ organization: '  ', ungrouped: false }));
    expect(isEmptyFilter({ organization: '  ', ungrouped: false })).toBe(true);
    expect(isEmptyFilter({ ungrouped: true })).toBe(false);
  });
});
