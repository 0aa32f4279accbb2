import { describe, expect, it } from 'vitest';
import { LatestWhenIdle } from './latest-when-idle';

describe('LatestWhenIdle', () => {
  it('applies a value at once when nothing is being answered', () => {
    const applied: string[] = [];
    const gate = new LatestWhenIdle<string>((value) => applied.push(value));
    gate.offer('m');
    expect(applied).toEqual(['m']);
    gate.answered();
    gate.offer('mi');
    expect(applied).toEqual(['m', 'mi']);
  });

  it('while one is answered, keeps only the newest value and applies it when the answer comes', () => {
    const applied: string[] = [];
    const gate = new LatestWhenIdle<string>((value) => applied.push(value));
    gate.offer('m');
    gate.offer('mi');
    gate.offer('mic');
    gate.offer('micr');
    expect(applied).toEqual(['m']);
    gate.answered();
    expect(applied).toEqual(['m', 'micr']);
    gate.answered();
    expect(applied).toEqual(['m', 'micr']);
  });

  it('applies a choice at once, dropping text still waiting', () => {
    const applied: string[] = [];
    const gate = new LatestWhenIdle<string>((value) => applied.push(value));
    gate.offer('m');
    gate.offer('mi');
    gate.now('SEK');
    gate.answered();
    gate.answered();
    expect(applied).toEqual(['m', 'SEK']);
  });

  it('applies nothing more once disposed', () => {
    const applied: string[] = [];
    const gate = new LatestWhenIdle<string>((value) => applied.push(value));
    gate.offer('m');
    gate.offer('mi');
    gate.dispose();
    gate.answered();
    expect(applied).toEqual(['m']);
  });
});
